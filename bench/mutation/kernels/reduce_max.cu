// Row maxima: one block per row, xor-shuffle reduction within warps, the
// warps' maxima combined through shared memory.
#include "common.h"

__global__ void row_max(const float *x, float *out, int cols) {
  __shared__ float warp_max[32];
  const float *row = x + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, row[c]);
  for (int off = 16; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0)
    warp_max[warp] = m;
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x / 32;
    m = lane < warps ? warp_max[lane] : -INFINITY;
    for (int off = 16; off > 0; off >>= 1)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    if (lane == 0)
      out[blockIdx.x] = m;
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(60, 90), cols = h.size(1000, 1500);
  auto x = h.floats((size_t)rows * cols, -10, 10);
  float *dx = toDevice(x), *dout = deviceBuffer<float>(rows);
  row_max<<<rows, 256>>>(dx, dout, cols);
  auto got = toHost(dout, rows);
  std::vector<double> ref(rows, -INFINITY);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ref[r] = std::fmax(ref[r], x[(size_t)r * cols + c]);
  return h.check("reduce_max", got, ref, 0, 0);
}
