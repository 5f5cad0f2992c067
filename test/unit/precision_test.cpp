// The precision check's arithmetic (include/kosan/precision.h): ULPs of each
// format, relative and ULP errors with their special cases, the histogram of
// bits lost, and how the samples of a warp's lanes add up into a slot (the
// reference of what the device runtime computes with shuffles and atomics).
#include "kosan/precision.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>

using namespace kosan::prec;

namespace {

constexpr uint32_t F64 = KOSAN_DTYPE_F64, F32 = KOSAN_DTYPE_F32,
                   F16 = KOSAN_DTYPE_F16, BF16 = KOSAN_DTYPE_BF16,
                   E4M3 = KOSAN_DTYPE_F8E4M3, E5M2 = KOSAN_DTYPE_F8E5M2;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The value of a binary floating-point pattern with the given exponent and
// fraction widths and bias (normal, subnormal; no infinities or NaNs asked).
double decode(uint32_t bits, int expBits, int fracBits, int bias) {
  uint32_t frac = bits & ((1u << fracBits) - 1);
  uint32_t exp = (bits >> fracBits) & ((1u << expBits) - 1);
  if (exp == 0)
    return std::ldexp((double)frac, 1 - bias - fracBits);
  return std::ldexp(1.0 + std::ldexp((double)frac, -fracBits), (int)exp - bias);
}

struct SmallFormat {
  uint32_t dtype;
  int expBits, fracBits, bias;
  uint32_t largestFinite;  // bit pattern
};

constexpr SmallFormat kSmallFormats[] = {
    {F16, 5, 10, 15, 0x7bff},
    {BF16, 8, 7, 127, 0x7f7f},
    {E4M3, 4, 3, 7, 0x7e},   // 0x7f is NaN; no infinities
    {E5M2, 5, 2, 15, 0x7b},
};

} // namespace

// Usable in constant expressions (and so with no runtime library).
static_assert(ulpOf(1.0, KOSAN_DTYPE_F32) == 0x1p-23);
static_assert(histBin(4096.0) == 5);
static_assert(relError(3.0, 2.0) == 0.5);

TEST(PrecisionFormats, SignificandBits) {
  EXPECT_EQ(significandBits(F64), 53);
  EXPECT_EQ(significandBits(F32), 24);
  EXPECT_EQ(significandBits(F16), 11);
  EXPECT_EQ(significandBits(BF16), 8);
  EXPECT_EQ(significandBits(E4M3), 4);
  EXPECT_EQ(significandBits(E5M2), 3);
  EXPECT_EQ(significandBits(KOSAN_DTYPE_UNKNOWN), 0);
  EXPECT_EQ(significandBits(KOSAN_DTYPE_I32), 0);
  EXPECT_EQ(significandBits(KOSAN_DTYPE_BOOL), 0);
}

TEST(PrecisionFormats, ExponentRangeAndLargestFinite) {
  EXPECT_EQ(minExponent(F64), -1022);
  EXPECT_EQ(minExponent(F32), -126);
  EXPECT_EQ(minExponent(F16), -14);
  EXPECT_EQ(minExponent(BF16), -126);
  EXPECT_EQ(minExponent(E4M3), -6);
  EXPECT_EQ(minExponent(E5M2), -14);
  EXPECT_EQ(maxFinite(F64), DBL_MAX);
  EXPECT_EQ(maxFinite(F32), (double)FLT_MAX);
  EXPECT_EQ(maxFinite(F16), 65504.0);
  EXPECT_EQ(maxFinite(BF16), 3.3895313892515355e38);
  EXPECT_EQ(maxFinite(E4M3), 448.0);
  EXPECT_EQ(maxFinite(E5M2), 57344.0);
  EXPECT_EQ(maxFinite(KOSAN_DTYPE_I8), 0.0);
  // The same numbers from the encodings.
  for (const SmallFormat &f : kSmallFormats) {
    SCOPED_TRACE(f.dtype);
    EXPECT_EQ(maxFinite(f.dtype), decode(f.largestFinite, f.expBits, f.fracBits, f.bias));
    EXPECT_EQ(minExponent(f.dtype), 1 - f.bias);
    EXPECT_EQ(significandBits(f.dtype), f.fracBits + 1);
  }
}

TEST(PrecisionUlp, OfOne) {
  EXPECT_EQ(ulpOf(1.0, F64), 0x1p-52);
  EXPECT_EQ(ulpOf(1.0, F32), 0x1p-23);
  EXPECT_EQ(ulpOf(1.0, F16), 0x1p-10);
  EXPECT_EQ(ulpOf(1.0, BF16), 0x1p-7);
  EXPECT_EQ(ulpOf(1.0, E4M3), 0x1p-3);
  EXPECT_EQ(ulpOf(1.0, E5M2), 0x1p-2);
  EXPECT_EQ(ulpOf(-1.0, F32), 0x1p-23);  // the sign does not matter
}

TEST(PrecisionUlp, AtAPowerOfTwo) {
  // The spacing doubles at 2: [1,2) has 2^-23, [2,4) has 2^-22.
  EXPECT_EQ(ulpOf(2.0, F32), 0x1p-22);
  EXPECT_EQ(ulpOf((double)std::nextafter(2.0f, 0.0f), F32), 0x1p-23);
  EXPECT_EQ(ulpOf(0.75, F32), 0x1p-24);
  EXPECT_EQ(ulpOf(1024.0, F16), 1.0);
  EXPECT_EQ(ulpOf(1023.5, F16), 0.5);
  EXPECT_EQ(ulpOf(65504.0, F16), 32.0);
  EXPECT_EQ(ulpOf((double)FLT_MAX, F32), 0x1p104);
  EXPECT_EQ(ulpOf(DBL_MAX, F64), 0x1p971);
}

TEST(PrecisionUlp, SubnormalsAndZero) {
  // Below the smallest normal the spacing is that of the subnormals.
  EXPECT_EQ(ulpOf(0x1p-126, F32), 0x1p-149);
  EXPECT_EQ(ulpOf(0x1p-127, F32), 0x1p-149);
  EXPECT_EQ(ulpOf(0x1p-149, F32), 0x1p-149);
  EXPECT_EQ(ulpOf(0.0, F32), 0x1p-149);
  EXPECT_EQ(ulpOf(-0.0, F32), 0x1p-149);
  EXPECT_EQ(ulpOf(0x1p-14, F16), 0x1p-24);
  EXPECT_EQ(ulpOf(0x1p-20, F16), 0x1p-24);
  EXPECT_EQ(ulpOf(0.0, F16), 0x1p-24);
  EXPECT_EQ(ulpOf(0.0, BF16), 0x1p-133);
  EXPECT_EQ(ulpOf(0x1p-130, BF16), 0x1p-133);
  EXPECT_EQ(ulpOf(0.0, E4M3), 0x1p-9);
  EXPECT_EQ(ulpOf(0.0, E5M2), 0x1p-16);
  // fp64 subnormals: the double's own exponent field is 0 there.
  EXPECT_EQ(ulpOf(0.0, F64), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(ulpOf(DBL_MIN, F64), 0x1p-1074);
  EXPECT_EQ(ulpOf(1e-310, F64), 0x1p-1074);
  EXPECT_EQ(ulpOf(0x1p-1074, F64), 0x1p-1074);
  // An f32 subnormal asked about as f16 is far below f16's range.
  EXPECT_EQ(ulpOf(0x1p-140, F16), 0x1p-24);
}

TEST(PrecisionUlp, NaNForNonFiniteAndNonFloat) {
  EXPECT_TRUE(std::isnan(ulpOf(kInf, F32)));
  EXPECT_TRUE(std::isnan(ulpOf(-kInf, F16)));
  EXPECT_TRUE(std::isnan(ulpOf(kNaN, F64)));
  EXPECT_TRUE(std::isnan(ulpOf(1.0, KOSAN_DTYPE_UNKNOWN)));
  EXPECT_TRUE(std::isnan(ulpOf(1.0, KOSAN_DTYPE_I32)));
}

TEST(PrecisionUlp, EveryValueOfTheSmallFormats) {
  // Exhaustively: the ULP of each finite value is the distance to the next
  // one up.
  for (const SmallFormat &f : kSmallFormats) {
    SCOPED_TRACE(f.dtype);
    for (uint32_t b = 0; b < f.largestFinite; ++b) {
      double v = decode(b, f.expBits, f.fracBits, f.bias);
      double next = decode(b + 1, f.expBits, f.fracBits, f.bias);
      ASSERT_EQ(ulpOf(v, f.dtype), next - v) << "pattern " << b;
      ASSERT_EQ(ulpOf(-v, f.dtype), next - v) << "pattern " << b;
    }
  }
}

TEST(PrecisionUlp, AgreesWithNextafter) {
  // f32: the subnormals, around 1, and up to the largest finite.
  for (float x : {0x1p-149f, 0x1.8p-140f, 0x1p-126f, 0x1.fffffep-127f, 1e-30f,
                  0.1f, 1.0f, 1.5f, 3.0f, 1e6f, 16777216.0f, 1e30f,
                  std::nextafter(FLT_MAX, 0.0f)}) {
    double x64 = x;
    EXPECT_EQ(ulpOf(x64, F32), (double)std::nextafter(x, FLT_MAX) - x64) << x;
  }
  for (double x : {0x1p-1074, 1e-310, DBL_MIN, 0.1, 1.0, 3.0, 1e300}) {
    EXPECT_EQ(ulpOf(x, F64), std::nextafter(x, DBL_MAX) - x) << x;
  }
}

TEST(PrecisionError, Relative) {
  EXPECT_EQ(relError(1.5, 1.0), 0.5);
  EXPECT_EQ(relError(0.5, 1.0), 0.5);
  EXPECT_EQ(relError(-1.5, -1.0), 0.5);
  EXPECT_EQ(relError(1.0, 1.0), 0.0);
  EXPECT_EQ(relError(0.0, 1.0), 1.0);
  // Shadow zero: 0 when the real value is zero too, else +inf.
  EXPECT_EQ(relError(0.0, 0.0), 0.0);
  EXPECT_EQ(relError(-0.0, 0.0), 0.0);
  EXPECT_EQ(relError(0x1p-149, 0.0), kInf);
  EXPECT_EQ(relError(1.0, -0.0), kInf);
  // A NaN real value against a number: all lost. A NaN shadow (a NaN on
  // both sides was born elsewhere and is reported there): no error.
  EXPECT_EQ(relError(kNaN, 1.0), kInf);
  EXPECT_EQ(relError(kNaN, 0.0), kInf);
  EXPECT_EQ(relError(1.0, kNaN), 0.0);
  EXPECT_EQ(relError(kNaN, kNaN), 0.0);
  // Infinities: the same one is no error, anything else is infinite.
  EXPECT_EQ(relError(kInf, kInf), 0.0);
  EXPECT_EQ(relError(-kInf, -kInf), 0.0);
  EXPECT_EQ(relError(kInf, -kInf), kInf);
  EXPECT_EQ(relError(kInf, 1e38), kInf);
  EXPECT_EQ(relError(3e38, kInf), kInf);
}

TEST(PrecisionError, InUlps) {
  // f32 at 1: one ULP is 2^-23.
  EXPECT_EQ(ulpError(1.0, 1.0 + 0x1p-23, F32), 1.0);
  EXPECT_EQ(ulpError(1.0, 1.0 + 0x1.8p-23, F32), 1.5);
  EXPECT_EQ(ulpError(1.0, 1.0 - 0x1p-24, F32), 0.5);
  // Measured in the ULP where the larger of the two lies: across the binade
  // boundary at 2, the coarser spacing of [2, 4) counts, whichever side
  // the real value is on.
  EXPECT_EQ(ulpError(2.0 - 0x1p-23, 2.0, F32), 0.5);
  EXPECT_EQ(ulpError(2.0, 2.0 - 0x1p-23, F32), 0.5);
  // f16 at 1: 2^-10; bf16: 2^-7.
  EXPECT_EQ(ulpError(1.0, 1.0 + 0x1p-8, F16), 4.0);
  EXPECT_EQ(ulpError(1.0, 1.0 + 0x1p-8, BF16), 0.5);
  // Subnormals and zeros.
  EXPECT_EQ(ulpError(0.0, 0x1p-149, F32), 1.0);
  EXPECT_EQ(ulpError(0x1p-130, 0x1p-130 + 0x1p-150, F32), 0.5);
  EXPECT_EQ(ulpError(0.0, 0.0, F32), 0.0);
  EXPECT_EQ(ulpError(-0.0, 0.0, F16), 0.0);
  // Measured where the larger of the two lies: a result that cancelled to
  // zero against an exact 1.0 lost 2^23 ULPs (all of f32's 23 stored bits).
  EXPECT_EQ(ulpError(0.0, 1.0, F32), 0x1p23);
  EXPECT_EQ(ulpError(0.0, 1.0, F16), 0x1p10);
  // A real value that is not zero against a zero shadow: finite in ULPs.
  EXPECT_EQ(ulpError(1.0, 0.0, F32), 0x1p23);
  // Special values.
  EXPECT_EQ(ulpError(kNaN, 1.0, F32), kInf);
  EXPECT_EQ(ulpError(1.0, kNaN, F32), 0.0);
  EXPECT_EQ(ulpError(kNaN, kNaN, F16), 0.0);
  EXPECT_EQ(ulpError(kInf, kInf, F32), 0.0);
  EXPECT_EQ(ulpError(-kInf, -kInf, F16), 0.0);
  EXPECT_EQ(ulpError(1.0, kInf, F32), kInf);
  EXPECT_EQ(ulpError(kInf, 3e38, F32), kInf);
  EXPECT_EQ(ulpError(kInf, -kInf, F32), kInf);
  // Equal values are exact in any type; unequal ones in a non-float type are not measurable.
  EXPECT_EQ(ulpError(3.0, 3.0, KOSAN_DTYPE_I32), 0.0);
  EXPECT_TRUE(std::isnan(ulpError(3.0, 4.0, KOSAN_DTYPE_I32)));
}

TEST(PrecisionBits, Lost) {
  EXPECT_EQ(bitsLost(0.0), 0.0);
  EXPECT_EQ(bitsLost(0.5), 0.0);
  EXPECT_EQ(bitsLost(1.0), 0.0);
  EXPECT_EQ(bitsLost(2.0), 1.0);
  EXPECT_DOUBLE_EQ(bitsLost(3.0), 1.5849625007211562);
  EXPECT_EQ(bitsLost(1024.0), 10.0);
  EXPECT_EQ(bitsLost(kInf), kInf);
  EXPECT_TRUE(std::isnan(bitsLost(kNaN)));
}

TEST(PrecisionBits, HistogramBinEdges) {
  // Bits lost [0,1) [1,2) [2,4) [4,8) [8,12) [12,16) [16,24) [24,inf]:
  // ULPs    [0,2) [2,4) [4,16) [16,256) [256,4096) [4096,65536) [2^16,2^24) [2^24,inf]
  EXPECT_EQ(histBin(0.0), 0);
  EXPECT_EQ(histBin(0x1p-1074), 0);
  EXPECT_EQ(histBin(1.0), 0);
  EXPECT_EQ(histBin(1.999), 0);
  EXPECT_EQ(histBin(std::nextafter(2.0, 0.0)), 0);
  EXPECT_EQ(histBin(2.0), 1);
  EXPECT_EQ(histBin(3.999), 1);
  EXPECT_EQ(histBin(4.0), 2);
  EXPECT_EQ(histBin(15.99), 2);
  EXPECT_EQ(histBin(16.0), 3);
  EXPECT_EQ(histBin(255.9), 3);
  EXPECT_EQ(histBin(256.0), 4);
  EXPECT_EQ(histBin(4095.9), 4);
  EXPECT_EQ(histBin(4096.0), 5);
  EXPECT_EQ(histBin(65535.9), 5);
  EXPECT_EQ(histBin(65536.0), 6);
  EXPECT_EQ(histBin(std::nextafter(0x1p24, 0.0)), 6);
  EXPECT_EQ(histBin(0x1p24), 7);
  EXPECT_EQ(histBin(1e300), 7);
  EXPECT_EQ(histBin(kInf), 7);
  EXPECT_EQ(histBin(kNaN), 7);
  // The bin agrees with floor(bits lost) against the table of edges.
  for (double u = 1.0; u < 0x1p30; u *= 1.37) {
    int bin = histBin(u), low = histBinLowBits(bin);
    double bits = bitsLost(u);
    EXPECT_GE(bits, low) << u;
    if (bin < 7) {
      EXPECT_LT(bits, histBinLowBits(bin + 1)) << u;
    }
  }
}

TEST(PrecisionSample, Value) {
  LaneSample s = valueSample(1.0 + 300 * 0x1p-23, 1.0, F32);
  EXPECT_EQ(s.sumRelErr, 300 * 0x1p-23);
  EXPECT_EQ(fromBits(s.relErrBits), 300 * 0x1p-23);
  EXPECT_EQ(fromBits(s.ulpErrBits), 300.0);
  EXPECT_EQ(s.bin, 4u);
  EXPECT_EQ(s.flags, 0u);
  // NaN: no sum, +inf for the maxima, bin 7.
  s = valueSample(kNaN, 1.0, F32);
  EXPECT_EQ(s.sumRelErr, 0.0);
  EXPECT_EQ(s.relErrBits, kInfBits);
  EXPECT_EQ(s.ulpErrBits, kInfBits);
  EXPECT_EQ(s.bin, 7u);
  // Shadow zero: an infinite relative error stays out of the sum.
  s = valueSample(1.0, 0.0, F32);
  EXPECT_EQ(s.sumRelErr, 0.0);
  EXPECT_EQ(s.relErrBits, kInfBits);
  EXPECT_EQ(fromBits(s.ulpErrBits), 0x1p23);
  EXPECT_EQ(s.bin, 6u);
}

TEST(PrecisionSample, Narrow) {
  // 1 + 2^-12 to f16 rounds to 1: a quarter ULP, no flags.
  LaneSample s = narrowSample(1.0 + 0x1p-12, 1.0, F16);
  EXPECT_EQ(fromBits(s.ulpErrBits), 0.25);
  EXPECT_EQ(s.bin, 0u);
  EXPECT_EQ(s.flags, 0u);
  EXPECT_EQ(s.real, 1.0);
  EXPECT_EQ(s.shadow, 1.0 + 0x1p-12);
  // Overflow: finite in, infinite out.
  s = narrowSample(70000.0, kInf, F16);
  EXPECT_EQ(s.flags, (uint32_t)kLaneOverflow);
  EXPECT_EQ(s.ulpErrBits, kInfBits);
  EXPECT_EQ(s.bin, 7u);
  // Underflow to zero and to a subnormal (exact or not).
  s = narrowSample(1e-8, 0.0, F16);
  EXPECT_EQ(s.flags, (uint32_t)kLaneUnderflow);
  EXPECT_EQ(fromBits(s.relErrBits), 1.0);
  s = narrowSample(0x1p-20, 0x1p-20, F16);
  EXPECT_EQ(s.flags, (uint32_t)kLaneUnderflow);
  EXPECT_EQ(s.ulpErrBits, 0u);
  s = narrowSample(-0x1p-127, -0x1p-127, F32);
  EXPECT_EQ(s.flags, (uint32_t)kLaneUnderflow);
  s = narrowSample(0x1p-126, 0x1p-126, F32);  // the smallest normal is not
  EXPECT_EQ(s.flags, 0u);
  s = narrowSample(0.0, 0.0, F16);  // zero stays zero
  EXPECT_EQ(s.flags, 0u);
  // NaN out of a number; a NaN in is passed on, not born.
  s = narrowSample(500.0, kNaN, E4M3);
  EXPECT_EQ(s.flags, (uint32_t)kLaneNaN);
  s = narrowSample(kNaN, kNaN, BF16);
  EXPECT_EQ(s.flags, 0u);
  EXPECT_EQ(s.bin, 0u);  // NaN in, NaN out: no rounding error
  s = narrowSample(kInf, kInf, F16);
  EXPECT_EQ(s.flags, 0u);
  EXPECT_EQ(s.ulpErrBits, 0u);
}

TEST(PrecisionSample, Nonfinite) {
  LaneSample s = nonfiniteSample(kInf, 1e39);
  EXPECT_EQ(s.flags, (uint32_t)kLaneNaN);
  EXPECT_EQ(s.bin, kNoBin);
  Partial p = fromLane(s, 3);
  EXPECT_EQ(p.count, 1u);
  EXPECT_EQ(p.nans, 1u);
  for (uint64_t h : p.hist)
    EXPECT_EQ(h, 0u);
}

namespace {

// f32 values 1 + k ULPs against a shadow of 1: k ULPs, relative error k 2^-23.
LaneSample offByUlps(uint32_t k) { return valueSample(1.0 + k * 0x1p-23, 1.0, F32); }

} // namespace

TEST(PrecisionAggregate, FullWarpMixed) {
  const uint32_t k[28] = {0,     0,     0,    0,     0,       0,      0,      0,
                          1,     1,     1,    1,     2,       2,      3,      4,
                          5,     15,    16,   100,   255,     256,    4095,   4096,
                          65535, 65536, 1000000, 1u << 22};
  LaneSample lanes[32];
  for (int i = 0; i < 28; ++i)
    lanes[i] = offByUlps(k[i]);
  lanes[28] = valueSample(kNaN, 1.0, F32);   // NaN: bin 7, the worst
  lanes[29] = valueSample(1.0, 0.0, F32);    // infinite relative error, 2^23 ULPs
  lanes[30] = valueSample(0.0, 0.0, F32);    // exact
  lanes[31] = offByUlps(1000000);

  Partial p = reduceGroup(lanes, 0xffffffffu);
  EXPECT_EQ(p.count, 32u);
  const uint64_t hist[8] = {13, 3, 3, 3, 2, 2, 5, 1};
  for (int b = 0; b < 8; ++b)
    EXPECT_EQ(p.hist[b], hist[b]) << "bin " << b;
  // Only finite relative errors are summed; all are multiples of 2^-23
  // with few bits, so the sum is exact in any order.
  double ulps = 4 + (2 + 2 + 3) + (4 + 5 + 15) + (16 + 100 + 255) + (256 + 4095) +
                (4096 + 65535) + (65536 + 1000000 + 4194304) + 1000000;
  EXPECT_EQ(p.sumRelErr, ulps * 0x1p-23);
  EXPECT_EQ(p.maxRelErrBits, kInfBits);
  EXPECT_EQ(p.maxUlpErrBits, kInfBits);
  EXPECT_EQ(p.worstLane, 28u);
  EXPECT_TRUE(std::isnan(p.worstReal));
  EXPECT_EQ(p.worstShadow, 1.0);
  EXPECT_EQ(p.overflows + p.underflows + p.nans, 0u);
}

TEST(PrecisionAggregate, TiesGoToTheLowestLane) {
  LaneSample lanes[32];
  for (int i = 0; i < 32; ++i)
    lanes[i] = offByUlps(7);
  lanes[9] = offByUlps(300);
  lanes[17] = offByUlps(300);
  lanes[30] = offByUlps(300);
  Partial p = reduceGroup(lanes, 0xffffffffu);
  EXPECT_EQ(p.worstLane, 9u);
  EXPECT_EQ(fromBits(p.maxUlpErrBits), 300.0);
  EXPECT_EQ(p.worstReal, 1.0 + 300 * 0x1p-23);
  EXPECT_EQ(p.sumRelErr, (29 * 7 + 3 * 300) * 0x1p-23);
  EXPECT_EQ(p.hist[2], 29u);
  EXPECT_EQ(p.hist[4], 3u);
  // Lanes that called for another slot are not part of this group.
  p = reduceGroup(lanes, 0xfffffdffu & ~(1u << 17));
  EXPECT_EQ(p.count, 30u);
  EXPECT_EQ(p.worstLane, 30u);
  // Nothing exact: all equal, the lowest lane of the group.
  LaneSample exact[32];
  for (int i = 0; i < 32; ++i)
    exact[i] = offByUlps(0);
  p = reduceGroup(exact, 0xf0f0f0f0u);
  EXPECT_EQ(p.count, 16u);
  EXPECT_EQ(p.worstLane, 4u);
  EXPECT_EQ(p.maxUlpErrBits, 0u);
  EXPECT_EQ(p.hist[0], 16u);
}

TEST(PrecisionAggregate, SumFollowsTheDeviceTree) {
  // Ranks are paired (0,1) (2,3) then (0,2): 1 + 2^-53 rounds back to 1, but
  // 2^-53 + 2^-53 does not, so the tree's sum differs from a left-to-right one.
  LaneSample lanes[32] = {};
  const uint32_t members[4] = {0, 5, 6, 31};
  const double errs[4] = {1.0, 0x1p-53, 0x1p-53, 0x1p-53};
  uint32_t mask = 0;
  for (int i = 0; i < 4; ++i) {
    lanes[members[i]].sumRelErr = errs[i];
    mask |= 1u << members[i];
  }
  double leftToRight = ((errs[0] + errs[1]) + errs[2]) + errs[3];
  double tree = (errs[0] + errs[1]) + (errs[2] + errs[3]);
  ASSERT_NE(leftToRight, tree);
  Partial p = reduceGroup(lanes, mask);
  EXPECT_EQ(p.sumRelErr, tree);
  EXPECT_EQ(p.sumRelErr, 1.0 + 0x1p-52);
  EXPECT_EQ(p.count, 4u);
  // Five ranks: ((0+1) + (2+3)) + 4, whichever lanes they are.
  LaneSample five[32] = {};
  const uint32_t fiveLanes[5] = {2, 3, 19, 20, 30};
  const double fiveErrs[5] = {1.0, 0x1p-53, 0x1p-53, 0x1p-52, 0x1p-53};
  mask = 0;
  for (int i = 0; i < 5; ++i) {
    five[fiveLanes[i]].sumRelErr = fiveErrs[i];
    mask |= 1u << fiveLanes[i];
  }
  p = reduceGroup(five, mask);
  EXPECT_EQ(p.sumRelErr,
            ((fiveErrs[0] + fiveErrs[1]) + (fiveErrs[2] + fiveErrs[3])) + fiveErrs[4]);
  EXPECT_EQ(p.sumRelErr, 1.0 + 0x1p-51);  // 1 + 3 2^-53 rounds to even
}

TEST(PrecisionAggregate, SingleLaneAndEmptyGroup) {
  LaneSample lanes[32] = {};
  lanes[13] = narrowSample(70000.0, kInf, F16);
  Partial p = reduceGroup(lanes, 1u << 13);
  EXPECT_EQ(p.count, 1u);
  EXPECT_EQ(p.overflows, 1u);
  EXPECT_EQ(p.worstLane, 13u);
  EXPECT_EQ(p.hist[7], 1u);
  EXPECT_EQ(reduceGroup(lanes, 0).count, 0u);
}

TEST(PrecisionAggregate, NarrowCounters) {
  LaneSample lanes[32];
  for (int i = 0; i < 32; ++i)
    lanes[i] = narrowSample(1.0 + 0x1p-12, 1.0, F16);
  lanes[1] = narrowSample(1e6, kInf, F16);
  lanes[2] = narrowSample(-1e6, -kInf, F16);
  lanes[3] = narrowSample(1e-9, 0.0, F16);
  lanes[4] = narrowSample(500.0, kNaN, E4M3);
  Partial p = reduceGroup(lanes, 0xffffffffu);
  EXPECT_EQ(p.overflows, 2u);
  EXPECT_EQ(p.underflows, 1u);
  EXPECT_EQ(p.nans, 1u);
  EXPECT_EQ(p.hist[0], 29u);
  EXPECT_EQ(p.hist[7], 3u);
  EXPECT_EQ(p.worstLane, 1u);  // the first infinite error
}

TEST(PrecisionSlot, ApplyKeepsTheWorstThatRaisedTheMaximum) {
  kosan_prec_slot slot;
  std::memset(&slot, 0, sizeof slot);
  LaneSample lanes[32];
  for (int i = 0; i < 32; ++i)
    lanes[i] = offByUlps(i == 6 ? 40 : 3);
  Origin where;
  where.block[0] = 2;
  where.thread[0] = 38;
  where.launch = 5;
  EXPECT_TRUE(applyToSlot(slot, reduceGroup(lanes, ~0u), Sink::Value, where));
  EXPECT_EQ(slot.count, 32u);
  EXPECT_EQ(fromBits(slot.max_ulp_err_bits), 40.0);
  EXPECT_EQ(slot.worst_real, 1.0 + 40 * 0x1p-23);
  EXPECT_EQ(slot.worst_shadow, 1.0);
  EXPECT_EQ(slot.worst_block[0], 2u);
  EXPECT_EQ(slot.worst_thread[0], 38u);
  EXPECT_EQ(slot.worst_launch, 5u);
  // The host can tell a consistent worst record: it reproduces the maximum.
  EXPECT_EQ(bitsOf(ulpError(slot.worst_real, slot.worst_shadow, F32)), slot.max_ulp_err_bits);

  // A group that only equals the maximum does not replace the worst.
  Origin other;
  other.launch = 6;
  EXPECT_FALSE(applyToSlot(slot, reduceGroup(lanes, ~0u), Sink::Value, other));
  EXPECT_EQ(slot.count, 64u);
  EXPECT_EQ(slot.worst_launch, 5u);
  EXPECT_EQ(slot.hist[1], 62u);
  EXPECT_EQ(slot.hist[3], 2u);
  EXPECT_EQ(slot.sum_rel_err, 2 * (31 * 3 + 40) * 0x1p-23);
  // One that raises it does.
  lanes[20] = offByUlps(5000);
  EXPECT_TRUE(applyToSlot(slot, reduceGroup(lanes, ~0u), Sink::Value, other));
  EXPECT_EQ(slot.worst_launch, 6u);
  EXPECT_EQ(slot.worst_real, 1.0 + 5000 * 0x1p-23);
  EXPECT_EQ(slot.hist[5], 1u);
  EXPECT_EQ(slot.count, 96u);
  // Nothing applied: nothing changes.
  EXPECT_FALSE(applyToSlot(slot, Partial(), Sink::Value, where));
  EXPECT_EQ(slot.count, 96u);
}

TEST(PrecisionSlot, NonfiniteKeepsTheFirstBirth) {
  kosan_prec_slot slot;
  std::memset(&slot, 0, sizeof slot);
  LaneSample lanes[32];
  for (int i = 0; i < 32; ++i)
    lanes[i] = nonfiniteSample(kInf, (double)i);  // the shadow names the lane
  Origin first;
  first.thread[0] = 4;
  first.launch = 1;
  Partial p = reduceGroup(lanes, 0x0000fff0u);
  EXPECT_EQ(p.worstLane, 4u);
  EXPECT_TRUE(applyToSlot(slot, p, Sink::Nonfinite, first));
  EXPECT_EQ(slot.nans, 12u);
  EXPECT_EQ(slot.count, 12u);
  EXPECT_EQ(slot.worst_real, kInf);
  EXPECT_EQ(slot.worst_shadow, 4.0);
  EXPECT_EQ(slot.worst_launch, 1u);
  Origin later;
  later.launch = 2;
  EXPECT_FALSE(applyToSlot(slot, reduceGroup(lanes, ~0u), Sink::Nonfinite, later));
  EXPECT_EQ(slot.nans, 44u);
  EXPECT_EQ(slot.worst_launch, 1u);
  EXPECT_EQ(slot.max_ulp_err_bits, 0u);
  for (uint64_t h : slot.hist)
    EXPECT_EQ(h, 0u);
}

namespace {

// PTX fns.b32 (find the n-th set bit), as runtime/device/precision.cpp uses it.
uint32_t fns(uint32_t mask, uint32_t base, int offset) {
  int count = offset - 1;
  for (int pos = (int)base; pos < 32; ++pos)
    if (mask & (1u << pos)) {
      if (count == 0)
        return (uint32_t)pos;
      --count;
    }
  return 0xffffffffu;
}

} // namespace

TEST(PrecisionAggregate, DeviceShuffleOrderIsReduceGroups) {
  // The device's loop, lane by lane: every lane of the group reads the
  // values of rank r + d (found with fns) before any lane adds, for d = 1, 2,
  // 4, ... while d < group size; the leader (lowest lane) ends with the
  // group's result. It must round exactly as reduceGroup does.
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  auto next = [&rng] {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    uint32_t mask = (uint32_t)next();
    if (trial % 7 == 0)
      mask = 0xffffffffu >> (trial % 32);
    if (mask == 0)
      continue;
    LaneSample lanes[32];
    double sum[32];
    uint64_t maxUlp[32];
    for (uint32_t lane = 0; lane < 32; ++lane) {
      // Relative errors of very different magnitudes, so the order shows.
      lanes[lane] = offByUlps((uint32_t)(next() % 5000));
      lanes[lane].sumRelErr = std::ldexp((double)(next() % 1000 + 1), -(int)(next() % 60));
      sum[lane] = lanes[lane].sumRelErr;
      maxUlp[lane] = lanes[lane].ulpErrBits;
    }
    uint32_t n = (uint32_t)__builtin_popcount(mask);
    for (uint32_t d = 1; d < n; d <<= 1) {
      double readSum[32];
      uint64_t readUlp[32];
      bool has[32] = {};
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!(mask & (1u << lane)))
          continue;
        uint32_t src = fns(mask, lane, (int)d + 1);
        has[lane] = src < 32;
        readSum[lane] = sum[has[lane] ? src : lane];
        readUlp[lane] = maxUlp[has[lane] ? src : lane];
      }
      for (uint32_t lane = 0; lane < 32; ++lane)
        if (has[lane]) {
          sum[lane] = sum[lane] + readSum[lane];
          maxUlp[lane] = std::max(maxUlp[lane], readUlp[lane]);
        }
    }
    uint32_t leader = (uint32_t)__builtin_ctz(mask);
    Partial p = reduceGroup(lanes, mask);
    ASSERT_EQ(bitsOf(sum[leader]), bitsOf(p.sumRelErr)) << std::hex << mask;
    ASSERT_EQ(maxUlp[leader], p.maxUlpErrBits) << std::hex << mask;
    // The worst lane: the lowest whose own error equals the maximum.
    uint32_t worst = 32;
    for (uint32_t lane = 0; lane < 32 && worst == 32; ++lane)
      if ((mask & (1u << lane)) && lanes[lane].ulpErrBits == maxUlp[leader])
        worst = lane;
    ASSERT_EQ(worst, p.worstLane) << std::hex << mask;
  }
}

// The host adds up a site's shards (one per group of SMs).
TEST(PrecisionShards, MergeAddsCountsAndKeepsTheWorst) {
  kosan_prec_slot shards[KOSAN_PREC_SHARDS] = {};
  shards[1].count = 10;
  shards[1].sum_rel_err = 0.5;
  shards[1].max_rel_err_bits = bitsOf(1e-3);
  shards[1].max_ulp_err_bits = bitsOf(300.0);
  shards[1].hist[4] = 10;
  shards[1].worst_real = 1.5;
  shards[1].worst_shadow = 1.25;
  shards[1].worst_block[0] = 7;
  shards[1].worst_launch = 3;
  shards[5].count = 4;
  shards[5].sum_rel_err = 0.25;
  shards[5].max_rel_err_bits = bitsOf(2e-3);  // larger relative error...
  shards[5].max_ulp_err_bits = bitsOf(20.0);  // ...but fewer ULPs: not the worst
  shards[5].hist[2] = 4;
  shards[5].underflows = 2;
  shards[5].worst_real = 9.0;
  shards[5].worst_launch = 4;
  kosan_prec_slot m = mergeShards(shards, KOSAN_PREC_SHARDS);
  EXPECT_EQ(m.count, 14u);
  EXPECT_EQ(m.sum_rel_err, 0.75);
  EXPECT_EQ(m.max_rel_err_bits, bitsOf(2e-3));
  EXPECT_EQ(m.max_ulp_err_bits, bitsOf(300.0));
  EXPECT_EQ(m.hist[4], 10u);
  EXPECT_EQ(m.hist[2], 4u);
  EXPECT_EQ(m.underflows, 2u);
  EXPECT_EQ(m.worst_real, 1.5);
  EXPECT_EQ(m.worst_shadow, 1.25);
  EXPECT_EQ(m.worst_block[0], 7u);
  EXPECT_EQ(m.worst_launch, 3u);
  // Nothing recorded: all zero.
  kosan_prec_slot none[KOSAN_PREC_SHARDS] = {};
  kosan_prec_slot z = mergeShards(none, KOSAN_PREC_SHARDS);
  EXPECT_EQ(z.count, 0u);
  EXPECT_EQ(z.worst_launch, 0u);
}
