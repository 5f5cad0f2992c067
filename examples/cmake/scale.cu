#include "scale.h"

// One thread too many writes: the last one stores one element past 'out'.
__global__ void scale_kernel(const float *in, float *out, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) // the bug: should be i < n
    out[i] = in[i < n ? i : 0] * factor;
}

cudaError_t scale(const float *in, float *out, int n, float factor) {
  scale_kernel<<<(n + 255) / 256, 256>>>(in, out, n, factor);
  return cudaGetLastError();
}
