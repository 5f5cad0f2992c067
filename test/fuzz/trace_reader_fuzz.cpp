//===- trace_reader_fuzz.cpp - libFuzzer target: readTrace and what follows -===//
//
// The input is a trace file. readTrace reads it; every snapshot it accepts is
// streamed (SnapshotStream, as kosan-diff reads them) and the trace is
// formatted as kosan-report prints it. Whatever the bytes, this must end
// without a crash, a sanitizer report, or an allocation beyond libFuzzer's
// -malloc_limit_mb: every size a trace claims is checked against what the
// file can hold.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// readTrace takes a path: each process writes its inputs to a file of its own.
const std::string &inputPath() {
  static const std::string path =
      "/tmp/kosan-fuzz-trace-" + std::to_string(::getpid()) + ".trace";
  return path;
}

bool writeFile(const std::string &path, const uint8_t *data, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = inputPath();
  if (!writeFile(path, data, size))
    return 0;
  kosan::ReadResult result = kosan::readTrace(path);
  if (result.error != kosan::TraceError::None &&
      result.error != kosan::TraceError::Truncated)
    return 0;
  kosan::formatTraceText(result.trace, kosan::ReportOptions{});
  kosan::formatTraceJson(result.trace, kosan::ReportOptions{});
  for (const kosan::SnapshotRecord &record : result.trace.snapshots) {
    std::string error;
    std::unique_ptr<kosan::SnapshotStream> stream =
        kosan::SnapshotStream::open(path, record, &error);
    if (!stream)
      continue;
    std::vector<char> bytes;
    uint64_t first = 0;
    while (stream->next(&bytes, &first, &error)) {
    }
  }
  return 0;
}
