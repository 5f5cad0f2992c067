//===- precision_record_test.cpp - Precision records, their merging and text ===//
#include "kosan/trace.h"
#include "kosan/precision_verdict.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace kosan;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class PrecisionTraceTest : public test::TempDirTest {
protected:
  std::string writeFile(const std::string &name, const std::string &bytes) {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

// An f16 dot product accumulated in f16, stored at dot.cu:14:23.
PrecisionRecord f16Store() {
  PrecisionRecord p;
  p.launch_first = 1;
  p.launch_last = 1;
  p.kind = "store";
  p.op = "fma.rn.f16";
  p.dtype = DType::F16;
  p.site = {"examples/dot.cu", 14, 23, "dot(__half const*, __half const*, float*, int)", ""};
  p.site_id = 3;
  p.module = 1;
  p.count = 1000;
  p.mean_rel_err = 2e-4;
  p.max_rel_err = 1.1e-3;
  p.max_ulp_err = 891.3;
  p.bits_lost = std::log2(891.3);
  p.hist = {100, 0, 0, 0, 900, 0, 0, 0};
  p.worst = {1024, 1841.203125, {3, 0, 0}, {17, 0, 0}, 1};
  // The worst value stopped growing at 1024 (f16 ULPs of 1 from there on);
  // off by 817.2 at scale 2048: 2^-1.3 of it, 2^21.6 fp32 ULPs there.
  p.max_abs_err = 817.203125;
  p.scale = 2048;
  p.scaled_bits = std::log2(817.203125 / 0x1p-12);
  p.cause = {"op", "fma.rn.f16", DType::F16, DType::Unknown,
             {"examples/dot.cu", 12, 9, "dot(__half const*, __half const*, float*, int)", ""},
             -12};
  return p;
}

PrecisionRecord expBirth() {
  PrecisionRecord p;
  p.launch_first = p.launch_last = 2;
  p.kind = "nonfinite";
  p.op = "ex2.approx.f32";
  p.dtype = DType::F32;
  p.site = {"softmax.cu", 9, 5, "softmax(float const*, float*, int)", ""};
  p.site_id = 1;
  p.module = 1;
  p.count = 37;
  p.nans = 37;
  p.worst = {kInf, 1.2e43, {0, 0, 0}, {5, 0, 0}, 2};
  return p;
}

PrecisionRecord bf16Narrowing() {
  PrecisionRecord p;
  p.launch_first = p.launch_last = 1;
  p.kind = "narrow";
  p.op = "cvt.rn.bf16.f32";
  p.dtype = DType::BF16;
  p.from_dtype = DType::F32;
  p.site = {"round.cu", 20, 7, "roundtrip(float*, int)", "main.cu:40"};
  p.site_id = 2;
  p.module = 2;
  p.count = 1024;
  p.mean_rel_err = 1e-3;
  p.max_rel_err = 3.9e-3;
  p.max_ulp_err = 0.5;
  p.overflows = 12;
  p.underflows = 3;
  p.worst = {1.5078125, 1.505859375, {1, 2, 0}, {5, 0, 0}, 1};
  return p;
}

PrecisionRecord f32Store(double bits, const char *file, uint32_t line) {
  PrecisionRecord p;
  p.launch_first = p.launch_last = 1;
  p.kind = "store";
  p.dtype = DType::F32;
  p.site = {file, line, 3, "k(float*)", ""};
  p.count = 10;
  p.max_ulp_err = std::exp2(bits);
  p.bits_lost = bits;
  p.max_rel_err = std::exp2(bits - 24);
  p.worst = {0.1f, 0.1000000001, {0, 0, 0}, {0, 0, 0}, 1};
  // At scale 1, as many fp32 ULPs as bits says.
  p.scale = 1;
  p.max_abs_err = std::exp2(bits - 23);
  p.scaled_bits = bits < 0 ? 0 : bits;
  return p;
}

void expectSame(const PrecisionRecord &a, const PrecisionRecord &b) {
  EXPECT_EQ(a.launch_first, b.launch_first);
  EXPECT_EQ(a.launch_last, b.launch_last);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.from_dtype, b.from_dtype);
  EXPECT_EQ(a.site.file, b.site.file);
  EXPECT_EQ(a.site.line, b.site.line);
  EXPECT_EQ(a.site.column, b.site.column);
  EXPECT_EQ(a.site.function, b.site.function);
  EXPECT_EQ(a.site.inlined_at, b.site.inlined_at);
  EXPECT_EQ(a.site_id, b.site_id);
  EXPECT_EQ(a.module, b.module);
  EXPECT_EQ(a.count, b.count);
  // Doubles are written with all their digits: they read back exactly.
  auto same = [](double x, double y) {
    return (std::isnan(x) && std::isnan(y)) || x == y;
  };
  EXPECT_TRUE(same(a.mean_rel_err, b.mean_rel_err)) << a.mean_rel_err;
  EXPECT_TRUE(same(a.max_rel_err, b.max_rel_err)) << a.max_rel_err;
  EXPECT_TRUE(same(a.max_ulp_err, b.max_ulp_err)) << a.max_ulp_err;
  EXPECT_TRUE(same(a.bits_lost, b.bits_lost)) << a.bits_lost;
  EXPECT_EQ(a.hist, b.hist);
  EXPECT_EQ(a.overflows, b.overflows);
  EXPECT_EQ(a.underflows, b.underflows);
  EXPECT_EQ(a.nans, b.nans);
  EXPECT_TRUE(same(a.worst.real, b.worst.real)) << a.worst.real;
  EXPECT_TRUE(same(a.worst.shadow, b.worst.shadow)) << a.worst.shadow;
  EXPECT_TRUE(std::signbit(a.worst.real) == std::signbit(b.worst.real));
  EXPECT_EQ(a.worst.block, b.worst.block);
  EXPECT_EQ(a.worst.thread, b.worst.thread);
  EXPECT_EQ(a.worst.launch, b.worst.launch);
}

const char *const kHeaderLine =
    R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1.0","pid":42,"argv":["./a"],"start_time":"","options":{"checks":"oob,precision"},"gpu_name":"","gpu_arch":"","driver_version":0,"runtime_version":0})j"
    "\n";

//===----------------------------------------------------------------------===//
// The record in the trace
//===----------------------------------------------------------------------===//

TEST_F(PrecisionTraceTest, RoundTripsWithInfAndNaN) {
  PrecisionRecord odd = f16Store();
  odd.launch_first = 1;
  odd.launch_last = std::numeric_limits<uint32_t>::max();
  odd.count = std::numeric_limits<uint64_t>::max();
  odd.max_rel_err = kInf;
  odd.max_ulp_err = kInf;
  odd.bits_lost = kInf;
  odd.mean_rel_err = kNaN;
  odd.worst.real = kNaN;
  odd.worst.shadow = -kInf;
  odd.hist = {1, 2, 3, 4, 5, 6, 7, std::numeric_limits<uint64_t>::max()};
  PrecisionRecord negative = f16Store();
  negative.worst.real = -0.0;
  negative.worst.shadow = -1e-300;
  std::vector<PrecisionRecord> records = {f16Store(), expBirth(), bf16Narrowing(),
                                          odd, negative};
  {
    std::string error;
    auto writer = TraceWriter::create(path("t.trace"), &error);
    ASSERT_TRUE(writer) << error;
    writer->write(TraceHeader{});
    for (const PrecisionRecord &p : records)
      writer->write(p);
  }
  ReadResult r = readTrace(path("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.precision.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    expectSame(r.trace.precision[i], records[i]);
  }
}

// What jq users see: the members in order, dtypes by name, JSON's missing
// numbers as strings.
TEST_F(PrecisionTraceTest, LineLayout) {
  PrecisionRecord p = expBirth();
  p.mean_rel_err = kNaN;
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    writer->write(p);
    writer->write(bf16Narrowing());
  }
  std::ifstream in(path("t.trace"));
  std::string birth, narrow;
  std::getline(in, birth);
  std::getline(in, narrow);
  EXPECT_EQ(birth,
            R"j({"type":"precision","launch_first":2,"launch_last":2,"kind":"nonfinite","op":"ex2.approx.f32","dtype":"f32","from_dtype":"","site":{"file":"softmax.cu","line":9,"column":5,"function":"softmax(float const*, float*, int)","inlined_at":""},"site_id":1,"module":1,"count":37,"mean_rel_err":"nan","max_rel_err":0.0,"max_ulp_err":0.0,"bits_lost":0.0,"hist":[0,0,0,0,0,0,0,0],"overflows":0,"underflows":0,"nans":37,"worst":{"real":"inf","shadow":1.2e+43,"block":[0,0,0],"thread":[5,0,0],"launch":2},"max_abs_err":0.0,"scale":0.0,"scaled_bits":0.0})j");
  nlohmann::json j = nlohmann::json::parse(narrow);
  EXPECT_EQ(j["dtype"], "bf16");
  EXPECT_EQ(j["from_dtype"], "f32");
  EXPECT_EQ(j["overflows"], 12);
  EXPECT_EQ(j["site"]["inlined_at"], "main.cu:40");
  EXPECT_FALSE(j.value("to_shared", false)); // written only when true
}

TEST_F(PrecisionTraceTest, ScaleAndCauseRoundTrip) {
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    writer->write(f16Store());
  }
  std::ifstream in(path("t.trace"));
  std::string line;
  std::getline(in, line);
  nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["scale"], 2048.0);
  EXPECT_EQ(j["cause"]["op"], "fma.rn.f16");
  EXPECT_EQ(j["cause"]["local_log2"], -12);
  EXPECT_EQ(j["cause"]["site"]["line"], 12);
  // Read back with a header, every field as written.
  std::string p = writeFile("r.trace", std::string(kHeaderLine) + line + "\n");
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.precision.size(), 1u);
  const PrecisionRecord &back = r.trace.precision[0];
  EXPECT_EQ(back.max_abs_err, 817.203125);
  EXPECT_EQ(back.scaled_bits, f16Store().scaled_bits);
  EXPECT_EQ(back.cause.kind, "op");
  EXPECT_EQ(back.cause.dtype, DType::F16);
  EXPECT_EQ(back.cause.site.column, 9u);
  // A record of an older runtime, without them: the worst value's error at
  // its own magnitude (1024 vs 1841.2: 2^19.7 fp32 ULPs of 1841.2).
  nlohmann::json old = j;
  old.erase("max_abs_err");
  old.erase("scale");
  old.erase("scaled_bits");
  old.erase("cause");
  p = writeFile("old.trace", std::string(kHeaderLine) + old.dump() + "\n");
  r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.precision[0].scale, 1841.203125);
  EXPECT_DOUBLE_EQ(r.trace.precision[0].scaled_bits, std::log2(817.203125 / 0x1p-13));
  EXPECT_EQ(r.trace.precision[0].cause.kind, "");
  // A cause of an unknown kind is named.
  j["cause"]["kind"] = "magic";
  p = writeFile("bad.trace", std::string(kHeaderLine) + j.dump() + "\n");
  r = readTrace(p);
  EXPECT_NE(r.message.find("in 'cause': field 'kind' must be \"narrow\" or \"op\""),
            std::string::npos)
      << r.message;
}

TEST_F(PrecisionTraceTest, CorruptRecordsAreNamed) {
  const std::string good =
      R"j({"type":"precision","launch_first":1,"launch_last":2,"kind":"store","op":"fadd","dtype":"f32","from_dtype":"","site":{"file":"a.cu","line":3,"column":5,"function":"k","inlined_at":""},"site_id":0,"module":1,"count":4,"mean_rel_err":0,"max_rel_err":1e-7,"max_ulp_err":2,"bits_lost":1,"hist":[2,2,0,0,0,0,0,0],"overflows":0,"underflows":0,"nans":0,"worst":{"real":1,"shadow":"inf","block":[0,0,0],"thread":[1,0,0],"launch":2}})j";
  ReadResult ok = readTrace(writeFile("ok.trace", kHeaderLine + good + "\n"));
  ASSERT_EQ(ok.error, TraceError::None) << ok.message;
  ASSERT_EQ(ok.trace.precision.size(), 1u);
  EXPECT_EQ(ok.trace.precision[0].worst.shadow, kInf);
  EXPECT_EQ(ok.trace.precision[0].launch_last, 2u);

  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string line = good;
    size_t at = line.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return line.replace(at, from.size(), to);
  };
  const std::pair<std::string, std::string> cases[] = {
      {replaced(R"j("kind":"store")j", R"j("kind":"load")j"),
       "field 'kind' must be \"store\", \"atomic\", \"narrow\" or \"nonfinite\", not \"load\""},
      {replaced(R"j("dtype":"f32")j", R"j("dtype":"f31")j"),
       "field 'dtype' must be an element type such as \"f32\" (docs/trace-format.md), not \"f31\""},
      {replaced(R"j("from_dtype":"")j", R"j("from_dtype":"x")j"),
       "field 'from_dtype' must be \"\" or an element type such as \"f32\" (docs/trace-format.md), not \"x\""},
      {replaced(R"j("max_rel_err":1e-7)j", R"j("max_rel_err":"big")j"),
       "field 'max_rel_err' must be a number or one of \"inf\", \"-inf\", \"nan\""},
      {replaced(R"j("max_ulp_err":2)j", R"j("max_ulp_err":null)j"),
       "field 'max_ulp_err' must be a number or one of \"inf\", \"-inf\", \"nan\""},
      {replaced(R"j("bits_lost":1)j", R"j("bits_lost":-1)j"),
       "field 'bits_lost' must not be negative"},
      {replaced(R"j("hist":[2,2,0,0,0,0,0,0])j", R"j("hist":[2,2,0])j"),
       "field 'hist' must be an array of 8 unsigned 64-bit integers"},
      {replaced(R"j("hist":[2,2,0,0,0,0,0,0])j", R"j("hist":[2,2,0,0,0,0,0,-1])j"),
       "field 'hist' must be an array of 8 unsigned 64-bit integers"},
      {replaced(R"j("launch_first":1)j", R"j("launch_first":3)j"),
       "field 'launch_first' (3) must not be greater than 'launch_last' (2)"},
      {replaced(R"j("worst":{"real":1,)j", R"j("worst":{"real":"1",)j"),
       "in 'worst': field 'real' must be a number or one of \"inf\", \"-inf\", \"nan\""},
      {replaced(R"j("block":[0,0,0],"thread")j", R"j("block":[0,0],"thread")j"),
       "in 'worst': field 'block' must be an array of 3 unsigned 32-bit integers"},
      {replaced(R"j(,"worst":{"real":1,"shadow":"inf","block":[0,0,0],"thread":[1,0,0],"launch":2})j", ""),
       "missing field 'worst'"},
      {replaced(R"j("worst":{)j", R"j("worst":7,"x":{)j"),
       "field 'worst' must be an object"},
  };
  for (const auto &[line, message] : cases) {
    SCOPED_TRACE(line);
    std::string p = writeFile("t.trace", kHeaderLine + line + "\n");
    ReadResult r = readTrace(p);
    EXPECT_EQ(r.error, TraceError::Corrupt);
    EXPECT_EQ(r.message, p + ":2: corrupt precision record: " + message);
  }
}

//===----------------------------------------------------------------------===//
// Merging collections of one site
//===----------------------------------------------------------------------===//

TEST(MergePrecision, CountsAddMaximaTakeTheLargerMeanFromSums) {
  PrecisionRecord a = f16Store();
  PrecisionRecord b = f16Store();
  b.launch_first = 2;
  b.launch_last = 5;
  b.count = 3000;
  b.mean_rel_err = 6e-4;
  b.max_rel_err = 9e-4;       // smaller
  b.max_ulp_err = 2000;       // larger
  b.bits_lost = std::log2(2000.0);
  // A larger absolute error at a larger scale: the worst value follows it,
  // and the merged site's bits are those of the larger error at the larger
  // scale (1000 at 4096: 2^21 - 0.03 fp32 ULPs there).
  b.max_abs_err = 1000;
  b.scale = 4096;
  b.scaled_bits = scaledBits(1000, 4096);
  b.cause = {};
  b.hist = {0, 1, 2, 3, 4, 5, 6, 7};
  b.overflows = 1;
  b.underflows = 2;
  b.nans = 3;
  b.worst = {7, 6.5, {9, 0, 0}, {1, 2, 3}, 4};

  PrecisionRecord m = a;
  mergePrecision(m, b);
  EXPECT_EQ(m.count, 4000u);
  EXPECT_DOUBLE_EQ(m.mean_rel_err, (2e-4 * 1000 + 6e-4 * 3000) / 4000);
  EXPECT_EQ(m.max_rel_err, 1.1e-3);
  EXPECT_EQ(m.max_ulp_err, 2000);
  EXPECT_EQ(m.bits_lost, std::log2(2000.0));
  EXPECT_EQ(m.hist, (std::array<uint64_t, 8>{100, 1, 2, 3, 904, 5, 6, 7}));
  EXPECT_EQ(m.overflows, 1u);
  EXPECT_EQ(m.underflows, 2u);
  EXPECT_EQ(m.nans, 3u);
  EXPECT_EQ(m.worst.real, 7);
  EXPECT_EQ(m.worst.launch, 4u);
  EXPECT_EQ(m.worst.thread, (Dim3{1, 2, 3}));
  EXPECT_EQ(m.max_abs_err, 1000);
  EXPECT_EQ(m.scale, 4096);
  EXPECT_DOUBLE_EQ(m.scaled_bits, std::log2(1000 / 0x1p-11));
  EXPECT_EQ(m.cause.kind, "");  // the worst value's, which had none
  EXPECT_EQ(m.launch_first, 1u);
  EXPECT_EQ(m.launch_last, 5u);

  // The other way round: the worst stays where the larger error is.
  PrecisionRecord n = b;
  mergePrecision(n, a);
  EXPECT_EQ(n.worst.real, 7);
  EXPECT_EQ(n.max_rel_err, 1.1e-3);
  EXPECT_EQ(n.launch_first, 1u);
  EXPECT_EQ(n.launch_last, 5u);
  EXPECT_EQ(n.count, 4000u);

  // Equal maxima keep the first: for NaN/Inf births, the earliest birth.
  PrecisionRecord first = expBirth(), later = expBirth();
  later.worst.thread = {6, 0, 0};
  later.launch_first = later.launch_last = later.worst.launch = 3;
  mergePrecision(first, later);
  EXPECT_EQ(first.nans, 74u);
  EXPECT_EQ(first.count, 74u);
  EXPECT_EQ(first.worst.thread, (Dim3{5, 0, 0}));
  EXPECT_EQ(first.launch_last, 3u);

  // An empty record adds nothing and keeps the mean.
  PrecisionRecord empty = a;
  empty.count = 0;
  empty.mean_rel_err = 0;
  PrecisionRecord same = a;
  mergePrecision(same, empty);
  EXPECT_EQ(same.count, a.count);
  EXPECT_DOUBLE_EQ(same.mean_rel_err, a.mean_rel_err);
}

TEST(PrecisionBySite, MergesPerSiteAndSortsWorstFirst) {
  PrecisionRecord small = f32Store(0.5, "k.cu", 30);
  PrecisionRecord big = f32Store(12, "k.cu", 31);
  PrecisionRecord bigAgain = big;
  bigAgain.launch_first = bigAgain.launch_last = 2;
  bigAgain.count = 5;
  // An unrolled copy of the same operation: another site id, the same place.
  PrecisionRecord unrolledCopy = f32Store(3, "k.cu", 30);
  unrolledCopy.site_id = 9;
  // Without a location, site ids tell sites apart.
  PrecisionRecord nowhere = f32Store(5, "", 0), nowhereElse = f32Store(4, "", 0);
  nowhere.site_id = 1;
  nowhereElse.site_id = 2;
  std::vector<PrecisionRecord> sites =
      precisionBySite({small, f16Store(), big, bf16Narrowing(), expBirth(), bigAgain,
                       unrolledCopy, nowhere, nowhereElse});
  ASSERT_EQ(sites.size(), 7u);
  // NaN/Inf births first, then narrowings that overflowed, then bits of fp32
  // at the site's scale (the f16 store's 21.7 before the f32 store's 12).
  EXPECT_EQ(sites[0].kind, "nonfinite");
  EXPECT_EQ(sites[1].kind, "narrow");
  EXPECT_EQ(sites[2].site.file, "examples/dot.cu");
  EXPECT_EQ(sites[3].site.line, 31u);
  EXPECT_EQ(sites[3].count, 15u);
  EXPECT_EQ(sites[3].launch_last, 2u);
  EXPECT_EQ(sites[4].site_id, 1u);
  EXPECT_EQ(sites[5].site_id, 2u);
  EXPECT_EQ(sites[6].site.line, 30u);
  EXPECT_EQ(sites[6].count, 20u);
  EXPECT_EQ(sites[6].bits_lost, 3);
  EXPECT_EQ(precisionSeverity(sites[0]), kInf);
  EXPECT_EQ(precisionSeverity(sites[1]), kInf);
  EXPECT_EQ(precisionSeverity(sites[3]), 12);

  // A narrowing that only rounded ranks by its bits lost, like any site.
  PrecisionRecord rounded = bf16Narrowing();
  rounded.overflows = 0;
  rounded.bits_lost = 0;
  EXPECT_EQ(precisionSeverity(rounded), 0);
  EXPECT_TRUE(precisionWorseThan(small, rounded));
  EXPECT_FALSE(precisionWorseThan(rounded, small));
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

TEST(FormatPrecision, OneLinePerKind) {
  // A finding: how far off at its scale, its allowance, and its root cause.
  EXPECT_EQ(formatPrecisionLine(f16Store()),
            "examples/dot.cu:14:23: f16 store is off by 2^-1.3 of its scale (21.7 bits of "
            "fp32 at scale 2e+3, over the allowance of 15; max rel err 0.0011, 9.8 bits of "
            "its own ULPs, over 1000 values; worst at block 3 thread 17: 1024 vs 1841.2); "
            "introduced by accumulation in f16 (fma.rn.f16) at examples/dot.cu:12:9 (each "
            "rounding up to 2^-12)");
  // A threshold above it: no finding, and no cause named.
  EXPECT_EQ(formatPrecisionLine(f16Store(), 30),
            "examples/dot.cu:14:23: f16 store is off by 2^-1.3 of its scale (21.7 bits of "
            "fp32 at scale 2e+3, allowance 30; max rel err 0.0011, 9.8 bits of its own "
            "ULPs, over 1000 values; worst at block 3 thread 17: 1024 vs 1841.2)");
  EXPECT_EQ(formatPrecisionLine(expBirth()),
            "softmax.cu:9:5: NaN/Inf born in ex2.approx.f32 (f32) 37 times from finite "
            "operands; first at block 0 thread 5: inf (fp64 shadow 1.2e+43)");
  EXPECT_EQ(formatPrecisionLine(bf16Narrowing()),
            "round.cu:20:7: f32->bf16 narrowing: max rel err 0.0039 over 1024 values; "
            "worst at block (1,2,0) thread 5: 1.5058594 -> 1.5078125; 12 overflows to "
            "inf, 3 flushed to zero/subnormal, 0 NaNs");
  // Both get the digits it takes to tell them apart (0.1f is 0.10000000149, 9 digits tell it from 0.1000000001).
  EXPECT_EQ(formatPrecisionLine(f32Store(0.5, "k.cu", 30)),
            "k.cu:30:3: f32 store is off by 2^-22.5 of its scale (0.5 bits of fp32 at scale "
            "1, allowance 10; max rel err 8.4e-8, 0.5 bits of its own ULPs, over 10 values; "
            "worst at block 0 thread 0: 0.100000001 vs 0.1)");

  PrecisionRecord atomic = f32Store(20, "k.cu", 8);
  atomic.kind = "atomic";
  atomic.op = "fadd";
  atomic.launch_last = 4;
  atomic.worst.launch = 3;
  atomic.worst.real = 1.5e7f;
  atomic.worst.shadow = 15000003.25;
  atomic.count = 1;
  EXPECT_EQ(formatPrecisionLine(atomic),
            "k.cu:8:3: f32 atomic fadd is off by 2^-3.0 of its scale (20.0 bits of fp32 at "
            "scale 1, over the allowance of 10; max rel err 0.062, 20.0 bits of its own "
            "ULPs, over 1 value; worst in launch #3 at block 0 thread 0: 15000000 vs "
            "15000003)");

  PrecisionRecord lost = f16Store();
  lost.site = {"", 0, 0, "dot", ""};
  lost.bits_lost = kInf;
  lost.max_rel_err = kNaN;
  lost.worst.real = kNaN;
  lost.max_abs_err = kInf;
  lost.scaled_bits = kInf;
  lost.cause = {};
  EXPECT_EQ(formatPrecisionLine(lost),
            "dot (no line information): f16 store is off by all of its scale (all its bits "
            "of fp32 at scale 2e+3, over the allowance of 15; max rel err nan, all its bits "
            "of its own ULPs, over 1000 values; worst at block 3 thread 17: nan vs 1841.2)");
}

TEST(FormatPrecision, Summary) {
  EXPECT_EQ(formatPrecisionSummary({}), "kosan: precision: no values recorded");
  EXPECT_EQ(formatPrecisionSummary(precisionBySite({f16Store(), f32Store(1, "k.cu", 2)})),
            "kosan: precision: 1 finding above the threshold (10 bits of fp32) in 2 sites, "
            "1010 values; worst examples/dot.cu:14 off by 2^-1.3 of its scale (21.7 bits of "
            "fp32)");
  EXPECT_EQ(formatPrecisionSummary(precisionBySite({f16Store(), expBirth()})),
            "kosan: precision: 2 findings above the threshold (10 bits of fp32) in 2 sites, "
            "1000 values; worst softmax.cu:9: NaN/Inf born 37 times");
  EXPECT_EQ(formatPrecisionSummary(precisionBySite({f16Store(), bf16Narrowing()})),
            "kosan: precision: 2 findings above the threshold (10 bits of fp32) in 2 sites, "
            "2024 values; worst round.cu:20: 12 overflows to inf and 0 NaNs in narrowing");
  EXPECT_EQ(formatPrecisionSummary({f32Store(0, "k.cu", 2)}),
            "kosan: precision: 0 findings above the threshold (10 bits of fp32) in 1 site, 10 "
            "values; worst k.cu:2 off by 2^-23.0 of its scale (0.0 bits of fp32)");
}

Trace traceWith(std::vector<PrecisionRecord> records) {
  Trace t;
  t.header.pid = 42;
  t.header.options = {{"checks", "oob,precision"}};
  LaunchRecord l;
  l.id = 1;
  l.kernel = "k";
  l.instrumented = true;
  t.launches = {l};
  t.precision = std::move(records);
  t.end = TraceEnd{};
  return t;
}

size_t countOfLines(const std::string &text, const std::string &line) {
  size_t n = 0;
  for (size_t at = text.find(line + "\n"); at != std::string::npos;
       at = text.find(line + "\n", at + 1))
    n += at == 0 || text[at - 1] == '\n';
  return n;
}

std::string afterLaunches(const std::string &text) {
  return text.substr(text.find("kosan: 0 errors"));
}

TEST(FormatTraceText, PrecisionSitesWorstFirst) {
  PrecisionRecord again = f16Store();
  again.launch_first = again.launch_last = 2;
  again.count = 24;
  Trace t = traceWith({f32Store(0.5, "k.cu", 30), f16Store(), again, expBirth()});
  // The findings, worst first; the f32 store within its allowance is counted.
  EXPECT_EQ(afterLaunches(formatTraceText(t)),
            "kosan: 0 errors (0 reports) in 1 launch\n"
            "softmax.cu:9:5: NaN/Inf born in ex2.approx.f32 (f32) 37 times from finite "
            "operands; first at block 0 thread 5: inf (fp64 shadow 1.2e+43)\n"
            "examples/dot.cu:14:23: f16 store is off by 2^-1.3 of its scale (21.7 bits of "
            "fp32 at scale 2e+3, over the allowance of 15; max rel err 0.0011, 9.8 bits of "
            "its own ULPs, over 1024 values; worst in launch #1 at block 3 thread 17: 1024 vs "
            "1841.2); introduced by accumulation in f16 (fma.rn.f16) at examples/dot.cu:12:9 "
            "(each rounding up to 2^-12)\n"
            "kosan: precision: 2 findings above the threshold (10 bits of fp32) in 3 sites, "
            "1034 values; worst softmax.cu:9: NaN/Inf born 37 times\n"
            "note: 1 precision site stays within its allowance and is not listed "
            "(--all-sites lists them)\n");

  // Every site, less those below --min-bits.
  ReportOptions all;
  all.all_precision_sites = true;
  all.min_bits = 0.25;
  EXPECT_EQ(afterLaunches(formatTraceText(t, all)),
            "kosan: 0 errors (0 reports) in 1 launch\n"
            "softmax.cu:9:5: NaN/Inf born in ex2.approx.f32 (f32) 37 times from finite "
            "operands; first at block 0 thread 5: inf (fp64 shadow 1.2e+43)\n"
            "examples/dot.cu:14:23: f16 store is off by 2^-1.3 of its scale (21.7 bits of "
            "fp32 at scale 2e+3, over the allowance of 15; max rel err 0.0011, 9.8 bits of "
            "its own ULPs, over 1024 values; worst in launch #1 at block 3 thread 17: 1024 vs "
            "1841.2); introduced by accumulation in f16 (fma.rn.f16) at examples/dot.cu:12:9 "
            "(each rounding up to 2^-12)\n"
            "k.cu:30:3: f32 store is off by 2^-22.5 of its scale (0.5 bits of fp32 at scale "
            "1, allowance 10; max rel err 8.4e-8, 0.5 bits of its own ULPs, over 10 values; "
            "worst at block 0 thread 0: 0.100000001 vs 0.1)\n"
            "kosan: precision: 2 findings above the threshold (10 bits of fp32) in 3 sites, "
            "1034 values; worst softmax.cu:9: NaN/Inf born 37 times\n");
  all.min_bits = 6;
  EXPECT_EQ(countOfLines(formatTraceText(t, all), "note: 1 precision site loses fewer than 6 "
                                                  "bits and is not listed (--min-bits)"),
            1u);
}

TEST(FormatTraceText, PrecisionOnWithNothingRecorded) {
  Trace t = traceWith({});
  EXPECT_EQ(afterLaunches(formatTraceText(t)),
            "kosan: 0 errors (0 reports) in 1 launch\n"
            "kosan: precision: no values recorded\n");
  // Without the precision check there is no precision section at all.
  t.header.options = {{"checks", "oob"}};
  EXPECT_EQ(afterLaunches(formatTraceText(t)), "kosan: 0 errors (0 reports) in 1 launch\n");
}

TEST(FormatTraceJson, PrecisionRecordsAndSites) {
  PrecisionRecord again = f16Store();
  again.launch_first = again.launch_last = 2;
  Trace t = traceWith({f32Store(0.5, "k.cu", 30), f16Store(), again, expBirth()});
  nlohmann::json j = nlohmann::json::parse(formatTraceJson(t));
  ASSERT_EQ(j["precision"].size(), 4u);
  EXPECT_EQ(j["precision"][1]["site"]["line"], 14);
  ASSERT_EQ(j["precision_sites"].size(), 3u);
  EXPECT_EQ(j["precision_sites"][0]["kind"], "nonfinite");
  EXPECT_EQ(j["precision_sites"][0]["worst"]["real"], "inf");
  EXPECT_EQ(j["precision_sites"][1]["count"], 2000);
  EXPECT_EQ(j["precision_sites"][1]["launch_last"], 2);
  EXPECT_EQ(j["precision_sites"][2]["site"]["line"], 30);

  // Each site says whether it is a finding, against which allowance.
  EXPECT_EQ(j["precision_sites"][1]["finding"], true);
  EXPECT_EQ(j["precision_sites"][1]["allowance"], 15.0);
  EXPECT_EQ(j["precision_sites"][2]["finding"], false);
  EXPECT_EQ(j["precision_sites"][2]["allowance"], 10.0);
  EXPECT_EQ(j["precision_sites"][0]["allowance"], "inf");

  ReportOptions onlyBad;
  onlyBad.min_bits = 22;
  j = nlohmann::json::parse(formatTraceJson(t, onlyBad));
  EXPECT_EQ(j["precision"].size(), 4u);
  ASSERT_EQ(j["precision_sites"].size(), 1u);
  EXPECT_EQ(j["precision_sites"][0]["kind"], "nonfinite");
}

} // namespace
