// A dot product accumulated in fp16 (__hfma on a __half accumulator): once
// the sum reaches 2048, where fp16 values lie 2 apart, products below 1 no
// longer change it, and the stored result is far from the true sum. The
// twin accumulates in fp32 and rounds to fp16 once, at the store.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fp16_dot bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report --min-bits 6 %t/bug.kosan | FileCheck %s --check-prefix=BUG6
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fp16_dot fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report --min-bits 2 %t/fixed.kosan | FileCheck %s --check-prefix=FIXED2
// Both checks at once: the same finding, and no out-of-bounds access.
// RUN: env KOSAN_OPTIONS=checks=oob,precision %gpubin/precision_fp16_dot bug 2>&1 | FileCheck %s --check-prefix=BOTH
// REQUIRES: gpu
// Nothing turns finite values into NaN or Inf here, and nothing is out of
// bounds (sites are listed worst first: births would come first).
// BUG-NOT: NaN/Inf born
// FIXED-NOT: NaN/Inf born
// BOTH-NOT: ERROR: kosan
#include "common.h"

#include <cuda_fp16.h>

constexpr int kRows = 1024, kLength = 8192;

__global__ void dot_fp16_acc(const __half *a, const __half *b, __half *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= kRows)
    return;
  __half acc = __float2half(0.0f);
  for (int i = 0; i < kLength; ++i)
    acc = __hfma(a[row * kLength + i], b[i], acc);
  out[row] = acc; // BUG: {{^.*}}precision_fp16_dot.cu:[[@LINE]]:{{[0-9]+}}: f16 store loses {{[0-9]+\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1024 values; worst at block {{[0-9]+}} thread {{[0-9]+}}: {{[0-9.e+]+}} vs {{[0-9.e+]+}})
// BUG6: {{^.*}}precision_fp16_dot.cu:[[@LINE-1]]:{{[0-9]+}}: f16 store loses
// BOTH: {{^.*}}precision_fp16_dot.cu:[[@LINE-2]]:{{[0-9]+}}: f16 store loses
}
// BUG: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst {{.*}}precision_fp16_dot.cu:{{[0-9]+}} loses {{[0-9.]+}} bits
// BOTH: kosan: precision:

__global__ void dot_fp32_acc(const __half *a, const __half *b, __half *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= kRows)
    return;
  float acc = 0.0f;
  for (int i = 0; i < kLength; ++i)
    acc = fmaf(__half2float(a[row * kLength + i]), __half2float(b[i]), acc);
  out[row] = __float2half(acc); // FIXED-DAG: {{^.*}}precision_fp16_dot.cu:[[@LINE]]:{{[0-9]+}}: f16 store loses {{[01]\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1024 values;
// FIXED-DAG: {{^.*}}precision_fp16_dot.cu:[[@LINE-1]]:{{[0-9]+}}: f32->f16 narrowing: max rel err {{[0-9.e+-]+}} over 1024 values; {{.*}}; 0 overflows to inf, 0 flushed to zero/subnormal, 0 NaNs
}
// FIXED: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst
// No site of the twin loses 2 bits or more.
// FIXED2: kosan: 0 errors
// FIXED2-NOT: .cu:{{[0-9]+}}:{{[0-9]+}}:
// FIXED2: kosan: precision: {{[0-9]+ sites?}}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<__half> a(size_t(kRows) * kLength), b(kLength);
  Lcg rng{12345};
  auto uniform = [&] { return 0.5f + 0.5f * rng.uniform(); }; // in [0.5, 1)
  for (__half &v : a)
    v = __float2half(uniform());
  for (__half &v : b)
    v = __float2half(uniform());
  __half *da, *db, *dout;
  CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&dout, kRows * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice));
  if (bug)
    dot_fp16_acc<<<kRows / 256, 256>>>(da, db, dout);
  else
    dot_fp32_acc<<<kRows / 256, 256>>>(da, db, dout);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<__half> out(kRows);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kRows * sizeof(__half), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  std::printf("out[0] = %g\n", double(__half2float(out[0])));
  return 0;
}
