// Half-precision atomicAdd (inline PTX in cuda_fp16.h): 256 blocks add their
// values into 64 halves. The order check logs each contribution like a
// float atomic, so every location is order-dependent from one run; the
// twin adds in a fixed order per location, in one thread.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug.kosan %gpubin/order_half_atomic bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// BUG: kosan: order: kernel 'half_sum_atomic({{.*}})': 64 locations of 'dout' depend on the order float atomics land in
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=REPORT
// REPORT: 16384 float atomics on 'dout' at 64 locations; 64 are order-dependent
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed.kosan %gpubin/order_half_atomic fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --allow-empty --check-prefix=FIXED < %t/fixed.err
// FIXED-NOT: depend on the order
// RUN: %gpubin/order_half_atomic.plain fixed > %t/plain.out
// RUN: diff %t/plain.out %t/fixed.out
// REQUIRES: gpu
#include "common.h"
#include <cuda_fp16.h>

constexpr int kOut = 64, kBlocks = 256;

__global__ void half_sum_atomic(const float *x, __half *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&out[threadIdx.x], __float2half(x[i]));
}

__global__ void half_sum_fixed(const float *x, __half *out) {
  int j = threadIdx.x;
  __half acc = __float2half(0.0f);
  for (int b = 0; b < kBlocks; ++b)
    acc = __hadd(acc, __float2half(x[b * kOut + j]));
  out[j] = acc;
}

int main(int argc, char **argv) {
  std::vector<float> x(kOut * kBlocks);
  Lcg rng{5};
  for (float &v : x)
    v = rng.uniform() - 0.5f;
  float *dx;
  __half *dout;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kOut * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, kOut * sizeof(__half)));
  if (isBug(argc, argv))
    half_sum_atomic<<<kBlocks, kOut>>>(dx, dout);
  else
    half_sum_fixed<<<1, kOut>>>(dx, dout);
  CHECK_CUDA(cudaGetLastError());
  std::vector<__half> out(kOut);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kOut * sizeof(__half), cudaMemcpyDeviceToHost));
  printChecksum("half sums", out);
  return 0;
}
