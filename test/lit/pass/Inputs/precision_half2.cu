// Half2 packing under checks=precision: __floats2half2_rn is one
// cvt.rn.f16x2.f32 in inline PTX, of constants in acc, of loaded floats in
// pack.
#include <cuda_fp16.h>

__global__ void acc(__half2 *h2) { atomicAdd(h2, __floats2half2_rn(1.f, 2.f)); }

__global__ void pack(const float *x, const float *y, __half2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __floats2half2_rn(x[i], y[i]);
}
