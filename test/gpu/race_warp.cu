// The last warp of a reduction, written for independent thread scheduling:
// each step reads, waits at __syncwarp(), writes, waits again. Lanes of one
// warp separated by __syncwarp() are ordered: kosan's race check is silent.
// The twin drops the __syncwarp() calls (the pre-Volta "warp-synchronous"
// idiom): lane t - 16 reads s[t] while lane t writes it, which is a race.
// RUN: env KOSAN_OPTIONS=checks=oob,race %gpubin/race_warp fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/race_warp.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: env KOSAN_OPTIONS=checks=oob,race %gpubin/race_warp bug 2>&1 | FileCheck %s
// REQUIRES: gpu
#include "common.h"

// CHECK: ERROR: kosan: data-race: {{READ|WRITE}} of size 4 in kernel 'warp_sum(float*, float const*, int)' at {{.*}}race_warp.cu
// CHECK: conflicts with the {{READ|WRITE}} of size 4 at {{.*}}race_warp.cu
// CHECK: in 'warp_sum(float*, float const*, int)::s'
// FIXED-NOT: kosan
__global__ void warp_sum(float *out, const float *in, int noWarpSync) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    float v = s[t];
    for (int off = 16; off > 0; off >>= 1) {
      v += s[t + off];
      if (!noWarpSync)
        __syncwarp();
      s[t] = v;
      if (!noWarpSync)
        __syncwarp();
    }
    if (t == 0)
      out[blockIdx.x] = v;
  }
}

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int blocks = 16, n = blocks * 64;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 7) * 0.25f;
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, blocks * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  warp_sum<<<blocks, 64>>>(out, in, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> sums(blocks);
  CHECK_CUDA(cudaMemcpy(sums.data(), out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  if (!bug)
    printChecksum("sums", sums);
  return 0;
}
