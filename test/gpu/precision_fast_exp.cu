// __expf against expf on inputs around 80. __expf is ex2.approx of
// x * log2(e) rounded to fp32: near 80 the product is near 115, where fp32
// values lie 2^-17 apart, and that rounding alone moves the result by up to
// 2.6e-6 (about 44 ULPs). expf reduces the argument exactly and stays
// within 2 ULPs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fast_exp bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report --min-bits 5 %t/bug.kosan | FileCheck %s --check-prefix=BUG5
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fast_exp fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report --min-bits 2 %t/fixed.kosan | FileCheck %s --check-prefix=FIXED2
// The exact numbers, from the trace.
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_bits.py exp_fast 5 inf | FileCheck %s --check-prefix=BUG-BITS
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_bits.py exp_accurate 0 2 | FileCheck %s --check-prefix=FIXED-BITS
// BUG-BITS: store exp_fast{{(\(.*\))?}}: {{[0-9.]+}} bits: ok
// FIXED-BITS: store exp_accurate{{(\(.*\))?}}: {{[0-9.]+}} bits: ok
// REQUIRES: gpu
// BUG-NOT: NaN/Inf born
// FIXED-NOT: NaN/Inf born
#include "common.h"

constexpr int kCount = 1 << 20;

__global__ void exp_fast(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    y[i] = __expf(x[i]); // BUG: {{^.*}}precision_fast_exp.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[0-9]+\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1048576 values; worst at block {{[0-9]+}} thread {{[0-9]+}}: {{[0-9.e+]+}} vs {{[0-9.e+]+}})
// BUG5: {{^.*}}precision_fast_exp.cu:[[@LINE-1]]:{{[0-9]+}}: f32 store loses
}
// BUG: kosan: precision: {{[0-9]+ sites?}}, 1048576 values; worst {{.*}}precision_fast_exp.cu:{{[0-9]+}} loses

__global__ void exp_accurate(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    y[i] = expf(x[i]); // FIXED: {{^.*}}precision_fast_exp.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[01]\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1048576 values;
}
// FIXED: kosan: precision: {{[0-9]+ sites?}}, 1048576 values; worst
// No site of the twin loses 2 bits or more.
// FIXED2: kosan: 0 errors
// FIXED2-NOT: .cu:{{[0-9]+}}:{{[0-9]+}}:
// FIXED2: kosan: precision: {{[0-9]+ sites?}}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<float> x(kCount);
  Lcg rng{4242};
  for (float &v : x)
    v = 79.0f + 8.0f * rng.uniform(); // [79, 87): e^87 < FLT_MAX
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, kCount * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  if (bug)
    exp_fast<<<kCount / 256, 256>>>(dx, dy);
  else
    exp_accurate<<<kCount / 256, 256>>>(dx, dy);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> y(kCount);
  CHECK_CUDA(cudaMemcpy(y.data(), dy, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", y);
  return 0;
}
