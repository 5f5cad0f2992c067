// C = A * B on tensor cores (WMMA, half inputs, float accumulation), one
// warp per 16x16 tile of C; tiles past the matrix edge do nothing.
#include "common.h"
#include <mma.h>

using namespace nvcuda;

__global__ void matmul_wmma(const __half *A, const __half *B, float *C, int M, int N, int K) {
  int warpM = (blockIdx.y * blockDim.y + threadIdx.y);
  int warpN = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warpM * 16 >= M || warpN * 16 >= N)
    return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + warpM * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + k * N + warpN * 16, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + warpM * 16 * N + warpN * 16, acc, N, wmma::mem_row_major);
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  // WMMA tiles are 16x16x16: the sizes are multiples of 16, the grid is not
  // a multiple of the tile count.
  int M = 16 * h.size(5, 9), N = 16 * h.size(5, 9), K = 16 * h.size(4, 8);
  std::vector<__half> A((size_t)M * K), B((size_t)K * N);
  for (auto &v : A)
    v = __float2half(h.uniform(-1, 1));
  for (auto &v : B)
    v = __float2half(h.uniform(-1, 1));
  __half *dA = toDevice(A), *dB = toDevice(B);
  float *dC = deviceBuffer<float>((size_t)M * N);
  dim3 block(64, 2), grid((N / 16 + 1) / 2, (M / 16 + 1) / 2);
  matmul_wmma<<<grid, block>>>(dA, dB, dC, M, N, K);
  auto C = toHost(dC, (size_t)M * N);
  std::vector<double> ref((size_t)M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += (double)__half2float(A[i * K + k]) * __half2float(B[k * N + j]);
      ref[i * N + j] = s;
    }
  return h.check("matmul_wmma", C, ref, 1e-3, 1e-3);
}
