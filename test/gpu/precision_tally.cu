// The precision check's per-thread tallies: a store in a loop adds its
// error to the thread's tally in registers, which reaches the site's slot
// once 255 values are in it (by the lane, with atomics) and when the kernel
// returns (merged over the warp). What a user reads off the trace is the
// same as with a runtime call per value: every value counts once, the
// worst value is the one with the largest absolute error with its own
// block, thread and launch, whether its tally reached the slot in the loop
// or at the return, and lanes that stored nothing add nothing.
//
// x * 3 is exact for the integers stored everywhere but at two planted
// elements: 1 + 2^-23 (thread 40, iteration 10: 3 + 1.5 ULPs rounds to an
// even 3 + 2^-21, off by 2^-23) and 2 + 2^-22 (thread 37 of block 1,
// iteration 270, after its tally was added once: off by 2^-22, the worst).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/loop.kosan %gpubin/precision_tally loop > %t/loop.out
// RUN: grep '"kind":"store"' %t/loop.kosan | FileCheck %s --check-prefix=LOOP
// RUN: env KOSAN_OPTIONS=checks=precision:trace=%t/ragged.kosan %gpubin/precision_tally ragged > %t/ragged.out
// RUN: grep '"kind":"store"' %t/ragged.kosan | FileCheck %s --check-prefix=RAGGED
// The plain build computes the same.
// RUN: %gpubin/precision_tally.plain loop | diff - %t/loop.out
// RUN: %gpubin/precision_tally.plain ragged | diff - %t/ragged.out
// REQUIRES: gpu
#include "common.h"

#include <cmath>

constexpr int kThreads = 64, kBlocks = 2, kIters = 300;

// 2 blocks x 64 threads x 300 values: 38400, all within half an ULP.
__global__ void triple(const float *in, float *out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1 // one store instruction: one site
  for (int j = 0; j < iters; ++j)
    out[t * iters + j] = in[t * iters + j] * 3.0f; // LOOP: "line":[[@LINE]],{{.*}}"count":38400,{{.*}}"max_ulp_err":0.5,{{.*}}"hist":[38400,0,0,0,0,0,0,0],{{.*}}"worst":{"real":6.00000095{{[0-9]*}},"shadow":6.00000071{{[0-9]*}},"block":[1,0,0],"thread":[37,0,0],"launch":1}
}

// Thread t stores t values (0 to 63): 2016, thread 0 none; the two
// planted errors as above, at threads 40 (iteration 10) and 37 of block 0
// (iteration 30).
__global__ void ragged(const float *in, float *out) {
  int t = threadIdx.x;
#pragma unroll 1
  for (int j = 0; j < t; ++j)
    out[t * kIters + j] = in[t * kIters + j] * 3.0f; // RAGGED: "line":[[@LINE]],{{.*}}"count":2016,{{.*}}"hist":[2016,0,0,0,0,0,0,0],{{.*}}"worst":{"real":6.00000095{{[0-9]*}},"shadow":6.00000071{{[0-9]*}},"block":[0,0,0],"thread":[37,0,0],"launch":1}
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "loop";
  bool isRagged = std::strcmp(mode, "ragged") == 0;
  const int n = kBlocks * kThreads * kIters;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = float(i % 1000);
  in[40 * kIters + 10] = 1.0f + std::ldexp(1.0f, -23);
  in[((isRagged ? 0 : kThreads) + 37) * kIters + (isRagged ? 30 : 270)] =
      2.0f + std::ldexp(1.0f, -22);
  float *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, n * sizeof(float)));
  if (isRagged)
    ragged<<<1, kThreads>>>(din, dout);
  else
    triple<<<kBlocks, kThreads>>>(din, dout, kIters);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(n);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  return 0;
}
