//===- runtime/device/oob.cpp - Device runtime of the OOB check ------------===//
//
// Compiled to nvptx64 bitcode (no CUDA headers: clang's NVVM builtins only),
// embedded in the plugin and linked into each instrumented device module after
// instrumentation, so these functions are never instrumented themselves.
//
// Instrumented code only calls in here when the inline bounds compare failed
// (or for pitched buffers and accesses of unresolved provenance), so none of
// this is on the fast path.
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"
#include "kosan/bounds.h"

// convergent: record() uses warp-synchronous intrinsics, so callers must not
// be transformed as if the call were thread-local.
#define KOSAN_DEVICE extern "C" __attribute__((noinline, cold, convergent))

namespace {

inline uint32_t laneId() { return __nvvm_read_ptx_sreg_laneid(); }

inline uint64_t slotKey(uint32_t launchId, uint32_t site) {
  return ((uint64_t)launchId << 32 | site) + 1;
}

inline uint32_t hashKey(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  return (uint32_t)key;
}

void fillFirstOffender(kosan_oob_slot *s, uint64_t addr, uint32_t size,
                       uint64_t begin, uint64_t end, uint64_t pitch) {
  s->addr = addr;
  s->begin = begin;
  s->end = end;
  s->pitch = pitch;
  s->size = size;
  s->block[0] = __nvvm_read_ptx_sreg_ctaid_x();
  s->block[1] = __nvvm_read_ptx_sreg_ctaid_y();
  s->block[2] = __nvvm_read_ptx_sreg_ctaid_z();
  s->thread[0] = __nvvm_read_ptx_sreg_tid_x();
  s->thread[1] = __nvvm_read_ptx_sreg_tid_y();
  s->thread[2] = __nvvm_read_ptx_sreg_tid_z();
}

// Records one violation. Lanes of a warp that fail at the same site together
// are folded into one atomic by their lowest lane.
void record(kosan_device_state *st, uint32_t launchId, uint32_t flags,
            uint32_t site, uint64_t addr, uint32_t size, uint64_t begin,
            uint64_t end, uint64_t pitch) {
  uint32_t active = __nvvm_activemask();
  uint32_t peers = __nvvm_match_any_sync_i32(active, site);
  uint32_t leader = __builtin_ctz(peers);
  bool halt = flags & KOSAN_LAUNCH_HALT_ON_ERROR;
  kosan_host_flag *hf = (kosan_host_flag *)st->host_flag;
  if (laneId() == leader) {
    uint64_t key = slotKey(launchId, site);
    uint32_t mask = st->slot_capacity - 1;
    kosan_oob_slot *slots = (kosan_oob_slot *)st->slots;
    uint32_t h = hashKey(key) & mask;
    bool placed = false;
    for (uint32_t probe = 0; probe <= mask; ++probe, h = (h + 1) & mask) {
      kosan_oob_slot *s = &slots[h];
      uint64_t expected = 0;
      if (__atomic_compare_exchange_n(&s->key, &expected, key, false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        fillFirstOffender(s, addr, size, begin, end, pitch);
        __nvvm_membar_gl();
        __atomic_store_n(&s->ready, 1u, __ATOMIC_RELAXED);
        __atomic_fetch_add(&st->slots_used, 1u, __ATOMIC_RELAXED);
        if (halt && hf) {
          hf->halt_key = key;
          hf->halt_event = *s;
        }
      }
      if (expected == 0 || expected == key) {
        __atomic_fetch_add(&s->count, (uint32_t)__builtin_popcount(peers),
                           __ATOMIC_RELAXED);
        placed = true;
        break;
      }
    }
    if (!placed)
      __atomic_fetch_add(&st->dropped, 1u, __ATOMIC_RELAXED);
    if (hf)
      hf->dirty = 1;
  }
  if (halt) {
    if (hf && laneId() == leader)
      hf->halted = 1;
    __nvvm_membar_sys();
    __builtin_trap();
  }
}

} // namespace

// The inline compare failed (or the buffer is pitched). Returns whether the
// access may go ahead; a violating store is then dropped and a violating load
// yields zero by the instrumented code.
KOSAN_DEVICE bool __kosan_oob_report(uint64_t state, uint32_t launchId,
                                     uint32_t flags, uint32_t site,
                                     uint64_t addr, uint32_t size,
                                     uint64_t begin, uint64_t end,
                                     uint64_t pitch, uint64_t shape) {
  if (pitch != 0) {
    if (kosan::inPitchedBounds(addr, size, begin, pitch, shape))
      return true;
    end = kosan::pitchedEnd(begin, pitch, shape);
  }
  if (state)
    record((kosan_device_state *)state, launchId, flags, site, addr, size,
           begin, end, pitch);
  return false;
}

// Access whose buffer the compiler could not tell: allowed when it lies in
// shared or local memory, or inside one of the buffers the host knows.
KOSAN_DEVICE bool __kosan_oob_check_table(uint64_t state, uint32_t launchId,
                                          uint32_t flags, uint32_t site,
                                          uint64_t addr, uint32_t size) {
  if (!state)
    return true;
  void *p = (void *)addr;
  if (__nvvm_isspacep_shared(p) || __nvvm_isspacep_local(p) ||
      __nvvm_isspacep_const(p))
    return true;
  kosan_device_state *st = (kosan_device_state *)state;
  uint32_t n = st->table_len;
  if (n == 0)
    return true;
  const uint64_t *table = (const uint64_t *)st->table;
  // Last range whose begin <= addr.
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (table[2 * mid] <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0) {
    uint64_t b = table[2 * (lo - 1)], e = table[2 * (lo - 1) + 1];
    if (addr >= b && addr + size <= e)
      return true;
  }
  record(st, launchId, flags, site, addr, size, 0, 0, 0);
  return false;
}
