// Output snapshots (snapshot=1, poison=1) and kosan-diff, end to end: the
// same program run twice is equivalent; a run that leaves the last three
// outputs unwritten, one that is off by 1e-3 and one that writes its input
// are each judged different, for the reason a user needs to see.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/ref.kosan %gpubin/snapshot_diff ok
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/again.kosan %gpubin/snapshot_diff ok
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/short.kosan %gpubin/snapshot_diff short
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/off.kosan %gpubin/snapshot_diff off
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/inplace.kosan %gpubin/snapshot_diff inplace
// RUN: %kosan-diff %t/ref.kosan %t/again.kosan | FileCheck %s --check-prefix=SAME
// RUN: not %kosan-diff %t/ref.kosan %t/short.kosan | FileCheck %s --check-prefix=SHORT
// RUN: not %kosan-diff %t/ref.kosan %t/off.kosan | FileCheck %s --check-prefix=OFF
// RUN: not %kosan-diff %t/ref.kosan %t/inplace.kosan | FileCheck %s --check-prefix=INPLACE
// The snapshot holds what the kernel wrote, with the dtype the compiler saw.
// RUN: grep '"type":"snapshot"' %t/ref.kosan | FileCheck %s --check-prefix=RECORD
// REQUIRES: gpu
#include "common.h"

#include <cuda_fp16.h>
#include <cstring>

// out: written only (poisoned before the launch); acc: read and written.
__global__ void step(const float *x, float *out, __half *acc, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int limit = mode == 1 ? n - 3 : n;
  if (i < limit) {
    out[i] = 2.0f * x[i] + (mode == 2 ? 1e-3f : 0.0f);
    acc[i] = __float2half(__half2float(acc[i]) + x[i]);
  }
}

// A candidate that also scribbles over its input.
__global__ void step_inplace(float *x, float *out, __half *acc, int n, int) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 2.0f * x[i];
    acc[i] = __float2half(__half2float(acc[i]) + x[i]);
    x[i] = 0.0f;
  }
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "ok";
  int mode = !std::strcmp(m, "short") ? 1 : !std::strcmp(m, "off") ? 2 : !std::strcmp(m, "inplace") ? 3 : 0;
  const int n = 1000;
  std::vector<float> x(n);
  std::vector<__half> acc(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * i;
    acc[i] = __float2half(1.0f);
  }
  float *dx, *dout;
  __half *dacc;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dacc, n * sizeof(__half)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dacc, acc.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, n * sizeof(float)));
  if (mode == 3)
    step_inplace<<<(n + 255) / 256, 256>>>(dx, dout, dacc, n, mode);
  else
    step<<<(n + 255) / 256, 256>>>(dx, dout, dacc, n, mode);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(n);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", out);
  return 0;
}
// RECORD-DAG: "launch":1,"arg":1,"name":"dout","dtype":"f32","count":1000,{{.*}}"read":false,"poisoned":true,"poison":"0x7fbadbad"
// RECORD-DAG: "launch":1,"arg":2,"name":"dacc","dtype":"f16","count":1000,{{.*}}"read":true,"poisoned":false
// SAME: EQUIVALENT
// SHORT: dout (f32, 1000 elements): {{[0-9]+}} over tolerance {{.*}}, 3 left unwritten by CAND
// SHORT: DIFFERENT
// OFF: dout (f32, 1000 elements): {{[0-9]+}} over tolerance
// OFF: DIFFERENT
// INPLACE: dx
// INPLACE: DIFFERENT
