// 64-bin histogram: per-block bins in shared memory with atomics, merged
// into the global histogram.
#include "common.h"

#define BINS 64

__global__ void histogram(const float *x, unsigned *hist, int n, float lo, float hi) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  float scale = BINS / (hi - lo);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int bin = (int)((x[i] - lo) * scale);
    bin = min(max(bin, 0), BINS - 1);
    atomicAdd(&local[bin], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(100000, 150000);
  auto x = h.floats(n, -1, 1);
  for (int i = 0; i < n; i += 7)
    x[i] = 0.5f * x[i] * x[i]; // not uniform
  float *dx = toDevice(x);
  unsigned *dh = deviceBuffer<unsigned>(BINS);
  histogram<<<30, 192>>>(dx, dh, n, -1.0f, 1.0f);
  auto got = toHost(dh, BINS);
  std::vector<double> ref(BINS, 0);
  float scale = BINS / 2.0f;
  for (float v : x) {
    int bin = (int)((v - -1.0f) * scale);
    ref[std::min(std::max(bin, 0), BINS - 1)] += 1;
  }
  return h.check("histogram", got, ref, 0, 0);
}
