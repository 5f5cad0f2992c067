// A kernel that opts in to more than 48 KiB of dynamic shared memory with
// cudaFuncSetAttribute: the instrumented clone gets the same opt-in, so it
// launches (instead of falling back to the plain kernel) and its overflow of
// the 64 KiB buffer is reported.
// RUN: %gpubin/oob_bigshared bug 2>&1 | FileCheck %s
// RUN: env KOSAN_OPTIONS=verbosity=1 %gpubin/oob_bigshared fixed > %t.fixed 2> %t.err; FileCheck --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_bigshared.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

constexpr int kFloats = 16384; // 64 KiB

__global__ void smooth(float *out, const float *in, int extra) {
  extern __shared__ float buf[];
  for (int i = threadIdx.x; i < kFloats; i += blockDim.x)
    buf[i] = in[blockIdx.x * kFloats + i];
  __syncthreads();
  int last = blockDim.x - 1;
  for (int i = threadIdx.x; i < kFloats; i += blockDim.x) {
    int j = (threadIdx.x == last) ? i + extra : i;
    out[blockIdx.x * kFloats + i] = 0.5f * (buf[i] + buf[j]); // CHECK: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'smooth(float*, float const*, int)' at {{.*}}oob_bigshared.cu:[[@LINE]]
  }
}
// CHECK: after the 65536-byte buffer
// FIXED-NOT: ERROR: kosan
// FIXED-NOT: uninstrumented
// FIXED: kosan: 0 bad accesses at 0 sites in 1 launch (0 uninstrumented)

int main(int argc, char **argv) {
  const int blocks = 8, n = blocks * kFloats;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 251) * 0.125f;
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaFuncSetAttribute(smooth, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kFloats * sizeof(float)));
  // bug: the last thread of each block reads 4 floats past the buffer at its
  // last element.
  smooth<<<blocks, 256, kFloats * sizeof(float)>>>(out, in, isBug(argc, argv) ? 4 : 0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", h);
  return 0;
}
