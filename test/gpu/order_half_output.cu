// RMSNorm of 2048 rows of 256 floats into half and bf16 outputs (cuda_fp16.h,
// cuda_bf16.h: __float2half and __float2bfloat16 are inline PTX on 16-bit
// registers). The bug sums each row's squares with atomicAdd on shared
// memory: the order the additions land in changes from run to run, and with
// it the scale every output of the row is multiplied by. No float atomic
// reaches global memory: only the half outputs' fingerprints show it. The
// twin sums by a fixed tree in shared memory.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug1.kosan %gpubin/order_half_output bug > %t/bug1.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug2.kosan %gpubin/order_half_output bug > %t/bug2.out
// RUN: not %kosan-diff --order %t/bug1.kosan %t/bug2.kosan > %t/bug.diff
// RUN: FileCheck %s --check-prefix=BUG-DIFF < %t/bug.diff
// BUG-DIFF-DAG: dy (f16, 524288 elements stored): fingerprints differ at
// BUG-DIFF-DAG: dyb (bf16, 524288 elements stored): fingerprints differ at
// BUG-DIFF: NONDETERMINISTIC
// The twin: 10 runs, every one's fingerprints equal to the first's, at every
// element of both outputs.
// RUN: python3 %S/Inputs/order_runs.py 10 %t/fixed %kosan-diff -- %gpubin/order_half_output fixed > %t/fixed.runs
// RUN: FileCheck %s --check-prefix=FIXED-RUNS < %t/fixed.runs
// FIXED-RUNS: 10 runs; 9 compared with run 0: 9 DETERMINISTIC, 0 NONDETERMINISTIC
// RUN: %kosan-diff --order %t/fixed0.kosan %t/fixed1.kosan | FileCheck %s --check-prefix=FIXED-DIFF
// FIXED-DIFF-DAG: dy (f16, 524288 elements stored): same fingerprints at all 524288 elements
// FIXED-DIFF-DAG: dyb (bf16, 524288 elements stored): same fingerprints at all 524288 elements
// FIXED-DIFF: DETERMINISTIC
// The instrumented program computes what the plain one does.
// RUN: %gpubin/order_half_output.plain fixed > %t/plain.out
// RUN: diff %t/plain.out %t/fixed0.out
// REQUIRES: gpu
#include "common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

constexpr int kRows = 2048, kCols = 256;

__global__ void rmsnorm_atomic(const float *x, __half *y, __nv_bfloat16 *yb) {
  __shared__ float ss;
  int row = blockIdx.x, c = threadIdx.x;
  if (c == 0)
    ss = 0.0f;
  __syncthreads();
  // Each warp adds as soon as its load arrives.
  float v = x[row * kCols + c];
  atomicAdd(&ss, v * v);
  __syncthreads();
  float scale = rsqrtf(ss / kCols + 1e-6f);
  y[row * kCols + c] = __float2half(v * scale);
  yb[row * kCols + c] = __float2bfloat16(v * scale);
}

__global__ void rmsnorm_tree(const float *x, __half *y, __nv_bfloat16 *yb) {
  __shared__ float part[kCols];
  int row = blockIdx.x, c = threadIdx.x;
  float v = x[row * kCols + c];
  part[c] = v * v;
  __syncthreads();
  for (int s = kCols / 2; s > 0; s >>= 1) {
    if (c < s)
      part[c] += part[c + s];
    __syncthreads();
  }
  float scale = rsqrtf(part[0] / kCols + 1e-6f);
  y[row * kCols + c] = __float2half(v * scale);
  yb[row * kCols + c] = __float2bfloat16(v * scale);
}

int main(int argc, char **argv) {
  std::vector<float> x(size_t(kRows) * kCols);
  Lcg rng{2024};
  for (float &v : x)
    v = 4.0f * rng.uniform() - 2.0f;
  float *dx;
  __half *dy;
  __nv_bfloat16 *dyb;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, x.size() * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&dyb, x.size() * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (isBug(argc, argv))
    rmsnorm_atomic<<<kRows, kCols>>>(dx, dy, dyb);
  else
    rmsnorm_tree<<<kRows, kCols>>>(dx, dy, dyb);
  CHECK_CUDA(cudaGetLastError());
  std::vector<__half> y(x.size());
  std::vector<__nv_bfloat16> yb(x.size());
  CHECK_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(yb.data(), dyb, yb.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  printChecksum("half", y);
  printChecksum("bf16", yb);
  return 0;
}
