// Shared by nvcc_main.cu and nvcc_scale.cu (kosan-nvcc's build tests).
#pragma once
#define NVCC_TEST_FACTOR 3
__global__ void scale(float *Data, int N);
int hostScale(int X);
