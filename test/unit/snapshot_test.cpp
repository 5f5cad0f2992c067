//===- snapshot_test.cpp - Snapshot records, chunks and streaming ----------===//
#include "kosan/trace.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace kosan;

namespace {

class SnapshotTest : public test::TempDirTest {
protected:
  static void writeFile(const std::string &p, const std::string &bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  }
};

using test::splitLines;

std::string joinLines(const std::vector<std::string> &lines) {
  std::string out;
  for (const std::string &l : lines)
    out += l + "\n";
  return out;
}

TraceHeader header() {
  TraceHeader h;
  h.kosan_version = "0.1.0";
  h.pid = 42;
  return h;
}

LaunchRecord launch(uint32_t id) {
  LaunchRecord l;
  l.id = id;
  l.kernel = "k(float*)";
  l.mangled = "_Z1kPf";
  return l;
}

SnapshotRecord snapshot(uint32_t launchId, uint32_t arg, DType t,
                        uint64_t chunkElements = 0) {
  SnapshotRecord s;
  s.launch = launchId;
  s.arg = arg;
  s.name = "out" + std::to_string(arg);
  s.dtype = t;
  s.chunk_elements = chunkElements;
  return s;
}

std::vector<char> pattern(size_t bytes, uint32_t seed = 1) {
  std::vector<char> v(bytes);
  uint32_t x = seed;
  for (char &c : v) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return v;
}

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

TEST(DType, NamesSizesAndAliases) {
  EXPECT_STREQ(dtypeName(DType::F32), "f32");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_STREQ(dtypeName(DType::F8E4M3), "f8e4m3");
  EXPECT_STREQ(dtypeName(DType::Unknown), "bytes");
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F8E5M2), 1u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_EQ(dtypeSize(DType::Unknown), 1u);
  EXPECT_TRUE(dtypeIsFloat(DType::F8E5M2));
  EXPECT_FALSE(dtypeIsFloat(DType::I32));
  EXPECT_FALSE(dtypeIsFloat(DType::Unknown));

  const std::pair<const char *, DType> names[] = {
      {"f32", DType::F32},         {"float32", DType::F32},
      {"float", DType::F32},       {"torch.float32", DType::F32},
      {"half", DType::F16},        {"float16", DType::F16},
      {"bfloat16", DType::BF16},   {"double", DType::F64},
      {"float64", DType::F64},     {"int32", DType::I32},
      {"int64", DType::I64},       {"uint8", DType::U8},
      {"bool", DType::Bool},       {"float8_e4m3fn", DType::F8E4M3},
      {"float8_e5m2", DType::F8E5M2}, {"bytes", DType::Unknown},
      {"Float32", DType::F32},
  };
  for (const auto &[name, type] : names) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(parseDType(name));
    EXPECT_EQ(*parseDType(name), type);
  }
  for (DType t : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::F8E4M3,
                  DType::F8E5M2, DType::I64, DType::I32, DType::I16, DType::I8,
                  DType::U64, DType::U32, DType::U16, DType::U8, DType::Bool,
                  DType::Unknown})
    EXPECT_EQ(parseDType(dtypeName(t)), t) << dtypeName(t);
  EXPECT_FALSE(parseDType("f31"));
  EXPECT_FALSE(parseDType(""));
  EXPECT_FALSE(parseDType("complex64"));
}

//===----------------------------------------------------------------------===//
// Writing and reading back
//===----------------------------------------------------------------------===//

TEST_F(SnapshotTest, RoundTripsRecordAndContents) {
  struct Case {
    DType dtype;
    uint64_t count, chunkElements;
    uint32_t chunks;
  };
  const Case cases[] = {
      {DType::F32, 1000, 256, 4},   // last chunk 232 elements
      {DType::F16, 7, 2, 4},        // odd count, last chunk 1 element
      {DType::F64, 3, 3, 1},        // exactly one chunk
      {DType::F32, 0, 0, 0},        // no elements: no chunk lines
      {DType::Unknown, 13, 5, 3},   // raw bytes
      {DType::BF16, 1, 0, 1},       // default chunk size
  };
  std::string p = path("t.trace");
  std::vector<std::vector<char>> data;
  {
    auto w = TraceWriter::create(p, nullptr);
    ASSERT_TRUE(w);
    w->write(header());
    w->write(launch(1));
    uint32_t arg = 0;
    for (const Case &c : cases) {
      data.push_back(pattern(c.count * dtypeSize(c.dtype), arg + 1));
      SnapshotRecord s = snapshot(1, arg++, c.dtype, c.chunkElements);
      w->writeSnapshot(s, data.back().data(), data.back().size());
    }
    w->write(TraceEnd{});
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), std::size(cases));
  EXPECT_TRUE(r.trace.end);
  EXPECT_TRUE(r.trace.warnings.empty());
  std::string file = readFile(p);
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE(i);
    const SnapshotRecord &s = r.trace.snapshots[i];
    EXPECT_EQ(s.arg, i);
    EXPECT_EQ(s.dtype, cases[i].dtype);
    EXPECT_EQ(s.count, cases[i].count);
    EXPECT_EQ(s.chunks, cases[i].chunks);
    if (cases[i].count > 0) {
      // The offset is that of the first chunk line, its line number too.
      ASSERT_LT(s.file_offset, file.size());
      EXPECT_EQ(file.compare(s.file_offset, 24, R"({"type":"snapshot_chunk")"), 0);
      EXPECT_EQ(std::count(file.begin(), file.begin() + s.file_offset, '\n') + 1,
                int64_t(s.file_line));
    }
    std::vector<char> bytes;
    std::string error;
    ASSERT_TRUE(readSnapshotData(p, s, &bytes, &error)) << error;
    EXPECT_EQ(bytes, data[i]);
  }
  EXPECT_EQ(r.trace.snapshots[5].chunk_elements, kSnapshotChunkBytes / 2);
}

TEST_F(SnapshotTest, RecordFieldsRoundTrip) {
  std::string p = path("t.trace");
  SnapshotRecord s = snapshot(3, 2, DType::F32);
  s.name = "attn \"out\"";
  s.shape = {2, 3};
  s.address = 0x7f0000001000;
  s.read = true;
  s.poisoned = true;
  s.poison = 0x7fc00001;
  s.pre_hash = 0xcbf29ce484222325;
  s.post_hash = 0xffffffffffffffff;
  s.store_sites = {"k.cu:12:9", "k.cu:14:3"};
  std::vector<char> data = pattern(24);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->writeSnapshot(s, data.data(), data.size());
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), 1u);
  const SnapshotRecord &got = r.trace.snapshots[0];
  EXPECT_EQ(got.launch, 3u);
  EXPECT_EQ(got.arg, 2u);
  EXPECT_EQ(got.name, s.name);
  EXPECT_EQ(got.shape, s.shape);
  EXPECT_EQ(got.count, 6u);
  EXPECT_EQ(got.address, s.address);
  EXPECT_TRUE(got.read);
  EXPECT_TRUE(got.poisoned);
  EXPECT_EQ(got.poison, s.poison);
  EXPECT_EQ(got.pre_hash, s.pre_hash);
  EXPECT_EQ(got.post_hash, s.post_hash);
  EXPECT_EQ(got.store_sites, s.store_sites);
  EXPECT_EQ(got.chunks, 1u);
  EXPECT_EQ(got.file_line, 3u);

  // The record's line, as docs/trace-format.md shows it.
  std::vector<std::string> lines = splitLines(readFile(p));
  ASSERT_EQ(lines.size(), 3u);
  nlohmann::json j = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(j["type"], "snapshot");
  EXPECT_EQ(j["dtype"], "f32");
  EXPECT_EQ(j["poison"], "0x7fc00001");
  nlohmann::json chunk = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(chunk["type"], "snapshot_chunk");
  EXPECT_EQ(chunk["encoding"], "zstd+base64");
  EXPECT_EQ(chunk["bytes"], 24);
  EXPECT_EQ(chunk["count"], 6);
}

TEST_F(SnapshotTest, DefaultChunksHoldFourMiB) {
  std::string p = path("t.trace");
  std::vector<float> values(1500000);
  std::iota(values.begin(), values.end(), 0.0f);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->writeSnapshot(snapshot(1, 0, DType::F32), values.data(),
                     values.size() * sizeof(float));
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), 1u);
  EXPECT_EQ(r.trace.snapshots[0].chunk_elements, 1u << 20);
  EXPECT_EQ(r.trace.snapshots[0].chunks, 2u);
  std::vector<char> bytes;
  std::string error;
  ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[0], &bytes, &error)) << error;
  ASSERT_EQ(bytes.size(), values.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(bytes.data(), values.data(), bytes.size()), 0);
}

TEST_F(SnapshotTest, StreamGivesChunksInOrder) {
  std::string p = path("t.trace");
  std::vector<char> data = pattern(1000 * 4);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->writeSnapshot(snapshot(1, 0, DType::F32, 300), data.data(), data.size());
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  std::string error;
  auto stream = SnapshotStream::open(p, r.trace.snapshots[0], &error);
  ASSERT_TRUE(stream) << error;
  std::vector<char> bytes;
  uint64_t first = 0;
  std::vector<uint64_t> firsts, sizes;
  while (stream->next(&bytes, &first, &error)) {
    firsts.push_back(first);
    sizes.push_back(bytes.size());
  }
  EXPECT_EQ(error, "");
  EXPECT_EQ(firsts, (std::vector<uint64_t>{0, 300, 600, 900}));
  EXPECT_EQ(sizes, (std::vector<uint64_t>{1200, 1200, 1200, 400}));
  EXPECT_FALSE(stream->next(&bytes, &first, &error)); // stays at the end
  EXPECT_EQ(error, "");
}

// The stream decodes what a record says without trusting it: a chunk that
// claims 2^40 elements in a 9-byte zstd frame (no content size in it) is an
// error naming the line, not an allocation of 4 TiB.
TEST_F(SnapshotTest, StreamRejectsClaimsItsFrameCannotHold) {
  std::string p = path("t.trace");
  const uint64_t count = uint64_t(1) << 40;
  writeFile(p, "{\"type\":\"snapshot_chunk\",\"launch\":1,\"arg\":0,\"index\":0,\"first\":0,"
               "\"count\":" + std::to_string(count) + ",\"bytes\":" +
               std::to_string(count * 4) +
               ",\"encoding\":\"zstd+base64\",\"data\":\"KLUv/QAAAQAA\"}\n");
  SnapshotRecord record;
  record.launch = 1;
  record.name = "y";
  record.dtype = DType::F32;
  record.count = count;
  record.chunk_elements = count;
  record.chunks = 1;
  record.file_offset = 0;
  record.file_line = 1;
  std::string error;
  auto stream = SnapshotStream::open(p, record, &error);
  ASSERT_TRUE(stream) << error;
  std::vector<char> bytes;
  uint64_t first = 0;
  EXPECT_FALSE(stream->next(&bytes, &first, &error));
  EXPECT_EQ(error, p + ":1: corrupt snapshot_chunk record: field 'bytes' says 4398046511104, "
                       "more than its 9-byte zstd frame can decompress to");
  EXPECT_LT(bytes.capacity(), size_t(1) << 20);

  // The whole-snapshot reader reserves no more than the chunks back.
  bytes.clear();
  bytes.shrink_to_fit();
  EXPECT_FALSE(readSnapshotData(p, record, &bytes, &error));
  EXPECT_NE(error.find("9-byte zstd frame"), std::string::npos) << error;

  // A count whose size wraps around 2^64 is refused before any reading.
  record.count = record.chunk_elements = uint64_t(1) << 62;
  EXPECT_FALSE(readSnapshotData(p, record, &bytes, &error));
  EXPECT_EQ(error, p + ": the snapshot of 'y' claims 4611686018427387904 elements, more "
                       "than 2^64 bytes");
}

TEST_F(SnapshotTest, SnapshotsMixWithOtherRecords) {
  std::string p = path("t.trace");
  std::vector<char> a = pattern(40), b = pattern(6);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->write(launch(1));
    w->writeSnapshot(snapshot(1, 0, DType::F32, 3), a.data(), a.size());
    OobEvent e;
    e.launch = 1;
    w->write(e);
    w->write(launch(2));
    w->writeSnapshot(snapshot(2, 1, DType::I16, 1), b.data(), b.size());
    w->write(TraceEnd{});
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.launches.size(), 2u);
  EXPECT_EQ(r.trace.oob.size(), 1u);
  ASSERT_EQ(r.trace.snapshots.size(), 2u);
  EXPECT_EQ(r.trace.snapshots[0].chunks, 4u);
  EXPECT_EQ(r.trace.snapshots[1].chunks, 3u);
  std::vector<char> bytes;
  std::string error;
  ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[1], &bytes, &error)) << error;
  EXPECT_EQ(bytes, b);
}

// kosan-report and kosan-diff read huge traces: the chunk lines are skipped,
// not parsed, so a chunk line the JSON library would reject still reads.
TEST_F(SnapshotTest, ReadTraceDoesNotParseChunkLines) {
  std::string p = path("t.trace");
  std::vector<char> data = pattern(16);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->writeSnapshot(snapshot(1, 0, DType::F32), data.data(), data.size());
  }
  std::vector<std::string> lines = splitLines(readFile(p));
  lines[2] = R"({"type":"snapshot_chunk" this is not JSON})";
  writeFile(p, joinLines(lines));
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), 1u);
  // ... and the stream says what is wrong with it.
  std::string error;
  std::vector<char> bytes;
  EXPECT_FALSE(readSnapshotData(p, r.trace.snapshots[0], &bytes, &error));
  EXPECT_EQ(error, p + ":3: corrupt snapshot_chunk record: not valid JSON");
}

// A chunk line laid out differently (spaces, member order) is still a chunk:
// the reader falls back to the JSON library for it.
TEST_F(SnapshotTest, ChunkLinesInAnotherLayoutRead) {
  std::string p = path("t.trace");
  std::vector<char> data = pattern(12);
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(header());
    w->writeSnapshot(snapshot(1, 0, DType::F32), data.data(), data.size());
  }
  std::vector<std::string> lines = splitLines(readFile(p));
  nlohmann::json chunk = nlohmann::json::parse(lines[2]);
  chunk["comment"] = "hand-edited";
  lines[2] = chunk.dump(1); // spaces and newlines inside: one line again below
  lines[2].erase(std::remove(lines[2].begin(), lines[2].end(), '\n'), lines[2].end());
  writeFile(p, joinLines(lines));
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), 1u);
  std::vector<char> bytes;
  std::string error;
  ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[0], &bytes, &error)) << error;
  EXPECT_EQ(bytes, data);
}

TEST_F(SnapshotTest, UncompressedBase64ChunksRead) {
  std::string p = path("t.trace");
  writeFile(p, R"({"type":"header","format":"kosan-trace","version":1,"kosan_version":"","pid":1,"argv":[],"start_time":"","options":{},"gpu_name":"","gpu_arch":"","driver_version":0,"runtime_version":0}
{"type":"snapshot","launch":1,"arg":0,"name":"x","dtype":"u8","count":5,"shape":[],"address":"0x0","read":false,"poisoned":false,"poison":"0x0","pre_hash":"0x0","post_hash":"0x0","store_sites":[],"chunks":1,"chunk_elements":8}
{"type":"snapshot_chunk","launch":1,"arg":0,"index":0,"first":0,"count":5,"bytes":5,"encoding":"base64","data":"aGVsbG8="}
)");
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  std::vector<char> bytes;
  std::string error;
  ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[0], &bytes, &error)) << error;
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "hello");
}

//===----------------------------------------------------------------------===//
// readTrace: snapshot records and the chunk lines that follow them
//===----------------------------------------------------------------------===//

class SnapshotFileTest : public SnapshotTest {
protected:
  // header, launch, snapshot (4 chunks of 256 f32), end: 8 lines.
  void SetUp() override {
    SnapshotTest::SetUp();
    p_ = path("t.trace");
    data_ = pattern(1000 * 4);
    auto w = TraceWriter::create(p_, nullptr);
    w->write(header());
    w->write(launch(1));
    w->writeSnapshot(snapshot(1, 0, DType::F32, 256), data_.data(), data_.size());
    w->write(TraceEnd{});
    w.reset();
    lines_ = splitLines(readFile(p_));
    ASSERT_EQ(lines_.size(), 8u);
    ReadResult r = readTrace(p_);
    ASSERT_EQ(r.error, TraceError::None) << r.message;
    record_ = r.trace.snapshots.at(0);
  }

  // Streams record_ from the file as it now is; returns the error.
  std::string streamError() {
    std::vector<char> bytes;
    std::string error;
    bool ok = readSnapshotData(p_, record_, &bytes, &error);
    EXPECT_FALSE(ok);
    return error;
  }

  // Replaces member `key` of chunk line `line` (0-based in lines_).
  void editChunk(size_t line, const std::string &key, const nlohmann::json &value) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(lines_[line]);
    j[key] = value;
    lines_[line] = j.dump();
  }

  std::string p_;
  std::vector<char> data_;
  std::vector<std::string> lines_;
  SnapshotRecord record_;
};

TEST_F(SnapshotFileTest, MissingChunkLineBeforeAnotherRecordIsCorrupt) {
  lines_.erase(lines_.begin() + 4);
  writeFile(p_, joinLines(lines_));
  ReadResult r = readTrace(p_);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p_ + ":7: corrupt snapshot: the snapshot record on line 3 "
                            "announces 4 snapshot_chunk lines but only 3 follow it");
  EXPECT_TRUE(r.trace.snapshots.empty());
  EXPECT_EQ(r.trace.launches.size(), 1u);
}

TEST_F(SnapshotFileTest, ChunkLineWithoutItsSnapshotIsCorrupt) {
  lines_.insert(lines_.begin() + 7, lines_[6]);
  writeFile(p_, joinLines(lines_));
  ReadResult r = readTrace(p_);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message,
            p_ + ":8: corrupt snapshot_chunk record: no snapshot record announces it");
}

TEST_F(SnapshotFileTest, EndOfFileAmidChunksIsTruncated) {
  lines_.resize(5); // header, launch, snapshot, 2 of 4 chunks
  writeFile(p_, joinLines(lines_));
  ReadResult r = readTrace(p_);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p_ + " ends mid-snapshot after 5 complete records (the "
                            "snapshot record on line 3 announces 4 "
                            "snapshot_chunk lines, 2 follow it); the process "
                            "likely died while writing it");
  EXPECT_TRUE(r.trace.snapshots.empty()); // incomplete: not returned
  EXPECT_EQ(r.trace.launches.size(), 1u);
}

TEST_F(SnapshotFileTest, ChunkLineCutShortIsTruncated) {
  std::string text = joinLines({lines_.begin(), lines_.begin() + 5});
  text += lines_[5].substr(0, lines_[5].size() / 2);
  writeFile(p_, text);
  ReadResult r = readTrace(p_);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p_ + " ends mid-record after 5 complete records (line 6 "
                            "is incomplete); the process likely died while "
                            "writing it");
}

TEST_F(SnapshotFileTest, EveryPrefixIsCompleteOrTruncated) {
  std::string full = readFile(p_);
  size_t begin = full.find("{\"type\":\"snapshot\"");
  size_t end = full.find("{\"type\":\"end\"");
  // Cuts every 97 bytes, and around every line end, from just before the
  // snapshot record to the end of the file.
  std::vector<size_t> cuts;
  for (size_t cut = begin - 3; cut <= full.size(); cut += 97)
    cuts.push_back(cut);
  for (size_t nl = full.find('\n', begin - 3); nl != std::string::npos;
       nl = full.find('\n', nl + 1))
    for (size_t cut : {nl - 1, nl, nl + 1, nl + 2})
      cuts.push_back(cut);
  for (size_t cut : cuts) {
    if (cut > full.size())
      continue;
    writeFile(p_, full.substr(0, cut));
    ReadResult r = readTrace(p_);
    ASSERT_TRUE(r.error == TraceError::None || r.error == TraceError::Truncated)
        << "cut at " << cut << ": " << r.message;
    if (r.error != TraceError::None)
      continue;
    // Complete: before the snapshot record, or after its last chunk (at
    // most its newline missing).
    if (cut <= begin) {
      EXPECT_TRUE(r.trace.snapshots.empty()) << cut;
    } else {
      EXPECT_GE(cut, end - 1) << cut;
      EXPECT_EQ(r.trace.snapshots.size(), 1u) << cut;
    }
  }
}

TEST_F(SnapshotFileTest, InconsistentSnapshotRecordsAreCorrupt) {
  const std::pair<std::string, std::string> cases[] = {
      {"chunks", "field 'chunks' is 3, but 1000 elements in chunks of 256 make 4"},
      {"dtype", "field 'dtype' must be an element type such as \"f32\" "
                "(docs/trace-format.md), not \"complex\""},
      {"shape", "field 'shape' must hold non-negative extents whose product "
                "is 'count' (1000)"},
  };
  for (const auto &[key, message] : cases) {
    SCOPED_TRACE(key);
    std::vector<std::string> lines = lines_;
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(lines[2]);
    if (key == "chunks")
      j["chunks"] = 3;
    else if (key == "dtype")
      j["dtype"] = "complex";
    else
      j["shape"] = {10, 10};
    lines[2] = j.dump();
    writeFile(p_, joinLines(lines));
    ReadResult r = readTrace(p_);
    EXPECT_EQ(r.error, TraceError::Corrupt);
    EXPECT_EQ(r.message, p_ + ":3: corrupt snapshot record: " + message);
  }
}

//===----------------------------------------------------------------------===//
// SnapshotStream: what it says about damaged chunks
//===----------------------------------------------------------------------===//

TEST_F(SnapshotFileTest, CorruptBase64) {
  std::string &line = lines_[4];
  line[line.find("\"data\":\"") + 20] = '!';
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(),
            p_ + ":5: corrupt snapshot_chunk record: field 'data' is not valid base64");
}

TEST_F(SnapshotFileTest, Base64OfSomethingElse) {
  editChunk(3, "data", "aGVsbG8gd29ybGQh"); // "hello world!"
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(),
            p_ + ":4: corrupt snapshot_chunk record: field 'data' is not a zstd frame");
}

TEST_F(SnapshotFileTest, CorruptZstdFrame) {
  // A frame cut in the middle: the header still says 1024 bytes.
  nlohmann::json j = nlohmann::json::parse(lines_[3]);
  std::string data = j["data"];
  std::string shorter = data.substr(0, data.size() / 8 * 4);
  editChunk(3, "data", shorter);
  writeFile(p_, joinLines(lines_));
  std::string error = streamError();
  std::string expected = p_ + ":4: corrupt snapshot_chunk record: field "
                              "'data' does not decompress: ";
  EXPECT_EQ(error.substr(0, expected.size()), expected) << error;
  EXPECT_GT(error.size(), expected.size());
}

TEST_F(SnapshotFileTest, WrongByteCount) {
  editChunk(5, "bytes", 1020);
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":6: corrupt snapshot_chunk record: field 'bytes' "
                                "is 1020, but 256 f32 elements are 1024 bytes");
}

TEST_F(SnapshotFileTest, DataOfTheWrongSize) {
  // A well-formed frame of 1000 bytes where 1024 are declared.
  std::vector<char> raw = pattern(1000);
  std::vector<char> frame(ZSTD_compressBound(raw.size()));
  size_t n = ZSTD_compress(frame.data(), frame.size(), raw.data(), raw.size(), 1);
  ASSERT_FALSE(ZSTD_isError(n));
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = uint32_t(uint8_t(frame[i])) << 16;
    if (i + 1 < n) v |= uint32_t(uint8_t(frame[i + 1])) << 8;
    if (i + 2 < n) v |= uint8_t(frame[i + 2]);
    b64 += kAlphabet[v >> 18];
    b64 += kAlphabet[(v >> 12) & 63];
    b64 += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    b64 += i + 2 < n ? kAlphabet[v & 63] : '=';
  }
  editChunk(3, "data", b64);
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":4: corrupt snapshot_chunk record: field 'data' "
                                "decompresses to 1000 bytes, field 'bytes' says 1024");
}

TEST_F(SnapshotFileTest, MissingChunkInTheMiddle) {
  lines_.erase(lines_.begin() + 4);
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":5: corrupt snapshot_chunk record: its index is 2 "
                                "where 1 was expected (a chunk line is missing or "
                                "out of order)");
}

TEST_F(SnapshotFileTest, ChunkOfAnotherSnapshot) {
  editChunk(4, "arg", 5);
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":5: corrupt snapshot_chunk record: it belongs to "
                                "launch 1, argument 5, but chunk 2 of 4 of the "
                                "snapshot of 'out0' (launch 1, argument 0) was "
                                "expected");
}

TEST_F(SnapshotFileTest, AnotherRecordWhereAChunkShouldBe) {
  lines_.erase(lines_.begin() + 6);
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":7: expected chunk 4 of 4 of the snapshot of "
                                "'out0' (launch 1, argument 0), found a record "
                                "of another type");
}

TEST_F(SnapshotFileTest, TruncatedLastChunk) {
  std::string text = joinLines({lines_.begin(), lines_.begin() + 6});
  text += lines_[6].substr(0, 100);
  writeFile(p_, text);
  EXPECT_EQ(streamError(), p_ + ":7: chunk 4 of 4 of the snapshot of 'out0' "
                                "(launch 1, argument 0) is cut short; the trace "
                                "is truncated (the process likely died while "
                                "writing it)");
}

TEST_F(SnapshotFileTest, FileEndsBeforeAChunk) {
  writeFile(p_, joinLines({lines_.begin(), lines_.begin() + 6}));
  EXPECT_EQ(streamError(), p_ + " ends before chunk 4 of 4 of the snapshot of "
                                "'out0' (launch 1, argument 0) (line 7); the "
                                "trace is truncated");
}

TEST_F(SnapshotFileTest, MissingFile) {
  std::remove(p_.c_str());
  EXPECT_EQ(streamError(), "cannot open " + p_ + ": No such file or directory");
}

TEST_F(SnapshotFileTest, MissingMember) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(lines_[3]);
  j.erase("first");
  lines_[3] = j.dump();
  writeFile(p_, joinLines(lines_));
  EXPECT_EQ(streamError(), p_ + ":4: corrupt snapshot_chunk record: missing field 'first'");
}

} // namespace
