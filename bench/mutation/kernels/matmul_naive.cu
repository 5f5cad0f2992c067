// C = A * B, one thread per element of C.
#include "common.h"

__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int M = h.size(90, 130), N = h.size(90, 130), K = h.size(100, 160);
  auto A = h.floats((size_t)M * K), B = h.floats((size_t)K * N);
  float *dA = toDevice(A), *dB = toDevice(B), *dC = deviceBuffer<float>((size_t)M * N);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  matmul_naive<<<grid, block>>>(dA, dB, dC, M, N, K);
  auto C = toHost(dC, (size_t)M * N);
  std::vector<double> ref((size_t)M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += (double)A[i * K + k] * B[k * N + j];
      ref[i * N + j] = s;
    }
  return h.check("matmul_naive", C, ref, 1e-4, 1e-4);
}
