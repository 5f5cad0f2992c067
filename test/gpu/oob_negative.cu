// A stencil that reads x[i - 1] without guarding i == 0.
// RUN: %gpubin/oob_negative bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_negative fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_negative.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void diff1(float *d, const float *x, int n, int first) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + first;
  if (i < n)
    d[i] = x[i] - x[i - 1]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'diff1(float*, float const*, int, int)' at {{.*}}oob_negative.cu:[[@LINE]]
}
// CHECK: first by block (0,0,0) thread (0,0,0)
// CHECK: is 4 bytes before the 2048-byte buffer 'x'
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 512;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i * i) * 0.001f;
  float *d, *x;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d, 0, n * sizeof(float)));
  diff1<<<2, 256>>>(d, x, n, isBug(argc, argv) ? 0 : 1);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("d", h);
  return 0;
}
