// A histogram whose bin index can equal the number of bins.
// RUN: %gpubin/oob_atomic bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_atomic fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_atomic.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void histogram(unsigned *bins, const float *x, int n, int nbins, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = int(x[i] * scale);
    atomicAdd(&bins[b], 1u); // CHECK: ERROR: kosan: global-buffer-overflow: ATOMIC of size 4 in kernel 'histogram(unsigned int*, float const*, int, int, float)' at {{.*}}oob_atomic.cu:[[@LINE]]
  }
}
// CHECK: is 0 bytes after the 64-byte buffer 'bins'
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 4096, nbins = 16;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i) / float(n - 1); // in [0, 1]: x == 1 maps to bin 16 when scaled by 16
  float *x;
  unsigned *bins;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&bins, nbins * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(bins, 0, nbins * sizeof(unsigned)));
  float scale = isBug(argc, argv) ? float(nbins) : float(nbins) * 0.999f;
  histogram<<<n / 256, 256>>>(bins, x, n, nbins, scale);
  CHECK_CUDA(cudaGetLastError());
  std::vector<unsigned> hb(nbins);
  CHECK_CUDA(cudaMemcpy(hb.data(), bins, nbins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  printChecksum("bins", hb);
  return 0;
}
