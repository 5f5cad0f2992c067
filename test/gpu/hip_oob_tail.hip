// HIP: a two-point stencil whose off-by-one bound lets the last thread read
// one element past the end of a hipMalloc'd buffer; launched with
// hipLaunchKernelGGL.
// RUN: %gpubin/hip_oob_tail bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/hip_oob_tail fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// RUN: %gpubin/hip_oob_tail.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: FileCheck --check-prefix=STDOUT %s < %t.out
// REQUIRES: gpu
#include "hip_common.h"

__global__ void pair_sum(float *y, const float *x, int n, bool bug) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (bug ? i < n : i < n - 1)
    y[i] = x[i] + x[i + 1]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'pair_sum(float*, float const*, int, bool)' at {{.*}}hip_oob_tail.hip:[[@LINE]]
}
// CHECK: first by block (3,0,0) thread (231,0,0)
// CHECK: is 0 bytes after the 4000-byte buffer 'x'
// CHECK: allocated at {{.*}}hip_oob_tail.hip:[[@LINE+15]]
// CHECK: SUMMARY: kosan: global-buffer-overflow {{.*}}hip_oob_tail.hip:[[@LINE-5]]
// FIXED-NOT: kosan
// STDOUT-NOT: kosan
// STDOUT: y checksum

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = 0.5f * i - 3.0f;
    hy[i] = 1.0f;
  }
  float *x, *y;
  CHECK_HIP(hipMalloc(&y, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&x, n * sizeof(float)));
  CHECK_HIP(hipMemcpy(x, hx.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(y, hy.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(pair_sum, dim3(4), dim3(256), 0, 0, y, x, n, isBug(argc, argv));
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(hy.data(), y, n * sizeof(float), hipMemcpyDeviceToHost));
  printChecksum("y", hy);
  CHECK_HIP(hipFree(x));
  CHECK_HIP(hipFree(y));
  return 0;
}
