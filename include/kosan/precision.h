//===- kosan/precision.h - Error arithmetic of the precision check ---------===//
//
// How far a value strayed from its fp64 shadow, and how the samples of one
// site add up into a kosan_prec_slot (abi.h). One header for the host (the
// report, the unit tests) and the device runtime (runtime/device/
// precision.cpp, compiled for nvptx64 with -ffreestanding -nogpulib: no libm,
// no standard library), so both compute bit for bit the same numbers.
//
// Everything that classifies a double reads its bits: NaN and infinity tests
// compare integers, so that a module compiled with -ffast-math (whose
// backend may fold `x != x` to false) cannot change the answers, and
// exponents come from the exponent field, never from a logarithm.
//
// Units:
//   relative error  |real - shadow| / |shadow|
//   error in ULPs   |real - shadow| / ulpOf(max(|real|, |shadow|), dtype): the
//                   spacing of the real type where the larger of the two lies,
//                   so a result that cancelled to 0 against an exact 1.0 has
//                   lost 2^23 ULPs of f32 (23 bits), not 2^149 subnormal steps
//   bits lost       log2 of the error in ULPs, 0 below 1 ULP; the histogram
//                   of a slot counts values by bits lost
//   absolute error  |real - shadow|; a site's scale is the largest finite
//                   |shadow| it recorded, and its scale-aware error
//                   max |real - shadow| / scale: what reports and verdicts
//                   use (include/kosan/precision_verdict.h)
//   local error     of an operation: |op_T(round_T(shadows of its
//                   operands)) - shadow of its result| / |shadow of its
//                   result|, the error it adds when its inputs are exact
//                   (Herbgrind); as a cause code, floor(log2) of it plus
//                   KOSAN_PREC_CAUSE_BIAS (abi.h)
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PRECISION_H
#define KOSAN_PRECISION_H

#include "kosan/abi.h"

#include <stdint.h>

// bitsLost needs libm: it is left out of freestanding device builds (the
// device runtime), kept for host code (CUDA's device pass parses that too).
#if (!defined(__NVPTX__) && !defined(__AMDGPU__)) || defined(__CUDA__) || defined(__HIP__)
#define KOSAN_PREC_HOST_ONLY 1
#include <cmath>
#endif

// Callable from host code and, in a CUDA translation unit, from device code.
#if defined(__CUDA__)
#define KOSAN_PREC_FN __attribute__((host, device)) constexpr inline
#else
#define KOSAN_PREC_FN constexpr inline
#endif

namespace kosan::prec {

inline constexpr int kHistBins = 8;

// The default precision threshold: bits of fp32, at a site's scale, that a
// stored value may be off by before its site is a finding
// (include/kosan/precision_verdict.h). One place for the runtime's
// precision_threshold, kosan-report and kosan-diff.
inline constexpr int kDefaultThreshold = 10;
inline constexpr uint64_t kSignBit = 0x8000000000000000ull;
inline constexpr uint64_t kInfBits = 0x7ff0000000000000ull;
inline constexpr uint64_t kQuietNaNBits = 0x7ff8000000000000ull;

//===-- Bits of a double ---------------------------------------------------===//

KOSAN_PREC_FN uint64_t bitsOf(double x) { return __builtin_bit_cast(uint64_t, x); }
KOSAN_PREC_FN double fromBits(uint64_t b) { return __builtin_bit_cast(double, b); }
KOSAN_PREC_FN double infinity() { return fromBits(kInfBits); }
KOSAN_PREC_FN double quietNaN() { return fromBits(kQuietNaNBits); }
KOSAN_PREC_FN bool isNaN(double x) { return (bitsOf(x) & ~kSignBit) > kInfBits; }
KOSAN_PREC_FN bool isInf(double x) { return (bitsOf(x) & ~kSignBit) == kInfBits; }
KOSAN_PREC_FN bool isFinite(double x) { return (bitsOf(x) & ~kSignBit) < kInfBits; }
// Both finite, from the high words' exponent fields (32-bit tests), and
// without a branch between the two.
KOSAN_PREC_FN bool bothFinite(double a, double b) {
  uint32_t ea = (uint32_t)(bitsOf(a) >> 52) & 0x7ff, eb = (uint32_t)(bitsOf(b) >> 52) & 0x7ff;
  return (ea != 0x7ff) & (eb != 0x7ff);
}
KOSAN_PREC_FN bool isZero(double x) { return (bitsOf(x) & ~kSignBit) == 0; }
KOSAN_PREC_FN double absOf(double x) { return fromBits(bitsOf(x) & ~kSignBit); }

// floor(log2 |x|) of a finite nonzero x, subnormals included.
KOSAN_PREC_FN int exponentOf(double x) {
  uint64_t b = bitsOf(x) & ~kSignBit;
  int biased = (int)(b >> 52);
  if (biased != 0)
    return biased - 1023;
  return -1074 + (63 - __builtin_clzll(b));  // subnormal: the leading 1 of the fraction
}

// 2^k exactly: 0 below the smallest subnormal, +inf above the largest finite.
KOSAN_PREC_FN double exp2i(int k) {
  if (k > 1023)
    return infinity();
  if (k >= -1022)
    return fromBits((uint64_t)(k + 1023) << 52);
  if (k >= -1074)
    return fromBits(1ull << (k + 1074));
  return 0.0;
}

//===-- The formats --------------------------------------------------------===//

// Bits of the significand, the implicit bit included; 0 for a type that is
// not floating point.
KOSAN_PREC_FN int significandBits(uint32_t dtype) {
  switch (dtype) {
  case KOSAN_DTYPE_F64: return 53;
  case KOSAN_DTYPE_F32: return 24;
  case KOSAN_DTYPE_F16: return 11;
  case KOSAN_DTYPE_BF16: return 8;
  case KOSAN_DTYPE_F8E4M3: return 4;
  case KOSAN_DTYPE_F8E5M2: return 3;
  default: return 0;
  }
}

// Exponent of the smallest normal number; 0 for a type that is not floating
// point.
KOSAN_PREC_FN int minExponent(uint32_t dtype) {
  switch (dtype) {
  case KOSAN_DTYPE_F64: return -1022;
  case KOSAN_DTYPE_F32: return -126;
  case KOSAN_DTYPE_F16: return -14;
  case KOSAN_DTYPE_BF16: return -126;
  case KOSAN_DTYPE_F8E4M3: return -6;
  case KOSAN_DTYPE_F8E5M2: return -14;
  default: return 0;
  }
}

// The largest finite value; 0 for a type that is not floating point.
// (e4m3 is the "fn" variant CUDA's __nv_fp8_e4m3 implements: no infinities,
// 448 the largest.)
KOSAN_PREC_FN double maxFinite(uint32_t dtype) {
  switch (dtype) {
  case KOSAN_DTYPE_F64: return fromBits(0x7fefffffffffffffull);
  case KOSAN_DTYPE_F32: return (2.0 - exp2i(-23)) * exp2i(127);
  case KOSAN_DTYPE_F16: return 65504.0;
  case KOSAN_DTYPE_BF16: return (2.0 - exp2i(-7)) * exp2i(127);
  case KOSAN_DTYPE_F8E4M3: return 448.0;
  case KOSAN_DTYPE_F8E5M2: return 57344.0;
  default: return 0.0;
  }
}

// Spacing of dtype's values at |real|: 2^(e - p + 1) with e = floor(log2
// |real|), and the subnormal spacing 2^(minExponent - p + 1) below the normal
// range and at 0. NaN for NaN or infinite real, or a dtype that is not
// floating point.
KOSAN_PREC_FN double ulpOf(double real, uint32_t dtype) {
  int p = significandBits(dtype);
  if (p == 0 || !isFinite(real))
    return quietNaN();
  int emin = minExponent(dtype);
  if (isZero(real))
    return exp2i(emin - p + 1);
  int e = exponentOf(real);
  return exp2i((e < emin ? emin : e) - p + 1);
}

//===-- Errors -------------------------------------------------------------===//

// |real - shadow| as a maximum can take it: 0 when the shadow is NaN (born
// elsewhere) or both are the same infinity; +inf when real is NaN and the
// shadow is not, or one side only is infinite.
KOSAN_PREC_FN double absError(double real, double shadow) {
  if (isNaN(shadow))
    return 0.0;
  if (isNaN(real))
    return infinity();
  if (isInf(real) || isInf(shadow))
    return bitsOf(real) == bitsOf(shadow) ? 0.0 : infinity();
  return absOf(real - shadow);
}

// What a value adds to its site's scale: |shadow| when finite, else 0.
KOSAN_PREC_FN double scaleOf(double shadow) {
  return isFinite(shadow) ? absOf(shadow) : 0.0;
}

// A cause code (abi.h KOSAN_PREC_CAUSE_*) as the local error it stands for,
// a power of two relative to the operation's result; 0 for code 0 (none).
KOSAN_PREC_FN int causeLog2(uint32_t code) {
  return (int)code - KOSAN_PREC_CAUSE_BIAS;
}

// The cause code of a local error `local` of an operation whose exact result
// is `exact`: floor(log2(local / |exact|)) + bias, clamped to [1, 4095]; 0
// when local is 0. What the pass computes inline from exponent fields.
KOSAN_PREC_FN uint32_t causeCode(double local, double exact) {
  uint64_t l = bitsOf(local) & ~kSignBit, e = bitsOf(exact) & ~kSignBit;
  if (l == 0)
    return 0;
  int code = (int)(l >> 52) - (int)(e >> 52) + KOSAN_PREC_CAUSE_BIAS;
  return code < 1 ? 1u : code > 4095 ? 4095u : (uint32_t)code;
}

// relError of a finite real and a finite shadow: its last special case and
// the quotient.
// (On the device runtime every path calls rcp.approx, which a constant
// expression cannot: the function is constexpr for the host only.)
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winvalid-constexpr"
#endif
KOSAN_PREC_FN double relErrorFinite(double real, double shadow) {
  double quotient;
#if defined(__NVPTX__) && !defined(__CUDA__)
  // The device runtime: a reciprocal approximation (about 20 bits) is
  // plenty for an error statistic and much cheaper than fp64 division,
  // whose slow path is a call (which instrumented loops that inline this
  // must not contain). A tiny |shadow| is scaled into rcp.approx.ftz's
  // normal range first; the powers of two are exact, and an overflow of
  // the product is the quotient's own. Selected, not branched (the
  // product by 1.0 is exact).
  bool tiny = !(absOf(shadow) > 0x1p-1000);
  quotient = absOf(real - shadow) *
             __nvvm_rcp_approx_ftz_d(tiny ? absOf(shadow) * 0x1p100 : absOf(shadow)) *
             (tiny ? 0x1p100 : 1.0);
#else
  quotient = absOf(real - shadow) / absOf(shadow);
#endif
  if (isZero(shadow))
    return isZero(real) ? 0.0 : infinity();
  return quotient;
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

// |real - shadow| / |shadow|. Special cases, in this order:
//   shadow is NaN                          0
//   real is NaN, shadow is not             +inf
//   either is infinite                     0 when both are the same infinity, else +inf
//   shadow is 0                            0 when real is 0 (of either sign), else +inf
KOSAN_PREC_FN double relError(double real, double shadow) {
  // A NaN the shadow has too was born elsewhere (and reported there); a NaN
  // shadow says nothing about the real value; a NaN real value with a
  // number for a shadow is all precision lost.
  if (isNaN(shadow))
    return 0.0;
  if (isNaN(real))
    return infinity();
  if (isInf(real) || isInf(shadow))
    return bitsOf(real) == bitsOf(shadow) ? 0.0 : infinity();
  return relErrorFinite(real, shadow);
}

// ulpError of a finite real and a finite shadow.
KOSAN_PREC_FN double ulpErrorFinite(double real, double shadow, uint32_t dtype) {
  int p = significandBits(dtype);
  if (p == 0)
    return real == shadow ? 0.0 : quietNaN();
  double larger = absOf(real) > absOf(shadow) ? absOf(real) : absOf(shadow);
  // ulpOf(larger) is 2^k: multiplying by 2^-k is as exact as dividing and
  // much cheaper on the device. k lies in [emin - p + 1, 1024 - p], so
  // 2^-k is a normal number, or beyond 2^1023 (fp64's subnormal spacing):
  // then two exact steps, 2^(-k-512) and 2^512 (an overflow of the first
  // product is the result's). Selected, not branched (the product by 1.0
  // is exact); 0 when real == shadow (0 == -0 too) as the difference is.
  // The exponent field alone: a subnormal or zero `larger` (field 0, e =
  // -1023) lies below every dtype's emin, as its true exponent does, and
  // both are clamped to emin.
  int emin = minExponent(dtype);
  int e = (int)(bitsOf(larger) >> 52) - 1023;
  int m = p - 1 - (e < emin ? emin : e);
  bool beyond = m > 1023;
  double scale = fromBits((uint64_t)(m - (beyond ? 512 : 0) + 1023) << 52);
  double error = absOf(real - shadow) * scale * (beyond ? 0x1p512 : 1.0);
  return real == shadow ? 0.0 : error;
}

// |real - shadow| / ulpOf(max(|real|, |shadow|), dtype). Special cases, in this order:
//   shadow is NaN                          0 (NaN on both sides: born and reported elsewhere)
//   real is NaN, shadow is not             +inf
//   either is infinite                     0 when both are the same infinity, else +inf
//   real == shadow (0 == -0 too)           0
// A dtype that is not floating point gives NaN for unequal values.
KOSAN_PREC_FN double ulpError(double real, double shadow, uint32_t dtype) {
  if (isNaN(shadow))
    return 0.0;
  if (isNaN(real))
    return infinity();
  if (isInf(real) || isInf(shadow))
    return bitsOf(real) == bitsOf(shadow) ? 0.0 : infinity();
  return ulpErrorFinite(real, shadow, dtype);
}

// Histogram bin of an error in ULPs, by bits lost b = log2(ulpErr):
//   bin   0      1      2      3      4       5        6        7
//   b     [0,1)  [1,2)  [2,4)  [4,8)  [8,12)  [12,16)  [16,24)  [24,inf]
// so errors below 2 ULPs land in bin 0, and NaN and infinity in bin 7. The
// bin is floor(log2) from the exponent field: exact at every edge.
KOSAN_PREC_FN int histBin(double ulpErr) {
  // NaN and infinity have the largest exponent field (e = 1024): bin 7.
  // Counted, not branched: this runs for every value a kernel stores. The
  // bin is the number of edges at or below e: the edges are the set bits
  // of kEdges, e clamped to [0, 31] selects bits 0..e of it, and a
  // population count counts them (a handful of integer operations, where
  // seven compares and their sum were about twenty).
  constexpr uint32_t kEdges = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8 | 1u << 12 | 1u << 16 | 1u << 24;
  int e = (int)((bitsOf(ulpErr) & ~kSignBit) >> 52) - 1023;
  uint32_t upTo = (2u << (e < 0 ? 0 : e > 31 ? 31 : e)) - 1;  // bits 0..e
  return __builtin_popcount(kEdges & upTo);
}

// Lower edge of a bin in bits lost (upper edge: the next bin's; bin 7 has none).
KOSAN_PREC_FN int histBinLowBits(int bin) {
  constexpr int low[kHistBins] = {0, 1, 2, 4, 8, 12, 16, 24};
  return bin < 0 ? 0 : bin >= kHistBins ? 24 : low[bin];
}

#ifdef KOSAN_PREC_HOST_ONLY
// max(0, log2(ulpErr)); NaN stays NaN, infinity stays infinity.
inline double bitsLost(double ulpErr) {
  if (isNaN(ulpErr))
    return ulpErr;
  if (!(ulpErr > 1.0))
    return 0.0;
  return std::log2(ulpErr);
}
#endif

//===-- Aggregation --------------------------------------------------------===//
//
// One call of an entry point by one lane is a LaneSample. The device runtime
// reduces the samples of the lanes of a warp that called for the same slot
// (a group) in registers, and its lowest lane (the leader) adds the result to
// the slot with one atomic per nonzero field (runtime/device/precision.cpp;
// its behaviour is tested on the GPU: test/gpu/precision_warp_groups.cu).
// The functions below compute each lane's sample, for the device and the
// tests.
//
// Rules:
//  - every sample counts in count;
//  - a relative error goes into sum_rel_err only when finite (NaN and +inf
//    do not: the mean stays finite, and max_rel_err says they happened);
//  - the maxima are taken on the bit patterns of non-negative doubles, which
//    order like the values; a NaN error counts as +inf there, so the slot's
//    maxima are never NaN;
//  - each VALUE or NARROW sample lands in one histogram bin (histBin of its
//    error in ULPs; a NaN error in bin 7); NONFINITE samples in none;
//  - the worst sample of a group is the one with the largest absolute error,
//    the lowest lane on ties; it is written to the slot's worst_* when the
//    group raised max_abs_err_bits (strictly). For NONFINITE, the worst is
//    the group's lowest lane, written when the slot's nans was 0 before the
//    group added to it: the first birth only.

enum class Sink : uint32_t {
  Value,      // __kosan_prec_value: a stored or atomically combined value
  Narrow,     // __kosan_prec_narrow: a conversion to a narrower type
  Nonfinite,  // __kosan_prec_nonfinite: a NaN or infinity born from finite operands
};

enum LaneFlags : uint32_t {
  kLaneOverflow = 1u << 0,   // NARROW: finite in, infinite out
  kLaneUnderflow = 1u << 1,  // NARROW: nonzero in, zero or subnormal out
  kLaneNaN = 1u << 2,        // NARROW: NaN out of a non-NaN; NONFINITE: always
};

inline constexpr uint32_t kNoBin = kHistBins;

// What one lane contributes to its slot.
struct LaneSample {
  double sumRelErr = 0;        // the relative error when finite, else 0
  uint64_t relErrBits = 0;     // the relative error for the maximum (NaN as +inf)
  uint64_t ulpErrBits = 0;     // the error in ULPs for the maximum (NaN as +inf)
  uint64_t absErrBits = 0;     // the absolute error (NaN as +inf): picks the worst sample
  uint64_t scaleBits = 0;      // scaleOf(shadow)
  uint32_t causeCode = 0, causeSlot = ~0u; // root cause of the value (VALUE only)
  uint32_t bin = kNoBin;       // histogram bin, kNoBin for none
  uint32_t flags = 0;          // LaneFlags
  double real = 0, shadow = 0; // what worst_real/worst_shadow get
};

KOSAN_PREC_FN uint64_t maxBitsOf(double err) {
  return isNaN(err) ? kInfBits : (bitsOf(err) & ~kSignBit);
}

KOSAN_PREC_FN LaneSample errorSample(double real, double shadow, uint32_t dtype) {
  LaneSample s;
  double rel;
  if (bothFinite(real, shadow)) {
    // Almost every value: relError, ulpError, absError and scaleOf without
    // their NaN and infinity cases, which each would test again. The ULP
    // and absolute errors are then never NaN and never negative (for a
    // floating-point dtype): their bit patterns are their maxima's, with
    // no NaN test after the two paths meet.
    rel = relErrorFinite(real, shadow);
    double ulp = ulpErrorFinite(real, shadow, dtype);
    s.ulpErrBits = significandBits(dtype) ? bitsOf(ulp) : maxBitsOf(ulp);
    s.absErrBits = bitsOf(absOf(real - shadow));
    s.scaleBits = bitsOf(absOf(shadow));
  } else {
    rel = relError(real, shadow);
    s.ulpErrBits = maxBitsOf(ulpError(real, shadow, dtype));
    s.absErrBits = maxBitsOf(absError(real, shadow));
    s.scaleBits = bitsOf(scaleOf(shadow));
  }
  s.sumRelErr = isFinite(rel) ? rel : 0.0;
  s.relErrBits = maxBitsOf(rel);
  s.bin = (uint32_t)histBin(fromBits(s.ulpErrBits));
  s.real = real;
  s.shadow = shadow;
  return s;
}

// A value the kernel computed (real, in dtype) and its shadow, with the root
// cause its tag named (cause code 0: none).
KOSAN_PREC_FN LaneSample valueSample(double real, double shadow, uint32_t dtype,
                                     uint32_t causeCode = 0, uint32_t causeSlot = ~0u) {
  LaneSample s = errorSample(real, shadow, dtype);
  if (causeCode) {
    s.causeCode = causeCode;
    s.causeSlot = causeSlot;
  }
  return s;
}

// A conversion of `in` to dtype that produced `out`: the input is the exact
// value, the output the real one.
KOSAN_PREC_FN LaneSample narrowSample(double in, double out, uint32_t dtype) {
  LaneSample s = errorSample(out, in, dtype);
  if (isFinite(in) && isInf(out))
    s.flags |= kLaneOverflow;
  if (!isNaN(in) && !isZero(in) && isFinite(out) &&
      (isZero(out) || exponentOf(out) < minExponent(dtype)))
    s.flags |= kLaneUnderflow;
  if (isNaN(out) && !isNaN(in))
    s.flags |= kLaneNaN;
  return s;
}

// An operation whose finite operands gave a NaN or an infinity (real), with
// the shadow of its result; every call is a birth.
KOSAN_PREC_FN LaneSample nonfiniteSample(double real, double shadow) {
  LaneSample s;
  s.flags = kLaneNaN;
  s.real = real;
  s.shadow = shadow;
  return s;
}

#ifdef KOSAN_PREC_HOST_ONLY
// One site's totals from its KOSAN_PREC_SHARDS slots: counts add up, maxima
// take the maximum, and the worst value is the one of the shard holding the
// largest absolute error (for NaN/Inf births, which have none, the first
// shard that recorded one).
inline kosan_prec_slot mergeShards(const kosan_prec_slot *shard, unsigned n) {
  kosan_prec_slot out{};
  const kosan_prec_slot *worst = nullptr;
  for (unsigned i = 0; i < n; ++i) {
    const kosan_prec_slot &s = shard[i];
    if (!s.count && !s.nans && !s.overflows && !s.underflows)
      continue;
    out.count += s.count;
    out.sum_rel_err += s.sum_rel_err;
    if (s.max_rel_err_bits > out.max_rel_err_bits)
      out.max_rel_err_bits = s.max_rel_err_bits;
    if (s.max_ulp_err_bits > out.max_ulp_err_bits)
      out.max_ulp_err_bits = s.max_ulp_err_bits;
    if (s.max_scale_bits > out.max_scale_bits)
      out.max_scale_bits = s.max_scale_bits;
    for (unsigned b = 0; b < kHistBins; ++b)
      out.hist[b] += s.hist[b];
    out.overflows += s.overflows;
    out.underflows += s.underflows;
    out.nans += s.nans;
    if (!worst || s.max_abs_err_bits > worst->max_abs_err_bits ||
        (!worst->worst_launch && s.worst_launch))
      worst = &s;
  }
  if (worst) {
    out.max_abs_err_bits = worst->max_abs_err_bits;
    out.worst_real = worst->worst_real;
    out.worst_shadow = worst->worst_shadow;
    out.worst_cause_code = worst->worst_cause_code;
    out.worst_cause_slot = worst->worst_cause_slot;
    for (int i = 0; i < 3; ++i) {
      out.worst_block[i] = worst->worst_block[i];
      out.worst_thread[i] = worst->worst_thread[i];
    }
    out.worst_launch = worst->worst_launch;
  }
  return out;
}
#endif

} // namespace kosan::prec

#undef KOSAN_PREC_FN
#undef KOSAN_PREC_HOST_ONLY
#endif // KOSAN_PRECISION_H
