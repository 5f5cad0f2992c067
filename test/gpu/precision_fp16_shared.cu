// fp16 rounding through shared memory in a dot product: each block computes
// the dot product of two rows of kLen fp32 values; each thread sums its
// share of the products in fp32 and leaves its partial sum in a __half
// array in shared memory, which the block reduces as a tree, each step
// adding two halves in fp32 and rounding the sum back to fp16. The result,
// near 1000, is rounded to fp16 at every level, last at its full size: off
// by about an fp16 ULP, 2^-12 of its scale, some 12 bits of fp32.
// kosan follows the values' shadows through the shared array: the fp32
// store of the result is the finding, and its root cause the f32->f16
// narrowing into shared memory. The twins: the same tree in fp32
// (dot_float_tree), and the fp16 tree whose result is stored as fp16, where
// fp16 is what the program asks for (dot_half_tree_half_out: held to fp16's
// allowance, 15 bits, no finding).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/bug.kosan %gpubin/precision_fp16_shared bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG-SUMMARY < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG
// RUN: %kosan-report --format json %t/bug.kosan | python3 %S/Inputs/precision_verdict.py dot_half_tree finding cvt | FileCheck %s --check-prefix=BUG-VERDICT
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/fixed.kosan %gpubin/precision_fp16_shared fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py dot_float_tree clean | FileCheck %s --check-prefix=FIXED-VERDICT
// RUN: %kosan-report --format json %t/fixed.kosan | python3 %S/Inputs/precision_verdict.py dot_half_tree_half_out clean | FileCheck %s --check-prefix=HALF-OUT-VERDICT
// BUG-VERDICT: dot_half_tree: finding at line {{[0-9]+}} (store), cause cvt{{.*}}: ok
// FIXED-VERDICT: dot_float_tree: no finding among {{[0-9]+}} sites: ok
// HALF-OUT-VERDICT: dot_half_tree_half_out: no finding among {{[0-9]+}} sites: ok
// FIXED-NOT: {{is off by|NaN/Inf born|shared memory and used}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// BUG-SUMMARY: kosan: precision: 1 finding above the threshold (10 bits of fp32)
// BUG-NOT: shared memory and used
// REQUIRES: gpu
#include "common.h"

#include <cuda_fp16.h>

constexpr int kThreads = 256, kLen = kThreads * 16, kBlocks = 512;

// The partial sums of one block's dot product, in partial[0] and [1].
template <typename T>
__device__ __forceinline__ void partialSums(const float *a, const float *b, T *partial) {
  const float *x = a + size_t(blockIdx.x) * kLen, *y = b + size_t(blockIdx.x) * kLen;
  float sum = 0.0f;
  for (int k = threadIdx.x; k < kLen; k += kThreads)
    sum += x[k] * y[k];
  partial[threadIdx.x] = T(sum);
  __syncthreads();
  for (int s = kThreads / 2; s > 1; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] = T(float(partial[threadIdx.x]) + float(partial[threadIdx.x + s]));
    __syncthreads();
  }
}

__global__ void dot_half_tree(const float *a, const float *b, float *out) {
  __shared__ __half partial[kThreads];
  partialSums(a, b, partial);
  if (threadIdx.x == 0)
    out[blockIdx.x] = __half2float(partial[0]) + __half2float(partial[1]); // BUG: {{^.*}}precision_fp16_shared.cu:[[@LINE]]:{{[0-9]+}}: f32 store is off by 2^{{-?[0-9.]+}} of its scale ({{[0-9.]+}} bits of fp32 at scale {{[0-9.e+]+}}, over the allowance of 10; {{.*}}); introduced by the f32->f16 narrowing at {{.*}}precision_fp16_shared.cu:{{[0-9]+}}:{{[0-9]+}} (each rounding up to 2^-{{[0-9]+}})
}

__global__ void dot_float_tree(const float *a, const float *b, float *out) {
  __shared__ float partial[kThreads];
  partialSums(a, b, partial);
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0] + partial[1];
}

__global__ void dot_half_tree_half_out(const float *a, const float *b, __half *out) {
  __shared__ __half partial[kThreads];
  partialSums(a, b, partial);
  if (threadIdx.x == 0)
    out[blockIdx.x] = __float2half(__half2float(partial[0]) + __half2float(partial[1]));
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  std::vector<float> a(size_t(kBlocks) * kLen), b(a.size());
  Lcg rng{77};
  for (float &v : a)
    v = rng.uniform(); // [0, 1): sums near kLen / 4
  for (float &v : b)
    v = rng.uniform();
  float *da, *db, *dout;
  __half *dhalf;
  CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kBlocks * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dhalf, kBlocks * sizeof(__half)));
  CHECK_CUDA(cudaMemset(dout, 0, kBlocks * sizeof(float)));
  CHECK_CUDA(cudaMemset(dhalf, 0, kBlocks * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (bug) {
    dot_half_tree<<<kBlocks, kThreads>>>(da, db, dout);
  } else {
    dot_float_tree<<<kBlocks, kThreads>>>(da, db, dout);
    dot_half_tree_half_out<<<kBlocks, kThreads>>>(da, db, dhalf);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(kBlocks);
  std::vector<__half> half(kBlocks);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(half.data(), dhalf, half.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  std::vector<float> halfOut(kBlocks);
  for (int i = 0; i < kBlocks; ++i)
    halfOut[i] = __half2float(half[i]);
  printChecksum("half_out", halfOut);
  return 0;
}
