// A block's tree reduction in shared memory whose first __syncthreads()
// is missing: threads 0-127 read sdata[t + 128] while threads 128-255 may
// still be writing it. kosan's race check names both sites (which of the
// two comes first, the read or the write, is the GPU's choice), the two
// threads and the shared array. The twin has the barrier and is silent.
// RUN: env KOSAN_OPTIONS=checks=oob,race %gpubin/race_reduce bug 2>&1 | FileCheck %s
// RUN: env KOSAN_OPTIONS=checks=oob,race %gpubin/race_reduce fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/race_reduce.plain fixed > %t.plain; diff %t.fixed %t.plain
// Checks off at run time: the clone's race checks do nothing.
// RUN: %gpubin/race_reduce bug 2>&1 | FileCheck --allow-empty --check-prefix=OFF %s
// The trace holds the race as an "oob" record of kind data-race, which
// kosan-report prints with both sites.
// RUN: env KOSAN_OPTIONS=checks=oob,race:trace=%t.kosan %gpubin/race_reduce bug > /dev/null 2>&1
// RUN: %kosan-report %t.kosan | FileCheck %s --check-prefix=REPORT
// REQUIRES: gpu
#include "common.h"

// The first report names both lines (one as its site, the other in
// "conflicts with"), in either order, before its SUMMARY line.
// CHECK-DAG: ERROR: kosan: data-race: {{READ|WRITE}} of size 4 in kernel 'block_sum(float*, float const*, int)' at
// CHECK-DAG: first by block ({{[0-9]+}},0,0) thread ({{[0-9]+}},0,0); this site fired
// CHECK-DAG: conflicts with the {{READ|WRITE}} of size 4 at
// CHECK-DAG: in block_sum{{(\(float\*, float const\*, int\))?}} by thread ({{[0-9]+}},0,0), with no barrier between them
// CHECK-DAG: at offset {{[0-9]+}} of the block's shared memory, in 'block_sum(float*, float const*, int)::sdata'
__global__ void block_sum(float *out, const float *in, int skipBarrier) {
  __shared__ float sdata[256];
  int t = threadIdx.x;
  sdata[t] = in[blockIdx.x * 256 + t]; // CHECK-DAG: race_reduce.cu:[[@LINE]]
  if (!skipBarrier)
    __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s)
      sdata[t] += sdata[t + s]; // CHECK-DAG: race_reduce.cu:[[@LINE]]
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK: SUMMARY: kosan: data-race
// FIXED-NOT: kosan
// OFF-NOT: data-race
// REPORT: ERROR: kosan: data-race:
// REPORT: conflicts with the

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int blocks = 8, n = blocks * 256;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 13) * 0.5f;
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, blocks * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<blocks, 256>>>(out, in, bug ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> sums(blocks);
  CHECK_CUDA(cudaMemcpy(sums.data(), out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  if (!bug)
    printChecksum("sums", sums);
  return 0;
}
