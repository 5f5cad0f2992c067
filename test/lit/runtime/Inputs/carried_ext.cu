// A kernel library as a PyTorch extension holds one: compiled by kosan, linked
// by plain g++ with no kosan flags. EXT names its exported functions.
#include <cuda_runtime.h>
#include <kosan/kosan.h>

__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
}

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

extern "C" int CAT(EXT, _register)(unsigned long address, unsigned long bytes) {
  return kosan_register_buffer(reinterpret_cast<const void *>(address), bytes, "t");
}

extern "C" int CAT(EXT, _launch)(float *p, int n) {
  fill<<<(n + 255) / 256, 256>>>(p, n);
  return int(cudaDeviceSynchronize());
}
