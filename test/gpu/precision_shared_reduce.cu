// Dot products through an array of accumulators in shared memory: each
// block takes whole vectors in turn (more vectors than blocks), each thread
// sums strided products into its accumulators, and the block reduces the
// 1024 accumulators as a tree, synchronising before every level. The
// precision check gives the array a shadow in shared memory; the program
// must compute the same bits with it as without, and its results must match
// the host's. Both variants are correct: "bug" synchronises through
// cooperative groups (cg::sync), "fixed" through __syncthreads, so that a
// difference between them points at one or the other.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %gpubin/precision_shared_reduce.plain bug > %t/plain.bug
// RUN: %gpubin/precision_shared_reduce.plain fixed > %t/plain.fixed
// RUN: env KOSAN_OPTIONS=checks=precision %gpubin/precision_shared_reduce bug > %t/prec.bug 2> %t/prec.bug.err
// RUN: env KOSAN_OPTIONS=checks=precision %gpubin/precision_shared_reduce fixed > %t/prec.fixed 2> %t/prec.fixed.err
// RUN: FileCheck %s < %t/prec.bug
// RUN: FileCheck %s < %t/prec.fixed
// RUN: cmp %t/plain.bug %t/prec.bug
// RUN: cmp %t/plain.fixed %t/prec.fixed
// RUN: FileCheck %s --check-prefix=CLEAN < %t/prec.bug.err
// RUN: FileCheck %s --check-prefix=CLEAN < %t/prec.fixed.err
// CHECK: dot products match the host's (L1 error {{.*}}): ok
// CLEAN-NOT: NaN/Inf born
// CLEAN: kosan: precision: 0 findings above the threshold (10 bits of fp32)
// REQUIRES: gpu
#include "common.h"

#include <cmath>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kAccumulators = 1024, kVectors = 256, kLength = 4096;
constexpr int kBlocks = 128, kThreads = 256;

template <bool kCooperative>
__global__ void dot_vectors(float *result, const float *x, const float *y) {
  __shared__ float partial[kAccumulators];
  cg::thread_block block = cg::this_thread_block();
  auto barrier = [&] {
    if (kCooperative)
      cg::sync(block);
    else
      __syncthreads();
  };
  for (int v = blockIdx.x; v < kVectors; v += gridDim.x) {
    const int first = v * kLength, last = first + kLength;
    for (int a = threadIdx.x; a < kAccumulators; a += blockDim.x) {
      float s = 0;
      for (int i = first + a; i < last; i += kAccumulators)
        s += x[i] * y[i];
      partial[a] = s;
    }
    for (int width = kAccumulators / 2; width > 0; width /= 2) {
      barrier();
      for (int a = threadIdx.x; a < width; a += blockDim.x)
        partial[a] += partial[width + a];
    }
    barrier();
    if (threadIdx.x == 0)
      result[v] = partial[0];
  }
}

int main(int argc, char **argv) {
  const bool bug = isBug(argc, argv);
  const size_t n = size_t(kVectors) * kLength;
  std::vector<float> x(n), y(n);
  Lcg rng{314159};
  for (size_t i = 0; i < n; ++i) {
    x[i] = rng.uniform();
    y[i] = rng.uniform();
  }
  float *dx, *dy, *dresult;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dresult, kVectors * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  if (bug)
    dot_vectors<true><<<kBlocks, kThreads>>>(dresult, dx, dy);
  else
    dot_vectors<false><<<kBlocks, kThreads>>>(dresult, dx, dy);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> result(kVectors);
  CHECK_CUDA(cudaMemcpy(result.data(), dresult, kVectors * sizeof(float), cudaMemcpyDeviceToHost));
  double diff = 0, ref = 0;
  for (int v = 0; v < kVectors; ++v) {
    double exact = 0;
    for (size_t i = size_t(v) * kLength; i < size_t(v + 1) * kLength; ++i)
      exact += double(x[i]) * y[i];
    diff += std::fabs(result[v] - exact);
    ref += std::fabs(exact);
  }
  const double l1 = diff / ref;
  std::printf("dot products match the host's (L1 error %.3g): %s\n", l1, l1 < 1e-6 ? "ok" : "FAILED");
  printChecksum("dot", result);
  return 0;
}
