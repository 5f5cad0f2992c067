//===- precision_verdict_test.cpp - Which precision sites are findings -----===//
#include "kosan/precision.h"
#include "kosan/precision_verdict.h"
#include "kosan/trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kosan;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

PrecisionRecord store(DType t, double maxAbsErr, double scale) {
  PrecisionRecord r;
  r.kind = "store";
  r.dtype = t;
  r.count = 10;
  r.max_abs_err = maxAbsErr;
  r.scale = scale;
  r.scaled_bits = scaledBits(maxAbsErr, scale);
  return r;
}

TEST(PrecisionVerdict, ScaledBitsAreFp32UlpsAtTheScale) {
  // The fp32 ULP at 1 is 2^-23, at 1000 2^-14.
  EXPECT_EQ(scaledBits(0x1p-13, 1), 10);
  EXPECT_EQ(scaledBits(0x1p-4, 1000), 10);
  EXPECT_EQ(scaledBits(0x1p-24, 1), 0); // below one ULP
  EXPECT_EQ(scaledBits(0, 1), 0);
  EXPECT_EQ(scaledBits(kInf, 1), kInf);
  EXPECT_EQ(scaledBits(std::nan(""), 1), kInf);
  // Off by anything at scale 0 (the shadow 0 everywhere): fp32's subnormal
  // ULP, 2^-149.
  EXPECT_DOUBLE_EQ(scaledBits(0x1p-100, 0), 49);
}

TEST(PrecisionVerdict, AllowanceIsTheThresholdOrTwoUlpsOfTheStoredType) {
  EXPECT_EQ(precisionAllowance(store(DType::F32, 0, 1), 10), 10);
  EXPECT_EQ(precisionAllowance(store(DType::F64, 0, 1), 10), 10);
  EXPECT_EQ(precisionAllowance(store(DType::F16, 0, 1), 10), 15);
  EXPECT_EQ(precisionAllowance(store(DType::BF16, 0, 1), 10), 18);
  EXPECT_EQ(precisionAllowance(store(DType::F16, 0, 1), 20), 20);
  PrecisionRecord narrow = store(DType::F16, 0, 1);
  narrow.kind = "narrow";
  EXPECT_EQ(precisionAllowance(narrow, 10), kInf); // rounds by design
  narrow.to_shared = true;
  EXPECT_EQ(precisionAllowance(narrow, 10), 10);   // used again as fp32
}

TEST(PrecisionVerdict, CancellationToNearZeroIsNoFinding) {
  // -2.3e-7 against 2.36e-7 at a site whose values reach 30: the old
  // relative error was 2, here it is 2^-0.3 fp32 ULPs of 30.
  PrecisionRecord r = store(DType::F32, 2.303864e-07 + 2.359553e-07, 30);
  EXPECT_LT(r.scaled_bits, 1);
  EXPECT_FALSE(isPrecisionFinding(r, kDefaultPrecisionThreshold));
  // The same error at a site whose values are all near 1e-6 is one.
  r = store(DType::F32, 2.303864e-07 + 2.359553e-07, 1e-6);
  EXPECT_TRUE(isPrecisionFinding(r, kDefaultPrecisionThreshold));
}

TEST(PrecisionVerdict, FindingsAboveTheAllowance) {
  // f32: 2^10 ULPs at scale 1 is the allowance itself, no finding; twice it is.
  EXPECT_FALSE(isPrecisionFinding(store(DType::F32, 0x1p-13, 1), 10));
  EXPECT_TRUE(isPrecisionFinding(store(DType::F32, 0x1p-12, 1), 10));
  EXPECT_FALSE(isPrecisionFinding(store(DType::F32, 0x1p-12, 1), 11));
  // f16: its own rounding (2^-11 of the scale, 12 bits of fp32) is none;
  // an fp16 accumulator that stalled at half the sum is.
  EXPECT_FALSE(isPrecisionFinding(store(DType::F16, 0x1p-11, 1), 10));
  EXPECT_TRUE(isPrecisionFinding(store(DType::F16, 0.5, 1), 10));
  // Births and failed narrowings always are; narrowings that only rounded
  // are not, unless their value goes through shared memory.
  PrecisionRecord birth;
  birth.kind = "nonfinite";
  birth.nans = 3;
  EXPECT_TRUE(isPrecisionFinding(birth, 60));
  PrecisionRecord narrow = store(DType::F16, 0x1p-12, 1);
  narrow.kind = "narrow";
  EXPECT_FALSE(isPrecisionFinding(narrow, 10));
  narrow.to_shared = true;
  EXPECT_TRUE(isPrecisionFinding(narrow, 10));
  narrow.to_shared = false;
  narrow.overflows = 1;
  EXPECT_TRUE(isPrecisionFinding(narrow, 60));
  // A site that recorded nothing is none.
  PrecisionRecord empty = store(DType::F32, 1, 1);
  empty.count = 0;
  EXPECT_FALSE(isPrecisionFinding(empty, 0));
  EXPECT_EQ(precisionFindings({store(DType::F32, 0x1p-12, 1), empty, birth}, 10).size(), 2u);
}

TEST(PrecisionVerdict, CauseNamesTheKindOfOperation) {
  PrecisionRecord r = store(DType::F32, 1, 1);
  EXPECT_EQ(formatPrecisionCause(r), "");
  r.cause = {"narrow", "cvt.rn.f16.f32", DType::F16, DType::F32, {"judge.cu", 57, 9, "", ""}, -11};
  EXPECT_EQ(formatPrecisionCause(r),
            "introduced by the f32->f16 narrowing at judge.cu:57:9 (each rounding up to 2^-11)");
  r.cause = {"op", "fma.f16", DType::F16, DType::Unknown, {"judge.cu", 57, 5, "", ""}, -12};
  EXPECT_EQ(formatPrecisionCause(r), "introduced by accumulation in f16 (fma.f16) at "
                                     "judge.cu:57:5 (each rounding up to 2^-12)");
  // An f32 subtraction whose local error is far above its own rounding:
  // its operands, rounded to f32, cancelled.
  r.cause = {"op", "fsub", DType::F32, DType::Unknown, {"var.cu", 30, 3, "", ""}, 2};
  EXPECT_EQ(formatPrecisionCause(r),
            "introduced by cancellation in fsub (f32) at var.cu:30:3 (local error 2^2 of its "
            "result: operands that already carried error, subtracted)");
  // An approximation by itself (inside an accurate library function).
  r.cause = {"op", "ex2.approx.ftz.f", DType::F32, DType::Unknown, {"e.cu", 5, 1, "", ""}, -18};
  EXPECT_EQ(formatPrecisionCause(r), "introduced by the fast approximation ex2.approx.ftz.f at "
                                     "e.cu:5:1 (local error up to 2^-18 of its result)");
  // Fast intrinsics, named as called, with the approximation they compile to.
  r.cause = {"op", "__expf (ex2.approx.ftz.f)", DType::F32, DType::Unknown,
             {"e.cu", 5, 1, "", ""}, -18};
  EXPECT_EQ(formatPrecisionCause(r), "introduced by the fast intrinsic __expf (ex2.approx.ftz.f) "
                                     "at e.cu:5:1 (local error up to 2^-18 of its result)");
  r.cause = {"op", "logf (log.f32, afn)", DType::F32, DType::Unknown, {"l.cu", 7, 3, "", ""}, -9};
  EXPECT_EQ(formatPrecisionCause(r), "introduced by the fast intrinsic logf (log.f32, afn) at "
                                     "l.cu:7:3 (local error up to 2^-9 of its result)");
  // An f32 addition within its rounding: named as it is.
  r.cause = {"op", "fadd", DType::F32, DType::Unknown, {"s.cu", 9, 2, "", ""}, -24};
  EXPECT_EQ(formatPrecisionCause(r), "introduced by fadd (f32) at s.cu:9:2 (local error up to "
                                     "2^-24 of its result)");
}

TEST(PrecisionVerdict, BeyondTheReference) {
  PrecisionRecord bad = store(DType::F32, 0x1p-8, 1); // 15 bits
  EXPECT_TRUE(beyondReference(bad, 0, false, 10));
  EXPECT_TRUE(beyondReference(bad, 13.9, false, 10));
  EXPECT_FALSE(beyondReference(bad, 14, false, 10));  // within the margin of 1 bit
  EXPECT_FALSE(beyondReference(bad, 20, false, 10));
  EXPECT_FALSE(beyondReference(bad, 0, false, 16));   // no finding at all
  PrecisionRecord birth;
  birth.kind = "nonfinite";
  birth.nans = 1;
  EXPECT_TRUE(beyondReference(birth, 30, false, 10));
  EXPECT_FALSE(beyondReference(birth, 0, true, 10));  // the reference has births too
}

TEST(PrecisionVerdict, CauseCodesAsThePassComputesThem) {
  // floor(log2(local / |exact|)) + 2048, from exponent fields.
  EXPECT_EQ(prec::causeCode(0, 1), 0u);
  EXPECT_EQ(prec::causeCode(0x1p-11, 1.5), uint32_t(2048 - 11));
  EXPECT_EQ(prec::causeLog2(prec::causeCode(6, 1)), 2);
  // Exponent fields span 0 to 2047: the codes stay in [2, 4095], never 0
  // (none) for a local error that is not 0.
  EXPECT_EQ(prec::causeCode(kInf, 1e-310), 4095u);
  EXPECT_EQ(prec::causeCode(1e-310, 1.7e308), 2u);
}

} // namespace
