// Checks made once before a loop or once per group, whose reports must
// still name the one bad access exactly (test/lit/pass/hoist_cuda.test:
// what the compiler made of these kernels).
//
// tiled: a matmul-like loop over tiles of b, t += 8 while t < n. The
// shared store tile[ty][tx + shift] has the same address in every trip
// (checked once before the loop); b[(t + ty) * n + col] walks at the
// stride 8 * n (its first and last address are tested before the loop).
// With 'bug' b is one element short and shift is 1: thread (31,7) alone
// reads b[1023] in its last trip, 0 bytes after the 4092-byte b, and
// writes tile[7][32], 0 bytes after the 1024-byte tile; its range tests
// fail and its checked copies report both at their own lines.
// columns: in[(y + j) * n + x] for j = 0, 8, 16, 24 (unrolled) lie at the
// distances 8n, 16n, 24n: one group, checked at both ends. With 'bug' in
// is one element short: thread (31,7) alone reads in[1023] (j = 24), the
// group's last member, 0 bytes after the 4092-byte in.
// RUN: %gpubin/oob_tiles bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_tiles fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// Correct programs compute bit for bit what the plain build does:
// RUN: %gpubin/oob_tiles.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void tiled(float *c, const float *b, int n, int shift) {
  __shared__ float tile[8][32];
  int col = blockIdx.x * 32 + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += 8) {
    float v = b[(t + threadIdx.y) * n + col]; // CHECK-DAG: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'tiled(float*, float const*, int, int)' at {{.*}}oob_tiles.cu:[[@LINE]]
    tile[threadIdx.y][threadIdx.x + shift] = v; // CHECK-DAG: ERROR: kosan: shared-buffer-overflow: WRITE of size 4 in kernel 'tiled(float*, float const*, int, int)' at {{.*}}oob_tiles.cu:[[@LINE]]
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 8; ++k)
      acc += tile[k][threadIdx.x];
    __syncthreads();
  }
  c[threadIdx.y * n + col] = acc;
}
// CHECK-DAG: first by block (0,0,0) thread (31,7,0)
// CHECK-DAG: is 0 bytes after the 4092-byte buffer 'b'
// CHECK-DAG: is 0 bytes after the 1024-byte buffer '{{.*}}tile'

__global__ void columns(float *out, const float *in, int n) {
  int x = threadIdx.x, y = threadIdx.y;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 32; j += 8)
    s += float(j + 1) * in[(y + j) * n + x]; // CHECK-DAG: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'columns(float*, float const*, int)' at {{.*}}oob_tiles.cu:[[@LINE]]
  out[y * 32 + x] = s;
}
// CHECK-DAG: is 0 bytes after the 4092-byte buffer 'in'
// CHECK: SUMMARY: kosan:
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 32;
  bool bug = isBug(argc, argv);
  size_t elements = n * n - (bug ? 1 : 0);
  std::vector<float> h(elements);
  Lcg rng{7};
  for (float &v : h)
    v = rng.uniform() - 0.5f;
  float *b, *in, *c, *out;
  CHECK_CUDA(cudaMalloc(&b, elements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&in, elements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c, 8 * n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, 8 * n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(b, h.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(in, h.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  tiled<<<1, dim3(32, 8)>>>(c, b, n, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  columns<<<1, dim3(32, 8)>>>(out, in, n);
  CHECK_CUDA(cudaGetLastError());
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  std::vector<float> hc(8 * n), ho(8 * n);
  CHECK_CUDA(cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ho.data(), out, ho.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("c", hc);
  printChecksum("out", ho);
  cudaFree(b);
  cudaFree(in);
  cudaFree(c);
  cudaFree(out);
  return 0;
}
