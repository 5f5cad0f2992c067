// A program of two CUDA files whose main makes no CUDA call, so that it runs
// where there is no GPU.
#include <cstdio>
#include "nvcc_scale.h"

__global__ void fill(float *Data, float Value) { Data[threadIdx.x] = Value; }

int main() {
  std::printf("hostScale(14) = %d\n", hostScale(14));
  return 0;
}
