// Copies of 16 bytes (a struct assignment, memmove inside shared memory) are
// checked as the load and the store the GPU runs: the struct copy one past
// the end of `in` is reported as a READ of 16 bytes at its line; the
// overlapping memmove keeps its meaning (the fixed run's output is the plain
// build's).
// RUN: %gpubin/oob_copy bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_copy_O0 bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_copy fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// RUN: %gpubin/oob_copy.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

#include <cstring>

struct Quad {
  float v[4];
};

__global__ void shiftCopy(Quad *out, const Quad *in, int n, bool bug) {
  __shared__ Quad tile[257];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  Quad q = {};
  if (bug ? i <= n : i < n)
    q = in[i]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 16 in kernel 'shiftCopy(Quad*, Quad const*, int, bool)' at {{.*}}oob_copy.cu:[[@LINE]]
  tile[t + 1] = q;
  __syncthreads();
  if (t == 0) {
    // tile[0 .. 255] = tile[1 .. 256], overlapping: one element at a time.
    for (int k = 0; k < 256; ++k)
      __builtin_memmove(&tile[k], &tile[k + 1], sizeof(Quad));
  }
  __syncthreads();
  if (i < n)
    out[i] = tile[t];
}
// CHECK: is 0 bytes after the 16000-byte buffer
// CHECK: SUMMARY: kosan: global-buffer-overflow {{.*}}oob_copy.cu:
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<Quad> hin(n), hout(n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 4; ++k)
      hin[i].v[k] = 0.25f * i + k;
  Quad *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(Quad)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(Quad)));
  CHECK_CUDA(cudaMemcpy(in, hin.data(), n * sizeof(Quad), cudaMemcpyHostToDevice));
  shiftCopy<<<4, 256>>>(out, in, n, isBug(argc, argv));
  CHECK_CUDA(cudaGetLastError());
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  CHECK_CUDA(cudaMemcpy(hout.data(), out, n * sizeof(Quad), cudaMemcpyDeviceToHost));
  std::vector<float> flat(4 * n);
  std::memcpy(flat.data(), hout.data(), flat.size() * sizeof(float));
  printChecksum("out", flat);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
