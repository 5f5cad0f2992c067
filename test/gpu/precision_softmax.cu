// A softmax that does not subtract the row's maximum: with logits up to 100,
// expf overflows (fp32 ends near e^88.7), the row's sum becomes inf and its
// outputs 0 and NaN. kosan names the line where inf is born from finite
// values. The twin subtracts the maximum and computes in fp32: its outputs
// are a few ULPs of fp32 from the exact softmax at their scale (tiny
// probabilities far from it relative to themselves, which is no finding).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_softmax bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py softmax_unshifted finding | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_softmax fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py softmax_shifted clean | FileCheck %s --check-prefix=FIXED-VERDICT
// BUG-VERDICT: softmax_unshifted: finding at line {{[0-9]+}} ({{[a-z]+}}), cause {{.*}}: ok
// FIXED-VERDICT: softmax_shifted: no finding among {{[0-9]+}} sites: ok
// The twin reports nothing at the default threshold.
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: {{[1-9][0-9]*}} finding{{s?}} above the threshold (10 bits of fp32)
// REQUIRES: gpu
#include "common.h"

#include <cmath>

constexpr int kRows = 1024, kCols = 32;

// Every row holds one logit of 100: each expf line overflows once per row.
__global__ void softmax_unshifted(const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kCols;
  float sum = 0.0f;
  for (int j = 0; j < kCols; ++j)
    sum += expf(row[j]); // BUG: {{^.*}}precision_softmax.cu:[[@LINE]]:{{[0-9]+}}: NaN/Inf born in {{[a-z0-9._]+}} (f32) 1024 times from finite operands; first at block {{[0-9]+}} thread {{[0-9]+}}: inf (fp64 shadow 2.688{{[0-9]*}}e+43)
  // (The compiler may reuse the first loop's exponentials here.)
  for (int j = 0; j < kCols; ++j)
    y[r * kCols + j] = expf(row[j]) / sum;
// The outputs, 0 and NaN where the shadow holds the softmax, lose all their bits.
}

__global__ void softmax_shifted(const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kCols;
  float m = row[0];
  for (int j = 1; j < kCols; ++j)
    m = fmaxf(m, row[j]);
  float sum = 0.0f;
  for (int j = 0; j < kCols; ++j)
    sum += expf(row[j] - m);
  for (int j = 0; j < kCols; ++j)
    y[r * kCols + j] = expf(row[j] - m) / sum;
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  // Logits are multiples of 1/16 in [-100, 50], one of 100 per row: the
  // subtraction of the maximum is exact.
  std::vector<float> x(size_t(kRows) * kCols);
  Lcg rng{777};
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kCols; ++j) {
      int bits = int(rng.bits24());
      x[r * kCols + j] = j == r % kCols ? 100.0f : float(bits % 2401 - 1600) / 16.0f;
    }
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (bug)
    softmax_unshifted<<<kRows / 128, 128>>>(dx, dy);
  else
    softmax_shifted<<<kRows / 128, 128>>>(dx, dy);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> y(x.size());
  CHECK_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", y);
  int nans = 0;
  for (float v : y)
    nans += std::isnan(v);
  std::printf("%d NaN outputs\n", nans);
  return 0;
}
