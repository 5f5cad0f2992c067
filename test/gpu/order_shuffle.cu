// A warp-shuffle tree reduction per warp: deterministic, so 20 runs give the
// same fingerprints. The fingerprints follow the tree: lane 0's sum by
// offsets 1, 2, 4, 8, 16 pairs the lanes otherwise than by 16, 8, 4, 2, 1,
// and gets other fingerprints; the butterfly (xor) tree pairs lane 0's
// values exactly as the 16, 8, ... tree does, and gets the same ones.
// usage: order_shuffle down|xor|up
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/order_runs.py 20 %t/down %kosan-diff -- %gpubin/order_shuffle down > %t/down.runs
// RUN: FileCheck %s --check-prefix=STABLE < %t/down.runs
// STABLE: 20 runs; 19 compared with run 0: 19 DETERMINISTIC, 0 NONDETERMINISTIC
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/up.kosan %gpubin/order_shuffle up > %t/up.out
// RUN: not %kosan-diff --order %t/down0.kosan %t/up.kosan | FileCheck %s --check-prefix=TREE
// TREE: 4096/4096 elements
// TREE: NONDETERMINISTIC
// RUN: env KOSAN_OPTIONS=checks=order:trace=%t/xor.kosan %gpubin/order_shuffle xor > %t/xor.out
// RUN: %kosan-diff --order %t/down0.kosan %t/xor.kosan | FileCheck %s --check-prefix=SAME
// SAME: DETERMINISTIC
// RUN: diff %t/down0.out %t/xor.out
// RUN: %kosan-report %t/down0.kosan | FileCheck %s --check-prefix=STATIC
// STATIC: warp-shuffle reduction at {{.*}}order_shuffle.cu
// RUN: %gpubin/order_shuffle.plain down > %t/plain.out
// RUN: diff %t/plain.out %t/down0.out
// REQUIRES: gpu
#include "common.h"

constexpr int kWarps = 4096;

enum Tree { Down, Xor, Up };

__global__ void warp_sum(const float *x, float *out, int tree) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  if (tree == Down) {
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, o);
  } else if (tree == Xor) {
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
  } else {
    // Lanes past the end read their own value: wrong sums there, but lane
    // 0 only ever reads lanes below 32.
    for (int o = 1; o < 32; o <<= 1)
      v += __shfl_down_sync(0xffffffffu, v, o);
  }
  if (threadIdx.x % 32 == 0)
    out[warp] = v;
}

int main(int argc, char **argv) {
  int tree = argc < 2 ? Down : std::strcmp(argv[1], "xor") == 0 ? Xor
                                : std::strcmp(argv[1], "up") == 0 ? Up : Down;
  std::vector<float> x(size_t(kWarps) * 32);
  Lcg rng{99};
  for (float &v : x)
    v = rng.uniform();
  float *dx, *dout;
  CHECK_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, kWarps * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  warp_sum<<<kWarps * 32 / 256, 256>>>(dx, dout, tree);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> out(kWarps);
  CHECK_CUDA(cudaMemcpy(out.data(), dout, kWarps * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("warp sums", out);
  return 0;
}
