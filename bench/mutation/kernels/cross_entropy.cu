// Per-row cross-entropy loss from logits (log-sum-exp with the row max),
// one block per row, and the batch mean by atomicAdd.
#include "common.h"

__global__ void cross_entropy(const float *logits, const int *target, float *loss, float *mean,
                              int rows, int classes) {
  __shared__ float sm[2];
  const float *row = logits + (size_t)blockIdx.x * classes;
  if (threadIdx.x == 0) {
    float m = -INFINITY;
    for (int c = 0; c < classes; ++c)
      m = fmaxf(m, row[c]);
    sm[0] = m;
  }
  __syncthreads();
  float m = sm[0];
  float s = 0.0f;
  for (int c = threadIdx.x; c < classes; c += blockDim.x)
    s += expf(row[c] - m);
  for (int off = 16; off > 0; off >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x == 0) {
    float l = logf(s) + m - row[target[blockIdx.x]];
    loss[blockIdx.x] = l;
    atomicAdd(mean, l / rows);
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(100, 200), classes = h.size(500, 1000);
  auto logits = h.floats((size_t)rows * classes, -5, 5);
  std::vector<int> target(rows);
  for (int &t : target)
    t = (int)(h.next() % classes);
  float *dl = toDevice(logits);
  int *dt = toDevice(target);
  float *dloss = deviceBuffer<float>(rows), *dmean = deviceBuffer<float>(1);
  cross_entropy<<<rows, 32>>>(dl, dt, dloss, dmean, rows, classes);
  auto loss = toHost(dloss, rows);
  auto mean = toHost(dmean, 1);
  loss.push_back(mean[0]);
  std::vector<double> ref(rows + 1, 0);
  for (int r = 0; r < rows; ++r) {
    const float *row = &logits[(size_t)r * classes];
    double m = -INFINITY, s = 0;
    for (int c = 0; c < classes; ++c)
      m = std::fmax(m, row[c]);
    for (int c = 0; c < classes; ++c)
      s += std::exp(row[c] - m);
    ref[r] = std::log(s) + m - row[target[r]];
    ref[rows] += ref[r] / rows;
  }
  return h.check("cross_entropy", loss, ref, 1e-5, 1e-5);
}
