// A shared-memory tile one element too small for the block (static), and a
// dynamic shared buffer indexed one past its launch-time size.
// RUN: %gpubin/oob_shared bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_shared fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_shared.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void shift_left(float *out, const float *in, int tileOffset) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[t + tileOffset]; // CHECK: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'shift_left(float*, float const*, int)' at {{.*}}oob_shared.cu:[[@LINE]]
}
// CHECK: is 0 bytes after the 1024-byte buffer '{{.*}}tile'

__global__ void reverse_dyn(float *out, const float *in, int extra) {
  extern __shared__ float buf[];
  int t = threadIdx.x;
  buf[t + extra] = in[blockIdx.x * blockDim.x + t]; // CHECK: ERROR: kosan: shared-buffer-overflow: WRITE of size 4 in kernel 'reverse_dyn(float*, float const*, int)' at {{.*}}oob_shared.cu:[[@LINE]]
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int n = 4 * 256;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 97) * 0.25f;
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  // bug: thread 255 reads tile[256].
  shift_left<<<4, 256>>>(out, in, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("shift", h);
  // bug: thread 255 writes buf[256] of a 256-float dynamic buffer.
  reverse_dyn<<<4, 256, 256 * sizeof(float)>>>(out, in, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("reverse", h);
  return 0;
}
