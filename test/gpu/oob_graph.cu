// A kernel launched from a CUDA graph (stream capture): kosan must set up
// nothing synchronous during the capture, and still check the replays.
// RUN: %gpubin/oob_graph bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_graph fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_graph.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void bump(int *v, int n, int extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + extra)
    v[i] += i; // CHECK: ERROR: kosan: global-buffer-overflow: {{READ|WRITE}} of size 4 in kernel 'bump(int*, int, int)' at {{.*}}oob_graph.cu:[[@LINE]]
}
// CHECK: is 0 bytes after the 1024-byte buffer 'v'
// FIXED-NOT: kosan
// FIXED-NOT: CUDA error

int main(int argc, char **argv) {
  const int n = 256;
  int *v;
  CHECK_CUDA(cudaMalloc(&v, n * sizeof(int)));
  CHECK_CUDA(cudaMemset(v, 0, n * sizeof(int)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  bump<<<2, 256, 0, s>>>(v, n, isBug(argc, argv) ? 1 : 0);
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 3; ++r)
    CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<int> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), v, n * sizeof(int), cudaMemcpyDeviceToHost));
  printChecksum("v", h);
  return 0;
}
