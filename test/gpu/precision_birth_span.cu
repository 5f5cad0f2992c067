// A sum of 16 products on one line, unrolled into one block (as matmul's
// tile loop): the precision clone reports NaN/Inf births every 4 operations
// of a long block (-kosan-prec-birth-span), not once at its end. Births in
// the first and in the last group of the block are both found, once per
// thread, at the line; an infinity that was loaded is no birth; the twin
// (all products finite) reports nothing.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision %gpubin/precision_birth_span bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: env KOSAN_OPTIONS=checks=precision %gpubin/precision_birth_span loaded > %t/loaded.out 2> %t/loaded.err
// RUN: FileCheck %s --check-prefix=LOADED < %t/loaded.err
// RUN: env KOSAN_OPTIONS=checks=precision %gpubin/precision_birth_span fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.err
// LOADED-NOT: NaN/Inf born
// FIXED-NOT: {{is off by|NaN/Inf born}}
// FIXED: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// REQUIRES: gpu
#include "common.h"

#include <cmath>

constexpr int kThreads = 1024, kTerms = 16;

__global__ void sum_of_products(const float *a, const float *b, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kTerms; ++k)
    acc += a[t * kTerms + k] * b[t * kTerms + k]; // BUG: {{^.*}}precision_birth_span.cu:[[@LINE]]:{{[0-9]+}}: NaN/Inf born in {{[a-z0-9._]+}} (f32) 1024 times from finite operands; first at block {{[0-9]+}} thread {{[0-9]+}}: inf (fp64 shadow 3.40{{[0-9]*}}e+38)
  out[t] = acc;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fixed";
  // Ones, but for one product per thread in "bug": 2^64 * 2^64 = 2^128
  // overflows fp32 (fp64: 3.4028e38), at the third term for odd threads
  // (the block's first group of four), the fourteenth for even ones (its
  // last); in "loaded" the fourth term of a is an infinity read from
  // memory, which the sum carries on but no operation makes.
  std::vector<float> a(size_t(kThreads) * kTerms, 1.0f), b(a.size(), 1.0f);
  for (int t = 0; t < kThreads; ++t) {
    if (std::strcmp(mode, "bug") == 0) {
      int k = t % 2 ? 2 : 13;
      a[t * kTerms + k] = b[t * kTerms + k] = std::ldexp(1.0f, 64);
    } else if (std::strcmp(mode, "loaded") == 0) {
      a[t * kTerms + 3] = INFINITY;
    }
  }
  float *da, *db, *dout;
  CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kThreads * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  sum_of_products<<<kThreads / 256, 256>>>(da, db, dout);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(kThreads);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  return 0;
}
