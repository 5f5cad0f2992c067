#include "nvcc_scale.h"

__global__ void scale(float *Data, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] *= NVCC_TEST_FACTOR;
}

int hostScale(int X) { return X * NVCC_TEST_FACTOR; }
