// Dot product of half vectors read as half2, accumulated in float, block
// partials through shared memory and an atomic.
#include "common.h"

__global__ void dot_half2(const __half2 *a, const __half2 *b, float *out, int pairs) {
  extern __shared__ float partial[];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += blockDim.x * gridDim.x) {
    float2 fa = __half22float2(a[i]), fb = __half22float2(b[i]);
    acc += fa.x * fb.x + fa.y * fb.y;
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, partial[0]);
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int pairs = h.size(20000, 30000);
  std::vector<__half> a(2 * pairs), b(2 * pairs);
  for (int i = 0; i < 2 * pairs; ++i)
    a[i] = __float2half(h.uniform(-1, 1)), b[i] = __float2half(h.uniform(-1, 1));
  __half *da = toDevice(a), *db = toDevice(b);
  float *dout = deviceBuffer<float>(1);
  dot_half2<<<32, 256, 256 * sizeof(float)>>>((const __half2 *)da, (const __half2 *)db, dout, pairs);
  auto got = toHost(dout, 1);
  double ref = 0;
  for (int i = 0; i < 2 * pairs; ++i)
    ref += (double)__half2float(a[i]) * __half2float(b[i]);
  return h.check("dot_half2", got, {ref}, 1e-3, 1e-4);
}
