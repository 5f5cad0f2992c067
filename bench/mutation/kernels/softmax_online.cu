// Online softmax, one warp per row (running max and rescaled sum), as in
// fused attention kernels.
#include "common.h"

__global__ void softmax_online(const float *x, float *y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= rows)
    return;
  const float *in = x + (size_t)warp * cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    float v = in[c];
    float nm = fmaxf(m, v);
    s = s * expf(m - nm) + expf(v - nm);
    m = nm;
  }
  for (int off = 16; off > 0; off >>= 1) {
    float om = __shfl_xor_sync(0xffffffffu, m, off);
    float os = __shfl_xor_sync(0xffffffffu, s, off);
    float nm = fmaxf(m, om);
    s = s * expf(m - nm) + os * expf(om - nm);
    m = nm;
  }
  for (int c = lane; c < cols; c += 32)
    y[(size_t)warp * cols + c] = expf(in[c] - m) / s;
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(100, 150), cols = h.size(300, 500);
  auto x = h.floats((size_t)rows * cols, -6, 6);
  float *dx = toDevice(x), *dy = deviceBuffer<float>(x.size());
  int threads = 128;
  softmax_online<<<(rows * 32 + threads - 1) / threads, threads>>>(dx, dy, rows, cols);
  auto y = toHost(dy, x.size());
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::fmax(m, x[(size_t)r * cols + c]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(x[(size_t)r * cols + c] - m);
    for (int c = 0; c < cols; ++c)
      ref[(size_t)r * cols + c] = std::exp(x[(size_t)r * cols + c] - m) / s;
  }
  return h.check("softmax_online", y, ref, 1e-7, 1e-5);
}
