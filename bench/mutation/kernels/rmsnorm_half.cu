// RMSNorm on half activations with float statistics, one warp per row.
#include "common.h"

__global__ void rmsnorm_half(const __half *x, const __half *w, __half *y, int rows, int cols,
                             float eps) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows)
    return;
  const __half *in = x + (size_t)row * cols;
  float ss = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    float v = __half2float(in[c]);
    ss += v * v;
  }
  for (int off = 16; off > 0; off >>= 1)
    ss += __shfl_xor_sync(0xffffffffu, ss, off);
  float scale = rsqrtf(ss / cols + eps);
  for (int c = lane; c < cols; c += 32)
    y[(size_t)row * cols + c] = __float2half(__half2float(in[c]) * scale * __half2float(w[c]));
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(200, 300), cols = h.size(200, 400);
  std::vector<__half> x((size_t)rows * cols), w(cols);
  for (auto &v : x)
    v = __float2half(h.uniform(-2, 2));
  for (auto &v : w)
    v = __float2half(h.uniform(0.5f, 1.5f));
  __half *dx = toDevice(x), *dw = toDevice(w), *dy = deviceBuffer<__half>(x.size());
  rmsnorm_half<<<(rows + 3) / 4, 128>>>(dx, dw, dy, rows, cols, 1e-6f);
  auto y = toHost(dy, x.size());
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < cols; ++c)
      ss += (double)__half2float(x[(size_t)r * cols + c]) * __half2float(x[(size_t)r * cols + c]);
    double scale = 1 / std::sqrt(ss / cols + 1e-6);
    for (int c = 0; c < cols; ++c)
      ref[(size_t)r * cols + c] = __half2float(x[(size_t)r * cols + c]) * scale * __half2float(w[c]);
  }
  return h.check("rmsnorm_half", halfToFloat(y), ref, 2e-3, 2e-3);
}
