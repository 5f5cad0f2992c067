// Elementwise add with a grid-stride loop.
#include "common.h"

__global__ void vec_add(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(50000, 70000);
  auto a = h.floats(n), b = h.floats(n);
  float *da = toDevice(a), *db = toDevice(b), *dc = deviceBuffer<float>(n);
  vec_add<<<64, 256>>>(da, db, dc, n);
  auto c = toHost(dc, n);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i)
    ref[i] = (double)a[i] + b[i];
  return h.check("vec_add", c, ref, 1e-6, 1e-6);
}
