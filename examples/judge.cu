// The worked example of judging candidate kernels against a reference
// (examples/judge.sh runs it): y = A x for a 512 x 256 matrix, with inputs
// uniform in [0, 1) as torch.rand makes them.
//
//   judge reference   the reference kernel: one thread per row, fp32
//   judge correct     a candidate: one warp per row, shuffle reduction
//   judge fp16acc     a candidate that accumulates in __half (__hfma)
//   judge overflow    a candidate whose last block also writes y[M], one
//                     element past y, into the neighbouring tensor z
//
// Each run prints the verdict of allclose at KernelBench's tolerances
// (atol = rtol = 1e-2) against a host reference. Run under
// KOSAN_OPTIONS=snapshot=1:trace=..., kosan-diff then judges the candidate's
// trace against the reference's.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_fp16.h>

#include "kosan/kosan.h"

constexpr int M = 512, K = 256;

__global__ void matvec_ref(const float *A, const float *x, float *y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  float acc = 0.0f;
  for (int j = 0; j < k; ++j)
    acc += A[row * k + j] * x[j];
  y[row] = acc;
}

__global__ void matvec_warp(const float *A, const float *x, float *y, int m, int k) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= m)
    return;
  float acc = 0.0f;
  for (int j = lane; j < k; j += 32)
    acc += A[row * k + j] * x[j];
  for (int offset = 16; offset > 0; offset /= 2)
    acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (lane == 0)
    y[row] = acc;
}

__global__ void matvec_fp16acc(const float *A, const float *x, float *y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  __half acc = __float2half(0.0f);
  for (int j = 0; j < k; ++j)
    acc = __hfma(__float2half(A[row * k + j]), __float2half(x[j]), acc);
  y[row] = __half2float(acc);
}

__global__ void matvec_overflow(const float *A, const float *x, float *y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row > m) // should be row >= m: thread m writes y[m]
    return;
  float acc = 0.0f;
  for (int j = 0; j < k && row < m; ++j)
    acc += A[row * k + j] * x[j];
  y[row] = acc;
}

static bool check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    std::fprintf(stderr, "judge: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int which = !std::strcmp(mode, "reference") ? 0
              : !std::strcmp(mode, "correct") ? 1
              : !std::strcmp(mode, "fp16acc") ? 2
              : !std::strcmp(mode, "overflow") ? 3
                                                : -1;
  if (which < 0) {
    std::fprintf(stderr, "usage: judge reference|correct|fp16acc|overflow\n");
    return 2;
  }
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> rand01(0.0f, 1.0f);
  std::vector<float> A(M * K), x(K), y(M), z(M, 7.0f);
  for (float &v : A)
    v = rand01(gen);
  for (float &v : x)
    v = rand01(gen);

  // One slab holds every tensor, as a caching allocator lays them out; each
  // is registered so kosan checks accesses against the tensor, not the slab.
  char *slab;
  size_t bytesA = A.size() * 4, bytesX = x.size() * 4, bytesY = y.size() * 4;
  if (!check(cudaMalloc(&slab, bytesA + bytesX + 2 * bytesY), "cudaMalloc"))
    return 1;
  float *dA = reinterpret_cast<float *>(slab);
  float *dx = reinterpret_cast<float *>(slab + bytesA);
  float *dy = reinterpret_cast<float *>(slab + bytesA + bytesX);
  float *dz = reinterpret_cast<float *>(slab + bytesA + bytesX + bytesY);
  long long shapeA[] = {M, K}, shapeX[] = {K}, shapeY[] = {M};
  if (kosan_register_tensor) {
    kosan_register_tensor(dA, bytesA, "A", "f32", 2, shapeA);
    kosan_register_tensor(dx, bytesX, "x", "f32", 1, shapeX);
    kosan_register_tensor(dy, bytesY, "y", "f32", 1, shapeY);
    kosan_register_tensor(dz, bytesY, "z", "f32", 1, shapeY);
  }
  cudaMemcpy(dA, A.data(), bytesA, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.data(), bytesX, cudaMemcpyHostToDevice);
  cudaMemcpy(dz, z.data(), bytesY, cudaMemcpyHostToDevice);

  switch (which) {
  case 0: matvec_ref<<<(M + 127) / 128, 128>>>(dA, dx, dy, M, K); break;
  case 1: matvec_warp<<<M / 4, 128>>>(dA, dx, dy, M, K); break;
  case 2: matvec_fp16acc<<<(M + 127) / 128, 128>>>(dA, dx, dy, M, K); break;
  case 3: matvec_overflow<<<(M + 128) / 128, 128>>>(dA, dx, dy, M, K); break;
  }
  if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), "kernel"))
    return 1;
  cudaMemcpy(y.data(), dy, bytesY, cudaMemcpyDeviceToHost);

  // allclose(y, reference, atol=1e-2, rtol=1e-2) against a host reference.
  int bad = 0;
  double worst = 0;
  for (int r = 0; r < M; ++r) {
    double ref = 0;
    for (int j = 0; j < K; ++j)
      ref += double(A[r * K + j]) * x[j];
    double err = std::fabs(y[r] - ref);
    worst = std::fmax(worst, err / std::fabs(ref));
    if (!(err <= 1e-2 + 1e-2 * std::fabs(ref)))
      ++bad;
  }
  std::printf("%s: allclose(atol=rtol=1e-2): %s (%d of %d elements outside, max rel err %.1e)\n",
              mode, bad ? "FAIL" : "PASS", bad, M, worst);
  cudaFree(slab);
  return 0;
}
