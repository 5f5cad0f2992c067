// out[r][c] = max(x[r][c] + bias[c], 0) on a 2-D grid.
#include "common.h"

__global__ void bias_relu(const float *x, const float *bias, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    float v = x[r * cols + c] + bias[c];
    out[r * cols + c] = v > 0.0f ? v : 0.0f;
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(100, 140), cols = h.size(200, 300);
  auto x = h.floats((size_t)rows * cols), bias = h.floats(cols, -0.5f, 0.5f);
  float *dx = toDevice(x), *db = toDevice(bias), *dout = deviceBuffer<float>(x.size());
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  bias_relu<<<grid, block>>>(dx, db, dout, rows, cols);
  auto out = toHost(dout, x.size());
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ref[r * cols + c] = std::fmax((double)x[r * cols + c] + bias[c], 0.0);
  return h.check("bias_relu", out, ref, 1e-6, 1e-6);
}
