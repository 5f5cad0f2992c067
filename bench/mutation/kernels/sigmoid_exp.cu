// Elementwise sigmoid and a scaled exponential, as in gating kernels.
#include "common.h"

__global__ void sigmoid_exp(const float *x, float *s, float *e, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  s[i] = 1.0f / (1.0f + expf(-v));
  e[i] = expf(v * scale) / (1.0f + logf(1.0f + v * v));
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(20000, 30000);
  auto x = h.floats(n, -6, 6);
  float scale = h.uniform(0.25f, 0.75f);
  float *dx = toDevice(x), *ds = deviceBuffer<float>(n), *de = deviceBuffer<float>(n);
  sigmoid_exp<<<(n + 255) / 256, 256>>>(dx, ds, de, n, scale);
  auto s = toHost(ds, n), e = toHost(de, n);
  std::vector<float> got(s);
  got.insert(got.end(), e.begin(), e.end());
  std::vector<double> ref(2 * n);
  for (int i = 0; i < n; ++i) {
    ref[i] = 1 / (1 + std::exp(-(double)x[i]));
    ref[n + i] = std::exp((double)x[i] * scale) / (1 + std::log(1 + (double)x[i] * x[i]));
  }
  return h.check("sigmoid_exp", got, ref, 1e-6, 2e-6);
}
