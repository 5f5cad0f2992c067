// Row softmax: one block per row, max and sum reduced in shared memory.
#include "common.h"

#define THREADS 128

__global__ void softmax_block(const float *x, float *y, int cols) {
  __shared__ float red[THREADS];
  const float *in = x + (size_t)blockIdx.x * cols;
  float *out = y + (size_t)blockIdx.x * cols;
  int tid = threadIdx.x;
  float m = -INFINITY;
  for (int c = tid; c < cols; c += THREADS)
    m = fmaxf(m, in[c]);
  red[tid] = m;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (tid < s)
      red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  float rowMax = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = tid; c < cols; c += THREADS)
    sum += expf(in[c] - rowMax);
  red[tid] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (tid < s)
      red[tid] += red[tid + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int c = tid; c < cols; c += THREADS)
    out[c] = expf(in[c] - rowMax) * inv;
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(50, 80), cols = h.size(700, 1100);
  auto x = h.floats((size_t)rows * cols, -8, 8);
  float *dx = toDevice(x), *dy = deviceBuffer<float>(x.size());
  softmax_block<<<rows, THREADS>>>(dx, dy, cols);
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
  return h.check("softmax_block", y, ref, 1e-7, 1e-5);
}
