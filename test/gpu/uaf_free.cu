// Use after free: a kernel launched with a buffer the program already gave
// back (cudaFree, cudaFreeAsync) is reported as heap-use-after-free, with
// where the buffer was allocated and where it was freed, and its accesses do
// not go ahead. The quarantine keeps the memory from the next allocation, so
// the report does not depend on where the allocator puts it: with
// quarantine_mb=0 the next allocation may take the same address and the
// stale pointer then looks valid (no report is promised there).
// RUN: %gpubin/uaf_free free 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: %gpubin/uaf_free async 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: %gpubin/uaf_free fixed 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: %gpubin/uaf_free double 2>&1 | FileCheck %s --check-prefix=DOUBLE
// A use after free in a trace, for kosan-report:
// RUN: env KOSAN_OPTIONS=trace=%t.trace %gpubin/uaf_free free > /dev/null 2>&1
// RUN: %kosan-report %t.trace | FileCheck %s --check-prefix=FREE
// The quarantine bounds what it holds: the program allocates and frees
// 64 MiB eight times with a 100 MiB quarantine and runs on.
// RUN: env KOSAN_OPTIONS=quarantine_mb=100 %gpubin/uaf_free churn 2>&1 | FileCheck %s --check-prefix=CHURN
// REQUIRES: gpu
#include "common.h"

#include <cstring>

__global__ void add_one(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1.0f; // FREE: ERROR: kosan: heap-use-after-free: READ of size 4 in kernel 'add_one(float const*, float*, int)' at {{.*}}uaf_free.cu:[[@LINE]]
}
// FREE: address {{0x[0-9a-f]+}} is {{inside|[0-9]+ bytes before the end of}} the 4000-byte freed buffer 'x'
// FREE: 'x' was allocated at {{.*}}uaf_free.cu:[[@LINE+19]]
// FREE: 'x' was freed at {{.*}}uaf_free.cu:[[@LINE+22]]
// FREE: SUMMARY: kosan: heap-use-after-free
// ASYNC: ERROR: kosan: heap-use-after-free: READ of size 4
// ASYNC: 'x' was freed at {{.*}}uaf_free.cu:[[@LINE+21]]
// FIXED-NOT: kosan
// FIXED: y[0] = 1
// DOUBLE: ERROR: kosan: double-free of the 4000-byte buffer 'x' at {{.*}}uaf_free.cu:[[@LINE+21]]
// DOUBLE: allocated at {{.*}}uaf_free.cu:[[@LINE+11]]
// DOUBLE: already freed at {{.*}}uaf_free.cu:[[@LINE+18]]
// DOUBLE: second cudaFree: invalid argument
// CHURN-NOT: CUDA error
// CHURN: churn done

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fixed";
  const int n = 1000;
  std::vector<float> hy(n);
  float *x, *y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemset(x, 0, n * sizeof(float)));
  if (!std::strcmp(mode, "free")) {
    CHECK_CUDA(cudaFree(x));
  } else if (!std::strcmp(mode, "async")) {
    CHECK_CUDA(cudaFreeAsync(x, 0));
  } else if (!std::strcmp(mode, "double")) {
    CHECK_CUDA(cudaFree(x));
    cudaError_t e = cudaFree(x);
    std::printf("second cudaFree: %s\n", e == cudaSuccess ? "success" : "invalid argument");
    return 0;
  } else if (!std::strcmp(mode, "churn")) {
    for (int k = 0; k < 8; ++k) {
      void *big;
      CHECK_CUDA(cudaMalloc(&big, 64 << 20));
      CHECK_CUDA(cudaFree(big));
    }
    std::printf("churn done\n");
    return 0;
  }
  // The allocation after a free: the allocator would hand it x's memory.
  float *z;
  CHECK_CUDA(cudaMalloc(&z, n * sizeof(float)));
  add_one<<<(n + 255) / 256, 256>>>(x, y, n);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("y[0] = %g\n", hy[0]);
  return 0;
}
