// poison=1 fills write-only outputs of every element size (2, 4 and 8
// bytes, floats and integers) before the launch, so that a run that leaves
// elements unwritten is told apart from one that writes what the buffer
// held: each output of the `short` run has its last 3 elements left
// unwritten, and kosan-diff counts them per output. The buffers hold zeros
// before the launch, which a fill that did not happen would leave there.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/ref.kosan %gpubin/snapshot_poison full
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/short.kosan %gpubin/snapshot_poison short
// RUN: not %kosan-diff %t/ref.kosan %t/short.kosan | FileCheck %s --check-prefix=SHORT
// RUN: grep '"type":"snapshot"' %t/ref.kosan | FileCheck %s --check-prefix=RECORD
// The kernel's outputs: what the program reads back is what it wrote.
// RUN: env KOSAN_OPTIONS=snapshot=1:poison=1:trace=%t/again.kosan %gpubin/snapshot_poison full > %t/run.txt
// RUN: %gpubin/snapshot_poison.plain full | diff - %t/run.txt
// REQUIRES: gpu
#include "common.h"

#include <cuda_fp16.h>
#include <cstring>

__global__ void fill(double *d, __half *h, int *i32, long long *i64, unsigned short *u16,
                     int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < limit) {
    d[i] = 0.5 * i;
    h[i] = __float2half(0.25f * (i % 64));
    i32[i] = 3 * i - 7;
    i64[i] = (long long)i << 33;
    u16[i] = (unsigned short)(i * 5);
  }
}

template <typename T> T *zeroed(int n) {
  T *p;
  CHECK_CUDA(cudaMalloc(&p, n * sizeof(T)));
  CHECK_CUDA(cudaMemset(p, 0, n * sizeof(T)));
  return p;
}

template <typename T> std::vector<T> back(const T *p, int n) {
  std::vector<T> v(n);
  CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int main(int argc, char **argv) {
  const bool isShort = argc > 1 && !std::strcmp(argv[1], "short");
  const int n = 100003;
  double *d = zeroed<double>(n);
  __half *h = zeroed<__half>(n);
  int *i32 = zeroed<int>(n);
  long long *i64 = zeroed<long long>(n);
  unsigned short *u16 = zeroed<unsigned short>(n);
  fill<<<(n + 255) / 256, 256>>>(d, h, i32, i64, u16, n, isShort ? n - 3 : n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  printChecksum("d", back(d, n));
  printChecksum("h", back(h, n));
  printChecksum("i32", back(i32, n));
  printChecksum("i64", back(i64, n));
  printChecksum("u16", back(u16, n));
  return 0;
}
// The buffers are named after the allocation's variable, `p` in zeroed().
// SHORT-DAG: p (f64, 100003 elements): 0 over tolerance (0%), 3 left unwritten by CAND
// SHORT-DAG: p (f16, 100003 elements): 0 over tolerance (0%), 3 left unwritten by CAND
// SHORT-DAG: p (i32, 100003 elements): 0 over tolerance (0%), 3 left unwritten by CAND
// SHORT-DAG: p (i64, 100003 elements): 0 over tolerance (0%), 3 left unwritten by CAND
// A 16-bit integer pattern is a value a program can write: i * 5 is 0xa5a5
// at two of the reference's elements, which are left out of the comparison.
// SHORT-DAG: p (u16, 100003 elements): 0 over tolerance (0%), 3 left unwritten by CAND{{.*}}; 2 unwritten by REF, not compared
// SHORT: DIFFERENT: 5 of 5 outputs differ
// RECORD-DAG: "name":"p","dtype":"f64",{{.*}}"poisoned":true,"poison":"0x7ff4badbadbadbad"
// RECORD-DAG: "name":"p","dtype":"f16",{{.*}}"poisoned":true,"poison":"0x7d5b"
// RECORD-DAG: "name":"p","dtype":"i32",{{.*}}"poisoned":true,"poison":"0xa5a5a5a5"
// RECORD-DAG: "name":"p","dtype":"i64",{{.*}}"poisoned":true,"poison":"0xa5a5a5a5a5a5a5a5"
// RECORD-DAG: "name":"p","dtype":"u16",{{.*}}"poisoned":true,"poison":"0xa5a5"
