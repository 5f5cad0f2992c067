// A kernel launched with cudaLaunchKernelEx and a launch attribute (thread
// block clusters of 2, Hopper): the instrumented clone is launched with the
// same configuration, and its overflow is reported.
// RUN: %gpubin/oob_launch_ex bug 2>&1 | FileCheck %s
// RUN: env KOSAN_OPTIONS=verbosity=1 %gpubin/oob_launch_ex fixed > %t.fixed 2> %t.err; FileCheck --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_launch_ex.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void axpb(float *y, const float *x, float a, float b, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + extra)
    y[i] = a * x[i] + b; // CHECK: ERROR: kosan: global-buffer-overflow: {{READ|WRITE}} of size 4 in kernel 'axpb(float*, float const*, float, float, int, int)' at {{.*}}oob_launch_ex.cu:[[@LINE]]
}
// CHECK: 0 bytes after the 2048-byte buffer
// FIXED-NOT: ERROR: kosan
// FIXED: kosan: 0 bad accesses at 0 sites in 1 launch (0 uninstrumented)

int main(int argc, char **argv) {
  const int n = 512;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i) * 0.5f;
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(6); // 768 threads for 512 elements, clusters of 2
  config.blockDim = dim3(128);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelEx(&config, axpb, y, (const float *)x, 2.0f, 1.0f, n,
                                isBug(argc, argv) ? 1 : 0));
  CHECK_CUDA(cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", h);
  return 0;
}
