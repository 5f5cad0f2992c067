// Variance as E[x^2] - E[x]^2 on data with mean 1e4 and standard deviation
// 1: both terms are near 1e8, where fp32 values lie 8 apart, and their
// difference (about 1) is all rounding error. The twin is Welford's update
// on the data shifted by its first value, so that the differences it forms
// are exact (unshifted, the running mean itself is rounded to 1e-3 at every
// step, which costs about 13 bits in fp32).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_variance bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report --min-bits 10 %t/bug.kosan | FileCheck %s --check-prefix=BUG10
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_variance fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report --min-bits 4 %t/fixed.kosan | FileCheck %s --check-prefix=FIXED4
// The exact numbers, from the trace: the bug's store loses 10 bits or more,
// the twin's fewer than 4.
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_bits.py variance_naive 10 inf | FileCheck %s --check-prefix=BUG-BITS
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_bits.py variance_welford 0 4 | FileCheck %s --check-prefix=FIXED-BITS
// BUG-BITS: store variance_naive{{(\(.*\))?}}: {{[0-9.]+|inf}} bits: ok
// FIXED-BITS: store variance_welford{{(\(.*\))?}}: {{[0-9.]+}} bits: ok
// REQUIRES: gpu
// BUG-NOT: NaN/Inf born
// FIXED-NOT: NaN/Inf born
#include "common.h"

constexpr int kRows = 1024, kLength = 64;

__global__ void variance_naive(const float *x, float *var) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kLength;
  float sum = 0.0f, sumSquares = 0.0f;
  for (int j = 0; j < kLength; ++j) {
    sum += row[j];
    sumSquares += row[j] * row[j];
  }
  float mean = sum / kLength;
  var[r] = sumSquares / kLength - mean * mean; // BUG: {{^.*}}precision_variance.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[0-9]+\.[0-9] bits|all its bits}} (max rel err {{[0-9.e+-]+|inf}} over 1024 values;
// BUG10: {{^.*}}precision_variance.cu:[[@LINE-1]]:{{[0-9]+}}: f32 store loses
}
// BUG: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst {{.*}}precision_variance.cu:{{[0-9]+}} loses

__global__ void variance_welford(const float *x, float *var) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kLength;
  float shift = row[0], mean = 0.0f, m2 = 0.0f;
  for (int j = 0; j < kLength; ++j) {
    float v = row[j] - shift;
    float delta = v - mean;
    mean += delta / float(j + 1);
    m2 += delta * (v - mean);
  }
  var[r] = m2 / kLength; // FIXED: {{^.*}}precision_variance.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[0-3]\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1024 values;
}
// FIXED: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst
// No site of the twin loses 4 bits or more.
// FIXED4: kosan: 0 errors
// FIXED4-NOT: .cu:{{[0-9]+}}:{{[0-9]+}}:
// FIXED4: kosan: precision: {{[0-9]+ sites?}}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  // Mean 1e4, standard deviation 1: the sum of 12 uniforms, less 6.
  std::vector<float> x(size_t(kRows) * kLength);
  Lcg rng{2024};
  for (float &v : x) {
    double g = -6.0;
    for (int k = 0; k < 12; ++k) {
      g += double(rng.bits24()) / 16777216.0;
    }
    v = float(1e4 + g);
  }
  float *dx, *dvar;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dvar, kRows * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (bug)
    variance_naive<<<kRows / 128, 128>>>(dx, dvar);
  else
    variance_welford<<<kRows / 128, 128>>>(dx, dvar);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> var(kRows);
  CHECK_CUDA(cudaMemcpy(var.data(), dvar, kRows * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("var", var);
  std::printf("var[0] = %g\n", double(var[0]));
  return 0;
}
