// Two tensors in one allocation, as a caching allocator (PyTorch's) lays
// them out. The kernel overruns 'q' into 'k': the memory is allocated, so
// allocation-level checkers stay silent. Registered as buffers of their own,
// kosan reports the overflow of 'q'.
#include <cstdio>
#include <vector>

#include "kosan/kosan.h"

__global__ void rotate(float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i + 1] = q[i] * 0.5f; // should have been q[(i + 1) % n]
}

int main() {
  const int n = 512;
  float *slab;
  cudaMalloc(&slab, 4 * n * sizeof(float));
  float *q = slab, *k = slab + n;
  kosan_register_buffer(q, n * sizeof(float), "q");
  kosan_register_buffer(k, n * sizeof(float), "k");
  std::vector<float> h(2 * n, 1.0f);
  cudaMemcpy(slab, h.data(), 2 * n * sizeof(float), cudaMemcpyHostToDevice);
  rotate<<<2, 256>>>(q, n);
  cudaMemcpy(h.data(), slab, 2 * n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("neighbor: k[0] = %.2f (1.00 unless q overflowed into k)\n", h[n]);
  cudaFree(slab);
  return 0;
}
