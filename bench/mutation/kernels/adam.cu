// One Adam step over a parameter vector (grid-stride, bias-corrected).
#include "common.h"

__global__ void adam(float *p, const float *g, float *m, float *v, int n, float lr, float b1,
                     float b2, float eps, float c1, float c2) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float gi = g[i];
    float mi = b1 * m[i] + (1.0f - b1) * gi;
    float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(40000, 60000);
  auto p = h.floats(n), g = h.floats(n, -0.1f, 0.1f), m = h.floats(n, -0.01f, 0.01f),
       v = h.floats(n, 0, 0.001f);
  float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  int step = 10;
  float c1 = 1 - std::pow(b1, step), c2 = 1 - std::pow(b2, step);
  float *dp = toDevice(p), *dg = toDevice(g), *dm = toDevice(m), *dv = toDevice(v);
  adam<<<60, 256>>>(dp, dg, dm, dv, n, lr, b1, b2, eps, c1, c2);
  auto P = toHost(dp, n), Mo = toHost(dm, n), Vo = toHost(dv, n);
  std::vector<float> got(P);
  got.insert(got.end(), Mo.begin(), Mo.end());
  got.insert(got.end(), Vo.begin(), Vo.end());
  std::vector<double> ref(3 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double mi = b1 * (double)m[i] + (1 - (double)b1) * g[i];
    double vi = b2 * (double)v[i] + (1 - (double)b2) * (double)g[i] * g[i];
    ref[i] = p[i] - lr * (mi / c1) / (std::sqrt(vi / c2) + eps);
    ref[n + i] = mi;
    ref[2 * n + i] = vi;
  }
  return h.check("adam", got, ref, 1e-7, 1e-5);
}
