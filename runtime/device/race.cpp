//===- runtime/device/race.cpp - Device runtime of the race check ---------===//
//
// checks=race: a read or write of shared memory that conflicts with an
// access of another thread of the block (one of them a write, the same
// granule) with no barrier between them. Compiled to nvptx64 bitcode only;
// the plugin inlines these entries into the instrumented clones after
// linking (KOSAN_DEVICE_ENTRIES, inlined), so they cost no call.
//
// The block's race state lies at the end of its dynamic shared memory
// (kosan_race_header in abi.h): a 64-bit shadow word per granule of the
// shared window and a clock per thread. A thread's clock counts the block
// barriers it passed (its epoch) and its warp synchronisations. Two
// accesses are ordered when their epochs differ, or when the threads are in
// one warp and their warp counts differ (a __syncwarp between them). The
// shadow word keeps, per granule, what happened in the current epoch: one
// writer, one reader or several readers. Its updates are plain loads and
// stores: two threads updating one word at once can lose one's access (a
// race missed), never make one up.
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"
#include "kosan/race.h"

#include "gpu.h"

#if defined(__NVPTX__)

#define KOSAN_RACE_ENTRY extern "C"

typedef __attribute__((address_space(3))) uint64_t SharedU64;
typedef __attribute__((address_space(3))) uint32_t SharedU32;
typedef __attribute__((address_space(3))) kosan_race_header SharedHeader;

// The start of the block's dynamic shared memory (every extern __shared__
// array of a kernel starts there).
extern "C" __attribute__((address_space(3))) char __kosan_race_dynamic_smem[];

namespace {

inline uint32_t sharedOffset(const __attribute__((address_space(3))) void *p) {
  return (uint32_t)(uintptr_t)p;
}
template <typename T> inline T *atOffset(uint32_t offset) {
  return (T *)(uintptr_t)offset;
}

inline uint32_t dynamicSmemBytes() {
  uint32_t n;
  __asm__("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}

inline uint32_t linearThread() {
  return __nvvm_read_ptx_sreg_tid_x() +
         __nvvm_read_ptx_sreg_ntid_x() *
             (__nvvm_read_ptx_sreg_tid_y() +
              __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z());
}
inline uint32_t blockThreads() {
  return __nvvm_read_ptx_sreg_ntid_x() * __nvvm_read_ptx_sreg_ntid_y() *
         __nvvm_read_ptx_sreg_ntid_z();
}

inline SharedHeader *header() {
  return atOffset<SharedHeader>(sharedOffset(__kosan_race_dynamic_smem) + dynamicSmemBytes() -
                                (uint32_t)sizeof(kosan_race_header));
}

// Writes one race into the race log (mapped host memory) and tells the
// host; then stops the kernel, as the bounds check's record() does
// (oob.cpp), under halt_on_error=1 (the log's header says) or when this is
// the racing access past the stop_after budget (race_count counts them
// since the host last collected): fence, the log's halted word, trap. The
// host finds the race in the log and says why the kernel stopped.
__attribute__((noinline, cold)) void report(uint64_t state, uint32_t launchId, uint32_t site,
                                            uint32_t otherSite, uint32_t otherThread,
                                            uint32_t offset, uint32_t kinds) {
  kosan_device_state *st = (kosan_device_state *)state;
  if (!st || !st->race_events)
    return;
  uint32_t index = __atomic_fetch_add(&st->race_count, 1u, __ATOMIC_RELAXED);
  if (index < st->race_capacity) {
    kosan_race_event *e = (kosan_race_event *)st->race_events + index;
    e->other_site = otherSite;
    e->other_thread = otherThread;
    e->offset = offset;
    e->kinds = kinds;
    kosan::gpu::publishEvent(e, launchId, site);
  }
  volatile kosan_race_log_header *h = (volatile kosan_race_log_header *)st->race_flag;
  h->flag.dirty = 1;
  uint32_t budget = st->event_budget;
  if (h->halt_on_error || (budget && index >= budget)) {
    kosan::gpu::systemFence();
    h->flag.halted = 1;
    __builtin_trap();
  }
}

} // namespace

// At the start of a kernel clone: clears this block's shadow and clocks
// and writes the header, then waits for every thread (all are at the start,
// so the barrier cannot deadlock).
KOSAN_RACE_ENTRY void __kosan_race_enter(uint32_t flags, uint64_t layout) {
  if (!(flags & KOSAN_LAUNCH_RACE))
    return;
  uint32_t base = sharedOffset(__kosan_race_dynamic_smem);
  uint32_t shadow = base + (uint32_t)layout;
  uint32_t granules = (uint32_t)(layout >> 32);
  uint32_t clocks = shadow + granules * 8u;
  uint32_t threads = blockThreads(), me = linearThread();
  SharedU64 *words = atOffset<SharedU64>(shadow);
  for (uint32_t i = me; i < granules; i += threads)
    words[i] = 0;
  atOffset<SharedU32>(clocks)[me] = 0;
  if (me == 0) {
    SharedHeader *h = header();
    h->shadow = shadow;
    h->granules = granules;
    h->clocks = clocks;
  }
  __nvvm_barrier_sync(0);
}

// After a block barrier: a new epoch, and a new warp interval.
KOSAN_RACE_ENTRY void __kosan_race_barrier(uint32_t flags) {
  if (!(flags & KOSAN_LAUNCH_RACE))
    return;
  SharedU32 *clock = atOffset<SharedU32>(header()->clocks) + linearThread();
  *clock = kosan_race_after_barrier(*clock);
}

// After __syncwarp: a new interval for the accesses of this warp's threads.
KOSAN_RACE_ENTRY void __kosan_race_warp_sync(uint32_t flags) {
  if (!(flags & KOSAN_LAUNCH_RACE))
    return;
  SharedU32 *clock = atOffset<SharedU32>(header()->clocks) + linearThread();
  *clock = kosan_race_after_warp_sync(*clock);
}

namespace {

// One granule's shadow word against an access (kosan/race.h has the rule).
__attribute__((always_inline)) inline void checkGranule(SharedU64 *words, uint32_t g,
                                                        uint32_t shift, uint32_t me,
                                                        uint32_t clock, uint64_t state,
                                                        uint32_t launchId, uint32_t site,
                                                        uint32_t isWrite) {
  kosan_race_outcome o = kosan_race_step(words[g], me, clock, site, isWrite);
  if (o.race)
    report(state, launchId, site, o.other_site, o.other_thread, g << shift, o.kinds);
  if (o.store)
    words[g] = o.next;
}

} // namespace

// One shared access of `size` bytes at `offset` in the block's window.
// Accesses wider than a granule check up to four granules, spread over
// the bytes they touch. Inlined with size and shift constant, an access of
// one granule keeps no loop.
// layout: the launch info's race_layout in kernels (a kernel parameter:
// nothing to load), 0 in device functions, which read the header.
KOSAN_RACE_ENTRY void __kosan_race_access(uint64_t state, uint32_t flags, uint32_t launchId,
                                          uint32_t site, uint64_t offset, uint32_t size,
                                          uint32_t isWrite, uint32_t shift, uint64_t layout) {
  if (!(flags & KOSAN_LAUNCH_RACE))
    return;
  uint32_t shadow, granules, clocks;
  if (layout) {
    shadow = sharedOffset(__kosan_race_dynamic_smem) + (uint32_t)layout;
    granules = (uint32_t)(layout >> 32);
    clocks = shadow + granules * 8u;
  } else {
    SharedHeader *h = header();
    shadow = h->shadow;
    granules = h->granules;
    clocks = h->clocks;
  }
  uint32_t first = (uint32_t)(offset >> shift);
  uint32_t me = linearThread();
  uint32_t clock = atOffset<SharedU32>(clocks)[me];
  SharedU64 *words = atOffset<SharedU64>(shadow);
  if (first >= granules)
    return;
  checkGranule(words, first, shift, me, clock, state, launchId, site, isWrite);
  uint32_t span = size >> shift;
  if (span > 1) {
    uint32_t step = span > 4 ? span / 4 : 1u;
    for (uint32_t k = step; k < span && first + k < granules; k += step)
      checkGranule(words, first + k, shift, me, clock, state, launchId, site, isWrite);
  }
}

#endif // __NVPTX__
