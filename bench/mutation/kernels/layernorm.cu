// LayerNorm over rows: one block per row, mean and variance from warp
// shuffles and a shared array of warp partials.
#include "common.h"

__device__ float block_sum(float v, float *shared) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < blockDim.x / 32; ++w)
    total += shared[w];
  __syncthreads();
  return total;
}

__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int cols, float eps) {
  __shared__ float scratch[32];
  const float *in = x + (size_t)blockIdx.x * cols;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += in[c];
  float mean = block_sum(s, scratch) / cols;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = in[c] - mean;
    v += d * d;
  }
  float rstd = rsqrtf(block_sum(v, scratch) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)blockIdx.x * cols + c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(64, 96), cols = h.size(600, 900);
  auto x = h.floats((size_t)rows * cols, -3, 5);
  auto gamma = h.floats(cols, 0.5f, 1.5f), beta = h.floats(cols, -0.5f, 0.5f);
  float eps = 1e-5f;
  float *dx = toDevice(x), *dg = toDevice(gamma), *db = toDevice(beta);
  float *dy = deviceBuffer<float>(x.size());
  layernorm<<<rows, 256>>>(dx, dg, db, dy, cols, eps);
  auto y = toHost(dy, x.size());
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r) {
    const float *in = &x[(size_t)r * cols];
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += in[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c)
      var += (in[c] - mean) * (in[c] - mean);
    double rstd = 1 / std::sqrt(var / cols + eps);
    for (int c = 0; c < cols; ++c)
      ref[(size_t)r * cols + c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
  }
  return h.check("layernorm", y, ref, 1e-5, 1e-5);
}
