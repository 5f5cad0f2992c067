// Sum with warp shuffles: each warp reduces with __shfl_down_sync, lane 0
// adds the warp's sum atomically.
#include "common.h"

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_warp(const float *x, float *sum, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += x[i];
  acc = warp_sum(acc);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(sum, acc);
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(100000, 150000);
  auto x = h.floats(n, 0, 1);
  float *dx = toDevice(x), *dsum = deviceBuffer<float>(1);
  reduce_warp<<<40, 128>>>(dx, dsum, n);
  auto got = toHost(dsum, 1);
  double ref = 0;
  for (float v : x)
    ref += v;
  return h.check("reduce_warp", got, {ref}, 0, 1e-5);
}
