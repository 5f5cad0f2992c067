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

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
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
  std::string_view type, encoding, data;
  uint64_t launch = 0, arg = 0, index = 0, first = 0, count = 0, bytes = 0;
  // Which members were present, in the order of kChunkKeys.
  unsigned seen = 0;
};

constexpr const char *kChunkKeys[] = {"type",  "launch", "arg",   "index",
                                      "first", "count",  "bytes", "encoding",
                                      "data"};

// Stores one member; false for a member of the wrong JSON kind.
bool setChunkField(ChunkFields &f, std::string_view key,
                   std::string_view string, const uint64_t *number) {
  std::string_view *strings[] = {&f.type, nullptr, nullptr, nullptr, nullptr,
                                 nullptr, nullptr, &f.encoding, &f.data};
  uint64_t *numbers[] = {nullptr,  &f.launch, &f.arg,   &f.index, &f.first,
                         &f.count, &f.bytes,  nullptr,  nullptr};
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
// TraceWriter::writeSnapshot
//===----------------------------------------------------------------------===//

void TraceWriter::writeSnapshot(SnapshotRecord record, const void *data,
                                size_t bytes) {
  const uint32_t size = dtypeSize(record.dtype);
  record.count = bytes / size;
  if (record.chunk_elements == 0)
    record.chunk_elements = std::max<uint64_t>(1, kSnapshotChunkBytes / size);
  // chunks is 32-bit: a chunk size so small that it would overflow is raised.
  uint64_t chunks = record.count == 0
                        ? 0
                        : (record.count - 1) / record.chunk_elements + 1;
  if (chunks > UINT32_MAX) {
    record.chunk_elements = (record.count - 1) / UINT32_MAX + 1;
    chunks = (record.count - 1) / record.chunk_elements + 1;
  }
  record.chunks = static_cast<uint32_t>(chunks);

  const uint8_t *in = static_cast<const uint8_t *>(data);
  const detail::ZstdApi *zstd = detail::zstdApi();
  std::vector<uint8_t> compressed;

  // The chunks follow their record with nothing in between: the lock is
  // held for all of them (other threads' records wait).
  std::lock_guard<std::mutex> lock(mutex_);
  detail::OrderedJson line = detail::OrderedJson::object();
  line["type"] = "snapshot";
  const detail::OrderedJson body = detail::toJson(record);
  for (const auto &[key, value] : body.items())
    line[key] = value;
  writeLineLocked(detail::dumpJson(line) + '\n');

  for (uint64_t index = 0; index < chunks; ++index) {
    uint64_t first = index * record.chunk_elements;
    uint64_t count = std::min(record.chunk_elements, record.count - first);
    const uint8_t *src = in + first * size;
    size_t srcBytes = count * size;
    if (!zstd) {
      // No zstd where this runs (the runtime loads it): stored as it is.
      writeLineLocked(chunkLine(record, index, first, count, srcBytes, src,
                                srcBytes, /*compressed=*/false));
      continue;
    }
    compressed.resize(zstd->compressBound(srcBytes));
    size_t n = zstd->compress(compressed.data(), compressed.size(), src,
                              srcBytes, kSnapshotZstdLevel);
    // Cannot fail with a bound-sized buffer; should it, the chunk is
    // left out and the reader reports the snapshot as corrupt.
    if (zstd->isError(n))
      return;
    writeLineLocked(chunkLine(record, index, first, count, srcBytes,
                              compressed.data(), n, /*compressed=*/true));
  }
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

  ~ChunkStream() override { ::close(fd_); }

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

  std::string path_;
  SnapshotRecord record_;
  int fd_;
  detail::LineReader reader_;
  detail::LineReader::Line line_;
  uint64_t lineNo_;
  uint32_t elementSize_;
  std::vector<uint8_t> compressed_;
  // String members of a line read by the JSON library.
  std::string fallbackType_, fallbackEncoding_, fallbackData_;
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
  for (size_t i = 0; i < std::size(kChunkKeys); ++i)
    if (!(f.seen & (1u << i)))
      return fail(error, corrupt + "missing field '" + kChunkKeys[i] + "'");
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
  bool compressed = f.encoding == "zstd+base64";
  if (!compressed && f.encoding != "base64")
    return fail(error, corrupt + "unknown encoding '" +
                           std::string(f.encoding) +
                           "' (this reader knows zstd+base64 and base64)");
  if (!base64Decode(f.data, compressed_))
    return fail(error, corrupt + "field 'data' is not valid base64");

  if (!compressed) {
    if (compressed_.size() != f.bytes)
      return fail(error, corrupt + "field 'data' holds " +
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
      return fail(error, corrupt + "field 'data' is not a zstd frame");
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
      return fail(error, corrupt + "field 'data' is a zstd frame that does not say its "
                                   "size, and field 'bytes' says " +
                             std::to_string(f.bytes) + ", more than the " +
                             std::to_string(kUnsizedFrameLimit) +
                             " bytes such a frame may hold");
    if (frameSize != detail::kZstdContentSizeUnknown && frameSize != f.bytes)
      return fail(error, corrupt + "field 'data' decompresses to " +
                             std::to_string(frameSize) +
                             " bytes, field 'bytes' says " +
                             std::to_string(f.bytes));
    bytes->resize(f.bytes);
    size_t n = zstd->decompress(bytes->data(), bytes->size(),
                                compressed_.data(), compressed_.size());
    if (zstd->isError(n)) {
      if (std::string_view(zstd->getErrorName(n)).find("too small") !=
          std::string_view::npos)
        return fail(error, corrupt + "field 'data' decompresses to more "
                                     "than the " +
                               std::to_string(f.bytes) +
                               " bytes field 'bytes' says");
      return fail(error, corrupt + "field 'data' does not decompress: " +
                             zstd->getErrorName(n));
    }
    if (n != f.bytes)
      return fail(error, corrupt + "field 'data' decompresses to " +
                             std::to_string(n) + " bytes, field 'bytes' says " +
                             std::to_string(f.bytes));
  }
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
