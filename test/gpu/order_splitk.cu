// Y = X W^T for a batch of M rows, K = 4096, split-K in two kernels: partial
// sums over K/splits columns, then their sum in split order. The bug picks
// the split from the batch (8 splits for M < 8, else 1), as a kernel tuned
// for occupancy does: row 0 of a batch-1 run and row 0 of a batch-64 run are
// summed in different orders. The twin always splits in 4: batch-invariant.
// usage: order_splitk bug|fixed M [FIRST_ROW]  (rows FIRST_ROW.. of one fixed input)
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug1.kosan %gpubin/order_splitk bug 1 > %t/bug1.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug64.kosan %gpubin/order_splitk bug 64 > %t/bug64.out
// RUN: not %kosan-diff --batch-invariance --rows 0:0 --row-length 256 --launch 2:2 %t/bug1.kosan %t/bug64.kosan > %t/bug.diff
// RUN: FileCheck %s --check-prefix=BUG < %t/bug.diff
// BUG: row 0
// BUG: 256/256
// BUG: BATCH-VARIANT
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed1.kosan %gpubin/order_splitk fixed 1 > %t/fixed1.out
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/fixed64.kosan %gpubin/order_splitk fixed 64 > %t/fixed64.out
// RUN: %kosan-diff --batch-invariance --rows 0:0 --row-length 256 %t/fixed1.kosan %t/fixed64.kosan > %t/fixed.diff
// RUN: FileCheck %s --check-prefix=FIXED < %t/fixed.diff
// FIXED: INVARIANT
// Row 7 of the batch against a batch-1 run of that row alone: its inputs lie
// at other offsets, so leaves must be labelled by value.
// RUN: not %kosan-diff --batch-invariance --rows 0:7 --row-length 256 %t/fixed1.kosan %t/fixed64.kosan 2>&1 | FileCheck %s --check-prefix=POSITION
// POSITION: order_leaves=value
// RUN: env KOSAN_OPTIONS=checks=order:order_leaves=value:trace=%t/vfixed1.kosan %gpubin/order_splitk fixed 1 7 > %t/vfixed1.out
// RUN: env KOSAN_OPTIONS=checks=order:order_leaves=value:trace=%t/vfixed64.kosan %gpubin/order_splitk fixed 64 > %t/vfixed64.out
// The workspace's rows are (row, split) pairs: compare the reduced output (launch 2).
// RUN: %kosan-diff --batch-invariance --rows 0:7 --row-length 256 --launch 2:2 %t/vfixed1.kosan %t/vfixed64.kosan | FileCheck %s --check-prefix=FIXED
// RUN: env KOSAN_OPTIONS=checks=order:order_leaves=value:trace=%t/vbug1.kosan %gpubin/order_splitk bug 1 7 > %t/vbug1.out
// RUN: env KOSAN_OPTIONS=checks=order:order_leaves=value:trace=%t/vbug64.kosan %gpubin/order_splitk bug 64 > %t/vbug64.out
// RUN: not %kosan-diff --batch-invariance --rows 0:7 --row-length 256 --launch 2:2 %t/vbug1.kosan %t/vbug64.kosan | FileCheck %s --check-prefix=BUG
// The static half names the split's dependence on the launch.
// RUN: %kosan-report %t/bug1.kosan | FileCheck %s --check-prefix=STATIC
// STATIC: launch-dependent reduction loops
// RUN: %gpubin/order_splitk.plain bug 64 > %t/plain.out
// RUN: diff %t/plain.out %t/bug64.out
// REQUIRES: gpu
#include "common.h"

constexpr int kK = 4096, kN = 256, kMaxRows = 64;

// ws[(m * splits + s) * N + n] = sum over k in split s of X[m, k] * W[n, k]
__global__ void splitk_partial(const float *x, const float *w, float *ws, int splits) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y / splits, s = blockIdx.y % splits;
  int chunk = kK / splits;
  float acc = 0.0f;
  for (int k = s * chunk; k < (s + 1) * chunk; ++k)
    acc += x[m * kK + k] * w[n * kK + k];
  ws[(m * splits + s) * kN + n] = acc;
}

__global__ void splitk_reduce(const float *ws, float *y, int splits) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y;
  float acc = 0.0f;
  for (int s = 0; s < splits; ++s)
    acc += ws[(m * splits + s) * kN + n];
  y[m * kN + n] = acc;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  bool bug = isBug(argc, argv);
  int M = std::atoi(argv[2]);
  int first = argc > 3 ? std::atoi(argv[3]) : 0;
  if (M < 1 || first < 0 || first + M > kMaxRows)
    return 2;
  int splits = bug ? (M < 8 ? 8 : 1) : 4;
  std::vector<float> all(size_t(kMaxRows) * kK), w(size_t(kN) * kK);
  Lcg rng{777};
  auto next = [&] { return rng.uniform() - 0.5f; };
  for (float &v : all)
    v = next();
  for (float &v : w)
    v = next();
  float *dx, *dw, *dws, *dy;
  CHECK_CUDA(cudaMalloc(&dx, size_t(M) * kK * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dw, w.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dws, size_t(M) * splits * kN * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, size_t(M) * kN * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, all.data() + size_t(first) * kK, size_t(M) * kK * sizeof(float),
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dw, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
  splitk_partial<<<dim3(kN / 128, M * splits), 128>>>(dx, dw, dws, splits);
  splitk_reduce<<<dim3(kN / 128, M), 128>>>(dws, dy, splits);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> y(size_t(M) * kN);
  CHECK_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> row0(y.begin(), y.begin() + kN);
  printChecksum("row 0", row0);
  return 0;
}
