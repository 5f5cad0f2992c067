// A grid-stride loop (for (i = global id; i < limit; i += blockDim.x *
// gridDim.x)) whose accesses are checked once before it, through the loop's
// own test i < limit (test/lit/pass/hoist_cuda.test: what the compiler made
// of it): 4 blocks of 64 threads walk x and y at a stride of 256 elements.
// With 'bug' the bound is one element past the end: in its last trip thread
// 40 of block 3 reads x[1000], 0 bytes after the 4000-byte x, and writes
// y[1000]. Its loop's range test fails, the thread runs the checked copies
// of the accesses, and the reports name each access's own line and the
// thread, as a check in every iteration would.
// RUN: %gpubin/oob_grid_stride bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_grid_stride fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// Correct programs compute bit for bit what the plain build does:
// RUN: %gpubin/oob_grid_stride.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void gridStride(float *y, const float *x, int limit) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < limit; i += blockDim.x * gridDim.x) {
    float v = x[i]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'gridStride(float*, float const*, int)' at {{.*}}oob_grid_stride.cu:[[@LINE]]
    // CHECK: first by block (3,0,0) thread (40,0,0)
    // CHECK: is 0 bytes after the 4000-byte buffer
    y[i] = 2.0f * v + 1.0f; // CHECK: ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'gridStride(float*, float const*, int)' at {{.*}}oob_grid_stride.cu:[[@LINE]]
    // CHECK: first by block (3,0,0) thread (40,0,0)
    // CHECK: is 0 bytes after the 4000-byte buffer
  }
}
// CHECK: SUMMARY: kosan:
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = 0.25f * i - 7.0f;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  gridStride<<<4, 64>>>(y, x, isBug(argc, argv) ? n + 1 : n);
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
