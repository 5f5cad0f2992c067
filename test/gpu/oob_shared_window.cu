// A pointer into shared memory that the compiler cannot follow (passed to a
// device function that is not inlined) is checked against what the block
// has (%total_smem_size, after the KiB the system reserves from sm_80 on):
// reading 1024 floats past a 128-float __shared__ array is a
// shared-buffer-overflow report, and the read yields 0, instead
// of an illegal address. In bounds, static or dynamic, nothing is reported.
// RUN: %gpubin/oob_shared_window bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_shared_window fixed 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: %gpubin/oob_shared_window dynamic 2>&1 | FileCheck %s --check-prefix=FIXED
// REQUIRES: gpu
#include "common.h"

#include <cstring>

__device__ __noinline__ float get(const float *p, int i) {
  return p[i]; // CHECK: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'window(float*, int)' at {{.*}}oob_shared_window.cu:[[@LINE]]
}
// CHECK: the {{[0-9]+}}-byte buffer 'shared memory window of the block'
// CHECK: kosan: {{[0-9]+}} bad accesses at 1 site
// CHECK: out checksum
// FIXED-NOT: ERROR: kosan
// FIXED: out checksum

__global__ void window(float *out, int off) {
  __shared__ float s[128];
  s[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = get(s, threadIdx.x + off);
}

__global__ void dynamic_window(float *out) {
  extern __shared__ float ds[];
  ds[threadIdx.x] = float(threadIdx.x);
  ds[threadIdx.x + 128] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = get(ds, threadIdx.x + 128) + get(ds, 255 - threadIdx.x);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fixed";
  float *out;
  CHECK_CUDA(cudaMalloc(&out, 128 * sizeof(float)));
  if (!std::strcmp(mode, "dynamic"))
    dynamic_window<<<2, 128, 256 * sizeof(float)>>>(out);
  else
    window<<<2, 128>>>(out, !std::strcmp(mode, "bug") ? 1024 : 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> h(128);
  CHECK_CUDA(cudaMemcpy(h.data(), out, 128 * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", h);
  return 0;
}
