//===- runtime/device/precision.cpp - Device runtime of the precision check ===//
//
// Compiled to nvptx64 bitcode like oob.cpp (no CUDA headers: clang's NVVM
// builtins only) and linked into instrumented device modules after
// instrumentation, so it is never instrumented itself.
//
// Instrumented code calls in here at the precision sinks (global stores,
// atomics, narrowing conversions, the birth of a NaN or infinity) with the
// real value and its fp64 shadow. Per call, each lane computes its own
// errors (include/kosan/precision.h); the lanes of the warp that called for
// the same slot then reduce their samples in registers, and the lowest of
// them adds the result to the slot: one atomic per nonzero field, per warp
// and slot, not per thread (test/gpu/precision_warp_groups.cu). A maximum is
// reduced only when some lane of the group exceeds the slot's: once a
// site's maxima settle, a call reduces its sum alone. The rules
// (each lane's LaneSample is precision.h's):
//   - count: every call;
//   - sum_rel_err: finite relative errors only; a NaN or +inf relative error
//     (real or shadow NaN, shadow 0 and real not, an infinity on one side
//     only) is left out of the sum;
//   - max_rel_err_bits / max_ulp_err_bits: bit patterns of non-negative
//     doubles, which order like the values, combined with integer maxima; a
//     NaN error counts as +inf, so the maxima are never NaN;
//   - hist: one bin per VALUE or NARROW call, by bits lost; NaN errors in
//     bin 7; NONFINITE calls in no bin;
//   - overflows, underflows, nans: NARROW's conditions, NONFINITE's births;
//   - max_abs_err_bits / max_scale_bits: the largest absolute error and the
//     largest finite |shadow| (the site's scale), integer maxima likewise;
//   - worst_*: the sample with the largest absolute error (the lowest lane
//     on ties), written by its own lane when the group raised
//     max_abs_err_bits (the atomic maximum's old value was smaller), with
//     the root cause its value carried (VALUE). For NONFINITE, the first
//     birth only: written by the group's lowest lane when nans was 0 before.
//
// The worst_* fields are plain stores after the atomic maximum: two warps
// that raise the same slot's maximum at the same time may interleave their
// fields. A record is consistent when absError(worst_real, worst_shadow)
// reproduces max_abs_err_bits, which the host can check.
//
// Warp-level matching (match.any.sync) needs sm_70 or newer.
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"
#include "kosan/precision.h"

#include "gpu.h"

// Called once per sink; never inlined, so that instrumented code pays a call,
// not this body, at every site.
#define KOSAN_DEVICE extern "C" __attribute__((noinline))
// Helpers of the inlined entries below, which must not call anything on
// their common path (a call in a loop makes ptxas keep values in memory).
#define KOSAN_ALWAYS_INLINE __attribute__((always_inline)) inline

// NVIDIA libdevice (AMD: the ROCm device libraries' ocml), linked into this
// bitcode at build time (internalized, and libdevice's __nvvm_reflect queries
// resolved), so modules need no math library of their own for the shadows.
#if defined(__NVPTX__)
extern "C" double __nv_exp2(double);
extern "C" double __nv_log2(double);
extern "C" double __nv_sin(double);
extern "C" double __nv_cos(double);
extern "C" double __nv_tanh(double);
#define KOSAN_FP64(f) __nv_##f
#else
extern "C" double __ocml_exp2_f64(double);
extern "C" double __ocml_log2_f64(double);
extern "C" double __ocml_sin_f64(double);
extern "C" double __ocml_cos_f64(double);
extern "C" double __ocml_tanh_f64(double);
#define KOSAN_FP64(f) __ocml_##f##_f64
#endif

namespace {

using namespace kosan::prec;

struct Target {
  kosan_precision_state *state;
  kosan_prec_slot *slot;
};

// The slot a call records into; null when precision is off at run time or
// the slot lies outside what the host allocated.
KOSAN_ALWAYS_INLINE Target targetOf(uint64_t state, uint32_t slot) {
  if (!state)
    return {nullptr, nullptr};
  uint64_t precision = ((const kosan_device_state *)state)->precision;
  if (!precision)
    return {nullptr, nullptr};
  kosan_precision_state *ps = (kosan_precision_state *)precision;
  if (slot >= ps->capacity)
    return {nullptr, nullptr};
  uint32_t shard = kosan::gpu::spreadId() & (KOSAN_PREC_SHARDS - 1);
  return {ps, (kosan_prec_slot *)ps->slots + (uint64_t)slot * KOSAN_PREC_SHARDS + shard};
}

#if defined(__NVPTX__)
uint32_t shfl32(uint32_t mask, uint32_t v, uint32_t srcLane) {
  return (uint32_t)__nvvm_shfl_sync_idx_i32(mask, (int)v, (int)srcLane, 0x1f);
}

uint64_t shfl64(uint32_t mask, uint64_t v, uint32_t srcLane) {
  uint32_t lo = shfl32(mask, (uint32_t)v, srcLane);
  uint32_t hi = shfl32(mask, (uint32_t)(v >> 32), srcLane);
  return (uint64_t)hi << 32 | lo;
}

uint64_t shflXor64(uint64_t v, uint32_t laneMask) {
  uint32_t lo = (uint32_t)__nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)(uint32_t)v, (int)laneMask, 0x1f);
  uint32_t hi = (uint32_t)__nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)(uint32_t)(v >> 32), (int)laneMask, 0x1f);
  return (uint64_t)hi << 32 | lo;
}

uint32_t ballot(uint32_t mask, bool p) { return __nvvm_vote_ballot_sync(mask, p); }

uint32_t popc(uint32_t m) { return (uint32_t)__builtin_popcount(m); }
#endif

KOSAN_ALWAYS_INLINE void addU64(uint64_t *p, uint64_t v) {
  if (v)
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

uint64_t readU64(const uint64_t *p) { return *(const volatile uint64_t *)p; }

// The flag is one word that every warp's leader of every sink would read:
// a volatile read goes to the L2 slice that holds it each time, and all
// SMs then queue on that one line. A plain read is served from the SM's
// L1 once it holds the word (the host zeroes it with no kernel running,
// and a kernel starts with no stale L1 lines); the write goes through.
KOSAN_ALWAYS_INLINE void markDirty(kosan_precision_state *ps) {
  if (!*(const uint32_t *)&ps->dirty)
    *(volatile uint32_t *)&ps->dirty = 1;
}

KOSAN_ALWAYS_INLINE void writeWorst(kosan_prec_slot *slot, const LaneSample &s, uint32_t launch) {
  slot->worst_real = s.real;
  slot->worst_shadow = s.shadow;
  slot->worst_cause_code = s.causeCode;
  slot->worst_cause_slot = s.causeSlot;
  slot->worst_block[0] = kosan::gpu::blockId(0);
  slot->worst_block[1] = kosan::gpu::blockId(1);
  slot->worst_block[2] = kosan::gpu::blockId(2);
  slot->worst_thread[0] = kosan::gpu::threadId(0);
  slot->worst_thread[1] = kosan::gpu::threadId(1);
  slot->worst_thread[2] = kosan::gpu::threadId(2);
  slot->worst_launch = launch;
}

// A thread's tally of a site (kosan_prec_tally), as __kosan_prec_merge
// receives it; hist's bins have 8 bits each.
// The largest relative, ULP and absolute errors and scale, as the bit
// patterns of non-negative doubles (0: none to add).
struct Maxima {
  uint64_t rel, ulp, abs, scale;
};

struct Tally {
  uint32_t count;
  uint64_t hist;
  double sum;
  Maxima max;
  LaneSample worst; // real, shadow, causeCode, causeSlot
};

// A tally from kosan_prec_tally's fields.
KOSAN_ALWAYS_INLINE Tally tallyOf(uint32_t count, uint64_t hist, double sum, uint64_t maxRel,
                                  uint64_t maxUlp, uint64_t maxAbs, uint64_t maxScale,
                                  double worstReal, double worstShadow, uint32_t causeCode,
                                  uint32_t causeSlot) {
  Tally y{count, hist, sum, Maxima{maxRel, maxUlp, maxAbs, maxScale}, LaneSample{}};
  y.worst.real = worstReal;
  y.worst.shadow = worstShadow;
  y.worst.causeCode = causeCode;
  y.worst.causeSlot = causeSlot;
  return y;
}

// Adds a count and a sum of relative errors to the slot and raises its
// maxima (bit patterns of non-negative doubles) where these are larger,
// reading each first so that a maximum not exceeded costs no atomic. True
// when this call raised the largest absolute error: the caller then writes
// the worst value's sample.
KOSAN_ALWAYS_INLINE bool publish(kosan_prec_slot *slot, uint64_t count, double sum,
                                 const Maxima &m) {
  addU64(&slot->count, count);
  if (sum != 0)
    __atomic_fetch_add(&slot->sum_rel_err, sum, __ATOMIC_RELAXED);
  if (m.rel && m.rel > readU64(&slot->max_rel_err_bits))
    __atomic_fetch_max(&slot->max_rel_err_bits, m.rel, __ATOMIC_RELAXED);
  if (m.ulp && m.ulp > readU64(&slot->max_ulp_err_bits))
    __atomic_fetch_max(&slot->max_ulp_err_bits, m.ulp, __ATOMIC_RELAXED);
  if (m.scale && m.scale > readU64(&slot->max_scale_bits))
    __atomic_fetch_max(&slot->max_scale_bits, m.scale, __ATOMIC_RELAXED);
  return m.abs && m.abs > readU64(&slot->max_abs_err_bits) &&
         __atomic_fetch_max(&slot->max_abs_err_bits, m.abs, __ATOMIC_RELAXED) < m.abs;
}

// A tally added to the slot by its lane alone, one atomic per nonzero
// field: inline code, no call (a tally that fills up in a loop, and every
// tally on AMD GPUs).
KOSAN_ALWAYS_INLINE void addTally(Target t, uint32_t launch, const Tally &y) {
  kosan_prec_slot *slot = t.slot;
  bool raised = publish(slot, y.count, y.sum, y.max);
  for (uint32_t b = 0; b < (uint32_t)kHistBins; ++b)
    addU64(&slot->hist[b], (y.hist >> (8 * b)) & 0xff);
  markDirty(t.state);
  if (raised)
    writeWorst(slot, y.worst, launch);
}

#if defined(__NVPTX__)
// The lanes of the warp that are here now and called for the same slot:
// all of them when the lowest one's slot is everyone's (one call site, the
// common case: a shuffle and a ballot), else match.any.sync.
uint32_t groupOf(uint32_t slotIndex) {
  uint32_t active = __nvvm_activemask();
  uint32_t first = shfl32(active, slotIndex, (uint32_t)__builtin_ctz(active));
  if (ballot(active, first == slotIndex) == active)
    return active;
  return __nvvm_match_any_sync_i32(active, slotIndex);
}

// v reduced over the group, to its lowest lane (to every lane of a whole
// warp): the maximum of the bit patterns (Max), the sum of the doubles they
// hold (FAdd) or of the integers (IAdd). A whole warp (the common case) takes a butterfly, five
// shuffles per value and no lane search; a partial group has rank r (the
// r-th lowest lane of the group) take rank r + d, for d = 1, 2, 4, 8, 16,
// where fns finds the lane of rank r + d: the (d+1)-th set bit of the group
// from this lane up. A butterfly adds in another order than a partial
// group; the sum only feeds a mean.
enum class Combine { Max, FAdd, IAdd };

template <Combine op>
uint64_t groupReduce(uint32_t group, uint32_t lane, uint32_t n, uint64_t v) {
  auto combine = [](uint64_t a, uint64_t b) {
    if constexpr (op == Combine::Max)
      return b > a ? b : a;
    else if constexpr (op == Combine::IAdd)
      return a + b;
    else
      return bitsOf(fromBits(a) + fromBits(b));
  };
  if (group == 0xffffffffu) {
    for (uint32_t o = 16; o; o >>= 1)
      v = combine(v, shflXor64(v, o));
    return v;
  }
  for (uint32_t d = 1; d < n; d <<= 1) {
    uint32_t src = __nvvm_fns(group, lane, (int)d + 1);
    bool has = src < 32;
    uint64_t other = shfl64(group, v, has ? src : lane);
    if (has)
      v = combine(v, other);
  }
  return v;
}

// The lanes' maxima, each reduced over the group only where some lane of
// it exceeds the slot's as read now (else 0): once a site's maxima settle,
// most groups raise none, and a load and a ballot replace ten shuffles. The
// slot's four are read together (one wait on the L2, not four). A stale
// read can only be lower than the truth (maxima only grow while kernels
// run), so no raise is missed; the ballot is the group's, so the branch is.
Maxima groupMaxima(const kosan_prec_slot *slot, uint32_t group, uint32_t lane, uint32_t n,
                   const Maxima &mine) {
  const Maxima current{readU64(&slot->max_rel_err_bits), readU64(&slot->max_ulp_err_bits),
                       readU64(&slot->max_abs_err_bits), readU64(&slot->max_scale_bits)};
  auto maxOf = [&](uint64_t m, uint64_t c) {
    return ballot(group, m > c) ? groupReduce<Combine::Max>(group, lane, n, m) : 0;
  };
  return {maxOf(mine.rel, current.rel), maxOf(mine.ulp, current.ulp),
          maxOf(mine.abs, current.abs), maxOf(mine.scale, current.scale)};
}

// After the leader's publish() (raised: the leader's answer, groupAbs: the
// group's largest absolute error, on the leader): when the group raised the
// slot's maximum, the lane whose own error (mineAbs) is it, the lowest on
// ties, writes its sample.
void writeGroupWorst(kosan_prec_slot *slot, uint32_t group, uint32_t lane, uint32_t leader,
                     uint32_t n, uint32_t raised, uint64_t groupAbs, uint64_t mineAbs,
                     const LaneSample &sample, uint32_t launch) {
  if (n > 1)
    raised = shfl32(group, raised, leader);
  if (!raised)
    return;
  if (n > 1)
    groupAbs = shfl64(group, groupAbs, leader);
  uint32_t worstLane = (uint32_t)__builtin_ctz(ballot(group, mineAbs == groupAbs));
  if (lane == worstLane)
    writeWorst(slot, sample, launch);
}

// A VALUE or NARROW sample: reduce over the group, then the leader (lowest
// lane) adds to the slot and the worst lane writes worst_* if the group
// raised the maximum. Only NARROW samples carry flags.
template <Sink sink>
void recordError(Target t, uint32_t launch, uint32_t slotIndex,
                 const LaneSample &s) {
  uint32_t lane = __nvvm_read_ptx_sreg_laneid();
  uint32_t group = groupOf(slotIndex);
  uint32_t leader = (uint32_t)__builtin_ctz(group);
  uint32_t n = popc(group);

  // Each field is reduced on its own (the same order of operations as in
  // one loop over all of them), the maxima by groupMaxima.
  kosan_prec_slot *slot = t.slot;
  const Maxima max =
      groupMaxima(slot, group, lane, n, {s.relErrBits, s.ulpErrBits, s.absErrBits, s.scaleBits});
  double sum = s.sumRelErr;
  if (ballot(group, sum != 0))
    sum = fromBits(groupReduce<Combine::FAdd>(group, lane, n, bitsOf(sum)));
  // Bins by their three bits, flags by ballot.
  uint32_t bin0 = ballot(group, s.bin & 1), bin1 = ballot(group, s.bin & 2),
           bin2 = ballot(group, s.bin & 4);
  uint32_t overflows = 0, underflows = 0, nans = 0;
  if constexpr (sink == Sink::Narrow) {
    overflows = ballot(group, s.flags & kLaneOverflow);
    underflows = ballot(group, s.flags & kLaneUnderflow);
    nans = ballot(group, s.flags & kLaneNaN);
  }

  uint32_t raised = 0;
  if (lane == leader) {
    // A maximum that was reduced (nonzero: some lane exceeded the slot's),
    // read again first: another warp may have raised it since.
    raised = publish(slot, n, sum, max);
    // One round per bin that some lane of the group landed in (most groups
    // land in one or two of the eight): the lowest lane not yet counted
    // names its bin, and every lane with the same three bits is counted
    // with it.
    for (uint32_t left = group; left;) {
      uint32_t first = (uint32_t)__builtin_ctz(left);
      uint32_t b = (bin0 >> first & 1) | (bin1 >> first & 1) << 1 | (bin2 >> first & 1) << 2;
      uint32_t inBin = left & ((b & 1) ? bin0 : ~bin0) & ((b & 2) ? bin1 : ~bin1) &
                       ((b & 4) ? bin2 : ~bin2);
      __atomic_fetch_add(&slot->hist[b], (uint64_t)popc(inBin), __ATOMIC_RELAXED);
      left &= ~inBin;
    }
    addU64(&slot->overflows, popc(overflows));
    addU64(&slot->underflows, popc(underflows));
    addU64(&slot->nans, popc(nans));
    markDirty(t.state);
  }
  writeGroupWorst(slot, group, lane, leader, n, raised, max.abs, s.absErrBits, s, launch);
}

uint32_t histBinOf(uint64_t hist, uint32_t b) { return (uint32_t)(hist >> (8 * b)) & 0xff; }

// Bins 4k..4k+3 of a tally in 16 bits each, so that a warp's sum (at most
// 32 x 255) fits.
uint64_t widenBins(uint64_t hist, uint32_t k) {
  uint64_t w = 0;
  for (uint32_t b = 0; b < 4; ++b)
    w |= (uint64_t)histBinOf(hist, 4 * k + b) << (16 * b);
  return w;
}

// The tallies of the group's lanes reduced as recordError reduces samples;
// the worst value is the lane's with the group's largest absolute error (the
// lowest lane on ties), written when the group raised the slot's maximum.
void recordTally(Target t, uint32_t launch, uint32_t slotIndex, const Tally &y) {
  uint32_t lane = __nvvm_read_ptx_sreg_laneid();
  uint32_t group = groupOf(slotIndex);
  uint32_t leader = (uint32_t)__builtin_ctz(group);
  uint32_t n = popc(group);
  kosan_prec_slot *slot = t.slot;

  uint64_t count = groupReduce<Combine::IAdd>(group, lane, n, y.count);
  double sum = y.sum;
  if (ballot(group, sum != 0))
    sum = fromBits(groupReduce<Combine::FAdd>(group, lane, n, bitsOf(sum)));
  uint64_t bins[2] = {widenBins(y.hist, 0), widenBins(y.hist, 1)};
  for (uint64_t &w : bins)
    if (ballot(group, w != 0))
      w = groupReduce<Combine::IAdd>(group, lane, n, w);
  const Maxima max = groupMaxima(slot, group, lane, n, y.max);

  uint32_t raised = 0;
  if (lane == leader) {
    raised = publish(slot, count, sum, max);
    for (uint32_t b = 0; b < (uint32_t)kHistBins; ++b)
      addU64(&slot->hist[b], (bins[b / 4] >> (16 * (b % 4))) & 0xffff);
    markDirty(t.state);
  }
  writeGroupWorst(slot, group, lane, leader, n, raised, max.abs, y.max.abs, y.worst, launch);
}
#else
// AMD GPUs: every lane records its own sample (no grouping of the lanes of
// a wavefront that call for the same slot): more atomics, the same counts.
template <Sink sink>
void recordError(Target t, uint32_t launch, uint32_t, const LaneSample &s) {
  kosan_prec_slot *slot = t.slot;
  bool raised =
      publish(slot, 1, s.sumRelErr, {s.relErrBits, s.ulpErrBits, s.absErrBits, s.scaleBits});
  addU64(&slot->hist[s.bin & 7], 1);
  if constexpr (sink == Sink::Narrow) {
    addU64(&slot->overflows, (s.flags & kLaneOverflow) ? 1 : 0);
    addU64(&slot->underflows, (s.flags & kLaneUnderflow) ? 1 : 0);
    addU64(&slot->nans, (s.flags & kLaneNaN) ? 1 : 0);
  }
  markDirty(t.state);
  if (raised)
    writeWorst(slot, s, launch);
}

void recordTally(Target t, uint32_t launch, uint32_t, const Tally &y) {
  addTally(t, launch, y);
}
#endif

} // namespace

// A value stored to global memory or combined atomically (real, in dtype),
// its fp64 shadow, and the root cause its tag names (abi.h).
KOSAN_DEVICE void __kosan_prec_value(uint64_t state, uint32_t launch,
                                     uint32_t slot, double real, double shadow,
                                     uint32_t dtype, uint32_t causeCode,
                                     uint32_t causeSlot) {
  Target t = targetOf(state, slot);
  if (!t.slot)
    return;
  recordError<Sink::Value>(t, launch, slot,
                           valueSample(real, shadow, dtype, causeCode, causeSlot));
}

// A conversion of `in` to dtype that produced `out`: its rounding error, and
// overflow, underflow and NaN counts.
KOSAN_DEVICE void __kosan_prec_narrow(uint64_t state, uint32_t launch,
                                      uint32_t slot, double in, double out,
                                      uint32_t dtype) {
  Target t = targetOf(state, slot);
  if (!t.slot)
    return;
  recordError<Sink::Narrow>(t, launch, slot, narrowSample(in, out, dtype));
}

// An operation whose finite operands gave a NaN or an infinity (the caller
// decides; every call is counted as a birth). The first birth in a slot is
// kept in worst_*.
KOSAN_DEVICE void __kosan_prec_nonfinite(uint64_t state, uint32_t launch,
                                         uint32_t slot, double real,
                                         double shadow) {
  Target t = targetOf(state, slot);
  if (!t.slot)
    return;
#if defined(__NVPTX__)
  uint32_t lane = __nvvm_read_ptx_sreg_laneid();
  uint32_t group = groupOf(slot);
  if (lane != (uint32_t)__builtin_ctz(group))
    return;
  uint32_t n = popc(group);
#else
  uint32_t n = 1;
#endif
  addU64(&t.slot->count, n);
  if (__atomic_fetch_add(&t.slot->nans, (uint64_t)n, __ATOMIC_RELAXED) == 0)
    writeWorst(t.slot, nonfiniteSample(real, shadow), launch);
  markDirty(t.state);
}

// A thread's tally of a site (kosan_prec_tally's fields), added to the
// site's slot: the leader of the lanes that merge the same slot adds the
// group's sums and maxima, as for __kosan_prec_value's samples.
KOSAN_DEVICE void __kosan_prec_merge(uint64_t state, uint32_t launch, uint32_t slot,
                                     uint32_t count, uint64_t hist, double sum,
                                     uint64_t maxRel, uint64_t maxUlp, uint64_t maxAbs,
                                     uint64_t maxScale, double worstReal,
                                     double worstShadow, uint32_t causeCode,
                                     uint32_t causeSlot) {
  Target t = targetOf(state, slot);
  if (!t.slot)
    return;
  recordTally(t, launch, slot,
              tallyOf(count, hist, sum, maxRel, maxUlp, maxAbs, maxScale, worstReal,
                      worstShadow, causeCode, causeSlot));
}

// Inlined into instrumented code (KOSAN_DEVICE_ENTRIES' inlined column),
// where the tally is a local variable of the caller that LLVM keeps in
// registers: no call per value.
#define KOSAN_INLINED extern "C" __attribute__((always_inline))

KOSAN_INLINED void __kosan_prec_flush(uint64_t state, uint32_t launch, uint32_t slot,
                                      kosan_prec_tally *t) {
  if (!t->count)
    return;
  __kosan_prec_merge(state, launch, slot, t->count, t->hist, t->sum_rel_err,
                     t->max_rel_err_bits, t->max_ulp_err_bits, t->max_abs_err_bits,
                     t->max_scale_bits, t->worst_real, t->worst_shadow,
                     t->worst_cause_code, t->worst_cause_slot);
  *t = kosan_prec_tally{};
}

// __kosan_prec_value's sample, added to the thread's tally of the site;
// merged when the 8-bit histogram bins could overflow.
KOSAN_INLINED void __kosan_prec_tally(uint64_t state, uint32_t launch, uint32_t slot,
                                      kosan_prec_tally *t, double real, double shadow,
                                      uint32_t dtype, uint32_t causeCode,
                                      uint32_t causeSlot) {
  LaneSample s = valueSample(real, shadow, dtype, causeCode, causeSlot);
  t->sum_rel_err += s.sumRelErr;
  if (s.relErrBits > t->max_rel_err_bits)
    t->max_rel_err_bits = s.relErrBits;
  if (s.ulpErrBits > t->max_ulp_err_bits)
    t->max_ulp_err_bits = s.ulpErrBits;
  if (s.scaleBits > t->max_scale_bits)
    t->max_scale_bits = s.scaleBits;
  if (s.absErrBits > t->max_abs_err_bits) {
    t->max_abs_err_bits = s.absErrBits;
    t->worst_real = s.real;
    t->worst_shadow = s.shadow;
    t->worst_cause_code = s.causeCode;
    t->worst_cause_slot = s.causeSlot;
  }
  t->hist += 1ull << (8 * s.bin);
  if (++t->count == KOSAN_PREC_TALLY_FLUSH) {
    // Rare (once in 255 values), and without a call: a call in the loop
    // would make ptxas keep the loop's values in local memory across it.
    Target target = targetOf(state, slot);
    if (target.slot)
      addTally(target, launch,
               tallyOf(t->count, t->hist, t->sum_rel_err, t->max_rel_err_bits,
                       t->max_ulp_err_bits, t->max_abs_err_bits, t->max_scale_bits,
                       t->worst_real, t->worst_shadow, t->worst_cause_code,
                       t->worst_cause_slot));
    // Only the sums start again. The maxima and the worst value are kept:
    // the slot holds them now, and adding them again raises nothing (a
    // maximum is raised, and the worst value written, only when larger).
    // Reset, they would be a second copy of the tally for every value's
    // path to merge with, which ptxas pays for in copies on every trip.
    t->count = 0;
    t->hist = 0;
    t->sum_rel_err = 0;
  }
}

// Shadows of the approximate fp32 functions (ex2.approx, lg2.approx,
// sin.approx, cos.approx, tanh.approx): libdevice's fp64 functions, accurate
// to an ulp or two of fp64, far below the error of what they shadow.
KOSAN_DEVICE double __kosan_shadow_exp2(double x) { return KOSAN_FP64(exp2)(x); }
KOSAN_DEVICE double __kosan_shadow_log2(double x) { return KOSAN_FP64(log2)(x); }
KOSAN_DEVICE double __kosan_shadow_sin(double x) { return KOSAN_FP64(sin)(x); }
KOSAN_DEVICE double __kosan_shadow_cos(double x) { return KOSAN_FP64(cos)(x); }
KOSAN_DEVICE double __kosan_shadow_tanh(double x) { return KOSAN_FP64(tanh)(x); }
