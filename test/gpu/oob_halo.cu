// A stencil without loops is tested once per block at its entry (the block's
// range of each access) and runs as compiled where the test passes; a
// block whose range leaves an object runs the checked copy, which reports
// exactly the bad accesses. The halo's edge writes run only for
// threadIdx.x < RADIUS: the test covers those threads alone, so an
// allocation of dynamic shared memory one float short (short) fails it in
// every block, and the reports are the last halo thread's edge write and
// the last thread's read of it. A guard one too wide on the right halo's
// read (tail) leaves the input in the last block alone: its thread 0 reads
// in[n]. In bounds (fixed), nothing is reported and the output is the plain
// build's. The host decides the test at the launch (verbosity=2 says for
// which blocks): in bounds, every block but the first (in[g - 3] for the
// left halo) and the last (in[g + blockDim.x]), whose guards the test does
// not read; with the tile short, none.
// RUN: %gpubin/oob_halo short 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: %gpubin/oob_halo tail 2>&1 | FileCheck %s --check-prefix=TAIL
// RUN: %gpubin/oob_halo fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_halo.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: env KOSAN_OPTIONS=verbosity=2 %gpubin/oob_halo fixed 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: env KOSAN_OPTIONS=verbosity=2 %gpubin/oob_halo short 2>&1 | FileCheck %s --check-prefix=NONE
// REQUIRES: gpu
// BLOCKS: kosan: launch #1 halo(float*, float const*, int, int): 14 of 16 blocks run as compiled, x in [1, 15)
// NONE: kosan: launch #1 halo(float*, float const*, int, int): 0 of 16 blocks run as compiled
#include "common.h"

#include <cstring>

constexpr int RADIUS = 3;

__global__ void halo(float *out, const float *in, int n, int slack) {
  extern __shared__ float tile[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  tile[l] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {
    tile[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0;
    tile[l + blockDim.x] = g + blockDim.x < n + slack ? in[g + blockDim.x] : 0; // SHORT-DAG: ERROR: kosan: shared-buffer-overflow: WRITE of size 4 in kernel 'halo(float*, float const*, int, int)' at {{.*}}oob_halo.cu:[[@LINE]]
  }
  // TAIL: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'halo(float*, float const*, int, int)' at {{.*}}oob_halo.cu:[[@LINE-2]]
  __syncthreads();
  if (g < n) {
    float s = 0;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k)
      s += tile[l + k]; // SHORT-DAG: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'halo(float*, float const*, int, int)' at {{.*}}oob_halo.cu:[[@LINE]]
    out[g] = s;
  }
}
// SHORT: is 0 bytes after the 1044-byte buffer
// Every block runs its checked copy: each site fires once per block.
// SHORT: kosan: 32 bad accesses at 2 sites
// TAIL: first by block (15,0,0) thread (0,0,0)
// TAIL: is 0 bytes after the 16384-byte buffer
// TAIL: kosan: 1 bad access at 1 site
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int n = 16 * 256, threads = 256;
  const char *mode = argc > 1 ? argv[1] : "fixed";
  bool shortTile = std::strcmp(mode, "short") == 0, tail = std::strcmp(mode, "tail") == 0;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i % 97);
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  size_t tile = (threads + 2 * RADIUS - (shortTile ? 1 : 0)) * sizeof(float);
  halo<<<n / threads, threads, tile>>>(out, in, n, tail ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", h);
  return 0;
}
