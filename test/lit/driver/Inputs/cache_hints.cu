// A small CUDA program that uses the cache-hint intrinsics clang 19 lacks.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void streamScale(float *Out, const float *In, float4 *Out4,
                            const float4 *In4, const int *Flag, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  __stcs(&Out[I], 2.0f * __ldcs(&In[I]));
  __stwt(&Out4[I], __ldcg(&In4[I]));
  if (__ldcv(Flag))
    __stcg(&Out[I], __ldlu(&In[I]));
}

int main() {
  const int N = 256;
  float *In, *Out;
  float4 *In4, *Out4;
  int *Flag;
  cudaMalloc(&In, N * sizeof(float));
  cudaMalloc(&Out, N * sizeof(float));
  cudaMalloc(&In4, N * sizeof(float4));
  cudaMalloc(&Out4, N * sizeof(float4));
  cudaMalloc(&Flag, sizeof(int));
  streamScale<<<1, N>>>(Out, In, Out4, In4, Flag, N);
  cudaError_t Error = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(Error));
  return Error == cudaSuccess ? 0 : 1;
}
