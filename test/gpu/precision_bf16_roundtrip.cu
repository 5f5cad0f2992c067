// An fp32 intermediate narrowed to bf16 and widened back
// (__float2bfloat16, then __bfloat162float) before an fp32 store: bf16 keeps
// 8 significant bits of fp32's 24, so the stored value is up to 2^-9 away
// (relative) from what the fp32 computation gives. kosan reports the
// narrowing with its largest rounding error, and the store with the bits it
// lost against the fp64 shadow. The twin keeps the intermediate in fp32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_bf16_roundtrip bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report --min-bits 7 %t/bug.kosan | FileCheck %s --check-prefix=BUG7
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_bf16_roundtrip fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report --min-bits 2 %t/fixed.kosan | FileCheck %s --check-prefix=FIXED2
// REQUIRES: gpu
// BUG-NOT: NaN/Inf born
// FIXED-NOT: NaN/Inf born
#include "common.h"

#include <cuda_bf16.h>

constexpr int kCount = 1 << 20;

__global__ void affine_via_bf16(const float *x, float *y, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kCount)
    return;
  float t = a * x[i] + b;
  __nv_bfloat16 h = __float2bfloat16(t); // BUG-DAG: {{^.*}}precision_bf16_roundtrip.cu:[[@LINE]]:{{[0-9]+}}: f32->bf16 narrowing: max rel err {{0\.00[0-9]+|[0-9.]+e-3}} over 1048576 values; worst at block {{[0-9]+}} thread {{[0-9]+}}: {{[-0-9.e+]+}} -> {{[-0-9.e+]+}}; 0 overflows to inf, 0 flushed to zero/subnormal, 0 NaNs
  y[i] = __bfloat162float(h); // BUG-DAG: {{^.*}}precision_bf16_roundtrip.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[0-9]+\.[0-9]}} bits (max rel err {{0\.00[0-9]+|[0-9.]+e-3}} over 1048576 values;
// BUG7: {{^.*}}precision_bf16_roundtrip.cu:[[@LINE-1]]:{{[0-9]+}}: f32 store loses
}
// BUG: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst {{.*}}precision_bf16_roundtrip.cu:{{[0-9]+}} loses

__global__ void affine_f32(const float *x, float *y, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kCount)
    return;
  float t = a * x[i] + b;
  y[i] = t; // FIXED: {{^.*}}precision_bf16_roundtrip.cu:[[@LINE]]:{{[0-9]+}}: f32 store loses {{[01]\.[0-9]}} bits (max rel err {{[0-9.e+-]+}} over 1048576 values;
}
// FIXED: kosan: precision: {{[0-9]+ sites?}}, {{[0-9]+}} values; worst
// No site of the twin loses 2 bits or more.
// FIXED2: kosan: 0 errors
// FIXED2-NOT: .cu:{{[0-9]+}}:{{[0-9]+}}:
// FIXED2: kosan: precision: {{[0-9]+ sites?}}

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
