// A race stops the kernel under halt_on_error=1 and stop_after, as a bad
// access does: the block's tree reduction whose first __syncthreads() is
// missing (as in race_reduce.cu) is reported with both sites, the kernel
// traps right after the race is in the log, the program's next CUDA call
// gets the launch failure, and the exit report says the kernel was stopped.
// Without halt_on_error the same kernel runs to its end.
// RUN: env KOSAN_OPTIONS=checks=oob,race:halt_on_error=1 %gpubin/race_halt bug > %t.out 2> %t.err; FileCheck %s --check-prefixes=CHECK,HALT < %t.err
// RUN: FileCheck %s --check-prefix=HALTOUT < %t.out
// RUN: env KOSAN_OPTIONS=checks=oob,race %gpubin/race_halt bug > %t.run.out 2> %t.run.err; FileCheck %s --check-prefixes=CHECK,RUNS < %t.run.err
// RUN: FileCheck %s --check-prefix=RUNSOUT < %t.run.out
// stop_after counts racing accesses too: 8 blocks of 128 reads race, the
// kernel stops at the fifth.
// RUN: env KOSAN_OPTIONS=checks=oob,race:stop_after=4 %gpubin/race_halt bug > %t.budget.out 2> %t.budget.err; FileCheck %s --check-prefixes=CHECK,BUDGET < %t.budget.err
// RUN: FileCheck %s --check-prefix=HALTOUT < %t.budget.out
// The race counts as an error: error_exitcode applies to a stopped kernel.
// RUN: sh -c 'KOSAN_OPTIONS=checks=oob,race:halt_on_error=1:error_exitcode=42 %gpubin/race_halt bug > /dev/null 2>&1; test $? -eq 42'
// The twin has its barrier: nothing to stop, nothing reported.
// RUN: env KOSAN_OPTIONS=checks=oob,race:halt_on_error=1 %gpubin/race_halt fixed > %t.fixed 2> %t.fixed.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.fixed.err
// RUN: FileCheck %s --check-prefix=RUNSOUT < %t.fixed
// The race check off at run time: halt_on_error has no race to act on.
// RUN: env KOSAN_OPTIONS=checks=oob:halt_on_error=1 %gpubin/race_halt bug 2> %t.off.err | FileCheck %s --check-prefix=RUNSOUT
// RUN: FileCheck --allow-empty --check-prefix=OFF %s < %t.off.err
// REQUIRES: gpu
#include "common.h"

// CHECK-DAG: ERROR: kosan: data-race: {{READ|WRITE}} of size 4 in kernel 'block_sum(float*, int*, float const*, int)' at
// CHECK-DAG: conflicts with the {{READ|WRITE}} of size 4 at
// CHECK-DAG: with no barrier between them
__global__ void block_sum(float *out, int *done, const float *in, int skipBarrier) {
  __shared__ float sdata[256];
  int t = threadIdx.x;
  sdata[t] = in[blockIdx.x * 256 + t]; // CHECK-DAG: race_halt.cu:[[@LINE]]
  if (!skipBarrier)
    __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s)
      sdata[t] += sdata[t + s]; // CHECK-DAG: race_halt.cu:[[@LINE]]
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = sdata[0];
    atomicAdd(done, 1);
  }
}
// CHECK: SUMMARY: kosan: data-race
// HALT: kosan: the kernel was stopped at its first race (halt_on_error=1)
// HALT-NOT: stop_after
// HALT: kosan: {{[0-9]+}} racing access{{(es)?}} at {{[0-9]+}} pair{{s?}} of sites
// HALT-NEXT: kosan: 1 kernel was stopped at a race (halt_on_error=1); it did not finish
// BUDGET: kosan: a kernel was stopped after 4 racing accesses (stop_after)
// BUDGET: kosan: {{[0-9]+}} racing accesses at {{[0-9]+}} pair{{s?}} of sites
// BUDGET-NEXT: kosan: 1 kernel was stopped at a race (stop_after); it did not finish
// RUNS-NOT: stopped
// RUNS: kosan: {{[0-9]+}} racing accesses at {{[0-9]+}} pair{{s?}} of sites
// RUNS-NOT: stopped
// HALTOUT: sync: failed (cudaError{{[A-Za-z]+}})
// HALTOUT-NOT: blocks done
// RUNSOUT: sync: ok
// RUNSOUT-NEXT: 8 of 8 blocks done
// FIXED-NOT: kosan
// OFF-NOT: kosan

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int blocks = 8, n = blocks * 256;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 13) * 0.5f;
  float *in, *out;
  int *done;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, blocks * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&done, sizeof(int)));
  CHECK_CUDA(cudaMemset(done, 0, sizeof(int)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<blocks, 256>>>(out, done, in, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("sync: failed (%s)\n", cudaGetErrorName(e));
    return 0; // the exit report (and error_exitcode) still come
  }
  std::printf("sync: ok\n");
  int finished = 0;
  CHECK_CUDA(cudaMemcpy(&finished, done, sizeof finished, cudaMemcpyDeviceToHost));
  std::printf("%d of %d blocks done\n", finished, blocks);
  return 0;
}
