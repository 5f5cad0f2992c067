// Sum: a shared-memory tree per block, then one atomicAdd per block.
#include "common.h"

#define BLOCK 256

__global__ void reduce_shared(const float *x, float *sum, int n) {
  __shared__ float partial[BLOCK];
  int tid = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * BLOCK + tid; i < n; i += BLOCK * gridDim.x)
    acc += x[i];
  partial[tid] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(sum, partial[0]);
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(100000, 150000);
  auto x = h.floats(n, 0, 1);
  float *dx = toDevice(x), *dsum = deviceBuffer<float>(1);
  reduce_shared<<<48, BLOCK>>>(dx, dsum, n);
  auto got = toHost(dsum, 1);
  double ref = 0;
  for (float v : x)
    ref += v;
  return h.check("reduce_shared", got, {ref}, 0, 1e-5);
}
