//===- report_format_test.cpp - ASan-style reports and trace summaries ----===//
#include "kosan/trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

using namespace kosan;

namespace {

const std::string kRule(65, '=');

LaunchRecord scaleLaunch() {
  LaunchRecord l;
  l.id = 1;
  l.kernel = "scale(float*, float const*, int)";
  l.mangled = "_Z5scalePfPKfi";
  l.module = 1;
  l.grid = {4, 1, 1};
  l.block = {256, 1, 1};
  l.instrumented = true;
  return l;
}

// y = scale(...) writing y[1002] of a 1000-float buffer.
OobEvent scaleOverflow() {
  OobEvent e;
  e.launch = 1;
  e.kind = "global-buffer-overflow";
  e.access = "WRITE";
  e.size = 4;
  e.count = 32;
  e.site = {"examples/scale.cu", 12, 9, "scale(float*, float const*, int)", ""};
  e.block = {3, 0, 0};
  e.thread = {255, 0, 0};
  e.address = 0x7f0000000fa8;
  e.buffer_name = "y";
  e.buffer_begin = 0x7f0000000000;
  e.buffer_end = 0x7f0000000fa0;
  e.allocated_at = "examples/scale.cu:30";
  e.space = "global";
  return e;
}

TEST(FormatOobReport, OverflowPastTheEnd) {
  LaunchRecord launch = scaleLaunch();
  EXPECT_EQ(formatOobReport(scaleOverflow(), &launch, 4242),
            kRule + "\n"
            "==4242==ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'scale(float*, float const*, int)' at examples/scale.cu:12:9\n"
            "    first by block (3,0,0) thread (255,0,0); this site fired 32 times in launch #1 (grid (4,1,1) block (256,1,1))\n"
            "    address 0x7f0000000fa8 is 8 bytes after the 4000-byte buffer 'y' [0x7f0000000000,0x7f0000000fa0)\n"
            "    'y' was allocated at examples/scale.cu:30\n"
            "SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12:9 in scale(float*, float const*, int)\n");
}

// x[i - 1] with i == 0.
TEST(FormatOobReport, NegativeIndexIsBeforeTheBuffer) {
  OobEvent e = scaleOverflow();
  e.access = "READ";
  e.count = 1;
  e.address = 0x7efffffffffc;
  e.buffer_name = "x";
  e.allocated_at = "";
  LaunchRecord launch = scaleLaunch();
  EXPECT_EQ(formatOobReport(e, &launch, 4242),
            kRule + "\n"
            "==4242==ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'scale(float*, float const*, int)' at examples/scale.cu:12:9\n"
            "    first by block (3,0,0) thread (255,0,0); this site fired 1 time in launch #1 (grid (4,1,1) block (256,1,1))\n"
            "    address 0x7efffffffffc is 4 bytes before the 4000-byte buffer 'x' [0x7f0000000000,0x7f0000000fa0)\n"
            "SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12:9 in scale(float*, float const*, int)\n");
}

// A 100 x 10 float matrix from cudaMallocPitch: rows of 400 bytes, pitch 512;
// m[3][101] lands in the padding of row 3.
TEST(FormatOobReport, PitchedRow) {
  OobEvent e = scaleOverflow();
  e.buffer_name = "m";
  e.buffer_begin = 0x7f0000000000;
  e.buffer_end = 0x7f0000000000 + 512 * 10;
  e.pitch = 512;
  e.row_bytes = 400;
  e.address = 0x7f0000000000 + 3 * 512 + 404;
  e.allocated_at = "examples/matrix.cu:51";
  EXPECT_EQ(formatOobReport(e, nullptr, 7),
            kRule + "\n"
            "==7==ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel 'scale(float*, float const*, int)' at examples/scale.cu:12:9\n"
            "    first by block (3,0,0) thread (255,0,0); this site fired 32 times in launch #1\n"
            "    address 0x7f0000000794 is 4 bytes past the end of row 3 (row width 400 bytes, pitch 512) of the buffer 'm' [0x7f0000000000,0x7f0000001400)\n"
            "    'm' was allocated at examples/matrix.cu:51\n"
            "SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12:9 in scale(float*, float const*, int)\n");
}

// The end of a pitched buffer is not known on the device.
TEST(FormatOobReport, PitchedRowWithoutEnd) {
  OobEvent e = scaleOverflow();
  e.buffer_name = "m";
  e.buffer_end = 0;
  e.pitch = 512;
  e.row_bytes = 400;
  e.address = 0x7f0000000000 + 9 * 512 + 400;
  std::string report = formatOobReport(e, nullptr, 7);
  EXPECT_NE(report.find("    address 0x7f0000001390 is 0 bytes past the end of row 9 "
                        "(row width 400 bytes, pitch 512) of the buffer 'm' "
                        "[0x7f0000000000,?)\n"),
            std::string::npos)
      << report;
}

// Without the row width either, only the offset can be told.
TEST(FormatOobReport, BufferWithoutEnd) {
  OobEvent e = scaleOverflow();
  e.buffer_end = 0;
  e.pitch = 512;
  std::string report = formatOobReport(e, nullptr, 7);
  EXPECT_NE(report.find("    address 0x7f0000000fa8 is 4008 bytes past the start "
                        "of the buffer 'y' [0x7f0000000000,?)\n"),
            std::string::npos)
      << report;
}

TEST(FormatOobReport, UnknownBuffer) {
  OobEvent e = scaleOverflow();
  e.buffer_name = "";
  e.buffer_begin = e.buffer_end = 0;
  e.allocated_at = "";
  e.address = 0xdeadbeef;
  e.space = "unknown";
  std::string report = formatOobReport(e, nullptr, 4242);
  EXPECT_NE(report.find("\n    address 0xdeadbeef is not inside any known buffer\n"
                        "SUMMARY: "),
            std::string::npos)
      << report;
}

TEST(FormatOobReport, InlinedSite) {
  OobEvent e = scaleOverflow();
  e.site = {"include/helpers.cuh", 5, 3, "store(float*, int, float)",
            "examples/scale.cu:12"};
  LaunchRecord launch = scaleLaunch();
  std::string report = formatOobReport(e, &launch, 4242);
  EXPECT_NE(report.find("==4242==ERROR: kosan: global-buffer-overflow: WRITE of "
                        "size 4 in kernel 'scale(float*, float const*, int)' at "
                        "include/helpers.cuh:5:3\n"
                        "    (inlined into examples/scale.cu:12)\n"
                        "    first by block"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\nSUMMARY: kosan: global-buffer-overflow "
                        "include/helpers.cuh:5:3 in store(float*, int, float)\n"),
            std::string::npos)
      << report;
}

TEST(FormatOobReport, NoLineInformation) {
  OobEvent e = scaleOverflow();
  e.site.file = "";
  e.site.line = e.site.column = 0;
  LaunchRecord launch = scaleLaunch();
  std::string report = formatOobReport(e, &launch, 4242);
  EXPECT_NE(report.find(" in kernel 'scale(float*, float const*, int)' at "
                        "scale(float*, float const*, int) (no line information)\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(formatOobSummary(e), "SUMMARY: kosan: global-buffer-overflow in "
                                 "scale(float*, float const*, int)");
}

// A misaligned access that starts inside the buffer and ends outside it.
TEST(FormatOobReport, AccessStraddlingTheEnd) {
  OobEvent e = scaleOverflow();
  e.size = 16;
  e.address = 0x7f0000000f98;
  std::string report = formatOobReport(e, nullptr, 1);
  EXPECT_NE(report.find("    address 0x7f0000000f98 is 8 bytes before the end of "
                        "the 4000-byte buffer 'y' [0x7f0000000000,0x7f0000000fa0); "
                        "the 16-byte access overruns it by 8 bytes\n"),
            std::string::npos)
      << report;
}

// A float4 load 8 bytes past a 16-byte boundary, inside its buffer.
// checks=race: a read of sdata[t + 128] that found thread 133's write of
// the same element in the same barrier interval.
TEST(FormatOobReport, DataRace) {
  LaunchRecord launch = scaleLaunch();
  launch.kernel = "block_sum(float*)";
  OobEvent e;
  e.launch = 1;
  e.kind = "data-race";
  e.access = "READ";
  e.size = 4;
  e.count = 96;
  e.site = {"reduce.cu", 27, 19, "block_sum(float*)", ""};
  e.block = {3, 0, 0};
  e.thread = {5, 0, 0};
  e.address = 1556;
  e.buffer_name = "block_sum(float*)::sdata";
  e.space = "shared";
  e.conflict = "WRITE of size 4 at reduce.cu:22:12 in block_sum(float*) by thread (133,0,0)";
  EXPECT_EQ(formatOobReport(e, &launch, 7),
            kRule + "\n"
            "==7==ERROR: kosan: data-race: READ of size 4 in kernel 'block_sum(float*)' at reduce.cu:27:19\n"
            "    first by block (3,0,0) thread (5,0,0); this site fired 96 times in launch #1 (grid (4,1,1) block (256,1,1))\n"
            "    conflicts with the WRITE of size 4 at reduce.cu:22:12 in block_sum(float*) by thread (133,0,0), "
            "with no barrier between them (__syncthreads(), or __syncwarp() within a warp)\n"
            "    at offset 1556 of the block's shared memory, in 'block_sum(float*)::sdata'\n"
            "SUMMARY: kosan: data-race reduce.cu:27:19 in block_sum(float*)\n");
}

TEST(FormatOobReport, MisalignedAccess) {
  OobEvent e = scaleOverflow();
  e.kind = "misaligned-access";
  e.access = "READ";
  e.size = 16;
  e.address = 0x7f0000000ff8 - 0x100;
  std::string report = formatOobReport(e, nullptr, 1);
  EXPECT_NE(report.find("ERROR: kosan: misaligned-access: READ of size 16 in "), std::string::npos)
      << report;
  EXPECT_NE(report.find("    address 0x7f0000000ef8 is inside the 4000-byte buffer 'y' "
                        "[0x7f0000000000,0x7f0000000fa0)\n"
                        "    the address is not 16-byte aligned (8 bytes past a boundary): "
                        "the GPU faults on a 16-byte access there; kosan dropped it\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(formatOobSummary(e).rfind("SUMMARY: kosan: misaligned-access ", 0), 0u);
}

TEST(FormatOobReport, PidZeroPrintsNoPid) {
  std::string report = formatOobReport(scaleOverflow(), nullptr, 0);
  EXPECT_EQ(report.substr(kRule.size() + 1, 22), "==ERROR: kosan: global");
}

TEST(FormatOobSummary, MatchesAsanLayout) {
  EXPECT_EQ(formatOobSummary(scaleOverflow()),
            "SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12:9 in "
            "scale(float*, float const*, int)");
  OobEvent e = scaleOverflow();
  e.site.column = 0;
  e.site.function = "";
  EXPECT_EQ(formatOobSummary(e),
            "SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12");
}

Trace sampleTrace() {
  Trace t;
  t.header.kosan_version = "0.1.0";
  t.header.pid = 4242;
  t.header.argv = {"./scale", "--n", "1000", "two words"};
  t.header.start_time = "2024-05-01T12:00:00Z";
  t.header.options = {{"halt_on_error", "0"}};
  t.header.gpu_name = "NVIDIA H200";
  t.header.gpu_arch = "sm_90";
  t.header.driver_version = 12040;
  t.header.runtime_version = 12020;
  t.modules.push_back({1, "examples/scale.cu", "Debian clang version 19.1.7",
                       "fp-contract=fast", 3});
  t.launches.push_back(scaleLaunch());
  LaunchRecord plain = scaleLaunch();
  plain.id = 2;
  plain.instrumented = false;
  plain.shared_bytes = 49152;
  t.launches.push_back(plain);
  t.oob.push_back(scaleOverflow());
  OobEvent before = scaleOverflow();
  before.count = 1;
  before.address = 0x7efffffffffc;
  t.oob.push_back(before);
  return t;
}

TEST(FormatTraceText, HeaderLaunchTableReportsAndSummary) {
  Trace t = sampleTrace();
  t.end = TraceEnd{2, 33, 2, 5, 0};
  std::string text = formatTraceText(t);
  EXPECT_EQ(text.substr(0, text.find(kRule)),
            "program: ./scale --n 1000 'two words'\n"
            "pid: 4242\n"
            "started: 2024-05-01T12:00:00Z\n"
            "kosan version: 0.1.0\n"
            "GPU: NVIDIA H200 (sm_90), CUDA driver 12.4, runtime 12.2\n"
            "options: halt_on_error=0\n"
            "modules:\n"
            "  #1 examples/scale.cu (Debian clang version 19.1.7; fp-contract=fast; 3 sites)\n"
            "launches:\n"
            "  id  grid     block      shared  instrumented  kernel\n"
            "   1  (4,1,1)  (256,1,1)       0  yes           scale(float*, float const*, int)\n"
            "   2  (4,1,1)  (256,1,1)   49152  no            scale(float*, float const*, int)\n");
  LaunchRecord launch = scaleLaunch();
  EXPECT_NE(text.find(formatOobReport(t.oob[0], &launch, 4242) +
                      formatOobReport(t.oob[1], &launch, 4242)),
            std::string::npos);
  EXPECT_NE(text.find("SUMMARY: kosan: global-buffer-overflow examples/scale.cu:12:9 in "
                      "scale(float*, float const*, int)\n"
                      "kosan: 33 errors (2 reports) in 2 launches\n"
                      "note: 1 launch ran without instrumentation and was not checked\n"
                      "note: 5 events were dropped because the device log was full "
                      "(raise log_capacity); the counts above are lower bounds\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("did not exit normally"), std::string::npos);
}

TEST(FormatTraceText, MissingEndRecordIsExplained) {
  Trace t = sampleTrace();
  t.warnings.push_back("t.trace:9: skipped a record of unknown type 'race'");
  std::string text = formatTraceText(t);
  EXPECT_NE(text.find("note: the process did not exit normally; the trace holds "
                      "every launch it recorded\n"
                      "warning: t.trace:9: skipped a record of unknown type 'race'\n"),
            std::string::npos)
      << text;
}

TEST(FormatTraceText, CleanTrace) {
  Trace t;
  t.header.pid = 1;
  t.end = TraceEnd{};
  std::string text = formatTraceText(t);
  EXPECT_NE(text.find("\noptions: (defaults)\nmodules: none\nlaunches: none\n"
                      "kosan: 0 errors (0 reports) in 0 launches\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(kRule), std::string::npos);
}

TEST(FormatTraceText, UnresolvedArgumentsAreNoted) {
  Trace t;
  t.end = TraceEnd{0, 0, 0, 0, 1};
  EXPECT_NE(formatTraceText(t).find(
                "note: 1 kernel pointer argument pointed into no known "
                "buffer; accesses through it were not bounds-checked\n"),
            std::string::npos);
  t.end = TraceEnd{0, 0, 0, 0, 3};
  EXPECT_NE(formatTraceText(t).find("note: 3 kernel pointer arguments pointed"),
            std::string::npos);
}

TEST(FormatTraceJson, ParsesBackWithCounts) {
  Trace t = sampleTrace();
  t.warnings.push_back("w");
  nlohmann::json doc = nlohmann::json::parse(formatTraceJson(t));
  EXPECT_EQ(doc["header"]["format"], "kosan-trace");
  EXPECT_EQ(doc["header"]["pid"], 4242);
  EXPECT_EQ(doc["header"]["argv"][3], "two words");
  EXPECT_EQ(doc["modules"].size(), 1u);
  EXPECT_EQ(doc["launches"].size(), 2u);
  EXPECT_EQ(doc["launches"][1]["instrumented"], false);
  EXPECT_EQ(doc["launches"][0]["grid"], nlohmann::json::array({4, 1, 1}));
  ASSERT_EQ(doc["oob"].size(), 2u);
  EXPECT_EQ(doc["oob"][0]["address"], "0x7f0000000fa8");
  EXPECT_EQ(doc["oob"][0]["site"]["file"], "examples/scale.cu");
  EXPECT_EQ(doc["oob"][0]["count"], 32);
  EXPECT_FALSE(doc["oob"][0].contains("type"));
  EXPECT_TRUE(doc["end"].is_null());
  EXPECT_EQ(doc["warnings"], nlohmann::json::array({"w"}));

  t.end = TraceEnd{2, 33, 2, 0, 0};
  doc = nlohmann::json::parse(formatTraceJson(t));
  EXPECT_EQ(doc["end"]["errors"], 33);
}

TEST(FormatTraceJson, IsPrettyPrinted) {
  std::string json = formatTraceJson(Trace{});
  EXPECT_EQ(json.substr(0, 15), "{\n  \"header\": {");
  EXPECT_EQ(json.back(), '\n');
}

} // namespace
