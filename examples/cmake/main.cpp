#include "scale.h"

#include <cstdio>

int main() {
  const int n = 1000; // not a multiple of the block size: the last block has spare threads
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  cudaError_t err = scale(in, out, n, 2.0f);
  if (err == cudaSuccess)
    err = cudaDeviceSynchronize();
  std::printf("overflow: %s\n", cudaGetErrorString(err));
  cudaFree(in);
  cudaFree(out);
  return err == cudaSuccess ? 0 : 1;
}
