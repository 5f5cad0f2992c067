// A wavefront reduction with __shfl_down (ds_bpermute on AMD GPUs) and a
// float atomic: the order check's fingerprints follow the shuffles.
#include <hip/hip_runtime.h>

__global__ void reduce(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2)
    v += __shfl_down(v, o);
  if (threadIdx.x % warpSize == 0)
    atomicAdd(out, v);
}
