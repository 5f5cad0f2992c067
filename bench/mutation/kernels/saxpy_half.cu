// y = alpha * x + y on half-precision vectors, one element per thread.
#include "common.h"

__global__ void saxpy_half(int n, float alpha, const __half *x, __half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = alpha * __half2float(x[i]) + __half2float(y[i]);
    y[i] = __float2half(v);
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(30000, 40000);
  float alpha = h.uniform(0.5f, 2.0f);
  std::vector<__half> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = __float2half(h.uniform(-2, 2)), y[i] = __float2half(h.uniform(-2, 2));
  __half *dx = toDevice(x), *dy = toDevice(y);
  saxpy_half<<<(n + 127) / 128, 128>>>(n, alpha, dx, dy);
  auto out = toHost(dy, n);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i)
    ref[i] = (double)alpha * __half2float(x[i]) + __half2float(y[i]);
  return h.check("saxpy_half", halfToFloat(out), ref, 1e-2, 1e-2);
}
