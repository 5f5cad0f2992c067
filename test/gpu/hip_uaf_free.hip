// HIP: a kernel launched (hipLaunchKernel) with a buffer the program already
// gave back with hipFree is reported as heap-use-after-free, with where the
// buffer was allocated and freed.
// RUN: %gpubin/hip_uaf_free bug 2>&1 | FileCheck %s
// RUN: %gpubin/hip_uaf_free fixed 2>&1 | FileCheck %s --check-prefix=FIXED
// REQUIRES: gpu
#include "hip_common.h"

__global__ void add_one(const float *x, float *y, int n) {
  int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i < n)
    y[i] = x[i] + 1.0f; // CHECK: ERROR: kosan: heap-use-after-free: READ of size 4 in kernel 'add_one(float const*, float*, int)' at {{.*}}hip_uaf_free.hip:[[@LINE]]
}
// CHECK: the 4000-byte freed buffer 'x'
// CHECK: 'x' was allocated at {{.*}}hip_uaf_free.hip:[[@LINE+10]]
// CHECK: 'x' was freed at {{.*}}hip_uaf_free.hip:[[@LINE+14]]
// CHECK: SUMMARY: kosan: heap-use-after-free
// FIXED-NOT: kosan
// FIXED: y[0] = 1

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  int n = 1000;
  float *x, *y;
  CHECK_HIP(hipMalloc(&x, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&y, n * sizeof(float)));
  CHECK_HIP(hipMemset(x, 0, n * sizeof(float)));
  void *args[] = {&x, &y, &n};
  if (bug)
    CHECK_HIP(hipFree(x));
  CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void *>(add_one), dim3((n + 255) / 256),
                            dim3(256), args, 0, 0));
  CHECK_HIP(hipDeviceSynchronize());
  float y0 = -1.0f;
  CHECK_HIP(hipMemcpy(&y0, y, sizeof y0, hipMemcpyDeviceToHost));
  std::printf("y[0] = %g\n", y0);
  if (!bug)
    CHECK_HIP(hipFree(x));
  CHECK_HIP(hipFree(y));
  return 0;
}
