// HIP: a block sum whose shared-memory (LDS) tile is one element too small
// for the block; the warp partials are combined with the maskless __shfl_down.
// Launched with triple chevrons.
// RUN: %gpubin/hip_oob_shared bug 2>&1 | FileCheck %s
// RUN: %gpubin/hip_oob_shared fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/hip_oob_shared.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "hip_common.h"

constexpr int kBlock = 256;

__global__ void block_sum(float *out, const float *in, int shift) {
  __shared__ float tile[kBlock];
  int t = hipThreadIdx_x;
  tile[t] = in[hipBlockIdx_x * kBlock + t];
  __syncthreads();
  float v = tile[t + shift]; // CHECK: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'block_sum(float*, float const*, int)' at {{.*}}hip_oob_shared.hip:[[@LINE]]
  for (int d = warpSize / 2; d > 0; d /= 2)
    v += __shfl_down(v, d);
  if (t % warpSize == 0)
    atomicAdd(&out[hipBlockIdx_x], v);
}
// CHECK: is 0 bytes after the 1024-byte buffer '{{.*}}tile'
// CHECK: SUMMARY: kosan: shared-buffer-overflow
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  // bug: thread 255 reads tile[256].
  int shift = isBug(argc, argv) ? 1 : 0;
  const int blocks = 4, n = blocks * kBlock;
  std::vector<float> h(n), sums(blocks);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 97) * 0.25f;
  float *in, *out;
  CHECK_HIP(hipMalloc(&in, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&out, blocks * sizeof(float)));
  CHECK_HIP(hipMemcpy(in, h.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemset(out, 0, blocks * sizeof(float)));
  block_sum<<<blocks, kBlock>>>(out, in, shift);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(sums.data(), out, blocks * sizeof(float), hipMemcpyDeviceToHost));
  // Sums of multiples of 0.25 below 2^24: exact in any order.
  printChecksum("sums", sums);
  CHECK_HIP(hipFree(in));
  CHECK_HIP(hipFree(out));
  return 0;
}
