// Two tensors carved out of one allocation (as a caching allocator does):
// writing one element past 'a' lands inside 'b'. The allocation is intact,
// so a checker that only knows allocations sees nothing; with the tensors
// registered as buffers of their own, kosan reports the overflow of 'a'.
// RUN: %gpubin/oob_neighbor bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_neighbor fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_neighbor.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"
#include "kosan/kosan.h"

__global__ void add_one(float *a, int n, bool bug) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int limit = bug ? n + 1 : n;
  if (i < limit)
    a[i] += 1.0f; // CHECK: ERROR: kosan: global-buffer-overflow: {{READ|WRITE}} of size 4 in kernel 'add_one(float*, int, bool)' at {{.*}}oob_neighbor.cu:[[@LINE]]
}
// CHECK: is 0 bytes after the 1024-byte buffer 'a'
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 256;
  char *slab;
  CHECK_CUDA(cudaMalloc(&slab, 1 << 20));
  float *a = reinterpret_cast<float *>(slab);
  float *b = reinterpret_cast<float *>(slab + n * sizeof(float));
  kosan::ScopedBuffer regA(a, n * sizeof(float), "a");
  kosan::ScopedBuffer regB(b, n * sizeof(float), "b");
  std::vector<float> host(2 * n);
  for (int i = 0; i < 2 * n; ++i)
    host[i] = float(i);
  CHECK_CUDA(cudaMemcpy(slab, host.data(), 2 * n * sizeof(float), cudaMemcpyHostToDevice));
  add_one<<<2, 256>>>(a, n, isBug(argc, argv));
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(host.data(), slab, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("a+b", host);
  return 0;
}
