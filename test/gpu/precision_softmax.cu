// A softmax that does not subtract the row's maximum: with logits up to 100,
// expf overflows (fp32 ends near e^88.7), the row's sum becomes inf and its
// outputs 0 and NaN. kosan names the line where inf is born from finite
// values. The twin subtracts the maximum, and computes the exponentials and
// their sum in fp64: what is left to lose is the final rounding to fp32 (in
// fp32 the exponentials' own 1-2 ULP errors and the sum's rounding alone
// take some outputs 4 or more ULPs from the exact softmax).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_softmax bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG-REPORT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_softmax fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report --min-bits 2 %t/fixed.kosan | FileCheck %s --check-prefix=FIXED2
// REQUIRES: gpu
// The twin creates no NaN or Inf (births would be listed first).
// FIXED-NOT: NaN/Inf born
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
    sum += expf(row[j]); // BUG-DAG: {{^.*}}precision_softmax.cu:[[@LINE]]:{{[0-9]+}}: NaN/Inf born in {{[a-z0-9._]+}} (f32) 1024 times from finite operands; first at block {{[0-9]+}} thread {{[0-9]+}}: inf (fp64 shadow 2.688{{[0-9]*}}e+43)
// BUG-REPORT: {{^.*}}precision_softmax.cu:[[@LINE-1]]:{{[0-9]+}}: NaN/Inf born in {{[a-z0-9._]+}} (f32) 1024 times from finite operands
  // (The compiler may reuse the first loop's exponentials here.)
  for (int j = 0; j < kCols; ++j)
    y[r * kCols + j] = expf(row[j]) / sum;
// The outputs, 0 and NaN where the shadow holds the softmax, lose all their bits.
// BUG-DAG: {{^.*}}precision_softmax.cu:[[@LINE-2]]:{{[0-9]+}}: f32 store loses {{all its bits|[0-9]+\.[0-9] bits}} (max rel err {{inf|nan|1}} over 32768 values;
}
// BUG: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst {{.*}}precision_softmax.cu:{{[0-9]+}}: NaN/Inf born 1024 times
// BUG-REPORT: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst {{.*}}precision_softmax.cu:{{[0-9]+}}: NaN/Inf born 1024 times

__global__ void softmax_shifted(const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kRows)
    return;
  const float *row = x + r * kCols;
  float m = row[0];
  for (int j = 1; j < kCols; ++j)
    m = fmaxf(m, row[j]);
  double sum = 0.0;
  for (int j = 0; j < kCols; ++j)
    sum += exp(double(row[j] - m));
  for (int j = 0; j < kCols; ++j)
    y[r * kCols + j] = float(exp(double(row[j] - m)) / sum); // FIXED: {{^.*}}precision_softmax.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[01]\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 32768 values;
}
// FIXED: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst
// No site of the twin loses 2 bits or more.
// FIXED2: kosan: 0 errors
// FIXED2-NOT: .cu:{{[0-9]+}}:{{[0-9]+}}:
// FIXED2: kosan: precision: {{[0-9]+ sites?}}

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
