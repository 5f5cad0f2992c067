// An fp32 intermediate narrowed to bf16 and widened back
// (__float2bfloat16, then __bfloat162float) before an fp32 store: bf16 keeps
// 8 significant bits of fp32's 24, so the stored value is up to 2^-9 away
// (relative) from what the fp32 computation gives. kosan reports the
// narrowing with its largest rounding error, and the store with the bits it
// lost against the fp64 shadow. The twin keeps the intermediate in fp32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_bf16_roundtrip bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py affine_via_bf16 finding bf16 | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_bf16_roundtrip fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py affine_f32 clean | FileCheck %s --check-prefix=FIXED-VERDICT
// BUG-VERDICT: affine_via_bf16: finding at line {{[0-9]+}} ({{[a-z]+}}), cause {{.*}}: ok
// FIXED-VERDICT: affine_f32: no finding among {{[0-9]+}} sites: ok
// The twin reports nothing at the default threshold.
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: {{[1-9][0-9]*}} finding{{s?}} above the threshold (10 bits of fp32)
// REQUIRES: gpu
#include "common.h"

#include <cuda_bf16.h>

constexpr int kCount = 1 << 20;

__global__ void affine_via_bf16(const float *x, float *y, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kCount)
    return;
  float t = a * x[i] + b;
  __nv_bfloat16 h = __float2bfloat16(t);
  y[i] = __bfloat162float(h); // BUG: {{^.*}}precision_bf16_roundtrip.cu:[[@LINE]]:{{[0-9]+}}: f32 store is off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[-0-9.e+]+}}, over the allowance of 10; {{.*}} over 1048576 values; {{.*}}); introduced by the f32->bf16 narrowing at {{.*}}precision_bf16_roundtrip.cu:[[#@LINE-1]]:{{[0-9]+}} (each rounding up to 2^-{{[0-9]+}})
}

__global__ void affine_f32(const float *x, float *y, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kCount)
    return;
  float t = a * x[i] + b;
  y[i] = t;
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<float> x(kCount);
  Lcg rng{99};
  for (float &v : x)
    v = rng.uniform() * 8.0f - 4.0f; // [-4, 4)
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, kCount * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  const float a = 1.7f, b = 10.3f; // results in [3.5, 17.1): nothing near 0
  if (bug)
    affine_via_bf16<<<kCount / 256, 256>>>(dx, dy, a, b);
  else
    affine_f32<<<kCount / 256, 256>>>(dx, dy, a, b);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> y(kCount);
  CHECK_CUDA(cudaMemcpy(y.data(), dy, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", y);
  return 0;
}
