// A dot product accumulated in fp16 (__hfma on a __half accumulator): once
// the sum reaches 2048, where fp16 values lie 2 apart, products below 1 no
// longer change it, and the stored result is far from the true sum. The
// twin accumulates in fp32 and rounds to fp16 once, at the store.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fp16_dot bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py dot_fp16_acc finding fma | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fp16_dot fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py dot_fp32_acc clean | FileCheck %s --check-prefix=FIXED-VERDICT
// A reference build holds the candidate to its own precision: against the
// twin, kosan-diff finds the bug's loss beyond it; against itself, none.
// RUN: env KOSAN_OPTIONS=checks=oob,precision:snapshot=1:trace=%t/bug.snap.kosan %gpubin/precision_fp16_dot bug > /dev/null 2>&1
// RUN: env KOSAN_OPTIONS=checks=oob,precision:snapshot=1:trace=%t/fixed.snap.kosan %gpubin/precision_fp16_dot fixed > /dev/null 2>&1
// RUN: not %kosan-diff --launch 1:1 %t/fixed.snap.kosan %t/bug.snap.kosan | FileCheck %s --check-prefix=DIFF
// RUN: not %kosan-diff --launch 1:1 --format json %t/fixed.snap.kosan %t/bug.snap.kosan | python3 -c "import json,sys; d=json.load(sys.stdin); print('beyond', sum(len(l['precision_beyond_ref']) for l in d['launches']))" | FileCheck %s --check-prefix=DIFF-JSON
// RUN: %kosan-diff --launch 1:1 %t/fixed.snap.kosan %t/fixed.snap.kosan | FileCheck %s --check-prefix=SELF
// DIFF: CAND loses more precision than REF (REF at {{.*}}: {{[0-9.]+}} bits of fp32): {{.*}}precision_fp16_dot.cu:{{[0-9]+}}:{{[0-9]+}}: f16 store is off by
// DIFF: kosan-diff: DIFFERENT: {{.*}}; CAND loses more precision than REF at 1 site
// DIFF-JSON: beyond 1
// SELF-NOT: CAND loses more precision
// SELF: kosan-diff: EQUIVALENT
// The summary of the bug's run counts its finding.
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// BUG-VERDICT: dot_fp16_acc: finding at line {{[0-9]+}} ({{[a-z]+}}), cause {{.*}}: ok
// FIXED-VERDICT: dot_fp32_acc: no finding among {{[0-9]+}} sites: ok
// The twin reports nothing at the default threshold.
// FIXED-NOT: {{is off by|NaN/Inf born|into shared memory}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// The bug's findings are counted in the summary.
// BUG-SUMMARY: kosan: precision: {{[1-9][0-9]*}} finding{{s?}} above the threshold (10 bits of fp32)
// REQUIRES: gpu
// The root cause is the f16 fused multiply-add of the loop: accumulation in
// f16, each rounding up to 2^-11 of the running sum.
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
  out[row] = acc; // BUG: {{^.*}}precision_fp16_dot.cu:[[@LINE]]:{{[0-9]+}}: f16 store is off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[0-9.e+]+}}, over the allowance of 15; {{.*}} over 1024 values; worst at block {{[0-9]+}} thread {{[0-9]+}}: {{[0-9.e+]+}} vs {{[0-9.e+]+}}); introduced by accumulation in f16 ({{[a-z0-9.]+}}) at {{.*}}precision_fp16_dot.cu:[[#@LINE-1]]:{{[0-9]+}} (each rounding up to 2^-{{[0-9]+}})
}

__global__ void dot_fp32_acc(const __half *a, const __half *b, __half *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= kRows)
    return;
  float acc = 0.0f;
  for (int i = 0; i < kLength; ++i)
    acc = fmaf(__half2float(a[row * kLength + i]), __half2float(b[i]), acc);
  out[row] = __float2half(acc);
}
// The twin: fp32 accumulation, rounded to f16 once at the store.

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
