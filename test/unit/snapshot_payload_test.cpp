//===- snapshot_payload_test.cpp - Chunked hash, payload file --------------===//
#include "kosan/fnv.h"
#include "kosan/trace.h"
#include "kosan/worker_pool.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace kosan;

namespace {

using test::splitLines;

// Launch 1's snapshot of argument `arg`, named out<arg>.
SnapshotRecord outputRecord(size_t arg, DType dtype, uint64_t chunkElements) {
  SnapshotRecord s;
  s.launch = 1;
  s.arg = uint32_t(arg);
  s.name = "out" + std::to_string(arg);
  s.dtype = dtype;
  s.chunk_elements = chunkElements;
  return s;
}

std::vector<char> noise(size_t bytes, uint64_t seed) {
  std::vector<char> v(bytes);
  uint64_t x = seed;
  for (char &c : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(x >> 56);
  }
  return v;
}

std::vector<char> smooth(size_t floats) {
  std::vector<char> v(floats * 4);
  for (size_t i = 0; i < floats; ++i) {
    float f = float(i % 1000) * 0.25f;
    std::memcpy(v.data() + i * 4, &f, 4);
  }
  return v;
}

class SnapshotFiles : public test::TempDirTest {};

//===----------------------------------------------------------------------===//
// The chunked hash
//===----------------------------------------------------------------------===//

TEST(SnapshotHash, WordsAreFnv1aStepsThenTailBytes) {
  const unsigned char bytes[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  uint64_t word;
  std::memcpy(&word, bytes, 8);
  uint64_t h = kosan_fnv1a_step(KOSAN_FNV_OFFSET_BASIS, word);
  h = kosan_fnv1a_step(h, 9);
  h = kosan_fnv1a_step(h, 10);
  h = kosan_fnv1a_step(h, 11);
  EXPECT_EQ(fnv1aWords(bytes, 11), h);
  EXPECT_EQ(fnv1aWords(bytes, 0), KOSAN_FNV_OFFSET_BASIS);
}

TEST(SnapshotHash, ChunksCombineInOrder) {
  std::vector<char> data = noise(10000, 7);
  const uint64_t chunk = 4096; // chunks of 4096, 4096, 1808 bytes
  uint64_t parts[3] = {fnv1aWords(data.data(), 4096), fnv1aWords(data.data() + 4096, 4096),
                       fnv1aWords(data.data() + 8192, 1808)};
  EXPECT_EQ(snapshotHash(data.data(), data.size(), chunk), combineChunkHashes(parts, 3));
  // The same chunks in another order hash differently.
  uint64_t swapped[3] = {parts[1], parts[0], parts[2]};
  EXPECT_NE(combineChunkHashes(parts, 3), combineChunkHashes(swapped, 3));
  // One chunk: still combined, so not the plain hash of the buffer.
  uint64_t one = fnv1aWords(data.data(), 100);
  EXPECT_EQ(snapshotHash(data.data(), 100, chunk), combineChunkHashes(&one, 1));
  EXPECT_NE(snapshotHash(data.data(), 100, chunk), one);
}

TEST(SnapshotHash, EveryByteOfEveryChunkCounts) {
  std::vector<char> data = noise(3 * 4096 + 5, 3);
  const uint64_t base = snapshotHash(data.data(), data.size(), 4096);
  for (size_t at : {size_t(0), size_t(4095), size_t(4096), size_t(8200), data.size() - 1}) {
    SCOPED_TRACE(at);
    data[at] ^= 1;
    EXPECT_NE(snapshotHash(data.data(), data.size(), 4096), base);
    data[at] ^= 1;
  }
  EXPECT_EQ(snapshotHash(data.data(), data.size(), 4096), base);
}

TEST_F(SnapshotFiles, BuilderHashIsTheChunkedHashWhateverTheOrderOfChunks) {
  auto w = TraceWriter::create(path("t.trace"), nullptr);
  ASSERT_TRUE(w);
  w->setSnapshotPayloadFile(true);
  std::vector<char> data = noise(1000 * 4 + 12, 9);
  SnapshotRecord r;
  r.name = "y";
  r.dtype = DType::F32;
  r.count = data.size() / 4;
  r.chunk_elements = 100;
  std::unique_ptr<SnapshotBuilder> b = w->beginSnapshot(r);
  ASSERT_EQ(b->chunks(), 11u);
  // Chunks from several threads, in any order.
  w->snapshotPool().parallelFor(b->chunks(), [&](size_t i) {
    size_t index = b->chunks() - 1 - i;
    b->addChunk(index, data.data() + b->chunkStart(index));
  });
  EXPECT_EQ(b->hash(), snapshotHash(data.data(), data.size(), 400));
}

//===----------------------------------------------------------------------===//
// The payload file
//===----------------------------------------------------------------------===//

class PayloadTest : public test::TempDirTest {
protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    writeTrace();
  }
  void writeTrace() {
    p_ = path("run.trace");
    auto w = TraceWriter::create(p_, nullptr);
    ASSERT_TRUE(w);
    w->setSnapshotPayloadFile(true);
    w->setSnapshotThreads(3);
    // Everything in "<trace>.bin" (the layout of traces before payload
    // files per thread, which must still read); FilePerThreadTest has the
    // default.
    w->setSnapshotPayloadWrites(TraceWriter::PayloadWrites::Pwrite);
    TraceHeader h;
    w->write(h);
    LaunchRecord l;
    l.id = 1;
    l.kernel = "k";
    w->write(l);
    // Compressible, in 5 chunks; incompressible, in 2 (stored raw); empty.
    data_ = {smooth(5 * 50000 + 10), noise(2 * 200000, 5), {}};
    const uint64_t chunkElements[] = {50000, 200000, 0};
    const DType types[] = {DType::F32, DType::U8, DType::F16};
    for (size_t i = 0; i < data_.size(); ++i) {
      SnapshotRecord s = outputRecord(i, types[i], chunkElements[i]);
      s.post_hash = 0x1234;
      w->writeSnapshot(s, data_[i].data(), data_[i].size());
    }
    w->write(TraceEnd{});
  }

  std::string streamError(size_t which = 0) {
    ReadResult r = readTrace(p_);
    if (r.error != TraceError::None)
      return "readTrace: " + r.message;
    std::vector<char> bytes;
    std::string error;
    if (readSnapshotData(p_, r.trace.snapshots.at(which), &bytes, &error))
      return "";
    return error.empty() ? "(no error)" : error;
  }

  void damage(uint64_t offset, char x) {
    std::fstream f(p_ + ".bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(offset));
    char c;
    f.get(c);
    f.seekp(std::streamoff(offset));
    f.put(char(c ^ x));
  }

  std::vector<std::string> lines() { return splitLines(readFile(p_)); }
  void writeLines(const std::vector<std::string> &lines) {
    std::string text;
    for (const std::string &l : lines)
      text += l + "\n";
    std::ofstream(p_, std::ios::binary | std::ios::trunc) << text;
  }

  std::string p_;
  std::vector<std::vector<char>> data_;
};

TEST_F(PayloadTest, RoundTrips) {
  ReadResult r = readTrace(p_);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_EQ(r.trace.header.version, 2);
  ASSERT_EQ(r.trace.snapshots.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const SnapshotRecord &s = r.trace.snapshots[i];
    EXPECT_EQ(s.payload, "run.trace.bin");
    EXPECT_EQ(s.post_hash, 0x1234u); // writeSnapshot leaves the hashes alone
    std::vector<char> bytes;
    std::string error;
    ASSERT_TRUE(readSnapshotData(p_, s, &bytes, &error)) << error;
    EXPECT_EQ(bytes, data_[i]);
  }
  std::string bin = readFile(p_ + ".bin");
  EXPECT_EQ(bin.compare(0, kSnapshotPayloadMagicBytes, kSnapshotPayloadMagic), 0);
  // Compressible chunks are zstd frames, noise is stored as it is; no
  // base64 anywhere.
  int zstd = 0, raw = 0;
  for (const std::string &line : lines()) {
    EXPECT_EQ(line.find("\"data\""), std::string::npos) << line;
    zstd += line.find(R"("encoding":"zstd","offset":)") != std::string::npos;
    raw += line.find(R"("encoding":"raw","offset":)") != std::string::npos;
  }
  // The last chunk of out0 (10 floats) does not shrink either.
  EXPECT_EQ(zstd, 5);
  EXPECT_EQ(raw, 3);
  EXPECT_LT(bin.size(), data_[0].size() / 4 + data_[1].size() + 1000);
}

TEST_F(PayloadTest, TruncatedPayloadFile) {
  std::string bin = readFile(p_ + ".bin");
  std::ofstream(p_ + ".bin", std::ios::binary | std::ios::trunc) << bin.substr(0, bin.size() / 2);
  std::string error = streamError(1);
  EXPECT_NE(error.find(" of " + p_ + ".bin, which holds " + std::to_string(bin.size() / 2) +
                       "; the payload file is truncated or not this trace's"),
            std::string::npos)
      << error;
}

TEST_F(PayloadTest, DamagedRawPayloadFailsItsHash) {
  ReadResult r = readTrace(p_);
  ASSERT_EQ(r.error, TraceError::None);
  // The last chunk of the noise: raw bytes, at the end of its range.
  nlohmann::json chunk;
  for (const std::string &line : lines())
    if (line.find(R"("encoding":"raw")") != std::string::npos)
      chunk = nlohmann::json::parse(line);
  ASSERT_FALSE(chunk.is_null());
  damage(chunk["offset"].get<uint64_t>() + 100, 0x10);
  std::string error = streamError(1);
  EXPECT_NE(error.find("corrupt snapshot_chunk record: its payload in " + p_ +
                       ".bin does not match its hash; the payload file is damaged"),
            std::string::npos)
      << error;
}

TEST_F(PayloadTest, DamagedZstdPayload) {
  nlohmann::json chunk;
  for (const std::string &line : lines())
    if (line.find(R"("encoding":"zstd")") != std::string::npos) {
      chunk = nlohmann::json::parse(line);
      break;
    }
  ASSERT_FALSE(chunk.is_null());
  damage(chunk["offset"].get<uint64_t>() + 1, 0x55); // the frame's magic
  std::string error = streamError(0);
  EXPECT_NE(error.find(":4: corrupt snapshot_chunk record: its payload in " + p_ + ".bin "),
            std::string::npos)
      << error;
}

TEST_F(PayloadTest, NotAPayloadFile) {
  damage(0, 0x20);
  EXPECT_EQ(streamError(), p_ + ".bin is not a kosan snapshot payload file");
}

TEST_F(PayloadTest, MissingPayloadFile) {
  std::remove((p_ + ".bin").c_str());
  EXPECT_EQ(streamError(), "cannot open " + p_ + ".bin, the snapshot payloads of " + p_ +
                               ": No such file or directory");
}

// Sizes claimed by a chunk line are checked against the file before
// anything is allocated: a length of 2^62 is an error, not an allocation.
TEST_F(PayloadTest, HugeClaimsAreRefusedBeforeAllocating) {
  for (const char *member : {"length", "offset"}) {
    SCOPED_TRACE(member);
    writeTrace();
    std::vector<std::string> ls = lines();
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(ls[3]);
    j[member] = uint64_t(1) << 62;
    ls[3] = j.dump();
    writeLines(ls);
    std::string error = streamError();
    EXPECT_NE(error.find("the payload file is truncated or not this trace's"), std::string::npos)
        << error;
  }
  writeTrace();
  std::vector<std::string> ls = lines();
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(ls[3]);
  j["bytes"] = uint64_t(1) << 62;
  ls[3] = j.dump();
  writeLines(ls);
  EXPECT_NE(streamError().find("field 'bytes' is 4611686018427387904"), std::string::npos);
}

TEST_F(PayloadTest, PayloadNamesOnlyAFileBesideTheTrace) {
  std::vector<std::string> ls = lines();
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(ls[2]);
  ASSERT_EQ(j["type"], "snapshot");
  j["payload"] = "../elsewhere.bin";
  ls[2] = j.dump();
  writeLines(ls);
  ReadResult r = readTrace(p_);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_NE(r.message.find("field 'payload' must name a file in the trace's folder"),
            std::string::npos)
      << r.message;
}

TEST_F(PayloadTest, MissingOffset) {
  std::vector<std::string> ls = lines();
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(ls[3]);
  j.erase("offset");
  ls[3] = j.dump();
  writeLines(ls);
  EXPECT_EQ(streamError(), p_ + ":4: corrupt snapshot_chunk record: missing field 'offset'");
}

// A payload file cut anywhere: a snapshot with a payload past the cut fails
// with a message, one whose payloads all lie before it still reads; nothing
// crashes.
TEST_F(PayloadTest, EveryCutReadsOrFails) {
  uint64_t extent[2] = {0, 0};
  for (const std::string &line : lines())
    if (line.find(R"("offset":)") != std::string::npos) {
      nlohmann::json j = nlohmann::json::parse(line);
      uint64_t &e = extent[j["arg"].get<size_t>()];
      e = std::max(e, j["offset"].get<uint64_t>() + j["length"].get<uint64_t>());
    }
  std::string bin = readFile(p_ + ".bin");
  for (size_t cut = 0; cut <= bin.size(); cut += cut < 64 ? 1 : bin.size() / 97 + 1) {
    SCOPED_TRACE(cut);
    std::ofstream(p_ + ".bin", std::ios::binary | std::ios::trunc) << bin.substr(0, cut);
    for (size_t which = 0; which < 2; ++which)
      EXPECT_EQ(streamError(which).empty(), cut >= extent[which]) << which;
    EXPECT_EQ(streamError(2), ""); // empty: nothing to read
  }
}

TEST_F(SnapshotFiles, InlineAndPayloadTracesReadAlike) {
  std::vector<char> data = smooth(3000);
  for (bool payload : {false, true}) {
    SCOPED_TRACE(payload);
    std::string p = path(payload ? "b.trace" : "i.trace");
    {
      auto w = TraceWriter::create(p, nullptr);
      w->setSnapshotPayloadFile(payload);
      w->write(TraceHeader{});
      SnapshotRecord s;
      s.launch = 1;
      s.name = "y";
      s.dtype = DType::F32;
      s.chunk_elements = 1000;
      w->writeSnapshot(s, data.data(), data.size());
    }
    ReadResult r = readTrace(p);
    ASSERT_EQ(r.error, TraceError::None) << r.message;
    ASSERT_EQ(r.trace.snapshots.size(), 1u);
    EXPECT_EQ(r.trace.snapshots[0].payload, payload ? "b.trace.bin" : "");
    std::vector<char> bytes;
    std::string error;
    ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[0], &bytes, &error)) << error;
    EXPECT_EQ(bytes, data);
  }
}

// Payloads go to a file per worker thread (the default), or into one file
// where those of 1 MiB and more are copied into a mapping (always, or where
// another thread is in pwrite), or written with pwrite; either way the
// chunks must read back, and lie end to end after each file's magic with
// nothing before, between or after them. Chunk sizes that are not whole
// pages put most payloads at offsets inside a page.
class LargePayloadTest : public test::TempDirTest,
                         public ::testing::WithParamInterface<TraceWriter::PayloadWrites> {};

TEST_P(LargePayloadTest, ChunksFromManyThreadsReadBackAndTileTheFile) {
  // Incompressible (stored raw: 1.5 MiB payloads and a short last one), then
  // compressible (small zstd frames), then incompressible again.
  const std::vector<std::vector<char>> data = {noise(6 * 1536 * 1024 + 4100, 3),
                                               smooth(3 * 300000),
                                               noise(4 * 1536 * 1024, 4)};
  const uint64_t chunkElements[] = {1536 * 1024, 300000, 1536 * 1024};
  const DType types[] = {DType::U8, DType::F32, DType::U8};
  const std::string p = path("big.trace");
  {
    auto w = TraceWriter::create(p, nullptr);
    ASSERT_TRUE(w);
    w->setSnapshotPayloadFile(true);
    w->setSnapshotPayloadWrites(GetParam());
    w->setSnapshotThreads(4);
    w->write(TraceHeader{});
    for (size_t i = 0; i < data.size(); ++i) {
      SnapshotRecord s = outputRecord(i, types[i], chunkElements[i]);
      w->writeSnapshot(s, data[i].data(), data[i].size());
    }
  }
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.snapshots.size(), data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<char> bytes;
    std::string error;
    ASSERT_TRUE(readSnapshotData(p, r.trace.snapshots[i], &bytes, &error)) << error;
    EXPECT_TRUE(bytes == data[i]);
  }
  // (file, offset, length) of every chunk.
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> regions;
  int raw = 0;
  for (const std::string &line : splitLines(readFile(p))) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] != "snapshot_chunk")
      continue;
    regions.emplace_back(j.value("file", uint64_t(0)), j["offset"].get<uint64_t>(),
                         j["length"].get<uint64_t>());
    raw += j["encoding"] == "raw";
  }
  ASSERT_EQ(regions.size(), 7u + 3u + 4u);
  EXPECT_EQ(raw, 7 + 4);
  std::sort(regions.begin(), regions.end());
  std::map<uint64_t, uint64_t> ends; // of each file
  for (const auto &[file, offset, length] : regions) {
    if (GetParam() != TraceWriter::PayloadWrites::FilePerThread) {
      EXPECT_EQ(file, 0u);
    }
    EXPECT_LT(file, 4u);
    uint64_t &end = ends.try_emplace(file, kSnapshotPayloadMagicBytes).first->second;
    EXPECT_EQ(offset, end) << file;
    end = offset + length;
  }
  for (const auto &[file, end] : ends)
    EXPECT_EQ(readFile(snapshotPayloadFile(p + ".bin", file)).size(), end) << file;
}

INSTANTIATE_TEST_SUITE_P(
    WritePath, LargePayloadTest,
    ::testing::Values(TraceWriter::PayloadWrites::Map, TraceWriter::PayloadWrites::MapWhenBusy,
                      TraceWriter::PayloadWrites::Pwrite,
                      TraceWriter::PayloadWrites::FilePerThread),
    [](const ::testing::TestParamInfo<TraceWriter::PayloadWrites> &info) {
      switch (info.param) {
      case TraceWriter::PayloadWrites::Map: return std::string("Map");
      case TraceWriter::PayloadWrites::MapWhenBusy: return std::string("MapWhenBusy");
      case TraceWriter::PayloadWrites::FilePerThread: return std::string("FilePerThread");
      default: return std::string("Pwrite");
      }
    });

// A file per worker thread: each of 4 workers adds one chunk of each
// snapshot (they wait for each other, so none takes two), so the payloads
// lie in "<trace>.bin" and "<trace>.bin.1" to ".3", one chunk line in four
// without "file" and the others naming theirs; the snapshots read back,
// and a missing or damaged file of the four is an error naming it.
class FilePerThreadTest : public test::TempDirTest {
protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    p_ = path("run.trace");
    // Left by an earlier run with more threads (removed), and not a
    // payload file's name (kept).
    std::ofstream(p_ + ".bin.7") << "stale";
    std::ofstream(p_ + ".bin.7x") << "other";
    auto w = TraceWriter::create(p_, nullptr);
    ASSERT_TRUE(w);
    w->setSnapshotPayloadFile(true);
    w->setSnapshotThreads(4);
    w->write(TraceHeader{});
    data_ = {noise(4 * 100000, 7), smooth(4 * 30000)};
    const DType types[] = {DType::U8, DType::F32};
    const uint64_t chunkElements[] = {100000, 30000};
    for (size_t i = 0; i < data_.size(); ++i) {
      SnapshotRecord s = outputRecord(i, types[i], chunkElements[i]);
      s.count = data_[i].size() / (i == 0 ? 1 : 4);
      std::unique_ptr<SnapshotBuilder> b = w->beginSnapshot(s);
      ASSERT_EQ(b->chunks(), 4u);
      WorkerPool &pool = w->snapshotPool();
      WorkerPool::Latch started(4), done(4);
      for (uint32_t c = 0; c < 4; ++c)
        pool.submit([&, c] {
          started.countDown();
          started.wait();
          b->addChunk(c, data_[i].data() + b->chunkStart(c));
          done.countDown();
        });
      done.wait();
      b->record().post_hash = b->hash();
      b->finish();
    }
    const SnapshotWriteStats &stats = w->snapshotStats();
    EXPECT_EQ(stats.chunks.load(), 8u);
    EXPECT_EQ(stats.bytes.load(), data_[0].size() + data_[1].size());
    EXPECT_EQ(stats.files.load(), 4u);
  }
  std::string readError(size_t which) {
    ReadResult r = readTrace(p_);
    if (r.error != TraceError::None)
      return "readTrace: " + r.message;
    std::vector<char> bytes;
    std::string error;
    if (!readSnapshotData(p_, r.trace.snapshots.at(which), &bytes, &error))
      return error.empty() ? "(no error)" : error;
    return bytes == data_[which] ? "" : "(other bytes)";
  }
  std::string p_;
  std::vector<std::vector<char>> data_;
};

TEST_F(FilePerThreadTest, EachWorkerWritesItsOwnFile) {
  std::map<uint64_t, int> chunksPerFile;
  for (const std::string &line : splitLines(readFile(p_))) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] == "snapshot") {
      EXPECT_EQ(j["payload"], "run.trace.bin");
    }
    if (j["type"] != "snapshot_chunk")
      continue;
    EXPECT_NE(j.value("file", uint64_t(99)), 0u) << "file 0 is written without the member";
    chunksPerFile[j.value("file", uint64_t(0))]++;
  }
  EXPECT_EQ(chunksPerFile, (std::map<uint64_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
  for (uint64_t file = 0; file < 4; ++file) {
    std::string bin = readFile(snapshotPayloadFile(p_ + ".bin", file));
    EXPECT_EQ(bin.compare(0, kSnapshotPayloadMagicBytes, kSnapshotPayloadMagic), 0) << file;
  }
  EXPECT_FALSE(std::ifstream(p_ + ".bin.7").good());
  EXPECT_TRUE(std::ifstream(p_ + ".bin.7x").good());
  EXPECT_FALSE(std::ifstream(p_ + ".bin.4").good());
  EXPECT_EQ(snapshotPayloadFile("a.bin", 0), "a.bin");
  EXPECT_EQ(snapshotPayloadFile("a.bin", 12), "a.bin.12");
  EXPECT_EQ(readError(0), "");
  EXPECT_EQ(readError(1), "");
}

TEST_F(FilePerThreadTest, MissingFileIsNamed) {
  std::remove((p_ + ".bin.2").c_str());
  EXPECT_EQ(readError(0), "cannot open " + p_ + ".bin.2, the snapshot payloads of " + p_ +
                              ": No such file or directory");
}

TEST_F(FilePerThreadTest, DamagedFileIsNamed) {
  std::string bin = readFile(p_ + ".bin.3");
  bin[kSnapshotPayloadMagicBytes + 10] ^= 0x40;
  std::ofstream(p_ + ".bin.3", std::ios::binary | std::ios::trunc) << bin;
  // The noise's chunk in file 3 is raw and comes first there.
  EXPECT_NE(readError(0).find("its payload in " + p_ +
                              ".bin.3 does not match its hash; the payload file is damaged"),
            std::string::npos)
      << readError(0);
}

// A chunk line that names a file of the wrong kind.
TEST_F(FilePerThreadTest, FileMemberMustBeANumber) {
  std::string text = readFile(p_);
  size_t at = text.find("\"file\":");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 7, "\"file\":\""); // "file":N -> "file":"N"
  text.insert(text.find(',', at + 8), "\"");
  std::ofstream(p_, std::ios::binary | std::ios::trunc) << text;
  std::string error = readError(0) + readError(1);
  EXPECT_NE(error.find("field 'file' has the wrong type"), std::string::npos) << error;
}

TEST(WorkerPool, RunsEveryIndexOnce) {
  WorkerPool pool(4);
  std::vector<std::atomic<int>> seen(1000);
  pool.parallelFor(seen.size(), [&](size_t i) { seen[i]++; });
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i].load(), 1) << i;
}

} // namespace
