// Matrix transpose through a 32x33 shared tile (padded against bank
// conflicts), 32x8 threads per tile.
#include "common.h"

#define TILE 32
#define ROWS 8

__global__ void transpose(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(200, 300), cols = h.size(150, 250);
  auto a = h.floats((size_t)rows * cols);
  float *din = toDevice(a), *dout = deviceBuffer<float>(a.size());
  dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose<<<grid, block>>>(din, dout, rows, cols);
  auto got = toHost(dout, a.size());
  std::vector<double> ref(a.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ref[(size_t)c * rows + r] = a[(size_t)r * cols + c];
  return h.check("transpose", got, ref, 0, 0);
}
