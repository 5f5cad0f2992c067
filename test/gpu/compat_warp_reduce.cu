// Warp reductions (__reduce_*_sync, redux.sync) and cooperative groups'
// cg::reduce over full warps, a partial mask and labeled partitions, as
// cuda-samples reduction and warpAggregatedAtomicsCG use them, checked
// against the host. clang 19 alone swaps the value and the member mask of
// redux.sync: those builds fail with "an illegal instruction was
// encountered" (CUDA error 715) or reduce the wrong values; kosan's
// compatibility header puts them in nvcc's order.
// RUN: %gpubin/compat_warp_reduce > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck --check-prefix=NOREPORT --allow-empty %s < %t.err
// RUN: %gpubin/compat_warp_reduce.plain > %t.plain
// RUN: diff %t.out %t.plain
// CHECK: warp reductions: 0 mismatches in 22528 results
// CHECK: results checksum
// NOREPORT-NOT: kosan
// REQUIRES: gpu
#include "common.h"
#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kBlocks = 8;
constexpr int kN = kThreads * kBlocks;
constexpr int kResults = 11; // per thread
constexpr unsigned kAll = 0xffffffffu;
// Lanes 0, 3, 6, ... sit out the partial-mask reduction.
constexpr unsigned kPartial = ~0x49249249u;

__device__ __host__ inline int toSigned(unsigned v) { return (int)v - (1 << 23); }

__global__ void reduce(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  int s = toSigned(v);
  unsigned *o = out + i * kResults;
  o[0] = __reduce_add_sync(kAll, v);
  o[1] = __reduce_min_sync(kAll, v);
  o[2] = __reduce_max_sync(kAll, v);
  o[3] = (unsigned)__reduce_min_sync(kAll, s);
  o[4] = (unsigned)__reduce_max_sync(kAll, s);
  o[5] = __reduce_and_sync(kAll, v);
  o[6] = __reduce_or_sync(kAll, v);
  o[7] = __reduce_xor_sync(kAll, v);
  o[8] = (kPartial >> (threadIdx.x % 32)) & 1 ? __reduce_add_sync(kPartial, v) : 0;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  o[9] = (unsigned)cg::reduce(warp, s, cg::plus<int>());
  // As warpAggregatedAtomicsCG: the maximum within each bucket's group.
  cg::coalesced_group active = cg::coalesced_threads();
  auto bucket = cg::labeled_partition(active, (int)(v % 4));
  o[10] = (unsigned)cg::reduce(bucket, s, cg::greater<int>());
}

int main() {
  std::vector<unsigned> in(kN), out(kN * kResults), want(kN * kResults);
  Lcg lcg{12345};
  for (unsigned &v : in)
    v = lcg.bits24();
  for (int w = 0; w < kN / 32; w++) {
    const unsigned *x = &in[w * 32];
    for (int lane = 0; lane < 32; lane++) {
      unsigned add = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0, part = 0;
      int smin = 1 << 30, smax = -(1 << 30), ssum = 0, bmax = -(1 << 30);
      for (int l = 0; l < 32; l++) {
        unsigned v = x[l];
        int s = toSigned(v);
        add += v, umin = std::min(umin, v), umax = std::max(umax, v);
        smin = std::min(smin, s), smax = std::max(smax, s), ssum += s;
        band &= v, bor |= v, bxor ^= v;
        if ((kPartial >> l) & 1)
          part += v;
        if (v % 4 == x[lane] % 4)
          bmax = std::max(bmax, s);
      }
      unsigned *o = &want[(w * 32 + lane) * kResults];
      unsigned r[kResults] = {add, umin, umax, (unsigned)smin, (unsigned)smax, band, bor, bxor,
                              (kPartial >> lane) & 1 ? part : 0, (unsigned)ssum, (unsigned)bmax};
      std::memcpy(o, r, sizeof r);
    }
  }
  unsigned *d_in, *d_out;
  CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&d_out, kN * kResults * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpy(d_in, in.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
  reduce<<<kBlocks, kThreads>>>(d_in, d_out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t k = 0; k < out.size(); k++)
    if (out[k] != want[k] && bad++ < 5)
      std::printf("result %zu (thread %zu, reduction %zu): got %u, want %u\n", k, k / kResults,
                  k % kResults, out[k], want[k]);
  std::printf("warp reductions: %d mismatches in %zu results\n", bad, out.size());
  printChecksum("results", out);
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  return bad ? 1 : 0;
}
