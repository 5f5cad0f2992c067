// Off-by-one tail: the bound test lets one thread past the end of y.
// RUN: %gpubin/oob_tail bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_tail_O0 bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_tail fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// RUN: %gpubin/oob_tail.plain fixed > %t.plain; diff %t.fixed %t.plain
// Reports go to stderr, never stdout, and leave the exit status alone:
// RUN: FileCheck --check-prefix=STDOUT %s < %t.out
// With checks off the program runs the uninstrumented kernel: no report.
// RUN: env KOSAN_OPTIONS=checks=none %gpubin/oob_tail bug 2>&1 | FileCheck --check-prefix=OFF --allow-empty %s
// error_exitcode:
// RUN: sh -c 'KOSAN_OPTIONS=error_exitcode=42 %gpubin/oob_tail bug > /dev/null 2>&1; test $? -eq 42'
// RUN: env KOSAN_OPTIONS=error_exitcode=42 %gpubin/oob_tail fixed
// halt_on_error traps the kernel at the first error:
// RUN: env KOSAN_OPTIONS=halt_on_error=1 not %gpubin/oob_tail bug 2>&1 | FileCheck --check-prefix=HALT %s
// log_path:
// RUN: rm -f %t.log.*; env KOSAN_OPTIONS=log_path=%t.log %gpubin/oob_tail bug 2> %t.nolog; cat %t.log.* | FileCheck %s
// RUN: FileCheck --check-prefix=OFF --allow-empty %s < %t.nolog
// trace + kosan-report:
// RUN: env KOSAN_OPTIONS=trace=%t.trace %gpubin/oob_tail bug > /dev/null 2>&1
// RUN: %kosan-report %t.trace | FileCheck --check-prefix=REPORT %s
// REQUIRES: gpu
#include "common.h"

__global__ void scale(float *y, const float *x, int n, bool bug) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (bug ? i <= n : i < n)
    y[i] = 2.0f * x[i]; // CHECK: ERROR: kosan: global-buffer-overflow: {{READ|WRITE}} of size 4 in kernel 'scale(float*, float const*, int, bool)' at {{.*}}oob_tail.cu:[[@LINE]]
}
// CHECK: first by block (3,0,0) thread (232,0,0)
// CHECK: is 0 bytes after the 4000-byte buffer
// CHECK: SUMMARY: kosan: global-buffer-overflow {{.*}}oob_tail.cu:[[@LINE-4]]
// FIXED-NOT: kosan
// OFF-NOT: ERROR: kosan
// STDOUT-NOT: kosan
// STDOUT: y checksum
// HALT: ERROR: kosan: global-buffer-overflow
// HALT: halt_on_error=1
// REPORT: launch
// REPORT: scale(float*, float const*, int, bool)
// REPORT: ERROR: kosan: global-buffer-overflow

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = 0.5f * i - 3.0f;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale<<<4, 256>>>(y, x, n, isBug(argc, argv));
  CHECK_CUDA(cudaGetLastError());
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  CHECK_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", hy);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
