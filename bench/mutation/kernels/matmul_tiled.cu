// C = A * B with 16x16 shared-memory tiles and zero padding at the edges.
#include "common.h"

#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int ty = threadIdx.y, tx = threadIdx.x;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + tx, kb = t * TILE + ty;
    As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int M = h.size(100, 140), N = h.size(100, 140), K = h.size(120, 170);
  auto A = h.floats((size_t)M * K), B = h.floats((size_t)K * N);
  float *dA = toDevice(A), *dB = toDevice(B), *dC = deviceBuffer<float>((size_t)M * N);
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  auto C = toHost(dC, (size_t)M * N);
  std::vector<double> ref((size_t)M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += (double)A[i * K + k] * B[k * N + j];
      ref[i * N + j] = s;
    }
  return h.check("matmul_tiled", C, ref, 1e-4, 1e-4);
}
