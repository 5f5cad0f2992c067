// HIP, checks=order: row sums of a 64 x 4096 matrix. The bug reduces each
// warp's elements with __shfl_down and adds the warp's partial sum to its
// row with atomicAdd: the order the partial sums land in decides the bits.
// The twin sums each row in one thread, in index order: deterministic.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug.kosan %gpubin/hip_order_rowsum bug > %t/bug.out 2> %t/bug.err
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.err
// RUN: %kosan-report %t/bug.kosan | FileCheck %s --check-prefix=BUG-REPORT
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed.kosan %gpubin/hip_order_rowsum fixed > %t/fixed.out 2> %t/fixed.err
// RUN: FileCheck %s --check-prefix=FIXED --allow-empty < %t/fixed.err
// RUN: %kosan-report %t/fixed.kosan | FileCheck %s --check-prefix=FIXED-REPORT
// RUN: %gpubin/hip_order_rowsum.plain fixed > %t/plain.out; diff %t/fixed.out %t/plain.out
// REQUIRES: gpu
#include "hip_common.h"

constexpr int kRows = 64, kCols = 4096, kBlock = 256;

__global__ void rowsum(const float *m, float *sums, bool bug) {
  if (bug) {
    int row = hipBlockIdx_y;
    int col = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    float v = m[size_t(row) * kCols + col];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      v += __shfl_down(v, offset);
    if (hipThreadIdx_x % warpSize == 0)
      atomicAdd(&sums[row], v); // BUG: kosan: order: kernel 'rowsum(float const*, float*, bool)': 64 locations of '{{[a-z]+}}' depend on the order float atomics land in (launch #1; float atomics at {{.*}}hip_order_rowsum.hip:[[@LINE]]
  } else {
    int row = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (row < kRows) {
      float acc = 0;
      for (int col = 0; col < kCols; ++col)
        acc += m[size_t(row) * kCols + col];
      sums[row] = acc;
    }
  }
}
// BUG-REPORT: float atomics on '{{[a-z]+}}' at 64 locations; 64 are order-dependent
// FIXED-NOT: depend on the order
// FIXED-REPORT-NOT: order-dependent (its result
// FIXED-REPORT: kosan: order: 1 launch recorded; 0 order-dependent locations

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  std::vector<float> hm(size_t(kRows) * kCols), hsums(kRows, 0.0f);
  for (size_t i = 0; i < hm.size(); ++i)
    hm[i] = 1.0f / float(1 + i % 97);
  float *m, *sums;
  CHECK_HIP(hipMalloc(&m, hm.size() * sizeof(float)));
  CHECK_HIP(hipMalloc(&sums, kRows * sizeof(float)));
  CHECK_HIP(hipMemcpy(m, hm.data(), hm.size() * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(sums, hsums.data(), kRows * sizeof(float), hipMemcpyHostToDevice));
  dim3 grid = bug ? dim3(kCols / kBlock, kRows) : dim3(1);
  hipLaunchKernelGGL(rowsum, grid, dim3(kBlock), 0, 0, m, sums, bug);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(hsums.data(), sums, kRows * sizeof(float), hipMemcpyDeviceToHost));
  printChecksum("sums", hsums);
  CHECK_HIP(hipFree(m));
  CHECK_HIP(hipFree(sums));
  return 0;
}
