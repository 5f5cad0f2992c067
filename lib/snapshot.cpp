//===- snapshot.cpp - Snapshot contents: writing and streaming -------------===//
//
// A snapshot's contents are snapshot_chunk lines: each holds up to
// chunk_elements elements as one zstd frame, base64-encoded
// (docs/trace-format.md). kosan-diff reads two snapshots of 10^8 elements and
// more, so the reading side avoids the JSON library: a chunk line is a flat
// object of numbers and plain strings, read by a small scanner, and base64 is
// decoded through a table. Anything the scanner does not expect (spaces,
// escapes) goes to the JSON library instead, so hand-edited lines still read.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "base64.h"
#include "line_reader.h"
#include "trace_json.h"

#include <nlohmann/json.hpp>
#include "kosan/zstd_api.h"
#include "kosan/fnv.h"
#include "kosan/worker_pool.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kosan {

namespace {

//===----------------------------------------------------------------------===//
// base64 (RFC 4648, with padding)
//===----------------------------------------------------------------------===//

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr uint8_t kInvalid = 0x80;

constexpr std::array<uint8_t, 256> makeDecodeTable() {
  std::array<uint8_t, 256> table{};
  for (auto &entry : table)
    entry = kInvalid;
  for (uint8_t i = 0; i < 64; ++i)
    table[static_cast<uint8_t>(kBase64Alphabet[i])] = i;
  return table;
}
constexpr std::array<uint8_t, 256> kBase64Decode = makeDecodeTable();

} // namespace

void detail::base64Encode(const uint8_t *in, size_t n, std::string &out) {
  size_t start = out.size();
  out.resize(start + (n + 2) / 3 * 4);
  char *o = out.data() + start;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = uint32_t(in[i]) << 16 | uint32_t(in[i + 1]) << 8 | in[i + 2];
    o[0] = kBase64Alphabet[v >> 18];
    o[1] = kBase64Alphabet[(v >> 12) & 63];
    o[2] = kBase64Alphabet[(v >> 6) & 63];
    o[3] = kBase64Alphabet[v & 63];
    o += 4;
  }
  if (i < n) {
    uint32_t v = uint32_t(in[i]) << 16;
    if (i + 1 < n)
      v |= uint32_t(in[i + 1]) << 8;
    o[0] = kBase64Alphabet[v >> 18];
    o[1] = kBase64Alphabet[(v >> 12) & 63];
    o[2] = i + 1 < n ? kBase64Alphabet[(v >> 6) & 63] : '=';
    o[3] = '=';
  }
}

namespace {

// Two characters at a time: 12 bits, or kPairInvalid for a pair with a
// character outside the alphabet. 128 KiB, built on first use; halves the
// lookups of the one-character table on the megabytes of a chunk.
constexpr uint16_t kPairInvalid = 0x8000;

const uint16_t *pairTable() {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> t(65536);
    for (uint32_t hi = 0; hi < 256; ++hi)
      for (uint32_t lo = 0; lo < 256; ++lo) {
        uint8_t a = kBase64Decode[hi], b = kBase64Decode[lo];
        // Indexed by the two characters as they lie in memory (first, second).
        uint16_t index = uint16_t(hi | lo << 8);
        t[index] = (a | b) & kInvalid ? kPairInvalid : uint16_t(a << 6 | b);
      }
    return t;
  }();
  return table.data();
}

} // namespace

bool detail::base64Decode(std::string_view in, std::vector<uint8_t> &out) {
  if (in.size() % 4 != 0)
    return false;
  size_t padding = 0;
  if (!in.empty() && in.back() == '=')
    padding = in[in.size() - 2] == '=' ? 2 : 1;
  out.resize(in.size() / 4 * 3 - padding);
  const uint8_t *s = reinterpret_cast<const uint8_t *>(in.data());
  uint8_t *o = out.data();
  size_t quads = in.size() / 4 - (padding ? 1 : 0);
  const uint16_t *pairs = pairTable();
  auto pairAt = [&](const uint8_t *p) {
    uint16_t index;
    std::memcpy(&index, p, 2);
    return pairs[index];
  };
  // One OR of the two pair entries tells a bad character in the quad.
  size_t q = 0;
  for (; q < quads; ++q, s += 4, o += 3) {
    uint32_t hi = pairAt(s), lo = pairAt(s + 2);
    if ((hi | lo) & kPairInvalid)
      return false;
    uint32_t v = hi << 12 | lo;
    o[0] = uint8_t(v >> 16);
    o[1] = uint8_t(v >> 8);
    o[2] = uint8_t(v);
  }
  if (padding) {
    uint32_t a = kBase64Decode[s[0]], b = kBase64Decode[s[1]];
    uint32_t c = padding == 1 ? kBase64Decode[s[2]] : 0;
    if ((a | b | c) & kInvalid)
      return false;
    uint32_t v = a << 18 | b << 12 | c << 6;
    o[0] = uint8_t(v >> 16);
    if (padding == 1)
      o[1] = uint8_t(v >> 8);
  }
  return true;
}

namespace {

using detail::base64Decode;
using detail::base64Encode;

//===----------------------------------------------------------------------===//
// Chunk lines
//===----------------------------------------------------------------------===//

struct ChunkFields {
  std::string_view type, encoding, data, hash;
  uint64_t launch = 0, arg = 0, index = 0, first = 0, count = 0, bytes = 0,
           offset = 0, length = 0, file = 0;
  // Which members were present, in the order of kChunkKeys.
  unsigned seen = 0;
};

constexpr const char *kChunkKeys[] = {"type",  "launch", "arg",    "index",
                                      "first", "count",  "bytes",  "encoding",
                                      "data",  "offset", "length", "hash",
                                      "file"};
// Members every chunk line has; then those of inline chunks ("data") and
// those of chunks in the payload file ("offset", "length"; "hash" may be
// absent, and "file" is absent for the record's own payload file).
constexpr unsigned kChunkCommon = 0xff, kChunkInline = 1u << 8,
                   kChunkPayload = 1u << 9 | 1u << 10;

// Stores one member; false for a member of the wrong JSON kind.
bool setChunkField(ChunkFields &f, std::string_view key,
                   std::string_view string, const uint64_t *number) {
  std::string_view *strings[] = {&f.type, nullptr, nullptr,     nullptr, nullptr,
                                 nullptr, nullptr, &f.encoding, &f.data, nullptr,
                                 nullptr, &f.hash, nullptr};
  uint64_t *numbers[] = {nullptr,  &f.launch, &f.arg,    &f.index,  &f.first,
                         &f.count, &f.bytes,  nullptr,   nullptr,   &f.offset,
                         &f.length, nullptr,  &f.file};
  for (size_t i = 0; i < std::size(kChunkKeys); ++i) {
    if (key != kChunkKeys[i])
      continue;
    if (strings[i] && number)
      return false;
    if (numbers[i] && !number)
      return false;
    if (strings[i])
      *strings[i] = string;
    else
      *numbers[i] = *number;
    f.seen |= 1u << i;
    return true;
  }
  return true; // members this reader does not know are ignored
}

// The writer's layout: {"key":value,...} with unsigned numbers and strings
// without escapes, no spaces. False for anything else (the caller falls back
// to the JSON library); string views point into `line`. A string with an
// escape is taken as written: where that matters, the value is then wrong
// ("type", "encoding") or not base64 ("data"), and said so.
bool scanChunkLine(std::string_view line, ChunkFields &f) {
  size_t i = 0, n = line.size();
  auto readString = [&](std::string_view &out) {
    if (i >= n || line[i] != '"')
      return false;
    size_t start = ++i;
    const void *quote = std::memchr(line.data() + i, '"', n - i);
    if (!quote)
      return false;
    size_t end = static_cast<const char *>(quote) - line.data();
    out = line.substr(start, end - start);
    i = end + 1;
    return true;
  };
  if (n < 2 || line[i++] != '{')
    return false;
  for (;;) {
    std::string_view key;
    if (!readString(key) || i >= n || line[i++] != ':' || i >= n)
      return false;
    if (line[i] == '"') {
      std::string_view value;
      if (!readString(value) || !setChunkField(f, key, value, nullptr))
        return false;
    } else {
      uint64_t value = 0;
      auto [end, ec] = std::from_chars(line.data() + i, line.data() + n, value);
      if (ec != std::errc() || end == line.data() + i)
        return false;
      i = end - line.data();
      if (i < n && (line[i] == '.' || line[i] == 'e' || line[i] == 'E'))
        return false;
      if (!setChunkField(f, key, {}, &value))
        return false;
    }
    if (i >= n)
      return false;
    char c = line[i++];
    if (c == '}')
      return i == n;
    if (c != ',')
      return false;
  }
}

std::string chunkLine(const SnapshotRecord &record, uint64_t index,
                      uint64_t first, uint64_t count, uint64_t bytes,
                      const uint8_t *data, size_t dataBytes, bool compressed) {
  std::string line;
  line.reserve(200 + (dataBytes + 2) / 3 * 4);
  line += detail::kSnapshotChunkStart;
  line += ",\"launch\":" + std::to_string(record.launch);
  line += ",\"arg\":" + std::to_string(record.arg);
  line += ",\"index\":" + std::to_string(index);
  line += ",\"first\":" + std::to_string(first);
  line += ",\"count\":" + std::to_string(count);
  line += ",\"bytes\":" + std::to_string(bytes);
  line += compressed ? ",\"encoding\":\"zstd+base64\",\"data\":\""
                    : ",\"encoding\":\"base64\",\"data\":\"";
  base64Encode(data, dataBytes, line);
  line += "\"}\n";
  return line;
}

} // namespace

//===----------------------------------------------------------------------===//
// Hashes
//===----------------------------------------------------------------------===//

uint64_t snapshotChunkElements(DType t) {
  return std::max<uint64_t>(1, kSnapshotChunkBytes / dtypeSize(t));
}

uint64_t fnv1aWords(const void *data, size_t n) {
  const char *p = static_cast<const char *>(data);
  uint64_t h = KOSAN_FNV_OFFSET_BASIS;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = kosan_fnv1a_step(h, w);
  }
  for (; i < n; ++i)
    h = kosan_fnv1a_step(h, static_cast<unsigned char>(p[i]));
  return h;
}

uint64_t combineChunkHashes(const uint64_t *hashes, size_t n) {
  return fnv1aWords(hashes, n * sizeof(uint64_t));
}

uint64_t snapshotHash(const void *data, size_t bytes, uint64_t chunkBytes) {
  std::vector<uint64_t> hashes;
  const char *p = static_cast<const char *>(data);
  for (uint64_t at = 0; at < bytes; at += chunkBytes)
    hashes.push_back(fnv1aWords(p + at, std::min<uint64_t>(chunkBytes, bytes - at)));
  return combineChunkHashes(hashes.data(), hashes.size());
}

//===----------------------------------------------------------------------===//
// Writing: SnapshotBuilder, TraceWriter::writeSnapshot
//===----------------------------------------------------------------------===//

namespace {

std::string hex(uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%" PRIx64, v);
  return buffer;
}

// A chunk whose payload is in payload file `file` (0: the record's own;
// the member is written only for the others).
std::string payloadChunkLine(const SnapshotRecord &record, uint64_t index, uint64_t first,
                             uint64_t count, uint64_t bytes, bool compressed, uint64_t file,
                             uint64_t offset, uint64_t length, uint64_t hash) {
  std::string line = detail::kSnapshotChunkStart;
  line += ",\"launch\":" + std::to_string(record.launch);
  line += ",\"arg\":" + std::to_string(record.arg);
  line += ",\"index\":" + std::to_string(index);
  line += ",\"first\":" + std::to_string(first);
  line += ",\"count\":" + std::to_string(count);
  line += ",\"bytes\":" + std::to_string(bytes);
  line += compressed ? ",\"encoding\":\"zstd\"" : ",\"encoding\":\"raw\"";
  if (file != 0)
    line += ",\"file\":" + std::to_string(file);
  line += ",\"offset\":" + std::to_string(offset);
  line += ",\"length\":" + std::to_string(length);
  line += ",\"hash\":\"" + hex(hash) + "\"}\n";
  return line;
}

// zstd at level 1 runs at a few hundred MB/s per thread on data it barely
// shrinks (random f32 in [0, 1) by a tenth), and the payload file is
// written at disk speed: a chunk whose first kProbeBytes do not shrink by
// kProbeMinSaving is stored as it is.
constexpr size_t kProbeBytes = 64 * 1024;
constexpr double kProbeMinSaving = 0.25;

} // namespace

SnapshotBuilder::SnapshotBuilder(TraceWriter &writer, SnapshotRecord record)
    : writer_(writer), record_(std::move(record)) {
  if (record_.chunk_elements == 0)
    record_.chunk_elements = snapshotChunkElements(record_.dtype);
  // chunks is 32-bit: a chunk size so small that it would overflow is raised.
  uint64_t chunks =
      record_.count == 0 ? 0 : (record_.count - 1) / record_.chunk_elements + 1;
  if (chunks > UINT32_MAX) {
    record_.chunk_elements = (record_.count - 1) / UINT32_MAX + 1;
    chunks = (record_.count - 1) / record_.chunk_elements + 1;
  }
  record_.chunks = static_cast<uint32_t>(chunks);
  lines_.resize(chunks);
  hashes_.resize(chunks);
}

SnapshotBuilder::~SnapshotBuilder() = default;

uint64_t SnapshotBuilder::chunkBytes(uint64_t index) const {
  uint64_t first = index * record_.chunk_elements;
  uint64_t count = first >= record_.count
                       ? 0
                       : std::min(record_.chunk_elements, record_.count - first);
  return count * dtypeSize(record_.dtype);
}

void SnapshotBuilder::addChunk(uint64_t index, const void *data) {
  const uint32_t size = dtypeSize(record_.dtype);
  const uint64_t first = index * record_.chunk_elements;
  const uint64_t count = std::min(record_.chunk_elements, record_.count - first);
  const size_t srcBytes = count * size;
  const uint8_t *src = static_cast<const uint8_t *>(data);
  SnapshotWriteStats &stats = writer_.stats_;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t)
                        .count());
  };
  Clock::time_point t = Clock::now();
  const uint64_t hash = fnv1aWords(src, srcBytes);
  hashes_[index] = hash;
  stats.hash_ns += since(t);
  stats.chunks += 1;
  stats.bytes += srcBytes;
  t = Clock::now();

  const detail::ZstdApi *zstd = detail::zstdApi();
  std::vector<uint8_t> compressed;
  const uint8_t *payload = src;
  size_t payloadBytes = srcBytes;
  bool isCompressed = false;
  if (zstd) {
    bool worth = true;
    if (writer_.payload_file_ && srcBytes > 2 * kProbeBytes) {
      compressed.resize(zstd->compressBound(kProbeBytes));
      size_t n = zstd->compress(compressed.data(), compressed.size(), src, kProbeBytes,
                                kSnapshotZstdLevel);
      worth = !zstd->isError(n) && double(n) < (1 - kProbeMinSaving) * kProbeBytes;
    }
    if (worth) {
      compressed.resize(zstd->compressBound(srcBytes));
      size_t n = zstd->compress(compressed.data(), compressed.size(), src, srcBytes,
                                kSnapshotZstdLevel);
      // Cannot fail with a bound-sized buffer; should it, the chunk is
      // stored as it is.
      if (!zstd->isError(n) && (n < srcBytes || !writer_.payload_file_)) {
        payload = compressed.data();
        payloadBytes = n;
        isCompressed = true;
      }
    }
  }
  stats.compress_ns += since(t);
  t = Clock::now();
  if (writer_.payload_file_) {
    uint64_t file = 0;
    int64_t offset = writer_.writePayload(payload, payloadBytes, &file);
    if (offset >= 0) {
      lines_[index] = payloadChunkLine(record_, index, first, count, srcBytes, isCompressed,
                                       file, uint64_t(offset), payloadBytes, hash);
      stats.payload_bytes += payloadBytes;
      stats.write_ns += since(t);
      return;
    }
    // No payload file (a full disk, no permission): the chunk goes inline.
  }
  lines_[index] = chunkLine(record_, index, first, count, srcBytes, payload, payloadBytes,
                            isCompressed);
  stats.write_ns += since(t);
}

uint64_t SnapshotBuilder::hash() const {
  return combineChunkHashes(hashes_.data(), hashes_.size());
}

void SnapshotBuilder::finish() {
  detail::OrderedJson line = detail::OrderedJson::object();
  line["type"] = "snapshot";
  const detail::OrderedJson body = detail::toJson(record_);
  for (const auto &[key, value] : body.items())
    line[key] = value;
  // The chunks follow their record with nothing in between: the lock is
  // held for all of them (other threads' records wait).
  std::lock_guard<std::mutex> lock(writer_.mutex_);
  writer_.writeLineLocked(detail::dumpJson(line) + '\n');
  for (const std::string &chunk : lines_)
    writer_.writeLineLocked(chunk);
}

std::string snapshotPayloadFile(const std::string &payload, uint64_t index) {
  return index == 0 ? payload : payload + "." + std::to_string(index);
}

void TraceWriter::openPayloadFileLocked(size_t index) {
  PayloadFile &f = *payload_files_[index];
  const std::string path = payload_dir_ + snapshotPayloadFile(payload_name_, index);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd >= 0 && ::pwrite(fd, kSnapshotPayloadMagic, kSnapshotPayloadMagicBytes, 0) ==
                     ssize_t(kSnapshotPayloadMagicBytes)) {
    f.fd = fd;
    stats_.files += 1;
  } else if (fd >= 0) {
    ::close(fd);
  }
  f.opened = true; // after fd: a thread that sees it set reads fd
}

namespace {
// Removes "<payload>.N" files (N: digits) in dir, left by an earlier run
// that wrote this trace with more threads: a trace's payload files are
// those its own run made.
void removeStalePayloadFiles(const std::string &dir, const std::string &payload) {
  DIR *d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d)
    return;
  const std::string prefix = payload + ".";
  while (const dirent *e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix ||
        name.find_first_not_of("0123456789", prefix.size()) != std::string_view::npos)
      continue;
    (void)::unlink((dir + std::string(name)).c_str());
  }
  ::closedir(d);
}
} // namespace

void TraceWriter::closePayloadFiles() {
  for (const std::unique_ptr<PayloadFile> &f : payload_files_)
    if (f->fd >= 0)
      ::close(f->fd);
  payload_files_.clear();
}

std::unique_ptr<SnapshotBuilder> TraceWriter::beginSnapshot(SnapshotRecord record) {
  if (payload_file_) {
    // Before the lock: snapshotPool takes it too.
    const size_t files =
        payload_writes_ == PayloadWrites::FilePerThread ? snapshotPool().size() : 1;
    std::lock_guard<std::mutex> lock(payload_mutex_);
    if (payload_files_.empty() || payload_pid_ != ::getpid()) {
      // A forked child writes payload files of its own.
      closePayloadFiles();
      payload_pid_ = ::getpid();
      std::string name = path_.substr(path_.rfind('/') + 1);
      payload_name_ = payload_pid_ == parent_pid_ ? name + ".bin"
                                                  : name + "." + std::to_string(payload_pid_) + ".bin";
      payload_dir_ = path_.rfind('/') == std::string::npos ? "" : path_.substr(0, path_.rfind('/') + 1);
      for (size_t i = 0; i < std::max<size_t>(files, 1); ++i)
        payload_files_.push_back(std::make_unique<PayloadFile>());
      removeStalePayloadFiles(payload_dir_, payload_name_);
      openPayloadFileLocked(0);
    }
    record.payload = payload_files_[0]->fd >= 0 ? payload_name_ : "";
  }
  return std::unique_ptr<SnapshotBuilder>(new SnapshotBuilder(*this, std::move(record)));
}

namespace {

// Payloads at least this large are copied into a mapping of the payload
// file; smaller ones are written with pwrite.
constexpr size_t kMappedPayloadMinBytes = size_t(1) << 20;

// Copies `bytes` at data into bytes [offset, offset + bytes) of fd through a
// shared mapping of their pages, once fallocate has reserved their blocks
// (so that no page fault meets a full disk). False, with nothing promised
// about those bytes, where the file system or the kernel cannot
// (*unsupported then says whether to stop trying).
bool copyIntoMapping(int fd, uint64_t offset, const void *data, size_t bytes,
                     bool *unsupported) {
  *unsupported = false;
  if (::fallocate(fd, 0, off_t(offset), off_t(bytes)) != 0) {
    *unsupported = errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL;
    return false;
  }
  static const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page;
  const size_t span = size_t(offset + bytes - start);
  void *map = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(start));
  if (map == MAP_FAILED) {
    *unsupported = true;
    return false;
  }
#ifdef MADV_POPULATE_WRITE
  // One call faults the pages in, instead of one fault per page (Linux
  // 5.14; older kernels refuse it and fault page by page).
  (void)::madvise(map, span, MADV_POPULATE_WRITE);
#endif
  std::memcpy(static_cast<char *>(map) + (offset - start), data, bytes);
  ::munmap(map, span);
  return true;
}

} // namespace

// Payloads are appended by reserving their bytes (one atomic add), so the
// threads never wait for each other to learn where to write. Writing them
// is what costs: pwrite into one file is serialised by the kernel (Linux's
// buffered writes hold the inode's lock: ext4, xfs and tmpfs alike), which
// held a snapshot to one thread's page-cache copy speed. Each worker
// thread therefore appends to a file of its own (PayloadWrites::
// FilePerThread), opened the first time it writes; a thread outside the
// pool, or one whose file cannot be created, uses file 0. The one-file
// ways remain: there, a large payload whose thread finds another in pwrite
// can be copied into a mapping of its own bytes instead (MapWhenBusy).
int64_t TraceWriter::writePayload(const void *data, size_t bytes, uint64_t *file) {
  *file = 0;
  if (payload_files_.empty() || payload_files_[0]->fd < 0)
    return -1;
  if (payload_writes_ == PayloadWrites::FilePerThread && WorkerPool::current() &&
      WorkerPool::current() == pool_.get() &&
      WorkerPool::currentIndex() < payload_files_.size()) {
    const size_t index = WorkerPool::currentIndex();
    PayloadFile &own = *payload_files_[index];
    if (!own.opened) {
      std::lock_guard<std::mutex> lock(payload_mutex_);
      if (!own.opened)
        openPayloadFileLocked(index);
    }
    if (own.fd >= 0)
      *file = index;
  }
  PayloadFile &f = *payload_files_[*file];
  uint64_t offset = f.end.fetch_add(bytes);
  std::unique_lock<std::mutex> pwriting;
  if (bytes >= kMappedPayloadMinBytes && payload_writes_ != PayloadWrites::Pwrite &&
      payload_writes_ != PayloadWrites::FilePerThread &&
      !payload_unmappable_.load(std::memory_order_relaxed)) {
    if (payload_writes_ == PayloadWrites::MapWhenBusy)
      pwriting = std::unique_lock<std::mutex>(payload_pwrite_mutex_, std::try_to_lock);
    if (!pwriting.owns_lock()) {
      bool unsupported = false;
      if (copyIntoMapping(f.fd, offset, data, bytes, &unsupported)) {
        stats_.mapped_bytes += bytes;
        return int64_t(offset);
      }
      if (unsupported)
        payload_unmappable_.store(true, std::memory_order_relaxed);
    }
  }
  const char *p = static_cast<const char *>(data);
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pwrite(f.fd, p + done, bytes - done, off_t(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    done += size_t(n);
  }
  return int64_t(offset);
}

WorkerPool &TraceWriter::snapshotPool() {
  std::lock_guard<std::mutex> lock(payload_mutex_);
  if (pool_ && pool_pid_ != ::getpid()) {
    // A forked child has none of its parent's threads: the pool is left
    // alone (joining them would wait forever) and the child gets its own.
    (void)pool_.release();
  }
  if (!pool_) {
    pool_ = std::make_unique<WorkerPool>(snapshot_threads_);
    pool_pid_ = ::getpid();
  }
  return *pool_;
}

void TraceWriter::writeSnapshot(SnapshotRecord record, const void *data,
                                size_t bytes) {
  record.count = bytes / dtypeSize(record.dtype);
  std::unique_ptr<SnapshotBuilder> builder = beginSnapshot(std::move(record));
  const char *in = static_cast<const char *>(data);
  snapshotPool().parallelFor(builder->chunks(), [&](size_t index) {
    builder->addChunk(index, in + builder->chunkStart(index));
  });
  builder->finish();
}

//===----------------------------------------------------------------------===//
// SnapshotStream
//===----------------------------------------------------------------------===//

namespace {

class ChunkStream final : public SnapshotStream {
public:
  ChunkStream(std::string path, const SnapshotRecord &record, int fd)
      : path_(std::move(path)), record_(record), fd_(fd),
        reader_(fd, record.file_offset, size_t(8) << 20),
        lineNo_(record.file_line ? record.file_line - 1 : 0),
        elementSize_(dtypeSize(record.dtype)) {}

  ~ChunkStream() override {
    ::close(fd_);
    for (const auto &[index, file] : payloads_)
      if (file.fd >= 0)
        ::close(file.fd);
  }

  bool next(std::vector<char> *bytes, uint64_t *first,
            std::string *error) override;

private:
  bool fail(std::string *error, const std::string &message) {
    failed_ = true;
    if (error)
      *error = message;
    return false;
  }
  std::string where() const {
    return path_ + ":" + std::to_string(lineNo_) + ": ";
  }
  std::string which() const {
    return "chunk " + std::to_string(index_ + 1) + " of " +
           std::to_string(record_.chunks) + " of the snapshot of '" +
           record_.name + "' (launch " + std::to_string(record_.launch) +
           ", argument " + std::to_string(record_.arg) + ")";
  }
  bool parse(std::string_view line, ChunkFields &fields, std::string *error);
  // The payload of a chunk in a payload file, into compressed_.
  bool readPayload(const ChunkFields &f, std::string *error);
  // The payload files read so far, by index (a chunk's "file").
  struct PayloadIn {
    int fd = -1;
    uint64_t size = 0;
    std::string path;
  };
  std::map<uint64_t, PayloadIn> payloads_;
  std::string payloadPath_; // the current chunk's payload file, for messages

  std::string path_;
  SnapshotRecord record_;
  int fd_;
  detail::LineReader reader_;
  detail::LineReader::Line line_;
  uint64_t lineNo_;
  uint32_t elementSize_;
  std::vector<uint8_t> compressed_;
  // String members of a line read by the JSON library.
  std::string fallbackType_, fallbackEncoding_, fallbackData_, fallbackHash_;
  uint64_t index_ = 0;
  bool failed_ = false;
};

bool ChunkStream::parse(std::string_view line, ChunkFields &f,
                        std::string *error) {
  std::string corrupt = where() + "corrupt snapshot_chunk record: ";
  if (!scanChunkLine(line, f)) {
    f = ChunkFields{};
    using Json = nlohmann::json;
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      return fail(error, corrupt + "not valid JSON");
    for (const auto &[key, value] : j.items()) {
      bool known = std::find(std::begin(kChunkKeys), std::end(kChunkKeys),
                             key) != std::end(kChunkKeys);
      bool ok = true;
      if (value.is_string()) {
        // Kept here: views into j would dangle.
        std::string *kept = key == "type"       ? &fallbackType_
                            : key == "encoding" ? &fallbackEncoding_
                            : key == "data"     ? &fallbackData_
                            : key == "hash"     ? &fallbackHash_
                                                : nullptr;
        if (kept) {
          *kept = value.get<std::string>();
          ok = setChunkField(f, key, *kept, nullptr);
        } else {
          ok = !known;
        }
      } else if (value.is_number_unsigned()) {
        uint64_t number = value.get<uint64_t>();
        ok = setChunkField(f, key, {}, &number);
      } else {
        ok = !known;
      }
      if (!ok)
        return fail(error, corrupt + "field '" + key + "' has the wrong type");
    }
  }
  if (f.seen & 1 && f.type != "snapshot_chunk")
    return fail(error, where() + "expected " + which() +
                           ", found a record of another type");
  unsigned required = kChunkCommon;
  if (f.seen & (1u << 7))
    required |= f.encoding == "zstd" || f.encoding == "raw" ? kChunkPayload : kChunkInline;
  for (size_t i = 0; i < std::size(kChunkKeys); ++i)
    if ((required & (1u << i)) && !(f.seen & (1u << i)))
      return fail(error, corrupt + "missing field '" + kChunkKeys[i] + "'");
  return true;
}

bool ChunkStream::readPayload(const ChunkFields &f, std::string *error) {
  std::string corrupt = where() + "corrupt snapshot_chunk record: ";
  if (record_.payload.empty())
    return fail(error, corrupt + "its payload is in a payload file, and its snapshot "
                                 "record names none (field 'payload')");
  auto [it, isNew] = payloads_.try_emplace(f.file);
  PayloadIn &in = it->second;
  if (isNew) {
    size_t slash = path_.rfind('/');
    in.path = (slash == std::string::npos ? "" : path_.substr(0, slash + 1)) +
              snapshotPayloadFile(record_.payload, f.file);
    in.fd = ::open(in.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in.fd < 0)
      return fail(error, "cannot open " + in.path + ", the snapshot payloads of " +
                             path_ + ": " + std::strerror(errno));
    struct stat st;
    char magic[kSnapshotPayloadMagicBytes] = {};
    if (::fstat(in.fd, &st) != 0 ||
        ::pread(in.fd, magic, sizeof magic, 0) != ssize_t(sizeof magic) ||
        std::memcmp(magic, kSnapshotPayloadMagic, sizeof magic) != 0)
      return fail(error, in.path + " is not a kosan snapshot payload file");
    in.size = uint64_t(st.st_size);
  }
  payloadPath_ = in.path;
  // Sizes come from the file: checked against the payload file before
  // anything is allocated for them.
  if (f.offset < kSnapshotPayloadMagicBytes || f.offset > in.size ||
      f.length > in.size - f.offset)
    return fail(error, where() + which() + " lies at bytes " + std::to_string(f.offset) +
                           " to " + std::to_string(f.offset + f.length) + " of " +
                           payloadPath_ + ", which holds " + std::to_string(in.size) +
                           "; the payload file is truncated or not this trace's");
  if (f.encoding == "raw" && f.length != f.bytes)
    return fail(error, corrupt + "its payload holds " + std::to_string(f.length) +
                           " bytes, field 'bytes' says " + std::to_string(f.bytes));
  compressed_.resize(f.length);
  size_t done = 0;
  while (done < f.length) {
    ssize_t n = ::pread(in.fd, compressed_.data() + done, f.length - done,
                        off_t(f.offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail(error, "cannot read " + payloadPath_ + ": " +
                             (n < 0 ? std::strerror(errno) : "it ends early"));
    done += size_t(n);
  }
  return true;
}

bool ChunkStream::next(std::vector<char> *bytes, uint64_t *first,
                       std::string *error) {
  if (error)
    error->clear();
  if (failed_ || index_ >= record_.chunks)
    return false;

  detail::LineReader::Status status;
  do {
    status = reader_.next(&line_);
    if (status == detail::LineReader::Status::Line)
      ++lineNo_;
  } while (status == detail::LineReader::Status::Line && line_.complete &&
           line_.text.find_first_not_of(" \t\r") == std::string::npos);
  if (status == detail::LineReader::Status::Error)
    return fail(error, "cannot read " + path_ + ": " +
                           std::strerror(reader_.error()));
  if (status == detail::LineReader::Status::End) {
    ++lineNo_;
    return fail(error, path_ + " ends before " + which() + " (line " +
                           std::to_string(lineNo_) +
                           "); the trace is truncated");
  }

  ChunkFields f;
  if (!parse(line_.text, f, error)) {
    if (!line_.complete)
      return fail(error, where() + which() +
                             " is cut short; the trace is truncated (the "
                             "process likely died while writing it)");
    return false;
  }

  std::string corrupt = where() + "corrupt snapshot_chunk record: ";
  if (f.launch != record_.launch || f.arg != record_.arg)
    return fail(error, corrupt + "it belongs to launch " +
                           std::to_string(f.launch) + ", argument " +
                           std::to_string(f.arg) + ", but " + which() +
                           " was expected");
  if (f.index != index_)
    return fail(error, corrupt + "its index is " + std::to_string(f.index) +
                           " where " + std::to_string(index_) +
                           " was expected (a chunk line is missing or out "
                           "of order)");
  uint64_t expectFirst = index_ * record_.chunk_elements;
  uint64_t expectCount =
      std::min(record_.chunk_elements, record_.count - expectFirst);
  if (f.first != expectFirst)
    return fail(error, corrupt + "field 'first' is " +
                           std::to_string(f.first) + ", expected " +
                           std::to_string(expectFirst));
  if (f.count != expectCount)
    return fail(error, corrupt + "field 'count' is " +
                           std::to_string(f.count) + ", expected " +
                           std::to_string(expectCount));
  uint64_t expectBytes = 0;
  if (__builtin_mul_overflow(expectCount, uint64_t(elementSize_), &expectBytes))
    return fail(error, corrupt + std::to_string(expectCount) + " " +
                           dtypeName(record_.dtype) +
                           " elements are more than 2^64 bytes");
  if (f.bytes != expectBytes)
    return fail(error, corrupt + "field 'bytes' is " +
                           std::to_string(f.bytes) + ", but " +
                           std::to_string(expectCount) + " " +
                           dtypeName(record_.dtype) + " elements are " +
                           std::to_string(expectBytes) + " bytes");
  const bool inPayload = f.encoding == "zstd" || f.encoding == "raw";
  const bool compressed = f.encoding == "zstd+base64" || f.encoding == "zstd";
  if (!inPayload && !compressed && f.encoding != "base64")
    return fail(error, corrupt + "unknown encoding '" +
                           std::string(f.encoding) +
                           "' (this reader knows zstd, raw, zstd+base64 and base64)");
  uint64_t expectHash = 0;
  const bool hashed = f.seen & (1u << 11);
  if (hashed) {
    std::string_view h = f.hash;
    auto [end, ec] = h.size() > 2 && h.substr(0, 2) == "0x"
                         ? std::from_chars(h.data() + 2, h.data() + h.size(), expectHash, 16)
                         : std::from_chars_result{h.data(), std::errc::invalid_argument};
    if (ec != std::errc() || end != h.data() + h.size())
      return fail(error, corrupt + "field 'hash' is not a \"0x...\" hash");
  }
  if (inPayload) {
    if (!readPayload(f, error))
      return false;
  } else if (!base64Decode(f.data, compressed_)) {
    return fail(error, corrupt + "field 'data' is not valid base64");
  }
  // Where the bytes come from, for messages.
  const std::string field =
      inPayload ? "its payload in " + payloadPath_ : std::string("field 'data'");

  if (!compressed) {
    if (compressed_.size() != f.bytes)
      return fail(error, corrupt + field + " holds " +
                             std::to_string(compressed_.size()) +
                             " bytes, field 'bytes' says " +
                             std::to_string(f.bytes));
    bytes->assign(compressed_.begin(), compressed_.end());
  } else {
    const detail::ZstdApi *zstd = detail::zstdApi();
    if (!zstd)
      return fail(error, corrupt + "it is zstd-compressed and zstd is not "
                                   "available here (libzstd.so.1)");
    unsigned long long frameSize =
        zstd->getFrameContentSize(compressed_.data(), compressed_.size());
    if (frameSize == detail::kZstdContentSizeError)
      return fail(error, corrupt + field + " is not a zstd frame");
    // Claimed sizes come from the file: no more is allocated than the frame
    // can decompress to.
    if (f.bytes > detail::maxZstdContentSize(compressed_.size()))
      return fail(error, corrupt + "field 'bytes' says " + std::to_string(f.bytes) +
                             ", more than its " + std::to_string(compressed_.size()) +
                             "-byte zstd frame can decompress to");
    // kosan's writer records the content size in every frame; a frame
    // without it is taken at its word only up to a sane size.
    constexpr uint64_t kUnsizedFrameLimit = uint64_t(64) << 20;
    if (frameSize == detail::kZstdContentSizeUnknown && f.bytes > kUnsizedFrameLimit)
      return fail(error, corrupt + field + " is a zstd frame that does not say its "
                                   "size, and field 'bytes' says " +
                             std::to_string(f.bytes) + ", more than the " +
                             std::to_string(kUnsizedFrameLimit) +
                             " bytes such a frame may hold");
    if (frameSize != detail::kZstdContentSizeUnknown && frameSize != f.bytes)
      return fail(error, corrupt + field + " decompresses to " +
                             std::to_string(frameSize) +
                             " bytes, field 'bytes' says " +
                             std::to_string(f.bytes));
    bytes->resize(f.bytes);
    size_t n = zstd->decompress(bytes->data(), bytes->size(),
                                compressed_.data(), compressed_.size());
    if (zstd->isError(n)) {
      if (std::string_view(zstd->getErrorName(n)).find("too small") !=
          std::string_view::npos)
        return fail(error, corrupt + field + " decompresses to more "
                                     "than the " +
                               std::to_string(f.bytes) +
                               " bytes field 'bytes' says");
      return fail(error, corrupt + field + " does not decompress: " +
                             zstd->getErrorName(n));
    }
    if (n != f.bytes)
      return fail(error, corrupt + field + " decompresses to " +
                             std::to_string(n) + " bytes, field 'bytes' says " +
                             std::to_string(f.bytes));
  }
  if (hashed && fnv1aWords(bytes->data(), bytes->size()) != expectHash)
    return fail(error, corrupt + field + " does not match its hash" +
                           (inPayload ? "; the payload file is damaged" : ""));
  *first = f.first;
  ++index_;
  return true;
}

} // namespace

std::unique_ptr<SnapshotStream> SnapshotStream::open(
    const std::string &path, const SnapshotRecord &record, std::string *error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error)
      *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  if (::lseek(fd, static_cast<off_t>(record.file_offset), SEEK_SET) < 0) {
    if (error)
      *error = "cannot read " + path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<ChunkStream>(path, record, fd);
}

bool readSnapshotData(const std::string &path, const SnapshotRecord &record,
                      std::vector<char> *bytes, std::string *error) {
  std::unique_ptr<SnapshotStream> stream =
      SnapshotStream::open(path, record, error);
  if (!stream)
    return false;
  uint64_t total = 0;
  if (__builtin_mul_overflow(record.count, uint64_t(dtypeSize(record.dtype)), &total)) {
    if (error)
      *error = path + ": the snapshot of '" + record.name + "' claims " +
               std::to_string(record.count) + " elements, more than 2^64 bytes";
    return false;
  }
  bytes->clear();
  // Beyond 64 MiB the buffer grows as chunks arrive: the claim is trusted
  // only as far as the chunks back it.
  bytes->reserve(std::min<uint64_t>(total, uint64_t(64) << 20));
  std::vector<char> chunk;
  uint64_t first = 0;
  while (stream->next(&chunk, &first, error))
    bytes->insert(bytes->end(), chunk.begin(), chunk.end());
  if (error && !error->empty())
    return false;
  return bytes->size() == total;
}

} // namespace kosan
