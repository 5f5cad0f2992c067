// A deferred clone (compiled at the kernel's first checked launch, in a
// module of its own) reads and writes the program's module globals: a
// __device__ counter it adds to atomically, a static __device__ table, and
// a __constant__ array the host rewrites between launches, which the clone
// must see at every launch. Its out-of-bounds store is still reported.
// RUN: %gpubin/deferred_globals bug > %t.bug.out 2>&1; FileCheck %s < %t.bug.out
// RUN: %gpubin/deferred_globals fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/deferred_globals.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: FileCheck --check-prefix=SUMS %s < %t.fixed
// REQUIRES: gpu
#include "common.h"

__constant__ int scale[4];
__device__ unsigned int launches;
static __device__ int offsets[4] = {1, 2, 3, 4};

__global__ void apply(int *v, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    atomicAdd(&launches, 1u);
  if (i < n + extra)
    v[i] = v[i] * scale[i % 4] + offsets[i % 4]; // CHECK: ERROR: kosan: global-buffer-overflow: {{READ|WRITE}} of size 4 in kernel 'apply(int*, int, int)' at {{.*}}deferred_globals.cu:[[@LINE]]
}
// CHECK: is 0 bytes after the 1024-byte buffer 'v'
// FIXED-NOT: kosan
// FIXED-NOT: CUDA error
// SUMS: launches 3
// SUMS: v checksum

int main(int argc, char **argv) {
  const int n = 256;
  int *v;
  CHECK_CUDA(cudaMalloc(&v, n * sizeof(int)));
  CHECK_CUDA(cudaMemset(v, 0, n * sizeof(int)));
  for (int round = 1; round <= 3; ++round) {
    int s[4] = {round, round + 1, round + 2, round + 3};
    CHECK_CUDA(cudaMemcpyToSymbol(scale, s, sizeof s));
    apply<<<3, 128>>>(v, n, isBug(argc, argv) ? 1 : 0);
    CHECK_CUDA(cudaGetLastError());
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  unsigned int count = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&count, launches, sizeof count));
  std::printf("launches %u\n", count);
  std::vector<int> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), v, n * sizeof(int), cudaMemcpyDeviceToHost));
  printChecksum("v", h);
  return 0;
}
