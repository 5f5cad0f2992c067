//===- trace_test.cpp - Trace writer and reader ----------------------------===//
#include "kosan/trace.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace kosan;

namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

class TraceTest : public test::TempDirTest {
protected:
  std::string writeFile(const std::string &name, const std::string &bytes) {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

using test::splitLines;

TraceHeader sampleHeader() {
  TraceHeader h;
  h.kosan_version = "0.1.0";
  h.pid = std::numeric_limits<int64_t>::max();
  h.argv = {"./app", "say \"hi\"\nand\tbye", "naïve ☃ 日本語", ""};
  h.start_time = "2024-05-01T12:00:00Z";
  h.options = {{"halt_on_error", "1"}, {"log_path", "/tmp/a b/\"q\".trace"}};
  h.gpu_name = "NVIDIA H200";
  h.gpu_arch = "sm_90";
  h.driver_version = 12040;
  h.runtime_version = -1;
  return h;
}

ModuleRecord sampleModule() {
  ModuleRecord m;
  m.id = kMax32;
  m.source = "examples/scale.cu";
  m.compiler = "Debian clang version 19.1.7 (++20250114)";
  m.fp_mode = "fp-contract=fast";
  m.sites = 17;
  return m;
}

LaunchRecord sampleLaunch() {
  LaunchRecord l;
  l.id = 7;
  l.kernel = "void scale<float>(float*, float const*, int)";
  l.mangled = "_Z5scaleIfEvPT_PKS0_i";
  l.module = kMax32;
  l.grid = {kMax32, 2, 3};
  l.block = {1024, 1, 64};
  l.shared_bytes = kMax64;
  l.stream = 0xfffffffffffffff0;
  l.instrumented = true;
  return l;
}

OobEvent sampleOob() {
  OobEvent e;
  e.launch = 7;
  e.kind = "global-buffer-overflow";
  e.access = "WRITE";
  e.size = 16;
  e.count = kMax64;
  e.site = {"dir with \"quotes\"/k.cu", 12, 9, "scale<float>(float*)",
            "main.cu:40"};
  e.site_id = 3;
  e.block = {kMax32, 0, 1};
  e.thread = {255, kMax32, 0};
  e.address = kMax64 - 7;
  e.buffer_name = "y\n\"ü\"";
  e.buffer_begin = kMax64 - 4095;
  e.buffer_end = kMax64;
  e.pitch = 512;
  e.row_bytes = 400;
  e.allocated_at = "examples/scale.cu:30";
  e.space = "global";
  return e;
}

TraceEnd sampleEnd() { return {kMax64, kMax64 - 1, 3, 4, 5}; }

void expectSameHeader(const TraceHeader &a, const TraceHeader &b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.kosan_version, b.kosan_version);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.argv, b.argv);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.options, b.options);
  EXPECT_EQ(a.gpu_name, b.gpu_name);
  EXPECT_EQ(a.gpu_arch, b.gpu_arch);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.runtime_version, b.runtime_version);
}

void expectSameOob(const OobEvent &a, const OobEvent &b) {
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.access, b.access);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.site.file, b.site.file);
  EXPECT_EQ(a.site.line, b.site.line);
  EXPECT_EQ(a.site.column, b.site.column);
  EXPECT_EQ(a.site.function, b.site.function);
  EXPECT_EQ(a.site.inlined_at, b.site.inlined_at);
  EXPECT_EQ(a.site_id, b.site_id);
  EXPECT_EQ(a.block, b.block);
  EXPECT_EQ(a.thread, b.thread);
  EXPECT_EQ(a.address, b.address);
  EXPECT_EQ(a.buffer_name, b.buffer_name);
  EXPECT_EQ(a.buffer_begin, b.buffer_begin);
  EXPECT_EQ(a.buffer_end, b.buffer_end);
  EXPECT_EQ(a.pitch, b.pitch);
  EXPECT_EQ(a.row_bytes, b.row_bytes);
  EXPECT_EQ(a.allocated_at, b.allocated_at);
  EXPECT_EQ(a.space, b.space);
}

// A small valid trace, one record per line.
const char *const kHeaderLine =
    R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1.0","pid":42,"argv":["./a"],"start_time":"","options":{},"gpu_name":"","gpu_arch":"","driver_version":0,"runtime_version":0})j"
    "\n";
const char *const kModuleLine =
    R"j({"type":"module","id":1,"source":"a.cu","compiler":"clang","fp_mode":"","sites":2})j"
    "\n";
const char *const kLaunchLine =
    R"j({"type":"launch","id":1,"kernel":"k(int*)","mangled":"_Z1kPi","module":1,"grid":[1,1,1],"block":[32,1,1],"shared_bytes":0,"stream":"0x0","instrumented":true})j"
    "\n";
const char *const kOobLine =
    R"j({"type":"oob","launch":1,"kind":"global-buffer-overflow","access":"READ","size":4,"count":1,"site":{"file":"a.cu","line":3,"column":5,"function":"k(int*)","inlined_at":""},"site_id":0,"block":[0,0,0],"thread":[31,0,0],"address":"0x1080","buffer_name":"p","buffer_begin":"0x1000","buffer_end":"0x1080","pitch":0,"row_bytes":0,"allocated_at":"","space":"global"})j"
    "\n";
const char *const kEndLine =
    R"j({"type":"end","launches":1,"errors":1,"reports":1,"dropped":0,"unresolved_accesses":0})j"
    "\n";

std::string validTrace() {
  return std::string(kHeaderLine) + kModuleLine + kLaunchLine + kOobLine +
         kEndLine;
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, RoundTripsEveryRecordType) {
  std::string error;
  auto writer = TraceWriter::create(path("t.trace"), &error);
  ASSERT_TRUE(writer) << error;
  EXPECT_EQ(writer->path(), path("t.trace"));
  LaunchRecord plain = sampleLaunch();
  plain.id = 8;
  plain.instrumented = false;
  plain.stream = 0;
  writer->write(sampleHeader());
  writer->write(sampleModule());
  writer->write(sampleLaunch());
  writer->write(plain);
  writer->write(sampleOob());
  writer->write(sampleEnd());
  writer.reset();

  ReadResult r = readTrace(path("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.message, "");
  expectSameHeader(r.trace.header, sampleHeader());

  ASSERT_EQ(r.trace.modules.size(), 1u);
  const ModuleRecord &m = r.trace.modules[0];
  EXPECT_EQ(m.id, kMax32);
  EXPECT_EQ(m.source, sampleModule().source);
  EXPECT_EQ(m.compiler, sampleModule().compiler);
  EXPECT_EQ(m.fp_mode, sampleModule().fp_mode);
  EXPECT_EQ(m.sites, 17u);

  ASSERT_EQ(r.trace.launches.size(), 2u);
  const LaunchRecord &l = r.trace.launches[0];
  EXPECT_EQ(l.id, 7u);
  EXPECT_EQ(l.kernel, sampleLaunch().kernel);
  EXPECT_EQ(l.mangled, sampleLaunch().mangled);
  EXPECT_EQ(l.module, kMax32);
  EXPECT_EQ(l.grid, (Dim3{kMax32, 2, 3}));
  EXPECT_EQ(l.block, (Dim3{1024, 1, 64}));
  EXPECT_EQ(l.shared_bytes, kMax64);
  EXPECT_EQ(l.stream, 0xfffffffffffffff0u);
  EXPECT_TRUE(l.instrumented);
  EXPECT_EQ(r.trace.launches[1].id, 8u);
  EXPECT_FALSE(r.trace.launches[1].instrumented);
  EXPECT_EQ(r.trace.launches[1].stream, 0u);

  ASSERT_EQ(r.trace.oob.size(), 1u);
  expectSameOob(r.trace.oob[0], sampleOob());

  ASSERT_TRUE(r.trace.end.has_value());
  EXPECT_EQ(r.trace.end->launches, kMax64);
  EXPECT_EQ(r.trace.end->errors, kMax64 - 1);
  EXPECT_EQ(r.trace.end->reports, 3u);
  EXPECT_EQ(r.trace.end->dropped, 4u);
  EXPECT_EQ(r.trace.end->unresolved_accesses, 5u);
  EXPECT_TRUE(r.trace.warnings.empty());
}

// What jq users rely on: one object per line, "type" first, the header
// naming the format, addresses as exact hex strings.
TEST_F(TraceTest, LinesAreSelfContainedJsonObjects) {
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    ASSERT_TRUE(writer);
    writer->write(sampleHeader());
    writer->write(sampleOob());
  }
  std::string text = readFile(path("t.trace"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::vector<std::string> lines = splitLines(text);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind(R"j({"type":"header","format":"kosan-trace","version":2,)j", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind(R"j({"type":"oob",)j", 0), 0u) << lines[1];
  nlohmann::json oob = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(oob["address"], "0xfffffffffffffff8");
  EXPECT_EQ(oob["buffer_end"], "0xffffffffffffffff");
  EXPECT_EQ(oob["block"], nlohmann::json::array({kMax32, 0, 1}));
  EXPECT_EQ(oob["site"]["line"], 12);
}

TEST_F(TraceTest, WriterTruncatesAnExistingFile) {
  writeFile("t.trace", std::string(10000, 'x'));
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    ASSERT_TRUE(writer);
    writer->write(sampleHeader());
  }
  ReadResult r = readTrace(path("t.trace"));
  EXPECT_EQ(r.error, TraceError::None) << r.message;
}

TEST_F(TraceTest, WriterReportsAFileItCannotCreate) {
  std::string error;
  std::string p = path("no/such/dir/t.trace");
  EXPECT_EQ(TraceWriter::create(p, &error), nullptr);
  EXPECT_EQ(error, "cannot create trace " + p + ": No such file or directory");
}

// Program arguments are arbitrary bytes; the writer must neither throw nor
// write a line the reader rejects.
TEST_F(TraceTest, InvalidUtf8IsReplacedNotFatal) {
  TraceHeader h = sampleHeader();
  h.argv = {"./a", "bad\xff\xfe byte"};
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    ASSERT_TRUE(writer);
    writer->write(h);
  }
  ReadResult r = readTrace(path("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.header.argv.size(), 2u);
  EXPECT_EQ(r.trace.header.argv[1], "bad\uFFFD\uFFFD byte");
}

TEST_F(TraceTest, VeryLongLinesRoundTrip) {
  OobEvent e = sampleOob();
  e.buffer_name = std::string(8 << 20, 'n');
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    ASSERT_TRUE(writer);
    writer->write(sampleHeader());
    writer->write(e);
  }
  ReadResult r = readTrace(path("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.oob.size(), 1u);
  EXPECT_EQ(r.trace.oob[0].buffer_name, e.buffer_name);
}

// Records bigger than PIPE_BUF from many threads: without the writer's lock
// and its single write per record, lines would interleave.
TEST_F(TraceTest, ConcurrentWritersProduceOnlyCompleteLines) {
  constexpr int kThreads = 8, kPerThread = 200;
  {
    auto writer = TraceWriter::create(path("t.trace"), nullptr);
    ASSERT_TRUE(writer);
    writer->write(sampleHeader());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&writer, t] {
        OobEvent e = sampleOob();
        e.launch = static_cast<uint32_t>(t);
        e.buffer_name = std::string(6000, static_cast<char>('a' + t));
        for (int i = 0; i < kPerThread; ++i) {
          e.site_id = static_cast<uint32_t>(i);
          writer->write(e);
        }
      });
    for (std::thread &t : threads)
      t.join();
  }
  std::vector<std::string> lines = splitLines(readFile(path("t.trace")));
  ASSERT_EQ(lines.size(), 1u + kThreads * kPerThread);
  for (const std::string &line : lines)
    ASSERT_TRUE(nlohmann::json::accept(line)) << line.substr(0, 200);

  ReadResult r = readTrace(path("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.oob.size(), size_t(kThreads * kPerThread));
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const OobEvent &e : r.trace.oob) {
    EXPECT_EQ(e.buffer_name, std::string(6000, static_cast<char>('a' + e.launch)));
    seen.insert({e.launch, e.site_id});
  }
  EXPECT_EQ(seen.size(), size_t(kThreads * kPerThread));
}

//===----------------------------------------------------------------------===//
// Files that are not (complete) traces
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, MissingFile) {
  std::string p = path("missing.trace");
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::CannotOpen);
  EXPECT_EQ(r.message, "cannot open " + p + ": No such file or directory");
}

TEST_F(TraceTest, Directory) {
  ReadResult r = readTrace(dir_);
  EXPECT_EQ(r.error, TraceError::CannotOpen);
  EXPECT_EQ(r.message, "cannot read " + dir_ + ": Is a directory");
}

TEST_F(TraceTest, EmptyFile) {
  std::string p = writeFile("empty.trace", "");
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Empty);
  EXPECT_EQ(r.message, p + " is empty (the process wrote no trace header)");
}

TEST_F(TraceTest, ForeignFiles) {
  static const char kPngStart[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
  const std::pair<const char *, std::string> cases[] = {
      {"text", "hello world\nsecond line\n"},
      {"text-no-newline", "hello"},
      {"png", std::string(kPngStart, sizeof kPngStart - 1)},
      {"blank-first-line", std::string("\n") + kHeaderLine},
      {"other-json", R"j({"type":"header","format":"chrome-trace","version":1})j" "\n"},
      {"format-not-string", R"j({"format":1})j" "\n"},
      {"json-array", "[1,2,3]\n"},
      {"json-string", "\"kosan-trace\"\n"},
  };
  for (const auto &[name, bytes] : cases) {
    SCOPED_TRACE(name);
    std::string p = writeFile(name, bytes);
    ReadResult r = readTrace(p);
    EXPECT_EQ(r.error, TraceError::Foreign);
    EXPECT_EQ(r.message,
              p + " is not a kosan trace (first line is not a kosan trace header)");
  }
}

TEST_F(TraceTest, NewerVersion) {
  std::string p = writeFile(
      "v3.trace",
      R"j({"type":"header","format":"kosan-trace","version":3,"layout":"new"})j"
      "\n{\"type\":\"frobnicate\"}\n");
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Version);
  EXPECT_EQ(r.message,
            p + " is a version 3 kosan trace; this reader knows versions 1 to 2");
}

TEST_F(TraceTest, CorruptMiddleLineIsNamed) {
  std::string p = writeFile("t.trace", std::string(kHeaderLine) + kModuleLine +
                                           "{\"type\":\"launch\",\"id\":\n" +
                                           kLaunchLine + kEndLine);
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":3: corrupt record: not valid JSON");
  // Everything before the bad line is kept.
  EXPECT_EQ(r.trace.header.pid, 42);
  EXPECT_EQ(r.trace.modules.size(), 1u);
  EXPECT_TRUE(r.trace.launches.empty());
  EXPECT_FALSE(r.trace.end);
}

TEST_F(TraceTest, BinaryGarbageLineIsCorrupt) {
  std::string p = writeFile("t.trace", std::string(kHeaderLine) +
                                           std::string("\0\xff\x89PNG\x01", 7) +
                                           "\n" + kEndLine);
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":2: corrupt record: not valid JSON");
}

TEST_F(TraceTest, TruncatedLastLineKeepsCompleteRecords) {
  std::string oob = kOobLine;
  std::string p = writeFile("t.trace", std::string(kHeaderLine) + kModuleLine +
                                           kLaunchLine + oob.substr(0, 60));
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p + " ends mid-record after 3 complete records (line 4 "
                           "is incomplete); the process likely died while "
                           "writing it");
  EXPECT_EQ(r.trace.modules.size(), 1u);
  ASSERT_EQ(r.trace.launches.size(), 1u);
  EXPECT_EQ(r.trace.launches[0].kernel, "k(int*)");
  EXPECT_TRUE(r.trace.oob.empty());
}

// A process killed at any point leaves a trace that reads as complete up to
// the cut, or as truncated; never as corrupt or foreign.
TEST_F(TraceTest, EveryPrefixOfATraceIsCompleteOrTruncated) {
  std::string full = validTrace();
  for (size_t cut = 1; cut <= full.size(); ++cut) {
    std::string prefix = full.substr(0, cut);
    std::string p = writeFile("t.trace", prefix);
    ReadResult r = readTrace(p);
    // Cutting just the newline leaves a last line that still parses.
    bool wholeRecords = prefix.back() == '\n' || full[cut] == '\n';
    if (wholeRecords)
      ASSERT_EQ(r.error, TraceError::None) << "cut at " << cut << ": " << r.message;
    else
      ASSERT_EQ(r.error, TraceError::Truncated) << "cut at " << cut << ": " << r.message;
  }
}

TEST_F(TraceTest, LastLineWithoutNewlineThatParsesIsAccepted) {
  std::string trace = validTrace();
  trace.pop_back();
  ReadResult r = readTrace(writeFile("t.trace", trace));
  EXPECT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_TRUE(r.trace.end);
}

TEST_F(TraceTest, WrongFieldTypesAreCorruptAndNamed) {
  struct Case {
    const char *line;
    const char *message;
  };
  const Case cases[] = {
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":"4","block":[1,1,1],"shared_bytes":0,"stream":"0x0","instrumented":true})j",
       "corrupt launch record: field 'grid' must be an array of 3 unsigned 32-bit integers"},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0x0","instrumented":true})j",
       "corrupt launch record: field 'grid' must be an array of 3 unsigned 32-bit integers"},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,-1,1],"shared_bytes":0,"stream":"0x0","instrumented":true})j",
       "corrupt launch record: field 'block' must be an array of 3 unsigned 32-bit integers"},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0x0","instrumented":"yes"})j",
       "corrupt launch record: field 'instrumented' must be true or false"},
      {R"j({"type":"launch","id":4294967296,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0x0","instrumented":true})j",
       "corrupt launch record: field 'id' must be an unsigned 32-bit integer"},
      {R"j({"type":"launch","id":1.5,"kernel":"k"})j",
       "corrupt launch record: field 'id' must be an unsigned 32-bit integer"},
      {R"j({"type":"launch","id":1,"kernel":null})j",
       "corrupt launch record: field 'kernel' must be a string"},
      {R"j({"type":"launch","id":1})j",
       "corrupt launch record: missing field 'kernel'"},
      {R"j({"type":"module","id":1,"source":"a.cu","compiler":"c","fp_mode":"","sites":-3})j",
       "corrupt module record: field 'sites' must be an unsigned 32-bit integer"},
      {R"j({"type":"end","launches":1,"errors":1e3,"reports":1,"dropped":0,"unresolved_accesses":0})j",
       "corrupt end record: field 'errors' must be an unsigned 64-bit integer"},
      {R"j({"type":"end","launches":1,"errors":18446744073709551616,"reports":1,"dropped":0,"unresolved_accesses":0})j",
       "corrupt end record: field 'errors' must be an unsigned 64-bit integer"},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":4096,"instrumented":true})j",
       "corrupt launch record: field 'stream' must be a hex string such as \"0x7f00\""},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0x","instrumented":true})j",
       "corrupt launch record: field 'stream' must be a hex string such as \"0x7f00\""},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0x10000000000000000","instrumented":true})j",
       "corrupt launch record: field 'stream' must be a hex string such as \"0x7f00\""},
      {R"j({"type":"launch","id":1,"kernel":"k","mangled":"k","module":1,"grid":[1,1,1],"block":[1,1,1],"shared_bytes":0,"stream":"0xfg","instrumented":true})j",
       "corrupt launch record: field 'stream' must be a hex string such as \"0x7f00\""},
      {R"j({"type":"oob","launch":1,"kind":"k","access":"READ","size":4,"count":1,"site":"a.cu:3"})j",
       "corrupt oob record: field 'site' must be an object"},
      {R"j({"type":"oob","launch":1,"kind":"k","access":"READ","size":4,"count":1,"site":{"file":"a.cu","line":"3"}})j",
       "corrupt oob record: in 'site': field 'line' must be an unsigned 32-bit integer"},
      {R"j({"type":7})j", "corrupt record: field 'type' must be a string"},
      {R"j({"kind":"oob"})j", "corrupt record: field 'type' must be a string"},
      {R"j([{"type":"oob"}])j", "corrupt record: not a JSON object"},
      {R"j({"type":"header","format":"kosan-trace","version":1})j",
       "corrupt header record: only line 1 may hold the header"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.line);
    std::string p = writeFile("t.trace", std::string(kHeaderLine) + c.line +
                                             "\n" + kEndLine);
    ReadResult r = readTrace(p);
    EXPECT_EQ(r.error, TraceError::Corrupt);
    EXPECT_EQ(r.message, p + ":2: " + c.message);
  }
}

TEST_F(TraceTest, CorruptHeaderFields) {
  const std::pair<const char *, const char *> cases[] = {
      {R"j({"type":"header","format":"kosan-trace","version":"1"})j",
       "field 'version' must be a 32-bit integer"},
      {R"j({"type":"header","format":"kosan-trace"})j", "missing field 'version'"},
      {R"j({"type":"module","format":"kosan-trace","version":1})j",
       "field 'type' must be \"header\""},
      {R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1","pid":"42"})j",
       "field 'pid' must be a 64-bit integer"},
      {R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1","pid":42,"argv":"./a"})j",
       "field 'argv' must be an array of strings"},
      {R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1","pid":42,"argv":["./a",1]})j",
       "field 'argv' must be an array of strings"},
      {R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1","pid":42,"argv":[],"start_time":"","options":{"a":1}})j",
       "field 'options' must be an object of strings"},
      {R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"0.1","pid":42,"argv":[],"start_time":"","options":{},"gpu_name":"","gpu_arch":"","driver_version":4294967296})j",
       "field 'driver_version' must be a 32-bit integer"},
  };
  for (const auto &[line, message] : cases) {
    SCOPED_TRACE(line);
    std::string p = writeFile("t.trace", std::string(line) + "\n");
    ReadResult r = readTrace(p);
    EXPECT_EQ(r.error, TraceError::Corrupt);
    EXPECT_EQ(r.message, p + ":1: corrupt header: " + message);
  }
}

TEST_F(TraceTest, UnknownRecordTypesAreSkippedWithAWarning) {
  std::string p = writeFile(
      "t.trace", std::string(kHeaderLine) + kLaunchLine +
                     R"j({"type":"race","launch":1,"detail":{"x":[1,2]}})j" "\n" +
                     kOobLine + "\n" + kEndLine);
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.launches.size(), 1u);
  EXPECT_EQ(r.trace.oob.size(), 1u);
  EXPECT_TRUE(r.trace.end);
  EXPECT_EQ(r.trace.warnings,
            std::vector<std::string>{p + ":3: skipped a record of unknown type 'race'"});
}

TEST_F(TraceTest, UnknownFieldsAreIgnored) {
  std::string launch = kLaunchLine;
  launch.insert(1, R"j("cluster":[2,1,1],)j");
  ReadResult r = readTrace(writeFile("t.trace", kHeaderLine + launch));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.launches.size(), 1u);
}

TEST_F(TraceTest, DeeplyNestedJsonDoesNotCrash) {
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  ReadResult r = readTrace(writeFile("t.trace", kHeaderLine + deep + "\n"));
  EXPECT_EQ(r.error, TraceError::Corrupt);
  r = readTrace(writeFile("u.trace", std::string(kHeaderLine) +
                                         R"j({"type":"x","a":)j" + deep + "}\n"));
  EXPECT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.warnings.size(), 1u);
}

// Random bytes, alone and after a valid header: always an error, never a
// crash or an exception.
TEST_F(TraceTest, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  std::string alphabet = "{}[]\":,0123456789.-+eEtruefalsnxX \n\t\\\xff\x80";
  for (int i = 0; i < 500; ++i) {
    std::string bytes = i % 2 ? std::string(kHeaderLine) : std::string();
    size_t n = 1 + rng() % 300;
    for (size_t k = 0; k < n; ++k)
      bytes += i % 3 ? alphabet[rng() % alphabet.size()]
                     : static_cast<char>(rng() & 0xff);
    bytes += '{';  // no random tail can be a valid record
    ReadResult r = readTrace(writeFile("t.trace", bytes));
    EXPECT_NE(r.error, TraceError::None);
    EXPECT_FALSE(r.message.empty());
  }
}

//===----------------------------------------------------------------------===//
// Operation logs (checks=order-ops)
//===----------------------------------------------------------------------===//

// n operations in ascending order, over three sites.
OrderOpsRecord sampleOps(uint32_t launch, size_t n) {
  OrderOpsRecord r;
  r.launch = launch;
  r.params = {{0, "x", DType::F32}, {3, "", DType::Unknown}, {kMax32, "y\"q", DType::BF16}};
  r.sites = {{"fadd", "k.cu:14:9"}, {"fma", ""}, {"sqrt.f32", "k.cu:20:3"}};
  for (size_t i = 0; i < n; ++i)
    r.ops.push_back({i * 0x100000001ull, kMax64 - i, 0xfeed0000ull + i, uint32_t(i % 3)});
  return r;
}

void expectSameOps(const OrderOpsRecord &a, const OrderOpsRecord &b) {
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.sites, b.sites);
  EXPECT_EQ(a.ops, b.ops);
}

class OrderOpsTraceTest : public TraceTest {
protected:
  // header, launch, order_ops of 5 operations in 3 parts (2 a part), an
  // empty order_ops of launch 2, order_summary, end: 8 lines.
  std::string writeSample(const std::string &name) {
    std::string p = path(name);
    auto w = TraceWriter::create(p, nullptr);
    w->write(sampleHeader());
    w->write(sampleLaunch());
    w->setOrderPartBytes(64);
    w->write(sampleOps(7, 5));
    w->write(sampleOps(2, 0));
    OrderSummary s;
    s.launch = 7;
    s.stores = 1;
    s.ops = 5;
    s.dropped_ops = kMax64;
    s.order_dependent_locations = 3;
    w->write(s);
    w->write(sampleEnd());
    return p;
  }
  std::string writeLines(const std::string &name, const std::vector<std::string> &lines) {
    std::string text;
    for (const std::string &line : lines)
      text += line + "\n";
    return writeFile(name, text);
  }
};

TEST_F(OrderOpsTraceTest, RoundTripsAcrossParts) {
  ReadResult r = readTrace(writeSample("t.trace"));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.order_ops.size(), 2u);
  expectSameOps(r.trace.order_ops[0], sampleOps(7, 5));
  expectSameOps(r.trace.order_ops[1], sampleOps(2, 0));
  ASSERT_EQ(r.trace.order_summaries.size(), 1u);
  const OrderSummary &s = r.trace.order_summaries[0];
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.ops, 5u);
  EXPECT_EQ(s.dropped_ops, kMax64);
  EXPECT_EQ(s.order_dependent_locations, 3u);
  EXPECT_TRUE(r.trace.end);
}

// What scripts see: each part repeats the record's members, with its own
// count; 32 payload bytes per operation.
TEST_F(OrderOpsTraceTest, PartLinesCarryParamsSitesAndTheirOwnCounts) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  ASSERT_EQ(lines.size(), 8u);
  std::vector<uint64_t> counts;
  for (int i = 2; i < 5; ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(lines[i].rfind(R"j({"type":"order_ops","launch":7,"params":[{"arg":0,"name":"x","dtype":"f32"},)j", 0), 0u)
        << lines[i];
    EXPECT_EQ(j["params"][2], nlohmann::json({{"arg", kMax32}, {"name", "y\"q"}, {"dtype", "bf16"}}));
    EXPECT_EQ(j["sites"][1], nlohmann::json({{"op", "fma"}, {"location", ""}}));
    EXPECT_EQ(j["part"], i - 2);
    EXPECT_EQ(j["parts"], 3);
    EXPECT_EQ(j["bytes"], 32 * j["count"].get<uint64_t>());
    EXPECT_EQ(j["encoding"], "zstd+base64");
    counts.push_back(j["count"]);
  }
  EXPECT_EQ(counts, (std::vector<uint64_t>{2, 2, 1}));
  nlohmann::json empty = nlohmann::json::parse(lines[5]);
  EXPECT_EQ(empty["count"], 0);
  EXPECT_EQ(empty["parts"], 1);
  nlohmann::json summary = nlohmann::json::parse(lines[6]);
  EXPECT_EQ(summary["ops"], 5);
  EXPECT_EQ(summary["dropped_ops"], kMax64);
}

// Traces written before checks=order-ops have no ops members.
TEST_F(OrderOpsTraceTest, SummaryWithoutOpsMembersReadsZero) {
  ReadResult r = readTrace(writeLines(
      "t.trace", {std::string(kHeaderLine, std::strlen(kHeaderLine) - 1),
                  R"j({"type":"order_summary","launch":1,"stores":4,"atomics":0,"dropped_stores":0,"dropped_atomics":0,"order_dependent_locations":0})j"}));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.order_summaries.size(), 1u);
  EXPECT_EQ(r.trace.order_summaries[0].stores, 4u);
  EXPECT_EQ(r.trace.order_summaries[0].ops, 0u);
  EXPECT_EQ(r.trace.order_summaries[0].dropped_ops, 0u);
}

TEST_F(OrderOpsTraceTest, MissingLastPartIsATruncatedTrace) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  std::string p = writeLines("cut.trace", {lines.begin(), lines.begin() + 4});
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p + " ends mid-record after 4 complete records (the order_ops record "
                           "that starts on line 3 has 3 parts, 2 of them in the file); the "
                           "process likely died while writing it");
  EXPECT_TRUE(r.trace.order_ops.empty());

  // Another record between two parts.
  std::vector<std::string> interleaved = lines;
  interleaved.insert(interleaved.begin() + 3, lines[6]);
  p = writeLines("between.trace", interleaved);
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":4: corrupt order_ops record: the order_ops record that starts "
                           "on line 3 has 3 parts, and only 1 of them come before this line");

  // A part left out.
  std::vector<std::string> skipped = lines;
  skipped.erase(skipped.begin() + 3);
  p = writeLines("skipped.trace", skipped);
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":4: corrupt order_ops record: it is part 2 where part 1 of the "
                           "order_ops record of launch 7 (3 parts, from line 3) was expected "
                           "(a part line is missing or out of order)");
}

TEST_F(OrderOpsTraceTest, CorruptRecordsNameTheirLine) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  auto edited = [&](int index, const char *key, const nlohmann::ordered_json &value) {
    std::vector<std::string> copy = lines;
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(copy[index]);
    j[key] = value;
    copy[index] = j.dump();
    return copy;
  };
  std::string p = writeLines("count.trace", edited(2, "count", 3));
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":3: corrupt order_ops record: field 'data' holds 64 bytes, but "
                           "3 operations are 96 bytes");

  p = writeLines("data.trace", edited(3, "data", "!!!!"));
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":4: corrupt order_ops record: field 'data' is not valid base64");

  p = writeLines("params.trace",
                 edited(2, "params", nlohmann::ordered_json::parse(R"([{"arg": 0, "name": "x", "dtype": "f32"}, {"arg": "one"}])")));
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":3: corrupt order_ops record: in 'params' item 1: field 'arg' "
                           "must be an unsigned 32-bit integer");

  p = writeLines("sites.trace", edited(2, "sites", "fadd"));
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":3: corrupt order_ops record: field 'sites' must be an array of objects");

  // Operations that name a site the record lacks, or out of order.
  OrderOpsRecord badSite = sampleOps(1, 2);
  badSite.ops[1].site = 3;
  OrderOpsRecord unsorted = sampleOps(1, 3);
  std::swap(unsorted.ops[0], unsorted.ops[2]);
  p = path("ops.trace");
  for (const OrderOpsRecord *record : {&badSite, &unsorted}) {
    {
      auto w = TraceWriter::create(p, nullptr);
      w->write(sampleHeader());
      w->write(*record);
    }
    r = readTrace(p);
    EXPECT_EQ(r.error, TraceError::Corrupt);
    EXPECT_EQ(r.message,
              p + ":2: corrupt order_ops record: " +
                  (record == &badSite
                       ? "operation 1 names site 3, but the record has 3 sites"
                       : "its operations are not in ascending order of (a, b, op, site): "
                         "operation 1 does not follow operation 0"));
  }
}

} // namespace
