//===- runtime/device/gpu.h - What the device runtime reads of its GPU -----===//
//
// The device runtime is compiled twice: to nvptx64 bitcode (NVIDIA) and to
// amdgcn bitcode (AMD, HIP). What differs between the two is here, as
// inline functions over each target's clang builtins; the rest of the
// runtime is the same source. A lane mask has a bit per lane of a warp
// (32) or a wavefront (64 on the AMD GPUs kosan builds for).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_DEVICE_GPU_H
#define KOSAN_RUNTIME_DEVICE_GPU_H

#include <stdint.h>

namespace kosan::gpu {

#if defined(__NVPTX__)

using LaneMask = uint32_t;
constexpr uint32_t kWarpSize = 32;

inline uint32_t blockId(int d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x()
         : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y()
                  : __nvvm_read_ptx_sreg_ctaid_z();
}
inline uint32_t threadId(int d) {
  return d == 0 ? __nvvm_read_ptx_sreg_tid_x()
         : d == 1 ? __nvvm_read_ptx_sreg_tid_y()
                  : __nvvm_read_ptx_sreg_tid_z();
}
inline uint32_t blockDim(int d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ntid_x() : __nvvm_read_ptx_sreg_ntid_y();
}
inline uint32_t gridDim(int d) {
  return d == 0 ? __nvvm_read_ptx_sreg_nctaid_x() : __nvvm_read_ptx_sreg_nctaid_y();
}
// Spreads contended counters: the multiprocessor the thread runs on.
inline uint32_t spreadId() { return __nvvm_read_ptx_sreg_smid(); }
inline uint32_t laneId() { return __nvvm_read_ptx_sreg_laneid(); }
inline LaneMask activeMask() { return __nvvm_activemask(); }
inline uint32_t shuffle(LaneMask mask, uint32_t v, uint32_t srcLane) {
  return (uint32_t)__nvvm_shfl_sync_idx_i32(mask, (int)v, (int)srcLane, 0x1f);
}
// Makes this thread's writes visible to the host before the next ones.
inline void systemFence() { __nvvm_membar_sys(); }

#elif defined(__AMDGCN__)

using LaneMask = uint64_t;
constexpr uint32_t kWarpSize = 64;

inline uint32_t blockId(int d) {
  return d == 0 ? __builtin_amdgcn_workgroup_id_x()
         : d == 1 ? __builtin_amdgcn_workgroup_id_y()
                  : __builtin_amdgcn_workgroup_id_z();
}
inline uint32_t threadId(int d) {
  return d == 0 ? __builtin_amdgcn_workitem_id_x()
         : d == 1 ? __builtin_amdgcn_workitem_id_y()
                  : __builtin_amdgcn_workitem_id_z();
}
// Code object v5's implicit kernel arguments (clang 19's default):
// hidden_block_count_{x,y,z} at 0, 4, 8, hidden_group_size_{x,y,z} at 12,
// 14, 16.
inline uint32_t blockDim(int d) {
  const __attribute__((address_space(4))) uint16_t *p =
      (const __attribute__((address_space(4))) uint16_t *)__builtin_amdgcn_implicitarg_ptr();
  return p[6 + d];
}
inline uint32_t gridDim(int d) {
  const __attribute__((address_space(4))) uint32_t *p =
      (const __attribute__((address_space(4))) uint32_t *)__builtin_amdgcn_implicitarg_ptr();
  return p[d];
}
inline uint32_t spreadId() { return __builtin_amdgcn_workgroup_id_x(); }
inline uint32_t laneId() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
inline LaneMask activeMask() { return __builtin_amdgcn_read_exec(); }
inline uint32_t shuffle(LaneMask, uint32_t v, uint32_t srcLane) {
  return (uint32_t)__builtin_amdgcn_ds_bpermute((int)(srcLane << 2), (int)v);
}
inline void systemFence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

#else
#error "the kosan device runtime is built for nvptx64 or amdgcn"
#endif

#if defined(__NVPTX__)
inline uint32_t popcount(LaneMask m) { return (uint32_t)__builtin_popcount(m); }
inline uint32_t lowestLane(LaneMask m) { return (uint32_t)__builtin_ctz(m); }
// The lanes of m below `lane`.
inline LaneMask lanesBelow(LaneMask m, uint32_t lane) { return m & ((1u << lane) - 1); }
#else
inline uint32_t popcount(LaneMask m) { return (uint32_t)__builtin_popcountll(m); }
inline uint32_t lowestLane(LaneMask m) { return (uint32_t)__builtin_ctzll(m); }
inline LaneMask lanesBelow(LaneMask m, uint32_t lane) { return m & ((1ull << lane) - 1); }
#endif

// Completes an event of a log in mapped host memory (kosan_oob_event,
// kosan_race_event: the caller wrote its own fields): the block and the
// thread, then, after a fence that makes the rest visible to the host, the
// key, which the host reads as "this event is complete".
template <typename Event> inline void publishEvent(Event *e, uint32_t launchId, uint32_t site) {
  e->block[0] = blockId(0);
  e->block[1] = blockId(1);
  e->block[2] = blockId(2);
  e->thread[0] = threadId(0);
  e->thread[1] = threadId(1);
  e->thread[2] = threadId(2);
  systemFence();
  e->key = ((uint64_t)launchId << 32 | site) + 1;
}

} // namespace kosan::gpu

#endif
