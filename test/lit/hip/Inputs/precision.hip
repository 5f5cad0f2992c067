// Float arithmetic stored to global memory and a conversion to half: the
// precision check's shadow sinks.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

__global__ void axpy(const float *x, float *y, __half *h, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = a * x[i] + y[i];
    y[i] = v;
    h[i] = __float2half(v * 1.0e5f);
  }
}
