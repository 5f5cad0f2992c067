// 1-D convolution (radius 3) with the block's inputs and halo staged in
// shared memory.
#include "common.h"

#define R 3
#define BS 128

__constant__ float weights[2 * R + 1];

__global__ void conv1d(const float *x, float *y, int n) {
  __shared__ float tile[BS + 2 * R];
  int i = blockIdx.x * BS + threadIdx.x;
  tile[threadIdx.x + R] = i < n ? x[i] : 0.0f;
  if (threadIdx.x < R) {
    int left = i - R, right = i + BS;
    tile[threadIdx.x] = left >= 0 ? x[left] : 0.0f;
    tile[threadIdx.x + BS + R] = right < n ? x[right] : 0.0f;
  }
  __syncthreads();
  if (i < n) {
    float acc = 0.0f;
    for (int k = -R; k <= R; ++k)
      acc += weights[k + R] * tile[threadIdx.x + R + k];
    y[i] = acc;
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(50000, 80000);
  auto x = h.floats(n), w = h.floats(2 * R + 1);
  CK(cudaMemcpyToSymbol(weights, w.data(), w.size() * sizeof(float)));
  float *dx = toDevice(x), *dy = deviceBuffer<float>(n);
  conv1d<<<(n + BS - 1) / BS, BS>>>(dx, dy, n);
  auto y = toHost(dy, n);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double a = 0;
    for (int k = -R; k <= R; ++k)
      if (i + k >= 0 && i + k < n)
        a += (double)w[k + R] * x[i + k];
    ref[i] = a;
  }
  return h.check("conv1d", y, ref, 1e-5, 1e-5);
}
