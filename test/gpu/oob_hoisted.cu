// A loop whose accesses are checked once before it (a constant stride and
// a bounded trip count; test/lit/pass/hoist_cuda.test: what the compiler
// made of it): each thread walks x and y at a stride of 256 elements. With
// 'bug' the walk's bound is one element past the end: in its last trip
// thread 232 reads x[1000], 0 bytes after the 4000-byte x, and writes
// y[1000]. Its loop's range test fails, the thread runs the checked copies
// of the accesses, and the reports name each access's own line and the
// thread, as a check in every iteration would.
// RUN: %gpubin/oob_hoisted bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_hoisted fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// Correct programs compute bit for bit what the plain build does:
// RUN: %gpubin/oob_hoisted.plain fixed > %t.plain; diff %t.fixed %t.plain
// halt_on_error stops at the first bad access:
// RUN: env KOSAN_OPTIONS=halt_on_error=1 not %gpubin/oob_hoisted bug 2>&1 | FileCheck --check-prefix=HALT %s
// REQUIRES: gpu
#include "common.h"

__global__ void strided(float *y, const float *x, int limit) {
  for (int i = threadIdx.x; i < limit; i += 256) {
    float v = x[i]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'strided(float*, float const*, int)' at {{.*}}oob_hoisted.cu:[[@LINE]]
    // CHECK: first by block (0,0,0) thread (232,0,0)
    // CHECK: is 0 bytes after the 4000-byte buffer
    // HALT: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'strided(float*, float const*, int)' at {{.*}}oob_hoisted.cu:[[@LINE-3]]
    // HALT: first by block (0,0,0) thread (232,0,0)
    y[i] = 2.0f * v + 1.0f; // CHECK: ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'strided(float*, float const*, int)' at {{.*}}oob_hoisted.cu:[[@LINE]]
    // CHECK: first by block (0,0,0) thread (232,0,0)
    // CHECK: is 0 bytes after the 4000-byte buffer
  }
}
// CHECK: SUMMARY: kosan:
// FIXED-NOT: kosan
// HALT: halt_on_error=1

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = 0.25f * i - 7.0f;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  strided<<<1, 256>>>(y, x, isBug(argc, argv) ? n + 1 : n);
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
