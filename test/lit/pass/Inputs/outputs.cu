// Kernels whose parameter use the snapshot summary must tell apart, compiled
// with the real CUDA headers (cuda_fp16.h stores __half through inline asm
// or as i16: the declared type decides the dtype).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// out is written only (poisonable); x is read only.
__global__ void scale(const float *x, float *out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i];
}

// acc is read and written (never poisoned).
__global__ void accumulate(const __half *x, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += __half2float(x[i]);
}

// A half output written through cuda_fp16.h.
__global__ void to_half(const float *x, __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __float2half(x[i]);
}

// An atomic output; bf16 input.
__global__ void total(const __nv_bfloat16 *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, __bfloat162float(x[i]));
}

// The output pointer is picked from a table in memory: the compiler cannot
// tell which argument is written.
__global__ void indirect(float **table, int which) {
  table[which][threadIdx.x] = 1.0f;
}
