// Built with --kosan-checks=oob,order-ops: every floating-point operation is
// logged, so kosan-diff says at which operation two computations part.
// Y = X W^T, one thread per output, K = 512. The bug keeps 4 interleaved
// partial sums per thread when the batch is small (M < 8), one otherwise,
// as kernels tuned for latency do: row 0 of a batch-1 run and row 0 of a
// batch-64 run part after the first product, where the batch-1 run goes on
// with x[4]*w[4] and the batch-64 run with x[1]*w[1]. The twin always keeps 4.
// usage: order_ops_lanes bug|fixed M
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug1.kosan %gpubin/order_ops_lanes bug 1 > %t/bug1.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug64.kosan %gpubin/order_ops_lanes bug 64 > %t/bug64.out
// RUN: not %kosan-diff --batch-invariance --rows 0:0 --row-length 32 %t/bug1.kosan %t/bug64.kosan > %t/bug.diff
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.diff
// BUG: dy row 0 of A vs row 0 of B: 32/32 elements batch-variant
// BUG-NEXT: column 0: the first 2 operations agree (the fma of 3 values dx[0], dw[0], the f32 value 0); then A adds the product of dx[4] and dw[4] to it in an fma ({{.*}}order_ops_lanes.cu:{{[0-9]+}}:{{[0-9]+}} fma), B adds the product of dx[1] and dw[1] to it in an fma ({{.*}}order_ops_lanes.cu:{{[0-9]+}}:{{[0-9]+}} fma)
// BUG-NEXT: column 1: the first 2 operations agree (the fma of 3 values dx[0], dw[512], the f32 value 0); then A adds the product of dx[4] and dw[516] to it in an fma
// The static half names the branch on `lanes` as the reason.
// BUG: why: the reduction's split depends on the launch
// BUG: BATCH-VARIANT
// Every operation of the launch was logged: 1024 per thread, 2048 threads.
// RUN: %kosan-report %t/bug64.kosan | FileCheck %s --check-prefix=REPORT
// REPORT: 2048 store records, 0 atomic records and 2097152 operations received
// Logging the operations makes no run differ from the next.
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/again64.kosan %gpubin/order_ops_lanes bug 64 > %t/again64.out
// RUN: %kosan-diff --order %t/bug64.kosan %t/again64.kosan | FileCheck %s --check-prefix=SAME
// SAME: DETERMINISTIC
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed1.kosan %gpubin/order_ops_lanes fixed 1 > %t/fixed1.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed64.kosan %gpubin/order_ops_lanes fixed 64 > %t/fixed64.out
// RUN: %kosan-diff --batch-invariance --rows 0:0 --row-length 32 %t/fixed1.kosan %t/fixed64.kosan > %t/fixed.diff
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.diff
// FIXED-NOT: agree
// FIXED: INVARIANT
// Logging changes no result.
// RUN: %gpubin/order_ops_lanes.plain bug 64 > %t/plain.out
// RUN: diff %t/plain.out %t/bug64.out
// REQUIRES: gpu
#include "common.h"

constexpr int kK = 512, kN = 32, kMaxRows = 64;

__global__ void lanes_dot(const float *x, const float *w, float *y, int lanes) {
  int n = threadIdx.x, m = blockIdx.x;
  const float *xr = x + m * kK, *wr = w + n * kK;
  float s;
  if (lanes == 4) {
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (int k = 0; k < kK; k += 4) {
      a0 += xr[k] * wr[k];
      a1 += xr[k + 1] * wr[k + 1];
      a2 += xr[k + 2] * wr[k + 2];
      a3 += xr[k + 3] * wr[k + 3];
    }
    s = (a0 + a1) + (a2 + a3);
  } else {
    s = 0.0f;
    for (int k = 0; k < kK; ++k)
      s += xr[k] * wr[k];
  }
  y[m * kN + n] = s;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  bool bug = isBug(argc, argv);
  int M = std::atoi(argv[2]);
  if (M < 1 || M > kMaxRows)
    return 2;
  int lanes = bug ? (M < 8 ? 4 : 1) : 4;
  std::vector<float> x(size_t(M) * kK), w(size_t(kN) * kK);
  Lcg rng{4242};
  auto next = [&] { return rng.uniform() - 0.5f; };
  for (float &v : w)
    v = next();
  for (float &v : x)
    v = next();
  float *dx, *dw, *dy;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dw, w.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, size_t(M) * kN * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dw, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
  lanes_dot<<<M, kN>>>(dx, dw, dy, lanes);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> y(size_t(M) * kN);
  CHECK_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", y);
  return 0;
}
