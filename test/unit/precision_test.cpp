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
  // f64's spacings below 2^-1023 (2^-k out of range: two exact steps).
  EXPECT_EQ(ulpError(0.0, 0x1p-1074, F64), 1.0);
  EXPECT_EQ(ulpError(0x1p-1060, 0x1p-1060 + 0x1p-1072, F64), 4.0);
  EXPECT_EQ(ulpError(0x1p-1000, 0x1p-1000 + 0x1p-1051, F64), 2.0);
  EXPECT_EQ(ulpError(0.0, DBL_MIN, F64), 0x1p52);
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

// errorSample takes a shorter way when both values are finite; every field
// must still be what the documented functions give, for every pair of
// special and ordinary values, in every float format.
TEST(PrecisionSample, FieldsAreTheDocumentedFunctions) {
  const double values[] = {0.0,      -0.0,     0x1p-1074, -0x1p-1060, DBL_MIN, 0x1p-1000,
                           0x1p-149, 0x1p-130, 1e-30,     0.5,        1.0,     -1.0,
                           1.0 + 0x1p-23,      3.0,       65504.0,    3e38,    1e300,
                           -1e308,   DBL_MAX,  kInf,      -kInf,      kNaN};
  for (uint32_t dtype : {F64, F32, F16, BF16, uint32_t(KOSAN_DTYPE_F8E4M3), uint32_t(KOSAN_DTYPE_F8E5M2)})
    for (double real : values)
      for (double shadow : values) {
        LaneSample s = errorSample(real, shadow, dtype);
        double rel = relError(real, shadow), ulp = ulpError(real, shadow, dtype);
        SCOPED_TRACE(::testing::Message() << real << " vs " << shadow << " dtype " << dtype);
        EXPECT_EQ(s.relErrBits, maxBitsOf(rel));
        EXPECT_EQ(s.ulpErrBits, maxBitsOf(ulp));
        EXPECT_EQ(s.absErrBits, maxBitsOf(absError(real, shadow)));
        EXPECT_EQ(s.scaleBits, bitsOf(scaleOf(shadow)));
        EXPECT_EQ(bitsOf(s.sumRelErr), bitsOf(isFinite(rel) ? rel : 0.0));
        EXPECT_EQ(s.bin, (uint32_t)histBin(ulp));
      }
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
  EXPECT_EQ(s.real, kInf);
  EXPECT_EQ(s.shadow, 1e39);
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
