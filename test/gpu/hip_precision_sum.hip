// HIP, checks=precision: each thread adds 16384 small values (1e-4) onto a
// running fp32 sum that starts at 1000, where fp32's step is 6.1e-5: every
// addition rounds, the rounding errors pile up, and the stored sum is off
// by thousands of ULPs of fp32 from its fp64 shadow. The twin accumulates
// in double and stores the rounded result: within the allowance.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/hip_precision_sum bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/hip_precision_sum fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %gpubin/hip_precision_sum.plain fixed > %t/plain.out; diff %t/fixed.out %t/plain.out
// REQUIRES: gpu
#include "hip_common.h"

constexpr int kThreads = 256, kTerms = 16384;

__global__ void running_sum(const float *x, float *out) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  float acc = 1000.0f;
  for (int k = 0; k < kTerms; ++k)
    acc += x[k];
  out[i] = acc; // BUG: hip_precision_sum.hip:[[@LINE]]:{{[0-9]+}}: f32 store is off by 2^-{{[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale
}

__global__ void running_sum_fp64(const float *x, float *out) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  double acc = 1000.0;
  for (int k = 0; k < kTerms; ++k)
    acc += x[k];
  out[i] = float(acc);
}
// BUG: kosan: precision: 1 finding above the threshold (10 bits of fp32)
// FIXED-NOT: is off by
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)

int main(int argc, char **argv) {
  std::vector<float> hx(kTerms, 1e-4f), hout(kThreads);
  float *x, *out;
  CHECK_HIP(hipMalloc(&x, kTerms * sizeof(float)));
  CHECK_HIP(hipMalloc(&out, kThreads * sizeof(float)));
  CHECK_HIP(hipMemcpy(x, hx.data(), kTerms * sizeof(float), hipMemcpyHostToDevice));
  if (isBug(argc, argv))
    hipLaunchKernelGGL(running_sum, dim3(1), dim3(kThreads), 0, 0, x, out);
  else
    hipLaunchKernelGGL(running_sum_fp64, dim3(1), dim3(kThreads), 0, 0, x, out);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(hout.data(), out, kThreads * sizeof(float), hipMemcpyDeviceToHost));
  printChecksum("out", hout);
  CHECK_HIP(hipFree(x));
  CHECK_HIP(hipFree(out));
  return 0;
}
