//===- diff_test.cpp - Comparing a candidate run against a reference -------===//
#include "kosan/diff.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace kosan;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Element arithmetic
//===----------------------------------------------------------------------===//

double f16(uint16_t bits) { return decodeElement(&bits, DType::F16); }
double bf16(uint16_t bits) { return decodeElement(&bits, DType::BF16); }
double e4m3(uint8_t bits) { return decodeElement(&bits, DType::F8E4M3); }
double e5m2(uint8_t bits) { return decodeElement(&bits, DType::F8E5M2); }

TEST(DecodeElement, Float16) {
  EXPECT_EQ(f16(0x3c00), 1.0);
  EXPECT_EQ(f16(0xc000), -2.0);
  EXPECT_EQ(f16(0x3bff), 0.99951171875);
  EXPECT_EQ(f16(0x7bff), 65504.0);
  EXPECT_EQ(f16(0x0400), std::ldexp(1.0, -14)); // smallest normal
  EXPECT_EQ(f16(0x0001), std::ldexp(1.0, -24)); // smallest subnormal
  EXPECT_EQ(f16(0x03ff), std::ldexp(1023.0, -24));
  EXPECT_EQ(f16(0x8000), 0.0);
  EXPECT_TRUE(std::signbit(f16(0x8000)));
  EXPECT_EQ(f16(0x7c00), kInf);
  EXPECT_EQ(f16(0xfc00), -kInf);
  EXPECT_TRUE(std::isnan(f16(0x7e00)));
  EXPECT_TRUE(std::isnan(f16(0x7c01)));
}

TEST(DecodeElement, BFloat16) {
  EXPECT_EQ(bf16(0x3f80), 1.0);
  EXPECT_EQ(bf16(0x3f81), 1.0078125);
  EXPECT_EQ(bf16(0xc2f7), -123.5);
  EXPECT_EQ(bf16(0x0080), std::ldexp(1.0, -126));
  EXPECT_EQ(bf16(0x0001), std::ldexp(1.0, -133)); // subnormal
  EXPECT_EQ(bf16(0x7f80), kInf);
  EXPECT_TRUE(std::isnan(bf16(0x7fc0)));
}

TEST(DecodeElement, Float8) {
  // e4m3 (fn): bias 7, no infinities, S.1111.111 is NaN, 448 the largest.
  EXPECT_EQ(e4m3(0x38), 1.0);
  EXPECT_EQ(e4m3(0x39), 1.125);
  EXPECT_EQ(e4m3(0x7e), 448.0);
  EXPECT_EQ(e4m3(0x78), 256.0); // exponent 15 holds numbers
  EXPECT_EQ(e4m3(0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(e4m3(0x01), std::ldexp(1.0, -9)); // subnormal
  EXPECT_EQ(e4m3(0x07), std::ldexp(7.0, -9));
  EXPECT_EQ(e4m3(0xb8), -1.0);
  EXPECT_TRUE(std::isnan(e4m3(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3(0xff)));
  // e5m2: bias 15, IEEE-like.
  EXPECT_EQ(e5m2(0x3c), 1.0);
  EXPECT_EQ(e5m2(0x3d), 1.25);
  EXPECT_EQ(e5m2(0x7b), 57344.0);
  EXPECT_EQ(e5m2(0x01), std::ldexp(1.0, -16)); // subnormal
  EXPECT_EQ(e5m2(0x7c), kInf);
  EXPECT_EQ(e5m2(0xfc), -kInf);
  EXPECT_TRUE(std::isnan(e5m2(0x7d)));
}

TEST(DecodeElement, Integers) {
  int64_t i64 = std::numeric_limits<int64_t>::min() + 1;
  EXPECT_EQ(decodeElement(&i64, DType::I64), -9223372036854775807.0);
  int8_t i8 = -128;
  EXPECT_EQ(decodeElement(&i8, DType::I8), -128);
  uint16_t u16 = 65535;
  EXPECT_EQ(decodeElement(&u16, DType::U16), 65535);
  uint8_t b = 1;
  EXPECT_EQ(decodeElement(&b, DType::Bool), 1);
}

// encodeElement is decodeElement's inverse on every value of the small
// formats, and rounds ties to even.
TEST(EncodeElement, InvertsDecodeAndRoundsToEven) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    for (DType t : {DType::F16, DType::BF16}) {
      uint16_t in = uint16_t(bits), out = 0;
      double v = decodeElement(&in, t);
      if (std::isnan(v))
        continue;
      encodeElement(v, t, &out);
      ASSERT_EQ(out, in) << dtypeName(t) << " " << bits;
    }
  }
  for (uint32_t bits = 0; bits < 256; ++bits) {
    for (DType t : {DType::F8E4M3, DType::F8E5M2}) {
      uint8_t in = uint8_t(bits), out = 0;
      double v = decodeElement(&in, t);
      if (std::isnan(v))
        continue;
      encodeElement(v, t, &out);
      ASSERT_EQ(out, in) << dtypeName(t) << " " << bits;
    }
  }
  uint16_t h = 0;
  encodeElement(1 + std::ldexp(1.0, -11), DType::F16, &h); // halfway: to even
  EXPECT_EQ(h, 0x3c00);
  encodeElement(1 + 3 * std::ldexp(1.0, -11), DType::F16, &h);
  EXPECT_EQ(h, 0x3c02);
  encodeElement(70000, DType::F16, &h);
  EXPECT_EQ(h, 0x7c00);
  encodeElement(std::ldexp(1.0, -25), DType::F16, &h); // half the smallest subnormal
  EXPECT_EQ(h, 0x0000);
  uint8_t b = 0;
  encodeElement(500, DType::F8E4M3, &b); // no Inf in e4m3: NaN
  EXPECT_EQ(b, 0x7f);
  encodeElement(70000, DType::F8E5M2, &b);
  EXPECT_EQ(b, 0x7c);
  int8_t i8 = 0;
  encodeElement(300, DType::I8, &i8);
  EXPECT_EQ(i8, 127);
}

TEST(UlpDistance, Float32) {
  EXPECT_EQ(ulpDistance(1.0, std::nextafter(1.0f, 2.0f), DType::F32), 1u);
  EXPECT_EQ(ulpDistance(1.0, std::nextafter(1.0f, 0.0f), DType::F32), 1u);
  EXPECT_EQ(ulpDistance(-0.0, 0.0, DType::F32), 0u);
  float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulpDistance(tiny, -tiny, DType::F32), 2u);
  EXPECT_EQ(ulpDistance(0.0, tiny, DType::F32), 1u);
  EXPECT_EQ(ulpDistance(1.0, 2.0, DType::F32), 1u << 23);
  EXPECT_EQ(ulpDistance(-1.0, 1.0, DType::F32), 2u * 0x3f800000u);
  float largest = std::numeric_limits<float>::max();
  EXPECT_EQ(ulpDistance(largest, kInf, DType::F32), 1u);
  EXPECT_EQ(ulpDistance(kInf, kInf, DType::F32), 0u);
}

TEST(UlpDistance, Float64) {
  EXPECT_EQ(ulpDistance(1.0, std::nextafter(1.0, 2.0), DType::F64), 1u);
  double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(ulpDistance(tiny, -tiny, DType::F64), 2u);
  EXPECT_EQ(ulpDistance(-0.0, 0.0, DType::F64), 0u);
  // The largest distance does not overflow.
  EXPECT_EQ(ulpDistance(-std::numeric_limits<double>::max(),
                        std::numeric_limits<double>::max(), DType::F64),
            2 * 0x7fefffffffffffffull);
}

TEST(UlpDistance, SmallFormats) {
  EXPECT_EQ(ulpDistance(1.0, 1.0009765625, DType::F16), 1u);
  EXPECT_EQ(ulpDistance(1.0, 1.0078125, DType::BF16), 1u);
  EXPECT_EQ(ulpDistance(f16(0x0001), f16(0x8001), DType::F16), 2u);
  EXPECT_EQ(ulpDistance(-0.0, 0.0, DType::BF16), 0u);
  EXPECT_EQ(ulpDistance(1.0, 1.125, DType::F8E4M3), 1u);
  EXPECT_EQ(ulpDistance(1.0, 2.0, DType::F8E4M3), 8u);
  EXPECT_EQ(ulpDistance(1.0, 1.25, DType::F8E5M2), 1u);
}

TEST(UlpDistance, NaNAndIntegers) {
  EXPECT_EQ(ulpDistance(kNaN, kNaN, DType::F32), 0u);
  EXPECT_EQ(ulpDistance(kNaN, 1.0, DType::F32), UINT64_MAX);
  EXPECT_EQ(ulpDistance(0.0, kNaN, DType::F16), UINT64_MAX);
  // Integers: the absolute difference.
  EXPECT_EQ(ulpDistance(-3, 4, DType::I32), 7u);
  EXPECT_EQ(ulpDistance(200, 100, DType::U8), 100u);
}

TEST(DefaultTolerance, PerDType) {
  auto check = [](DType t, double atol, double rtol) {
    Tolerance tol = defaultTolerance(t);
    EXPECT_EQ(tol.atol, atol) << dtypeName(t);
    EXPECT_EQ(tol.rtol, rtol) << dtypeName(t);
  };
  check(DType::F32, 1e-4, 1e-4);
  check(DType::F16, 1e-2, 1e-2);
  check(DType::BF16, 1e-2, 1e-2);
  check(DType::F8E4M3, 1e-1, 1e-1);
  check(DType::F8E5M2, 1e-1, 1e-1);
  check(DType::F64, 1e-8, 1e-8);
  check(DType::I32, 0, 0);
  check(DType::U8, 0, 0);
  check(DType::Bool, 0, 0);
  check(DType::Unknown, 0, 0);
}

// The element loop on arrays in memory: what diffTraces runs on each chunk.
TEST(CompareElements, InMemory) {
  std::vector<uint16_t> ref(5), cand(5);
  for (int i = 0; i < 5; ++i) {
    encodeElement(i, DType::F16, &ref[i]);
    encodeElement(i, DType::F16, &cand[i]);
  }
  encodeElement(3.5, DType::F16, &cand[3]);
  const uint16_t poison = 0x7d5b;
  ref[0] = poison;  // the reference left 0 unwritten
  cand[4] = poison; // the candidate left 4 unwritten
  ElementStats s = compareElements(ref.data(), cand.data(), 5, DType::F16,
                                   defaultTolerance(DType::F16), poison, poison);
  EXPECT_EQ(s.compared, 3u);
  EXPECT_EQ(s.unwritten_ref, 1u);
  EXPECT_EQ(s.unwritten_cand, 1u);
  EXPECT_EQ(s.over_tolerance, 1u);
  EXPECT_EQ(s.max_abs, 0.5);
  EXPECT_EQ(s.max_ulp, 256u); // 3 -> 3.5 in f16 steps of 2^-9
  EXPECT_EQ(s.worst_index, 3u);
  EXPECT_DOUBLE_EQ(s.mean_abs, 0.5 / 3);
  // Without poison the same bits are values: NaN against numbers.
  s = compareElements(ref.data(), cand.data(), 5, DType::F16,
                      defaultTolerance(DType::F16));
  EXPECT_EQ(s.compared, 5u);
  EXPECT_EQ(s.nan_mismatch, 2u);
}

//===----------------------------------------------------------------------===//
// Traces to compare
//===----------------------------------------------------------------------===//

struct Snap {
  uint32_t arg = 0;
  std::string name = "out";
  DType dtype = DType::F32;
  std::vector<double> values;
  std::vector<uint64_t> bits;  // instead of values: raw element bits
  bool poisoned = false;
  uint64_t poison = 0;
  uint64_t pre_hash = 0, post_hash = 0;
  std::vector<std::string> sites;
  uint64_t chunk = 0;
};

struct Launch {
  uint32_t id = 1;
  std::string kernel = "k(float*)";
  std::string mangled = "_Z1kPf";
  uint32_t module = 0;
  std::vector<Snap> snaps;
  std::vector<OobEvent> oob;
  std::vector<PrecisionRecord> precision;  // written after the snapshots
};

OobEvent oobAt(uint32_t launch, const std::string &file, uint32_t line,
               uint32_t column) {
  OobEvent e;
  e.launch = launch;
  e.kind = "global-buffer-overflow";
  e.access = "WRITE";
  e.size = 4;
  e.count = 3;
  e.site = {file, line, column, "k(float*)", ""};
  e.buffer_name = "out";
  return e;
}

class DiffTest : public test::TempDirTest {
protected:
  std::string write(const std::string &name, const std::vector<Launch> &launches) {
    std::string p = dir_ + "/" + name;
    auto w = TraceWriter::create(p, nullptr);
    TraceHeader h;
    h.argv = {"./" + name};
    w->write(h);
    for (const Launch &l : launches) {
      LaunchRecord record;
      record.id = l.id;
      record.kernel = l.kernel;
      record.mangled = l.mangled;
      record.module = l.module;
      w->write(record);
      for (const OobEvent &e : l.oob)
        w->write(e);
      for (const Snap &s : l.snaps) {
        SnapshotRecord r;
        r.launch = l.id;
        r.arg = s.arg;
        r.name = s.name;
        r.dtype = s.dtype;
        r.poisoned = s.poisoned;
        r.poison = s.poison;
        r.pre_hash = s.pre_hash;
        r.post_hash = s.post_hash;
        r.store_sites = s.sites;
        r.chunk_elements = s.chunk;
        uint32_t size = dtypeSize(s.dtype);
        size_t n = s.bits.empty() ? s.values.size() : s.bits.size();
        std::vector<char> data(n * size);
        for (size_t i = 0; i < n; ++i) {
          if (s.bits.empty())
            encodeElement(s.values[i], s.dtype, &data[i * size]);
          else
            std::memcpy(&data[i * size], &s.bits[i], size);
        }
        w->writeSnapshot(r, data.data(), data.size());
      }
      for (const PrecisionRecord &p : l.precision)
        w->write(p);
    }
    w->write(TraceEnd{});
    return p;
  }

  // One launch of k with one f32 output on each side.
  DiffResult compare(const Snap &ref, const Snap &cand,
                     const DiffOptions &options = {}) {
    Launch r, c;
    r.snaps = {ref};
    c.snaps = {cand};
    return diffTraces(write("ref.trace", {r}), write("cand.trace", {c}), options);
  }

  const OutputDiff &onlyOutput(const DiffResult &d) {
    EXPECT_EQ(d.verdict == Verdict::Trouble, false) << d.error;
    static const OutputDiff none;
    if (d.launches.size() != 1 || d.launches[0].outputs.size() != 1) {
      ADD_FAILURE() << "expected one launch pair with one output";
      return none;
    }
    return d.launches[0].outputs[0];
  }
};

Snap f32(std::vector<double> values) {
  Snap s;
  s.values = std::move(values);
  return s;
}

//===----------------------------------------------------------------------===//
// Element rules
//===----------------------------------------------------------------------===//

TEST_F(DiffTest, IdenticalOutputsAreEquivalent) {
  DiffResult d = compare(f32({1, 2, 3}), f32({1, 2, 3}));
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_TRUE(o.equivalent);
  EXPECT_EQ(o.stats.compared, 3u);
  EXPECT_EQ(o.stats.over_tolerance, 0u);
  EXPECT_EQ(o.stats.max_abs, 0);
  EXPECT_EQ(o.stats.max_ulp, 0u);
  EXPECT_EQ(d.elements_compared, 3u);
  EXPECT_TRUE(d.notes.empty());
}

// allclose: |c - r| <= atol + rtol * |r|, f32 defaults 1e-4 and 1e-4.
TEST_F(DiffTest, AllcloseRuleWithF32Defaults) {
  DiffResult d = compare(f32({1, 100, 0, 4}), f32({1.00015, 100.02, 5e-4, 4}));
  EXPECT_EQ(d.verdict, Verdict::Different);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_FALSE(o.equivalent);
  EXPECT_EQ(o.tolerance.atol, 1e-4);
  EXPECT_EQ(o.tolerance.rtol, 1e-4);
  EXPECT_EQ(o.stats.compared, 4u);
  // 1 vs 1.00015 is within 2e-4; 100 vs 100.02 exceeds 0.0101; 0 vs 5e-4
  // exceeds 1e-4.
  EXPECT_EQ(o.stats.over_tolerance, 2u);
  double d100 = double(100.02f) - 100.0, d1 = double(1.00015f) - 1.0;
  EXPECT_EQ(o.stats.max_abs, d100);
  EXPECT_NEAR(o.stats.mean_abs, (d1 + d100 + double(5e-4f)) / 4, 1e-12);
  // max_rel leaves out the element whose reference is 0.
  EXPECT_EQ(o.stats.max_rel, d100 / 100);
  EXPECT_EQ(o.stats.max_ulp, std::bit_cast<uint32_t>(5e-4f));
  // The worst element is the one furthest out of its tolerance: 5x at i=2.
  EXPECT_EQ(o.stats.worst_index, 2u);
  EXPECT_EQ(o.stats.worst_ref, 0);
  EXPECT_EQ(o.stats.worst_cand, double(5e-4f));
  EXPECT_DOUBLE_EQ(o.stats.share_over(), 0.5);
}

TEST_F(DiffTest, ToleranceOptions) {
  Snap ref = f32({1, 2}), cand = f32({1.001, 2});
  EXPECT_EQ(compare(ref, cand).verdict, Verdict::Different);
  DiffOptions loose;
  loose.atol = 1e-2;
  DiffResult d = compare(ref, cand, loose);
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(onlyOutput(d).tolerance.atol, 1e-2);
  EXPECT_EQ(onlyOutput(d).tolerance.rtol, 1e-4); // default kept
  DiffOptions relative;
  relative.rtol = 2e-3;
  EXPECT_EQ(compare(ref, cand, relative).verdict, Verdict::Equivalent);
  // The per-dtype tolerance wins over atol/rtol for its dtype.
  DiffOptions perDtype = loose;
  perDtype.per_dtype[DType::F32] = {0, 0};
  EXPECT_EQ(compare(ref, cand, perDtype).verdict, Verdict::Different);
  perDtype.per_dtype.clear();
  perDtype.per_dtype[DType::F16] = {0, 0}; // another dtype: no effect
  EXPECT_EQ(compare(ref, cand, perDtype).verdict, Verdict::Equivalent);
}

TEST_F(DiffTest, HalfPrecisionDefaults) {
  Snap ref, cand;
  ref.dtype = cand.dtype = DType::F16;
  ref.values = {1, 10};
  cand.values = {1.0078125, 10.0625}; // within 1e-2 + 1e-2 * |r|
  DiffResult d = compare(ref, cand);
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_EQ(o.stats.max_ulp, 8u); // 1 -> 1.0078125 is 8 f16 ULPs
  EXPECT_EQ(o.stats.max_abs, 0.0625);
  DiffOptions tight;
  tight.per_dtype[DType::F16] = {1e-3, 0};
  EXPECT_EQ(compare(ref, cand, tight).verdict, Verdict::Different);
}

TEST_F(DiffTest, NaNAndInfRules) {
  Snap ref = f32({kNaN, kNaN, 1, kInf, kInf, -kInf, 1, -kInf});
  Snap cand = f32({kNaN, 1, kNaN, kInf, -kInf, 5, 1, -kInf});
  DiffResult d = compare(ref, cand);
  EXPECT_EQ(d.verdict, Verdict::Different);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_EQ(o.stats.compared, 8u);
  EXPECT_EQ(o.stats.nan_mismatch, 2u);
  EXPECT_EQ(o.stats.inf_mismatch, 2u);
  EXPECT_EQ(o.stats.over_tolerance, 4u);
  EXPECT_EQ(o.stats.max_abs, 0); // NaN/Inf pairs add nothing to the magnitudes
  EXPECT_EQ(o.stats.worst_index, 1u); // the first NaN/Inf mismatch
  EXPECT_TRUE(std::isnan(o.stats.worst_ref));
  EXPECT_EQ(o.stats.worst_cand, 1);
}

TEST_F(DiffTest, NaNsWithOtherPayloadsAreEqual) {
  Snap ref, cand;
  ref.bits = {0x7fc00000, 0xffc00001};
  cand.bits = {0x7fc00123, 0x7f800001};
  DiffResult d = compare(ref, cand);
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(onlyOutput(d).stats.nan_mismatch, 0u);
}

TEST_F(DiffTest, UnwrittenElements) {
  const uint64_t poison = 0x7fc0dead; // a NaN pattern
  auto bitsOf = [](float f) { return uint64_t(std::bit_cast<uint32_t>(f)); };
  Snap ref, cand;
  ref.poisoned = cand.poisoned = true;
  ref.poison = cand.poison = poison;
  // ref leaves 2..4 unwritten; cand leaves 4..6 unwritten.
  ref.bits = {bitsOf(0), bitsOf(1), poison, poison, poison, bitsOf(5), bitsOf(6), bitsOf(7)};
  cand.bits = {bitsOf(0), bitsOf(1), bitsOf(9), bitsOf(9), poison, poison, poison, bitsOf(7)};
  DiffResult d = compare(ref, cand);
  EXPECT_EQ(d.verdict, Verdict::Different);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_FALSE(o.equivalent);
  EXPECT_EQ(o.stats.unwritten_ref, 3u);  // 2, 3, 4: not compared
  EXPECT_EQ(o.stats.unwritten_cand, 2u); // 5, 6: the reference wrote them
  EXPECT_EQ(o.stats.compared, 3u);       // 0, 1, 7
  EXPECT_EQ(o.stats.over_tolerance, 0u);

  // Without poison=1 the same bits are values (here NaN against numbers).
  ref.poisoned = cand.poisoned = false;
  d = compare(ref, cand);
  EXPECT_EQ(onlyOutput(d).stats.unwritten_ref, 0u);
  EXPECT_EQ(onlyOutput(d).stats.compared, 8u);
  EXPECT_EQ(onlyOutput(d).stats.nan_mismatch, 4u);
}

TEST_F(DiffTest, IntegersCompareExactly) {
  Snap ref, cand;
  ref.dtype = cand.dtype = DType::I32;
  ref.values = {1, -2, 3, 1000000};
  cand.values = {1, -2, 4, 999990};
  DiffResult d = compare(ref, cand);
  EXPECT_EQ(d.verdict, Verdict::Different);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_EQ(o.stats.over_tolerance, 2u);
  EXPECT_EQ(o.stats.max_abs, 10);
  EXPECT_EQ(o.stats.max_ulp, 10u);
  EXPECT_EQ(o.stats.worst_index, 3u);
  DiffOptions loose;
  loose.atol = 10;
  EXPECT_EQ(compare(ref, cand, loose).verdict, Verdict::Equivalent);

  Snap wide, wide2;
  wide.dtype = wide2.dtype = DType::I64;
  wide.bits = {uint64_t(std::numeric_limits<int64_t>::min())};
  wide2.bits = {uint64_t(std::numeric_limits<int64_t>::max())};
  d = compare(wide, wide2);
  EXPECT_EQ(onlyOutput(d).stats.max_ulp, UINT64_MAX);
}

TEST_F(DiffTest, RawBytesIgnoreTolerance) {
  Snap ref, cand;
  ref.dtype = cand.dtype = DType::Unknown;
  ref.values = {1, 2, 3};
  cand.values = {1, 2, 4};
  DiffOptions loose;
  loose.atol = 100;
  DiffResult d = compare(ref, cand, loose);
  EXPECT_EQ(d.verdict, Verdict::Different);
  EXPECT_EQ(onlyOutput(d).stats.over_tolerance, 1u);
  EXPECT_EQ(onlyOutput(d).tolerance.atol, 0);
}

// Chunks of different sizes on the two sides still line up element by element.
TEST_F(DiffTest, ChunkBoundariesNeedNotAgree) {
  Snap ref, cand;
  for (int i = 0; i < 1000; ++i)
    ref.values.push_back(i);
  cand.values = ref.values;
  cand.values[777] = 0;
  ref.chunk = 64;
  cand.chunk = 100;
  DiffResult d = compare(ref, cand);
  const OutputDiff &o = onlyOutput(d);
  EXPECT_EQ(o.stats.compared, 1000u);
  EXPECT_EQ(o.stats.over_tolerance, 1u);
  EXPECT_EQ(o.stats.worst_index, 777u);
  EXPECT_EQ(o.stats.worst_ref, 777);
  EXPECT_EQ(o.stats.worst_cand, 0);
}

TEST_F(DiffTest, ProgressIsReported) {
  Snap ref;
  ref.values.assign(5 << 20, 1.0);
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  DiffOptions options;
  options.progress = [&](uint64_t done, uint64_t total) { calls.push_back({done, total}); };
  DiffResult d = compare(ref, ref, options);
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(uint64_t(5 << 20), uint64_t(5 << 20)));
  for (size_t i = 1; i < calls.size(); ++i)
    EXPECT_GT(calls[i].first, calls[i - 1].first);
}

//===----------------------------------------------------------------------===//
// Launch matching
//===----------------------------------------------------------------------===//

Launch kernelLaunch(uint32_t id, const std::string &kernel, double value) {
  Launch l;
  l.id = id;
  l.kernel = kernel + "(float*)";
  l.mangled = "_Z" + std::to_string(kernel.size()) + kernel + "Pf";
  l.snaps = {f32({value})};
  return l;
}

std::vector<std::pair<uint32_t, uint32_t>> pairsOf(const DiffResult &d) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const LaunchDiff &l : d.launches)
    out.push_back({l.ref.id, l.cand.id});
  return out;
}

TEST_F(DiffTest, LaunchesMatchByKernelNameAndOrder) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "k", 1), kernelLaunch(2, "k", 2),
                                        kernelLaunch(3, "j", 3)});
  std::string cand = write("cand.trace", {kernelLaunch(1, "j", 3), kernelLaunch(2, "k", 1),
                                          kernelLaunch(3, "k", 2)});
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent) << d.error;
  EXPECT_EQ(pairsOf(d), (std::vector<std::pair<uint32_t, uint32_t>>{{1, 2}, {2, 3}, {3, 1}}));
  EXPECT_TRUE(d.notes.empty());
}

TEST_F(DiffTest, UnmatchedLaunchesAreNoted) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "k", 1), kernelLaunch(2, "k", 2)});
  std::string cand = write("cand.trace", {kernelLaunch(1, "k", 1)});
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(pairsOf(d), (std::vector<std::pair<uint32_t, uint32_t>>{{1, 1}}));
  EXPECT_EQ(d.notes, std::vector<std::string>{
                         "REF launch #2 (k(float*)) has output snapshots but no CAND "
                         "launch of the same kernel to compare with; it is not compared"});
}

TEST_F(DiffTest, DifferentKernelsPairInOrder) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "torch_ref", 1), kernelLaunch(2, "torch_ref2", 2)});
  std::string cand = write("cand.trace", {kernelLaunch(4, "mine", 1), kernelLaunch(5, "mine2", 2)});
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent) << d.error;
  EXPECT_EQ(pairsOf(d), (std::vector<std::pair<uint32_t, uint32_t>>{{1, 4}, {2, 5}}));
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "no kernel name is common to REF and CAND: the launches "
                        "with output snapshots are paired in order (2 pairs)");
}

TEST_F(DiffTest, NothingMatchableIsTrouble) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "a", 1), kernelLaunch(2, "b", 2)});
  std::string cand = write("cand.trace", {kernelLaunch(1, "c", 1)});
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, "no launch of REF matches a launch of CAND by kernel name, and "
                     "REF has 2 launches with output snapshots where CAND has 1; "
                     "pair them with --launch REF_ID:CAND_ID");
}

TEST_F(DiffTest, ExplicitLaunchPairs) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "a", 1), kernelLaunch(2, "b", 2)});
  std::string cand = write("cand.trace", {kernelLaunch(1, "c", 2), kernelLaunch(2, "c", 1)});
  DiffOptions options;
  options.launches = {{2, 1}};
  DiffResult d = diffTraces(ref, cand, options);
  EXPECT_EQ(d.verdict, Verdict::Equivalent) << d.error;
  EXPECT_EQ(pairsOf(d), (std::vector<std::pair<uint32_t, uint32_t>>{{2, 1}}));
  options.launches = {{1, 1}};
  EXPECT_EQ(diffTraces(ref, cand, options).verdict, Verdict::Different);
  options.launches = {{1, 9}};
  d = diffTraces(ref, cand, options);
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, "CAND " + cand + " has no launch #9");
  options.launches = {{1, 1}, {2, 1}};
  d = diffTraces(ref, cand, options);
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, "--launch 2:1 pairs a launch that another --launch already pairs");
}

TEST_F(DiffTest, TraceWithoutSnapshotsIsTrouble) {
  Launch bare;
  std::string ref = write("ref.trace", {bare});
  std::string cand = write("cand.trace", {kernelLaunch(1, "k", 1)});
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, "REF " + ref + " has no output snapshots; run it with "
                                    "KOSAN_OPTIONS=snapshot=1");
  d = diffTraces(cand, ref, {});
  EXPECT_EQ(d.error, "CAND " + ref + " has no output snapshots; run it with "
                                     "KOSAN_OPTIONS=snapshot=1");
}

TEST_F(DiffTest, UnreadableTracesAreTrouble) {
  std::string good = write("good.trace", {kernelLaunch(1, "k", 1)});
  DiffResult d = diffTraces(dir_ + "/missing.trace", good, {});
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, "cannot open " + dir_ + "/missing.trace: No such file or directory");

  std::ifstream in(good);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::string cut = dir_ + "/cut.trace";
  std::ofstream(cut) << text.substr(0, text.size() - 30);
  d = diffTraces(good, cut, {});
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error.rfind(cut + " ends mid-record after", 0), 0u) << d.error;
}

TEST_F(DiffTest, CorruptChunkIsTrouble) {
  std::string ref = write("ref.trace", {kernelLaunch(1, "k", 1)});
  std::string cand = write("cand.trace", {kernelLaunch(1, "k", 1)});
  std::ifstream in(cand);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t data = text.find("\"data\":\"") + 9;
  text[data] = '*';
  std::ofstream(cand) << text;
  DiffResult d = diffTraces(ref, cand, {});
  EXPECT_EQ(d.verdict, Verdict::Trouble);
  EXPECT_EQ(d.error, cand + ":4: corrupt snapshot_chunk record: field 'data' is not "
                            "valid base64");
}

//===----------------------------------------------------------------------===//
// Outputs within a launch pair
//===----------------------------------------------------------------------===//

Snap named(uint32_t arg, const std::string &name, std::vector<double> values) {
  Snap s = f32(std::move(values));
  s.arg = arg;
  s.name = name;
  return s;
}

TEST_F(DiffTest, SameKernelMatchesOutputsByArgument) {
  Launch r, c;
  r.snaps = {named(0, "a", {1}), named(2, "b", {2})};
  c.snaps = {named(2, "x", {2}), named(0, "y", {1})}; // names differ, args agree
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  ASSERT_EQ(d.launches[0].outputs.size(), 2u);
  EXPECT_EQ(d.launches[0].outputs[0].name, "a");
  EXPECT_EQ(d.launches[0].outputs[1].arg, 2u);
}

TEST_F(DiffTest, OtherKernelMatchesOutputsByNameThenPosition) {
  Launch r, c;
  r.kernel = "ref(float*, float*)";
  r.mangled = "_Z3refPfS_";
  r.snaps = {named(0, "a", {1}), named(1, "b", {2})};
  c.snaps = {named(5, "b", {2}), named(3, "a", {1})};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(d.notes.size(), 1u); // the launches paired in order

  c.snaps = {named(5, "q", {1}), named(3, "p", {2})};
  d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[1], "REF launch #1 (ref(float*, float*)) and CAND launch #1 "
                        "(k(float*)): no output name is common to both; outputs "
                        "are paired in order");
}

TEST_F(DiffTest, OutputsThatCannotBeCompared) {
  Launch r, c;
  Snap half = named(1, "h", {1});
  half.dtype = DType::F16;
  r.snaps = {named(0, "a", {1, 2}), named(1, "h", {1}), named(2, "gone", {1})};
  c.snaps = {named(0, "a", {1, 2, 3}), half};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Different);
  const auto &outs = d.launches[0].outputs;
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0].problem, "its sizes differ: REF 2 elements, CAND 3");
  EXPECT_EQ(outs[1].problem, "its element types differ: REF f32, CAND f16");
  EXPECT_EQ(outs[2].problem, "CAND launch #1 (k(float*)) has no snapshot of it");
  for (const OutputDiff &o : outs)
    EXPECT_FALSE(o.equivalent);
}

TEST_F(DiffTest, ModifiedInputs) {
  Launch r, c;
  r.snaps = {named(0, "out", {1})};
  Snap in = named(1, "in", {5});
  in.sites = {"k.cu:7:3"};
  c.snaps = {named(0, "out", {1}), in};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Different);
  ASSERT_EQ(d.launches[0].modified_inputs.size(), 1u);
  const ModifiedInput &m = d.launches[0].modified_inputs[0];
  EXPECT_EQ(m.arg, 1u);
  EXPECT_EQ(m.name, "in");
  EXPECT_TRUE(m.changed); // no hashes: assumed changed
  EXPECT_EQ(m.store_sites, std::vector<std::string>{"k.cu:7:3"});
  EXPECT_TRUE(d.launches[0].outputs[0].equivalent);

  in.pre_hash = in.post_hash = 0x1234;
  c.snaps = {named(0, "out", {1}), in};
  d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_FALSE(d.launches[0].modified_inputs.at(0).changed);
  EXPECT_EQ(d.verdict, Verdict::Different); // written all the same
  in.post_hash = 0x5678;
  c.snaps = {named(0, "out", {1}), in};
  d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_TRUE(d.launches[0].modified_inputs.at(0).changed);
}

TEST_F(DiffTest, CandidateOutOfBoundsIsDifferent) {
  Launch r = kernelLaunch(1, "k", 1), c = kernelLaunch(1, "k", 1);
  c.oob = {oobAt(1, "k.cu", 12, 9)};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  EXPECT_EQ(d.verdict, Verdict::Different);
  EXPECT_TRUE(d.launches[0].outputs[0].equivalent);
  EXPECT_FALSE(d.launches[0].equivalent);
  ASSERT_EQ(d.launches[0].cand_oob.size(), 1u);
  EXPECT_EQ(d.launches[0].cand_oob[0].site.line, 12u);

  // In the reference it is a note.
  d = diffTraces(write("r", {c}), write("c", {r}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(d.launches[0].ref_oob.size(), 1u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "REF launch #1 (k(float*)) made 1 out-of-bounds access site "
                        "fire: the reference itself may be wrong");

  // A launch of the candidate that is not compared counts too.
  Launch helper = kernelLaunch(2, "helper", 0);
  helper.snaps.clear();
  helper.oob = {oobAt(2, "h.cu", 3, 1)};
  d = diffTraces(write("r", {r}), write("c", {r, helper}), {});
  EXPECT_EQ(d.verdict, Verdict::Different);
  EXPECT_EQ(d.other_cand_oob.size(), 1u);
}

//===----------------------------------------------------------------------===//
// Precision records
//===----------------------------------------------------------------------===//

size_t countOf(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

PrecisionRecord storeLosing(double bits, uint32_t launch, uint32_t line,
                            uint32_t module = 0) {
  PrecisionRecord p;
  p.launch_first = p.launch_last = launch;
  p.kind = "store";
  p.op = "fma.rn.f16";
  p.dtype = DType::F16;
  p.site = {"src/k.cu", line, 9, "k(float*)", ""};
  p.site_id = line;
  p.module = module;
  p.count = 100;
  p.max_ulp_err = std::exp2(bits);
  p.bits_lost = bits;
  p.max_rel_err = std::exp2(bits - 11);
  p.worst = {3, 2.9990234375, {1, 0, 0}, {2, 0, 0}, launch};
  // bits of f16 at scale 4 are 13 more bits of fp32 there.
  p.scale = 4;
  p.scaled_bits = bits + 13;
  p.max_abs_err = std::exp2(bits + 13 - 21);
  return p;
}

PrecisionRecord birthAt(uint32_t launch, uint32_t line) {
  PrecisionRecord p;
  p.launch_first = p.launch_last = launch;
  p.kind = "nonfinite";
  p.op = "fdiv";
  p.dtype = DType::F32;
  p.site = {"src/k.cu", line, 5, "k(float*)", ""};
  p.count = p.nans = 2;
  p.worst = {std::numeric_limits<double>::infinity(), 1e39, {0, 0, 0}, {1, 0, 0}, launch};
  return p;
}

TEST_F(DiffTest, PrecisionRecordsOfEachLaunchPerSiteWorstFirst) {
  Launch r = kernelLaunch(1, "k", 1), c = kernelLaunch(1, "k", 2);
  r.precision = {storeLosing(1, 1, 10)};
  // Two collections of one site, a worse site, and one of another launch.
  c.precision = {storeLosing(3, 1, 12), storeLosing(9, 1, 13), storeLosing(4, 1, 12),
                 storeLosing(20, 2, 14)};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  ASSERT_EQ(d.verdict, Verdict::Different) << d.error;
  const LaunchDiff &l = d.launches[0];
  ASSERT_EQ(l.cand_precision.size(), 2u);
  EXPECT_EQ(l.cand_precision[0].site.line, 13u);
  EXPECT_EQ(l.cand_precision[1].site.line, 12u);
  EXPECT_EQ(l.cand_precision[1].count, 200u);
  EXPECT_EQ(l.cand_precision[1].bits_lost, 4);
  ASSERT_EQ(l.ref_precision.size(), 1u);
  EXPECT_EQ(l.ref_precision[0].site.line, 10u);

  // A collection that spans launches 1 to 3 covers launch 1, as far as its
  // module matches the launch's.
  Launch c2 = kernelLaunch(1, "k", 2);
  c2.module = 2;
  PrecisionRecord span = storeLosing(5, 1, 20, 2);
  span.launch_last = 3;
  PrecisionRecord otherModule = storeLosing(7, 1, 21, 3);
  c2.precision = {span, otherModule};
  d = diffTraces(write("r", {r}), write("c", {c2}), {});
  ASSERT_EQ(d.launches[0].cand_precision.size(), 1u);
  EXPECT_EQ(d.launches[0].cand_precision[0].site.line, 20u);

  // Precision within the allowance does not change the verdict (14.5 bits
  // of fp32 in an f16 store, allowed 15)...
  Launch same = kernelLaunch(1, "k", 1);
  same.precision = {storeLosing(1.5, 1, 12)};
  d = diffTraces(write("r", {r}), write("c", {same}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(d.launches[0].cand_precision.size(), 1u);
  EXPECT_TRUE(d.launches[0].precision_beyond.empty());
  // ... a finding beyond the reference's (28 bits against its 14) does,
  // with the outputs equal.
  same.precision = {storeLosing(15, 1, 12)};
  d = diffTraces(write("r", {r}), write("c", {same}), {});
  EXPECT_EQ(d.verdict, Verdict::Different);
  ASSERT_EQ(d.launches[0].precision_beyond.size(), 1u);
  EXPECT_EQ(d.launches[0].precision_beyond[0].ref_bits, 14);
  EXPECT_EQ(d.launches[0].precision_beyond[0].cand.site.line, 12u);
  // ... unless the reference loses as much (the same site, one bit less).
  r.precision = {storeLosing(14, 1, 10)};
  d = diffTraces(write("r", {r}), write("c", {same}), {});
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
  // ... and at a threshold above it, it is no finding at all.
  r.precision = {storeLosing(1, 1, 10)};
  DiffOptions high;
  high.precision_threshold = 30;
  d = diffTraces(write("r", {r}), write("c", {same}), high);
  EXPECT_EQ(d.verdict, Verdict::Equivalent);
}

TEST_F(DiffTest, PrecisionExplainsADifferenceInEveryFormat) {
  Launch r = kernelLaunch(1, "k", 1), c = kernelLaunch(1, "k", 1.5);
  r.precision = {storeLosing(0.5, 1, 10)};
  c.precision = {storeLosing(2, 1, 11), storeLosing(9.5, 1, 12), birthAt(1, 13),
                 storeLosing(1, 1, 14)};
  DiffResult d = diffTraces(write("r", {r}), write("c", {c}), {});
  ASSERT_EQ(d.verdict, Verdict::Different) << d.error;

  // Text: CAND's findings beyond REF (a birth REF has none of; 22.5 bits
  // against REF's 13.5), then its three worst sites, NaN/Inf births first.
  EXPECT_EQ(formatDiffText(d),
            "REF #1 k(float*) vs CAND #1 k(float*):\n"
            "  out (f32, 1 element): 1 over tolerance (100.00%), max abs 0.5, max rel "
            "0.5, max 4194304 ULP; worst [i=0]: ref 1 cand 1.5\n"
            "  CAND loses more precision than REF (REF: no NaN/Inf born): src/k.cu:13:5: "
            "NaN/Inf born in fdiv (f32) 2 times from finite operands; first at block 0 "
            "thread 1: inf (fp64 shadow 1e+39)\n"
            "  CAND loses more precision than REF (REF's worst site: 13.5 bits of fp32): "
            "src/k.cu:12:9: f16 store is off by 2^-0.5 of its scale (22.5 bits of fp32 at "
            "scale 4, over the allowance of 15; max rel err 0.35, 9.5 bits of its own ULPs, "
            "over 100 values; worst at block 1 thread 2: 3 vs 2.999)\n"
            "  CAND precision: src/k.cu:13:5: NaN/Inf born in fdiv (f32) 2 times from "
            "finite operands; first at block 0 thread 1: inf (fp64 shadow 1e+39)\n"
            "  CAND precision: src/k.cu:12:9: f16 store is off by 2^-0.5 of its scale "
            "(22.5 bits of fp32 at scale 4, over the allowance of 15; max rel err 0.35, "
            "9.5 bits of its own ULPs, over 100 values; worst at block 1 thread 2: 3 vs "
            "2.999)\n"
            "  CAND precision: src/k.cu:11:9: f16 store is off by 2^-8.0 of its scale "
            "(15.0 bits of fp32 at scale 4, allowance 15; max rel err 0.002, 2.0 bits of "
            "its own ULPs, over 100 values; worst at block 1 thread 2: 3 vs 2.999)\n"
            "kosan-diff: DIFFERENT: 1 of 1 output differs; CAND loses more precision "
            "than REF at 2 sites\n");

  // JSON: every site of each side.
  nlohmann::json j = nlohmann::json::parse(formatDiffJson(d));
  const nlohmann::json &precision = j["launches"][0]["precision"];
  ASSERT_EQ(precision["cand"].size(), 4u);
  EXPECT_EQ(precision["cand"][0]["kind"], "nonfinite");
  EXPECT_EQ(precision["cand"][0]["worst"]["real"], "inf");
  EXPECT_EQ(precision["cand"][1]["site"]["line"], 12);
  EXPECT_EQ(precision["cand"][3]["site"]["line"], 14);
  ASSERT_EQ(precision["ref"].size(), 1u);
  EXPECT_EQ(precision["ref"][0]["bits_lost"], 0.5);

  // SARIF: an error per finding beyond REF, one result per listed site, a
  // warning for findings.
  j = nlohmann::json::parse(formatDiffSarif(d));
  std::vector<std::pair<std::string, int>> found;
  for (const auto &res : j["runs"][0]["results"])
    if (res["ruleId"] == "KOSAN-PRECISION") {
      EXPECT_EQ(res["ruleIndex"], 4);
      found.push_back({res["level"],
                       res["locations"][0]["physicalLocation"]["region"]["startLine"]});
    }
  EXPECT_EQ(found, (std::vector<std::pair<std::string, int>>{
                       {"error", 13}, {"error", 12}, {"warning", 13}, {"warning", 12},
                       {"note", 11}}));
  std::string message = j["runs"][0]["results"][4]["message"]["text"];
  EXPECT_EQ(message.rfind("REF #1 k(float*) vs CAND #1 k(float*): src/k.cu:12:9: f16 "
                          "store is off by 2^-0.5 of its scale",
                          0),
            0u)
      << message;

  // JUnit: in the failure text of the output that differs.
  std::string xml = formatDiffJunit(d);
  EXPECT_NE(xml.find("&#10;CAND precision: src/k.cu:13:5: NaN/Inf born in fdiv"),
            std::string::npos)
      << xml;
  EXPECT_EQ(countOf(xml, "CAND precision: "), 3u);

  // Outputs that match need no explanation: no site listed to explain them,
  // but the findings beyond REF stay, and make the pair different.
  Launch same = kernelLaunch(1, "k", 1);
  same.precision = c.precision;
  d = diffTraces(write("r", {r}), write("c", {same}), {});
  ASSERT_EQ(d.verdict, Verdict::Different);
  EXPECT_EQ(countOf(formatDiffText(d), "CAND precision:"), 0u);
  EXPECT_EQ(countOf(formatDiffText(d), "CAND loses more precision than REF ("), 2u);
  // Without the findings, nothing at all.
  same.precision = {storeLosing(2, 1, 11), storeLosing(1, 1, 14)};
  d = diffTraces(write("r", {r}), write("c", {same}), {});
  ASSERT_EQ(d.verdict, Verdict::Equivalent);
  EXPECT_EQ(countOf(formatDiffText(d), "precision"), 0u);
  EXPECT_EQ(countOf(formatDiffSarif(d), "\"KOSAN-PRECISION\","), 1u); // the rule alone
  EXPECT_EQ(countOf(formatDiffJunit(d), "CAND precision"), 0u);
}

//===----------------------------------------------------------------------===//
// Output formats
//===----------------------------------------------------------------------===//

class DiffFormatTest : public DiffTest {
protected:
  void SetUp() override {
    DiffTest::SetUp();
    Launch r = kernelLaunch(1, "k", 0), c = kernelLaunch(1, "k", 0);
    r.snaps = {named(0, "y", {1, 2, 3, 4}), named(1, "z", {1})};
    Snap y = named(0, "y", {1, 2, 3.5, 4});
    y.sites = {"src/k.cu:12:9"};
    Snap z = named(1, "z", {1});
    Snap in = named(2, "x", {0});
    in.sites = {"/abs/k.cu:20:5"};
    c.snaps = {y, z, in};
    c.oob = {oobAt(1, "src/k.cu", 14, 3)};
    different_ = diffTraces(write("r", {r}), write("c", {c}), {});
    ASSERT_EQ(different_.verdict, Verdict::Different);
    equivalent_ = diffTraces(write("r2", {r}), write("c2", {r}), {});
    ASSERT_EQ(equivalent_.verdict, Verdict::Equivalent);
    trouble_ = diffTraces(dir_ + "/none", write("c3", {r}), {});
    ASSERT_EQ(trouble_.verdict, Verdict::Trouble);
  }
  DiffResult different_, equivalent_, trouble_;
};

TEST_F(DiffFormatTest, Text) {
  EXPECT_EQ(formatDiffText(different_),
            "REF #1 k(float*) vs CAND #1 k(float*):\n"
            "  y (f32, 4 elements): 1 over tolerance (25.00%), max abs 0.5, max rel "
            "0.167, max 2097152 ULP; worst [i=2]: ref 3 cand 3.5; CAND stores to it "
            "at src/k.cu:12:9\n"
            "  z (f32, 1 element): equivalent (atol 0.0001, rtol 0.0001), max abs 0, "
            "max rel 0, max 0 ULP\n"
            "  input x (argument 2): CAND writes it, REF only reads it; its contents "
            "changed; CAND stores to it at /abs/k.cu:20:5\n"
            "  SUMMARY: kosan: global-buffer-overflow src/k.cu:14:3 in k(float*) "
            "(CAND launch #1, WRITE of size 4, 3 times)\n"
            "kosan-diff: DIFFERENT: 1 of 2 outputs differ; CAND writes 1 input REF "
            "only reads; CAND made 1 out-of-bounds access site fire\n");
  EXPECT_EQ(formatDiffVerdict(equivalent_),
            "kosan-diff: EQUIVALENT: 2 outputs within tolerance in 1 launch pair "
            "(5 elements compared)");
  EXPECT_EQ(formatDiffText(trouble_),
            "kosan-diff: TROUBLE: cannot open " + dir_ +
                "/none: No such file or directory\n");
}

TEST_F(DiffFormatTest, Json) {
  nlohmann::json j = nlohmann::json::parse(formatDiffJson(different_));
  EXPECT_EQ(j["format"], "kosan-diff");
  EXPECT_EQ(j["verdict"], "different");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["elements_compared"], 5);
  ASSERT_EQ(j["launches"].size(), 1u);
  const nlohmann::json &l = j["launches"][0];
  EXPECT_EQ(l["ref"]["id"], 1);
  EXPECT_EQ(l["equivalent"], false);
  ASSERT_EQ(l["outputs"].size(), 2u);
  const nlohmann::json &y = l["outputs"][0];
  EXPECT_EQ(y["name"], "y");
  EXPECT_EQ(y["dtype"], "f32");
  EXPECT_EQ(y["count"], 4);
  EXPECT_EQ(y["equivalent"], false);
  EXPECT_EQ(y["stats"]["over_tolerance"], 1);
  EXPECT_EQ(y["stats"]["compared"], 4);
  EXPECT_EQ(y["stats"]["max_abs"], 0.5);
  EXPECT_EQ(y["stats"]["max_ulp"], 2097152);
  EXPECT_EQ(y["stats"]["worst"]["index"], 2);
  EXPECT_EQ(y["stats"]["worst"]["cand"], 3.5);
  EXPECT_EQ(y["tolerance"]["atol"], 1e-4);
  EXPECT_EQ(y["store_sites"][0], "src/k.cu:12:9");
  EXPECT_EQ(l["modified_inputs"][0]["name"], "x");
  EXPECT_EQ(l["modified_inputs"][0]["changed"], true);
  EXPECT_EQ(l["cand_oob"][0]["site"]["line"], 14);
  EXPECT_EQ(l["ref_oob"].size(), 0u);

  j = nlohmann::json::parse(formatDiffJson(trouble_));
  EXPECT_EQ(j["verdict"], "trouble");
  EXPECT_EQ(j["exit_status"], 2);
  EXPECT_EQ(j["error"], "cannot open " + dir_ + "/none: No such file or directory");

  // NaN and Inf, which JSON lacks, are strings.
  DiffResult nan = compare(f32({1}), f32({kNaN}));
  j = nlohmann::json::parse(formatDiffJson(nan));
  EXPECT_EQ(j["launches"][0]["outputs"][0]["stats"]["worst"]["cand"], "nan");
}

TEST_F(DiffFormatTest, Sarif) {
  nlohmann::json j = nlohmann::json::parse(formatDiffSarif(different_));
  EXPECT_EQ(j["version"], "2.1.0");
  EXPECT_EQ(j["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  const nlohmann::json &run = j["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "kosan-diff");
  std::vector<std::string> ruleIds;
  for (const auto &rule : run["tool"]["driver"]["rules"])
    ruleIds.push_back(rule["id"]);
  EXPECT_EQ(ruleIds, (std::vector<std::string>{"KOSAN-OUTPUT-MISMATCH",
                                               "KOSAN-UNWRITTEN-OUTPUT",
                                               "KOSAN-MODIFIED-INPUT", "KOSAN-OOB",
                                               "KOSAN-PRECISION"}));
  const nlohmann::json &results = run["results"];
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["ruleId"], "KOSAN-OUTPUT-MISMATCH");
  EXPECT_EQ(results[0]["level"], "error");
  const nlohmann::json &loc = results[0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/k.cu");
  EXPECT_EQ(loc["region"]["startLine"], 12);
  EXPECT_EQ(loc["region"]["startColumn"], 9);
  EXPECT_EQ(results[1]["ruleId"], "KOSAN-MODIFIED-INPUT");
  EXPECT_EQ(results[1]["ruleIndex"], 2);
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///abs/k.cu");
  EXPECT_EQ(results[2]["ruleId"], "KOSAN-OOB");
  EXPECT_EQ(results[2]["locations"][0]["physicalLocation"]["region"]["startLine"], 14);
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);

  j = nlohmann::json::parse(formatDiffSarif(equivalent_));
  EXPECT_EQ(j["runs"][0]["results"].size(), 0u);
  j = nlohmann::json::parse(formatDiffSarif(trouble_));
  EXPECT_EQ(j["runs"][0]["invocations"][0]["executionSuccessful"], false);
  EXPECT_EQ(j["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"], "error");
}

TEST_F(DiffFormatTest, SarifResultWithoutAKnownSiteHasNoLocations) {
  DiffResult d = compare(f32({1}), f32({2})); // no store sites recorded
  nlohmann::json j = nlohmann::json::parse(formatDiffSarif(d));
  ASSERT_EQ(j["runs"][0]["results"].size(), 1u);
  EXPECT_FALSE(j["runs"][0]["results"][0].contains("locations"));
}

TEST_F(DiffFormatTest, Junit) {
  std::string xml = formatDiffJunit(different_);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  // One test case per output, per modified input, one for OOB and one for
  // precision beyond REF.
  EXPECT_EQ(countOf(xml, "<testcase "), 5u);
  EXPECT_EQ(countOf(xml, "<failure "), 3u);
  EXPECT_EQ(countOf(xml, "<error "), 0u);
  EXPECT_NE(xml.find("<testsuite name=\"kosan-diff\" tests=\"5\" failures=\"3\" errors=\"0\">"),
            std::string::npos);
  EXPECT_EQ(countOf(xml, "<testsuites"), 1u);
  EXPECT_EQ(countOf(xml, "</testsuites>"), 1u);
  // Attribute values are escaped.
  EXPECT_EQ(countOf(xml, "classname=\"REF #1 k(float*) vs CAND #1 k(float*)\""), 5u);

  xml = formatDiffJunit(equivalent_);
  EXPECT_EQ(countOf(xml, "<testcase "), 4u);
  EXPECT_EQ(countOf(xml, "<failure "), 0u);

  xml = formatDiffJunit(trouble_);
  EXPECT_EQ(countOf(xml, "<error message=\"cannot open "), 1u);
  EXPECT_NE(xml.find("tests=\"1\" failures=\"0\" errors=\"1\""), std::string::npos);
}

} // namespace
