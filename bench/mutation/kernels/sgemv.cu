// y = A x, one warp per row, lanes striding the row, shuffle reduction.
#include "common.h"

__global__ void sgemv(const float *A, const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows)
    return;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += 32)
    acc += A[(size_t)row * cols + c] * x[c];
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (threadIdx.x == 0)
    y[row] = acc;
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int rows = h.size(300, 500), cols = h.size(300, 500);
  auto A = h.floats((size_t)rows * cols), x = h.floats(cols);
  float *dA = toDevice(A), *dx = toDevice(x), *dy = deviceBuffer<float>(rows);
  dim3 block(32, 4);
  sgemv<<<(rows + 3) / 4, block>>>(dA, dx, dy, rows, cols);
  auto y = toHost(dy, rows);
  std::vector<double> ref(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c)
      s += (double)A[(size_t)r * cols + c] * x[c];
    ref[r] = s;
  }
  return h.check("sgemv", y, ref, 1e-4, 1e-4);
}
