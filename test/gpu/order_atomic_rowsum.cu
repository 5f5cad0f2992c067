// Row sums of a 512 x 2048 matrix. The bug adds every element into its row
// with atomicAdd: the order the additions land in decides the bits, and
// nothing fixes it, even when two runs happen to agree. The twin sums each
// row in one thread, in index order: deterministic.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug1.kosan %gpubin/order_atomic_rowsum bug > %t/bug1.out 2> %t/bug1.err
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/bug2.kosan %gpubin/order_atomic_rowsum bug > %t/bug2.out 2> %t/bug2.err
// RUN: FileCheck %s --check-prefix=BUG-EXIT < %t/bug1.err
// BUG-EXIT: kosan: order: kernel 'rowsum_atomic(float const*, float*, int)': 512 locations of 'dout' depend on the order float atomics land in (launch #1; float atomics at {{.*}}order_atomic_rowsum.cu:{{[0-9]+}}
// Without a trace the atomics fold into a shadow of 'dout' (order_shadow_mb)
// or, with order_shadow_mb=0, go to the atomic log: the same finding.
// RUN: env KOSAN_OPTIONS=checks=order %gpubin/order_atomic_rowsum bug > %t/folded.out 2> %t/folded.err
// RUN: FileCheck %s --check-prefix=BUG-EXIT < %t/folded.err
// RUN: env KOSAN_OPTIONS=checks=order:order_shadow_mb=0 %gpubin/order_atomic_rowsum bug > %t/unfolded.out 2> %t/unfolded.err
// RUN: FileCheck %s --check-prefix=BUG-EXIT < %t/unfolded.err
// RUN: env KOSAN_OPTIONS=checks=order %gpubin/order_atomic_rowsum fixed > %t/fixednt.out 2> %t/fixednt.err
// RUN: FileCheck %s --allow-empty --check-prefix=FIXED-EXIT < %t/fixednt.err
// The two runs are called nondeterministic whether or not their bits agree.
// RUN: not %kosan-diff --order %t/bug1.kosan %t/bug2.kosan > %t/bug.diff
// RUN: FileCheck %s --check-prefix=BUG-DIFF < %t/bug.diff
// BUG-DIFF: 512 locations depend on the order
// BUG-DIFF: NONDETERMINISTIC
// RUN: %kosan-report %t/bug1.kosan | FileCheck %s --check-prefix=BUG-REPORT
// BUG-REPORT: 1048576 float atomics on 'dout' at 512 locations; 512 are order-dependent
// The twin: 20 runs, every one's fingerprints equal to the first's.
// RUN: python3 %S/Inputs/order_runs.py 20 %t/fixed %kosan-diff -- %gpubin/order_atomic_rowsum fixed > %t/fixed.runs
// RUN: FileCheck %s --check-prefix=FIXED-RUNS < %t/fixed.runs
// FIXED-RUNS: 20 runs; 19 compared with run 0: 19 DETERMINISTIC, 0 NONDETERMINISTIC
// RUN: FileCheck %s --allow-empty --check-prefix=FIXED-EXIT < %t/fixed0.err
// FIXED-EXIT-NOT: depend on the order
// The stores reach the trace through a shadow of 'dout' (order_shadow_mb,
// the default) or through the store log (order_shadow_mb=0): the same
// fingerprints either way.
// RUN: env KOSAN_OPTIONS=checks=order:order_shadow_mb=0:trace=%t/logged.kosan %gpubin/order_atomic_rowsum fixed > %t/logged.out
// RUN: %kosan-diff --order %t/fixed0.kosan %t/logged.kosan | FileCheck %s --check-prefix=PATHS
// PATHS: dout (f32, 512 elements stored): same fingerprints at all 512 elements
// PATHS: DETERMINISTIC
// The bug, 5 more runs: every pair is called nondeterministic.
// RUN: python3 %S/Inputs/order_runs.py 5 %t/bugr %kosan-diff -- %gpubin/order_atomic_rowsum bug > %t/bug.runs
// RUN: FileCheck %s --check-prefix=BUG-RUNS < %t/bug.runs
// BUG-RUNS: 5 runs; 4 compared with run 0: 0 DETERMINISTIC, 4 NONDETERMINISTIC
// The instrumented program computes what the plain one does.
// RUN: %gpubin/order_atomic_rowsum.plain fixed > %t/plain.out
// RUN: diff %t/plain.out %t/fixed0.out
// REQUIRES: gpu
#include "common.h"

constexpr int kRows = 512, kCols = 2048;

__global__ void rowsum_atomic(const float *x, float *out, int cols) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols)
    atomicAdd(&out[row], x[row * cols + col]);
}

__global__ void rowsum_fixed(const float *x, float *out, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= kRows)
    return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    acc += x[row * cols + c];
  out[row] = acc;
}

int main(int argc, char **argv) {
  std::vector<float> x(size_t(kRows) * kCols);
  Lcg rng{12345};
  for (float &v : x)
    v = rng.uniform() - 0.5f;
  float *dx, *dout;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kRows * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, kRows * sizeof(float)));
  if (isBug(argc, argv))
    rowsum_atomic<<<dim3(kCols / 256, kRows), 256>>>(dx, dout, kCols);
  else
    rowsum_fixed<<<kRows / 128, 128>>>(dx, dout, kCols);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> out(kRows);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kRows * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("rowsum", out);
  return 0;
}
