// Fast intrinsics in losses, each where its documented error shows.
// - nll_fast: the negative log-likelihood -__logf(p) of confident
//   predictions, p within 2^-16 of 1. __logf's error is absolute (up to
//   2^-21.41 for p in [0.5, 2]) while -log(p) is at most 2^-16 there: the
//   loss is off by some 2^-22 at a scale of 2^-16, over 15 bits of fp32.
//   Its twin calls logf, within an ULP or two of its result.
// - brier_fast: the Brier loss (1 - p)^2 of a two-class softmax of large
//   logits (up to 87.5, the maximum not subtracted), p = __fdividef(e0,
//   e0 + e1). __fdividef(x, y) is 0 for 2^126 < |y| < 2^128, which the sum
//   of the exponentials reaches: the loss comes out 1 where it is about
//   0.25. Its twin divides with '/'.
// Each finding names the fast intrinsic, as called, as its root cause.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fast_loss bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py nll_fast finding __logf | FileCheck %s --check-prefix=BUG-LOG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py brier_fast finding __fdividef | FileCheck %s --check-prefix=BUG-DIV
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fast_loss fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py nll_accurate clean | FileCheck %s --check-prefix=FIXED-LOG
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py brier_accurate clean | FileCheck %s --check-prefix=FIXED-DIV
// BUG-LOG: nll_fast: finding at line {{[0-9]+}} (store), cause __logf (lg2.approx{{.*}}: ok
// BUG-DIV: brier_fast: finding at line {{[0-9]+}} (store), cause __fdividef (div.approx{{.*}}: ok
// FIXED-LOG: nll_accurate: no finding among {{[0-9]+}} sites: ok
// FIXED-DIV: brier_accurate: no finding among {{[0-9]+}} sites: ok
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: 2 findings above the threshold (10 bits of fp32)
// BUG-NOT: NaN/Inf born
// REQUIRES: gpu
#include "common.h"

#include <cmath>

constexpr int kCount = 1 << 20;

__global__ void nll_fast(const float *p, float *loss) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    loss[i] = -__logf(p[i]); // BUG-DAG: {{^.*}}precision_fast_loss.cu:[[@LINE]]:{{[0-9]+}}: f32 store is off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[0-9.e+-]+}}, over the allowance of 10; {{.*}}); introduced by the fast intrinsic __logf (lg2.approx{{[a-z.]*}}) at {{.*}}precision_fast_loss.cu:[[@LINE]]:{{[0-9]+}} (local error up to 2^{{-?[0-9]+}} of its result)
}

__global__ void nll_accurate(const float *p, float *loss) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount)
    loss[i] = -logf(p[i]);
}

__global__ void brier_fast(const float2 *logits, float *loss) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount) {
    float e0 = expf(logits[i].x), e1 = expf(logits[i].y);
    float p = __fdividef(e0, e0 + e1);
    loss[i] = (1.0f - p) * (1.0f - p); // BUG-DAG: {{^.*}}precision_fast_loss.cu:[[@LINE]]:{{[0-9]+}}: f32 store is off by {{.*}} of its scale ({{.*}} bits of fp32 at scale {{[0-9.e+-]+}}, over the allowance of 10; {{.*}}); introduced by the fast intrinsic __fdividef (div.approx{{[a-z.]*}}) at {{.*}}precision_fast_loss.cu:[[@LINE-1]]:{{[0-9]+}} (local error up to 2^{{-?[0-9]+}} of its result)
  }
}

__global__ void brier_accurate(const float2 *logits, float *loss) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCount) {
    float e0 = expf(logits[i].x), e1 = expf(logits[i].y);
    float p = e0 / (e0 + e1);
    loss[i] = (1.0f - p) * (1.0f - p);
  }
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<float> p(kCount);
  std::vector<float2> logits(kCount);
  Lcg rng{2718};
  for (float &v : p) // 1 - k * 2^-24, k in [1, 256]: exact, within 2^-16 of 1
    v = 1.0f - std::ldexp(1.0f + std::floor(256.0f * rng.uniform()), -24);
  for (float2 &z : logits) { // e^87.5 < FLT_MAX; e0 + e1 mostly above 2^126
    z.x = 86.5f + rng.uniform();
    z.y = 86.5f + rng.uniform();
  }
  float *dp, *dnll, *dbrier;
  float2 *dlogits;
  CHECK_CUDA(cudaMalloc(&dp, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dlogits, kCount * sizeof(float2)));
  CHECK_CUDA(cudaMalloc(&dnll, kCount * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dbrier, kCount * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dp, p.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dlogits, logits.data(), kCount * sizeof(float2), cudaMemcpyHostToDevice));
  if (bug) {
    nll_fast<<<kCount / 256, 256>>>(dp, dnll);
    brier_fast<<<kCount / 256, 256>>>(dlogits, dbrier);
  } else {
    nll_accurate<<<kCount / 256, 256>>>(dp, dnll);
    brier_accurate<<<kCount / 256, 256>>>(dlogits, dbrier);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> nll(kCount), brier(kCount);
  CHECK_CUDA(cudaMemcpy(nll.data(), dnll, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(brier.data(), dbrier, kCount * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("nll", nll);
  printChecksum("brier", brier);
  return 0;
}
