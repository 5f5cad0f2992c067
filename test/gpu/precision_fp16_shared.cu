// fp32 data staged through shared memory as fp16: each block narrows its
// tile to __half, and every thread then sums a row of the tile in fp32. The
// sums are right to fp16's precision only, 2^-11 of their scale instead of
// fp32's 2^-24. Shadows do not follow values through shared memory (loads
// start new ones), so the store itself looks exact; the narrowing is where
// kosan reports it, as a narrowing whose value is stored to shared memory
// and used from there, held to fp32's allowance. The twin stages fp32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fp16_shared bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py rows_via_half finding cvt | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fp16_shared fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py rows_via_float clean | FileCheck %s --check-prefix=FIXED-VERDICT
// BUG-VERDICT: rows_via_half: finding at line {{[0-9]+}} (narrow), cause cvt{{.*}}: ok
// FIXED-VERDICT: rows_via_float: no finding among {{[0-9]+}} sites: ok
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: {{[1-9][0-9]*}} finding{{s?}} above the threshold (10 bits of fp32)
// REQUIRES: gpu
#include "common.h"

#include <cuda_fp16.h>

constexpr int kTile = 32, kBlocks = 1024;

__global__ void rows_via_half(const float *x, float *out) {
  __shared__ __half tile[kTile][kTile];
  const float *in = x + size_t(blockIdx.x) * kTile * kTile;
  for (int j = 0; j < kTile; ++j)
    tile[j][threadIdx.x] = __float2half(in[j * kTile + threadIdx.x] * 3.0f); // BUG: {{^.*}}precision_fp16_shared.cu:[[@LINE]]:{{[0-9]+}}: f32->f16 narrowing: {{.*}}; stored to shared memory and used from there, off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[0-9.e+]+}}, over the allowance of 10)
  __syncthreads();
  float sum = 0.0f;
  for (int j = 0; j < kTile; ++j)
    sum += __half2float(tile[threadIdx.x][j]);
  out[blockIdx.x * kTile + threadIdx.x] = sum;
}

__global__ void rows_via_float(const float *x, float *out) {
  __shared__ float tile[kTile][kTile];
  const float *in = x + size_t(blockIdx.x) * kTile * kTile;
  for (int j = 0; j < kTile; ++j)
    tile[j][threadIdx.x] = in[j * kTile + threadIdx.x] * 3.0f;
  __syncthreads();
  float sum = 0.0f;
  for (int j = 0; j < kTile; ++j)
    sum += tile[threadIdx.x][j];
  out[blockIdx.x * kTile + threadIdx.x] = sum;
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<float> x(size_t(kBlocks) * kTile * kTile);
  Lcg rng{77};
  for (float &v : x)
    v = 0.5f + rng.uniform(); // [0.5, 1.5)
  float *dx, *dout;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kBlocks * kTile * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (bug)
    rows_via_half<<<kBlocks, kTile>>>(dx, dout);
  else
    rows_via_float<<<kBlocks, kTile>>>(dx, dout);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(kBlocks * kTile);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  return 0;
}
