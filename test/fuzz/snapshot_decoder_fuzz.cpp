//===- snapshot_decoder_fuzz.cpp - libFuzzer target: SnapshotStream ---------===//
//
// The snapshot decoder on its own, given records readTrace would never hand
// it: the input's first 17 bytes are a record (dtype, count, elements per
// chunk), the rest the snapshot_chunk lines that follow it. The stream must
// turn every claim it cannot back into an error, never into an allocation
// of what the record or a chunk line claims.
//
// Chunks in a payload file: where the byte after the record is 'P', the
// next 4 bytes (little-endian) are the length of the chunk lines that
// follow, and the rest of the input is the payload file the record names.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const std::string &inputPath() {
  static const std::string path =
      "/tmp/kosan-fuzz-snapshot-" + std::to_string(::getpid()) + ".trace";
  return path;
}

uint64_t take64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Every element type, by its value in the enum (Unknown is raw bytes).
constexpr unsigned kDTypeCount = static_cast<unsigned>(kosan::DType::Bool) + 1;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 17)
    return 0;
  kosan::SnapshotRecord record;
  record.launch = 1;
  record.arg = 0;
  record.name = "y";
  record.dtype = static_cast<kosan::DType>(data[0] % kDTypeCount);
  record.count = take64(data + 1);
  record.chunk_elements = take64(data + 9);
  // The record is self-consistent, as readTrace checks; its claims are not.
  if (record.count == 0 || record.chunk_elements == 0)
    return 0;
  uint64_t chunks = (record.count - 1) / record.chunk_elements + 1;
  if (chunks > UINT32_MAX)
    return 0;
  record.chunks = static_cast<uint32_t>(chunks);
  record.file_offset = 0;
  record.file_line = 1;

  const std::string &path = inputPath();
  const uint8_t *lines = data + 17;
  size_t linesBytes = size - 17;
  std::string payloadPath = path + ".bin";
  if (linesBytes >= 5 && lines[0] == 'P') {
    uint32_t n;
    std::memcpy(&n, lines + 1, 4);
    lines += 5;
    linesBytes -= 5;
    n = uint32_t(std::min<size_t>(n, linesBytes));
    FILE *bin = std::fopen(payloadPath.c_str(), "wb");
    if (!bin)
      return 0;
    std::fwrite(lines + n, 1, linesBytes - n, bin);
    std::fclose(bin);
    linesBytes = n;
    record.payload = payloadPath.substr(payloadPath.rfind('/') + 1);
  } else {
    ::unlink(payloadPath.c_str());
  }
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return 0;
  std::fwrite(lines, 1, linesBytes, f);
  std::fclose(f);

  std::string error;
  std::unique_ptr<kosan::SnapshotStream> stream =
      kosan::SnapshotStream::open(path, record, &error);
  if (!stream)
    return 0;
  std::vector<char> bytes;
  uint64_t first = 0;
  for (int i = 0; i < 64 && stream->next(&bytes, &first, &error); ++i) {
  }
  // The whole-snapshot reader too, where the claim is small enough that a
  // run of it stays fast.
  if (record.count <= (1u << 16)) {
    std::vector<char> all;
    kosan::readSnapshotData(path, record, &all, &error);
  }
  return 0;
}
