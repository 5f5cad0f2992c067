// One block per row of 4096 floats, reduced through shared memory. The bug's
// tree follows blockDim (each thread sums a strided slice, then the block
// halves blockDim): launched with 256 or 512 threads it adds in other
// orders. The twin fixes the tree (32 slices, each summed in index order,
// then a 5-level tree) whatever the launch: the same fingerprints.
// usage: order_block_tree bug|fixed THREADS
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug256.kosan %gpubin/order_block_tree bug 256 > %t/bug256.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug512.kosan %gpubin/order_block_tree bug 512 > %t/bug512.out
// RUN: not %kosan-diff --order %t/bug256.kosan %t/bug512.kosan > %t/bug.diff
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.diff
// BUG: block (256,1,1) vs (512,1,1)
// BUG: 1024/1024 elements
// BUG: NONDETERMINISTIC
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed256.kosan %gpubin/order_block_tree fixed 256 > %t/fixed256.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed512.kosan %gpubin/order_block_tree fixed 512 > %t/fixed512.out
// RUN: %kosan-diff --order %t/fixed256.kosan %t/fixed512.kosan | FileCheck %s --check-prefix=FIXED
// FIXED: DETERMINISTIC
// RUN: diff %t/fixed256.out %t/fixed512.out
// No false alarm on the twin over 20 runs.
// RUN: python3 %S/Inputs/order_runs.py 20 %t/fixed %kosan-diff -- %gpubin/order_block_tree fixed 512 > %t/fixed.runs
// RUN: FileCheck %s --check-prefix=RUNS < %t/fixed.runs
// RUNS: 20 runs; 19 compared with run 0: 19 DETERMINISTIC, 0 NONDETERMINISTIC
// RUN: %kosan-report %t/bug256.kosan | FileCheck %s --check-prefix=STATIC
// STATIC: shared-memory reduction at {{.*}}order_block_tree.cu
// RUN: %gpubin/order_block_tree.plain bug 512 > %t/plain.out
// RUN: diff %t/plain.out %t/bug512.out
// REQUIRES: gpu
#include "common.h"

constexpr int kRows = 1024, kCols = 4096;

__global__ void block_sum(const float *x, float *out, int fixedTree) {
  __shared__ float part[512];
  const float *row = x + size_t(blockIdx.x) * kCols;
  int t = threadIdx.x;
  if (!fixedTree) {
    float acc = 0.0f;
    for (int c = t; c < kCols; c += blockDim.x)
      acc += row[c];
    part[t] = acc;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o >>= 1) {
      if (t < o)
        part[t] += part[t + o];
      __syncthreads();
    }
  } else {
    if (t < 32) {
      float acc = 0.0f;
      for (int c = t; c < kCols; c += 32)
        acc += row[c];
      part[t] = acc;
    }
    __syncthreads();
    for (int o = 16; o > 0; o >>= 1) {
      if (t < o)
        part[t] += part[t + o];
      __syncthreads();
    }
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  bool bug = isBug(argc, argv);
  int threads = std::atoi(argv[2]);
  if (threads < 32 || threads > 512 || (threads & (threads - 1)))
    return 2;
  std::vector<float> x(size_t(kRows) * kCols);
  Lcg rng{4242};
  for (float &v : x)
    v = rng.uniform() - 0.25f;
  float *dx, *dout;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kRows * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<kRows, threads>>>(dx, dout, !bug);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> out(kRows);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kRows * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("row sums", out);
  return 0;
}
