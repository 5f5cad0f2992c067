// GELU (tanh approximation) with a grid-stride loop, as in GPT-2 kernels.
#include "common.h"

__global__ void gelu(const float *x, float *y, int n) {
  const float k = 0.7978845608f; // sqrt(2/pi)
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
    float cube = 0.044715f * v * v * v;
    y[i] = 0.5f * v * (1.0f + tanhf(k * (v + cube)));
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(40000, 60000);
  auto x = h.floats(n, -4, 4);
  float *dx = toDevice(x), *dy = deviceBuffer<float>(n);
  gelu<<<80, 128>>>(dx, dy, n);
  auto y = toHost(dy, n);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    ref[i] = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  }
  return h.check("gelu", y, ref, 1e-5, 1e-5);
}
