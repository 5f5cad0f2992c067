// Single-head attention, one block per query: scores Q.K^T / sqrt(d) in
// shared memory, softmax over them, then the weighted sum of V.
#include "common.h"

#define MAX_KEYS 256
#define D 64

__global__ void attention(const float *Q, const float *K, const float *V, float *O, int keys,
                          float scale) {
  __shared__ float scores[MAX_KEYS];
  __shared__ float red[32];
  const float *q = Q + blockIdx.x * D;
  for (int j = threadIdx.x; j < keys; j += blockDim.x) {
    float s = 0.0f;
    for (int d = 0; d < D; ++d)
      s += q[d] * K[j * D + d];
    scores[j] = s * scale;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    float m = -INFINITY;
    for (int j = threadIdx.x; j < keys; j += 32)
      m = fmaxf(m, scores[j]);
    for (int off = 16; off > 0; off >>= 1)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float sum = 0.0f;
    for (int j = threadIdx.x; j < keys; j += 32) {
      float e = expf(scores[j] - m);
      scores[j] = e;
      sum += e;
    }
    for (int off = 16; off > 0; off >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (threadIdx.x == 0)
      red[0] = sum;
  }
  __syncthreads();
  float inv = 1.0f / red[0];
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < keys; ++j)
      acc += scores[j] * V[j * D + d];
    O[blockIdx.x * D + d] = acc * inv;
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int queries = h.size(40, 70), keys = h.size(150, MAX_KEYS);
  auto Q = h.floats((size_t)queries * D), K = h.floats((size_t)keys * D),
       V = h.floats((size_t)keys * D);
  float scale = 1.0f / std::sqrt((float)D);
  float *dQ = toDevice(Q), *dK = toDevice(K), *dV = toDevice(V);
  float *dO = deviceBuffer<float>((size_t)queries * D);
  attention<<<queries, 64>>>(dQ, dK, dV, dO, keys, scale);
  auto O = toHost(dO, (size_t)queries * D);
  std::vector<double> ref((size_t)queries * D);
  for (int i = 0; i < queries; ++i) {
    std::vector<double> s(keys);
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < keys; ++j) {
      double a = 0;
      for (int d = 0; d < D; ++d)
        a += (double)Q[i * D + d] * K[j * D + d];
      s[j] = a * scale;
      m = std::fmax(m, s[j]);
    }
    for (int j = 0; j < keys; ++j)
      sum += (s[j] = std::exp(s[j] - m));
    for (int d = 0; d < D; ++d) {
      double a = 0;
      for (int j = 0; j < keys; ++j)
        a += s[j] * V[j * D + d];
      ref[i * D + d] = a / sum;
    }
  }
  return h.check("attention", O, ref, 1e-5, 1e-4);
}
