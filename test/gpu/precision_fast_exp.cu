// __expf where its error is then amplified: a forward difference
// (e^(x+h) - e^x) / h with h = 2^-7, on inputs in [79, 87) that are
// multiples of 2^-10 (so that x + h is exact). __expf is ex2.approx of
// x * log2(e) rounded to fp32: near 80 the product is near 115, where fp32
// values lie 2^-17 apart, and that rounding alone moves e^x by up to 2^-18.5
// of itself; the difference cancels all but 2^-7 of e^x, and the result is
// off by about 2^-11.5 of its scale, 11.5 bits of fp32. expf reduces the
// argument exactly and stays within an ULP or two: the twin's difference
// stays below 8 bits. Unamplified, __expf's error (about 4.5 bits of fp32)
// is no finding: the third kernel stores __expf(x) itself.
// The root cause named is __expf (its ex2.approx), not the subtraction: the
// shadow of __expf(x) is the exact e^x (log2(e) exact, not rounded to fp32),
// and the subtraction's
// own local error (rounding exact exponentials to fp32, then cancelling) is
// 2^5 times smaller than the error it passes on.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fast_exp bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py slope_fast finding __expf | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fast_exp fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py slope_accurate clean | FileCheck %s --check-prefix=FIXED-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/plain.kosan %gpubin/precision_fast_exp plain > %t/plain.out 2> %t/plain.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/plain.err
// RUN: %kosan-report --format json %t/plain.kosan | python3 %S/Inputs/precision_verdict.py exp_fast clean | FileCheck %s --check-prefix=PLAIN-VERDICT
// A lower threshold makes the unamplified __expf a finding too.
// RUN: %kosan-report --precision-threshold 3 %t/plain.kosan | FileCheck %s --check-prefix=PLAIN3
// BUG-VERDICT: slope_fast: finding at line {{[0-9]+}} (store), cause __expf (ex2.approx{{.*}}: ok
// FIXED-VERDICT: slope_accurate: no finding among {{[0-9]+}} sites: ok
// PLAIN-VERDICT: exp_fast: no finding among {{[0-9]+}} sites: ok
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: {{[1-9][0-9]*}} finding{{s?}} above the threshold (10 bits of fp32)
// PLAIN3: f32 store is off by {{.*}} over the allowance of 3;
// PLAIN3: kosan: precision: 1 finding above the threshold (3 bits of fp32)
// REQUIRES: gpu
// BUG-NOT: NaN/Inf born
#include "common.h"

#include <cmath>

constexpr int kCount = 1 << 20;
constexpr float kStep = 0x1p-7f;

__global__ void slope_fast(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    y[i] = (__expf(x[i] + kStep) - __expf(x[i])) / kStep; // BUG: {{^.*}}precision_fast_exp.cu:[[@LINE]]:{{[0-9]+}}: f32 store is off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[0-9.e+]+}}, over the allowance of 10; {{.*}}); introduced by the fast intrinsic __expf (ex2.approx{{[a-z.]*}}) at {{.*}}:{{[0-9]+}}:{{[0-9]+}} (local error up to 2^-{{[0-9]+}} of its result)
}

__global__ void slope_accurate(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    y[i] = (expf(x[i] + kStep) - expf(x[i])) / kStep;
}

__global__ void exp_fast(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    y[i] = __expf(x[i]);
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  const bool plain = argc > 1 && std::strcmp(argv[1], "plain") == 0;
  std::vector<float> x(kCount);
  Lcg rng{4242};
  for (float &v : x) // multiples of 2^-10 in [79, 87): e^87 < FLT_MAX
    v = 79.0f + std::floor(8192.0f * rng.uniform()) / 1024.0f;
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, kCount * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  if (plain)
    exp_fast<<<kCount / 256, 256>>>(dx, dy);
  else if (bug)
    slope_fast<<<kCount / 256, 256>>>(dx, dy);
  else
    slope_accurate<<<kCount / 256, 256>>>(dx, dy);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> y(kCount);
  CHECK_CUDA(cudaMemcpy(y.data(), dy, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", y);
  return 0;
}
