// A kernel library a Python harness loads with ctypes, as it would a torch
// extension built with kosan-clang++ (the kosan runtime is linked into it).
#include <cstdint>

__global__ void add_one(float *a, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + extra)
    a[i] += 1.0f;
}

extern "C" int launch_add_one(uint64_t a, int n, int extra) {
  add_one<<<(n + extra + 255) / 256, 256>>>(reinterpret_cast<float *>(a), n, extra);
  return cudaDeviceSynchronize();
}
