// Relocatable device code: the kernel here calls rdc_next(), a device
// function defined in Inputs/rdc_device.cu (built with -fgpu-rdc, device code
// linked with nvlink), which reads one element past x. The report names the
// other file's line, the kernel and the buffer.
// RUN: %gpubin/oob_rdc bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_rdc fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// RUN: %gpubin/oob_rdc.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: env KOSAN_OPTIONS=checks=none %gpubin/oob_rdc bug 2>&1 | FileCheck --check-prefix=OFF --allow-empty %s
// RUN: env KOSAN_OPTIONS=trace=%t.trace %gpubin/oob_rdc bug > /dev/null 2>&1
// RUN: %kosan-report %t.trace | FileCheck --check-prefix=REPORT %s
// REQUIRES: gpu
#include "common.h"

extern __device__ float rdc_next(const float *x, int i, int n, bool bug);

__global__ void shift(float *y, const float *x, int n, bool bug) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = rdc_next(x, i, n, bug);
}
// The access is in rdc_device.cu, line 8; its unit's sites follow this one's.
// CHECK: ERROR: kosan: {{.*}}READ of size 4 in kernel 'shift(float*, float const*, int, bool)' at {{.*}}rdc_device.cu:8:
// CHECK: first by block (3,0,0) thread (231,0,0)
// CHECK: 4000-byte buffer
// CHECK: SUMMARY: kosan: {{.*}}rdc_device.cu:8
// FIXED-NOT: kosan
// OFF-NOT: ERROR: kosan
// REPORT: shift(float*, float const*, int, bool)
// REPORT: rdc_device.cu:8

int main(int argc, char **argv) {
  const int n = 1000;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i)
    hx[i] = 0.5f * i - 3.0f;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  shift<<<4, 256>>>(y, x, n, isBug(argc, argv));
  CHECK_CUDA(cudaGetLastError());
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  CHECK_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", hy);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
