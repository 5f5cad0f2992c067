//===- kosan/race.h - The race check's shadow word and its rules -----------===//
//
// checks=race keeps one 64-bit shadow word per granule of a block's shared
// memory (layout in abi.h, KOSAN_RACE_KIND_*): what happened to the
// granule since the last barrier. kosan_race_step() is the rule every
// access applies to it; the device runtime (runtime/device/race.cpp) runs
// it on the GPU, the unit tests on the host (test/unit/race_test.cpp).
//
// A thread's clock: its barrier count (the epoch, low 16 bits) and its
// warp synchronisation count (bits 16-30), both advanced after each block
// barrier, the second also after each __syncwarp(). Two accesses are
// ordered when their epochs differ, or when their threads share a warp and
// their warp counts differ. Otherwise a write and another thread's read or
// write, or a read and another thread's write, race.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RACE_H
#define KOSAN_RACE_H

#include <stdint.h>

#include "kosan/abi.h"

#define KOSAN_RACE_FN static inline

#define KOSAN_RACE_EPOCH_MASK 0xffffu
#define KOSAN_RACE_WARP_COUNT_SHIFT 16u
#define KOSAN_RACE_WARP_COUNT_MASK 0x7fffu
#define KOSAN_RACE_THREAD_MASK 0x3ffu

// The race log (kosan_device_state::race_flag, mapped host memory) starts
// with this header, in 64 bytes; its events follow them. The device writes
// the flag, the host the settings: the report of a race reads them, so that
// an access that does not race has nothing more to carry.
struct kosan_race_log_header {
  kosan_host_flag flag;    // dirty after a race, halted after one stopped the kernel
  uint32_t halt_on_error;  // 1: a kernel stops at its first race (halt_on_error=1)
  uint32_t reserved;
};
#define KOSAN_RACE_LOG_EVENTS 64u

// The clock after a block barrier, and after a __syncwarp().
KOSAN_RACE_FN uint32_t kosan_race_after_barrier(uint32_t clock) {
  uint32_t epoch = (clock + 1) & KOSAN_RACE_EPOCH_MASK;
  uint32_t warp = ((clock >> KOSAN_RACE_WARP_COUNT_SHIFT) + 1) & KOSAN_RACE_WARP_COUNT_MASK;
  return epoch | warp << KOSAN_RACE_WARP_COUNT_SHIFT;
}
KOSAN_RACE_FN uint32_t kosan_race_after_warp_sync(uint32_t clock) {
  uint32_t warp = ((clock >> KOSAN_RACE_WARP_COUNT_SHIFT) + 1) & KOSAN_RACE_WARP_COUNT_MASK;
  return (clock & KOSAN_RACE_EPOCH_MASK) | warp << KOSAN_RACE_WARP_COUNT_SHIFT;
}

KOSAN_RACE_FN uint64_t kosan_race_word(uint32_t clock, uint32_t manyWarps, uint32_t thread,
                                       uint32_t kind, uint32_t site) {
  return (uint64_t)(clock & (KOSAN_RACE_EPOCH_MASK |
                             KOSAN_RACE_WARP_COUNT_MASK << KOSAN_RACE_WARP_COUNT_SHIFT)) |
         (uint64_t)(manyWarps & 1u) << 31 | (uint64_t)(thread & KOSAN_RACE_THREAD_MASK) << 32 |
         (uint64_t)(kind & 3u) << 42 |
         (uint64_t)(site < KOSAN_RACE_SITE_UNKNOWN ? site : KOSAN_RACE_SITE_UNKNOWN) << 44;
}

// What one access does to its granule's word.
struct kosan_race_outcome {
  uint64_t next;          // the word to store
  uint32_t store;         // 0: leave the word as it is
  uint32_t race;          // 1: a race with the recorded access
  uint32_t other_site;    // its site (KOSAN_RACE_SITE_UNKNOWN: unknown)
  uint32_t other_thread;  // its thread (KOSAN_RACE_THREAD_UNKNOWN: another reader)
  uint32_t kinds;         // bit 0: this access writes; bit 1: the other one did
};

// Thread `me` (linear index in the block, warps of 32) with clock `clock`
// reads (isWrite 0) or writes the granule whose word is w, at `site`.
KOSAN_RACE_FN struct kosan_race_outcome kosan_race_step(uint64_t w, uint32_t me, uint32_t clock,
                                                        uint32_t site, uint32_t isWrite) {
  struct kosan_race_outcome o = {0, 1, 0, 0, 0, 0};
  uint32_t kind = (uint32_t)(w >> 42) & 3u;
  uint32_t other = (uint32_t)(w >> 32) & KOSAN_RACE_THREAD_MASK;
  uint32_t epoch = clock & KOSAN_RACE_EPOCH_MASK;
  uint32_t warpCount = (clock >> KOSAN_RACE_WARP_COUNT_SHIFT) & KOSAN_RACE_WARP_COUNT_MASK;
  int sameEpoch = kind != KOSAN_RACE_KIND_NONE && (uint32_t)(w & KOSAN_RACE_EPOCH_MASK) == epoch;
  int sameWarp = (other >> 5) == ((me & KOSAN_RACE_THREAD_MASK) >> 5);
  uint32_t manyWarps = (uint32_t)(w >> 31) & 1u;
  // Ordered by a __syncwarp: the recorded thread (and, for readers, every
  // reader: they are all of its warp) is in this warp, at another count.
  int warpOrdered = sameWarp && !manyWarps &&
                    ((uint32_t)(w >> KOSAN_RACE_WARP_COUNT_SHIFT) & KOSAN_RACE_WARP_COUNT_MASK) !=
                        warpCount;
  uint32_t mine = isWrite ? KOSAN_RACE_KIND_WRITE : KOSAN_RACE_KIND_READ;
  o.other_site = (uint32_t)(w >> 44);
  if (!sameEpoch || warpOrdered) {
    o.next = kosan_race_word(clock, 0, me, mine, site);
  } else if (!isWrite) {
    if (kind == KOSAN_RACE_KIND_WRITE) {
      if (other == (me & KOSAN_RACE_THREAD_MASK)) {
        o.store = 0;
        return o;
      }
      o.race = 1;
      o.other_thread = other;
      o.kinds = 2u;
      o.next = kosan_race_word(clock, 0, me, KOSAN_RACE_KIND_READ, site);
    } else if ((kind == KOSAN_RACE_KIND_READ && other == (me & KOSAN_RACE_THREAD_MASK)) ||
               (kind == KOSAN_RACE_KIND_READS && (manyWarps || sameWarp))) {
      o.store = 0;  // nothing new: the same reader, or readers already noted
    } else {
      // Another reader: keep the first, note whether the readers span warps.
      o.next = (w & ~(((uint64_t)3 << 42) | ((uint64_t)1 << 31))) |
               (uint64_t)KOSAN_RACE_KIND_READS << 42 | (uint64_t)(manyWarps || !sameWarp) << 31;
    }
  } else {
    // A write after a write or a read of this interval by another thread.
    if (kind == KOSAN_RACE_KIND_READS || other != (me & KOSAN_RACE_THREAD_MASK)) {
      o.race = 1;
      // Readers of several warps, the first of them ordered with this
      // write: the racing reader is another one.
      int firstOrdered = kind == KOSAN_RACE_KIND_READS && manyWarps && sameWarp &&
                         ((uint32_t)(w >> KOSAN_RACE_WARP_COUNT_SHIFT) &
                          KOSAN_RACE_WARP_COUNT_MASK) != warpCount;
      o.other_thread = other != (me & KOSAN_RACE_THREAD_MASK) && !firstOrdered
                           ? other
                           : KOSAN_RACE_THREAD_UNKNOWN;
      o.kinds = 1u | (kind == KOSAN_RACE_KIND_WRITE ? 2u : 0u);
    }
    o.next = kosan_race_word(clock, 0, me, KOSAN_RACE_KIND_WRITE, site);
  }
  return o;
}

#endif // KOSAN_RACE_H
