//===- capi.cpp - C API of the kosan host library ---------------------------===//
//
// include/kosan/capi.h on top of readTrace, SnapshotStream and diffTraces.
// Callers are C and ctypes: no exception may cross the boundary, and every
// failure (a null pointer, an index out of range, options that do not parse)
// ends as a message, never as a crash.
//
//===----------------------------------------------------------------------===//
#include "kosan/capi.h"
#include "kosan/checks.h"
#include "kosan/diff.h"
#include "kosan/trace.h"
#include "trace_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <unistd.h>

#ifndef KOSAN_VERSION_STRING
#define KOSAN_VERSION_STRING "unknown"
#endif

// libkosan_host.so exports the kosan_* functions alone: the version script
// (capi.map) keeps everything else (the C++ API, nlohmann-json's templates)
// local, so that they cannot clash with another copy of them in the process
// that loads the library (an instrumented extension module holds one).
#define KOSAN_CAPI_EXPORT extern "C" __attribute__((visibility("default")))

struct kosan_trace {
  std::string path;
  kosan::Trace trace;
};

namespace {

using kosan::detail::dumpJson;
using kosan::detail::OrderedJson;
using kosan::detail::toJson;

// Strings handed to the caller are malloc'ed, so kosan_string_free is free().
char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
  }
  return out;
}

void setError(char **error, const std::string &message) {
  if (error)
    *error = copyString(message);
}

std::string exceptionMessage(const char *function) {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return std::string(function) + ": out of memory";
  } catch (const std::exception &e) {
    // Readers turn bad input into messages of their own; what still throws
    // is a defect here, said as one, not as a bare library text.
    return std::string(function) + ": internal error (" + e.what() + ")";
  } catch (...) {
    return std::string(function) + ": unexpected error";
  }
}

template <typename Record>
char *recordJson(const kosan_trace *trace, const std::vector<Record> kosan::Trace::*records,
                 size_t index) {
  if (!trace || index >= (trace->trace.*records).size())
    return nullptr;
  try {
    return copyString(dumpJson(toJson((trace->trace.*records)[index])));
  } catch (...) {
    return nullptr;
  }
}

// count * element size, or nullopt when that does not fit in 64 bits (a
// corrupt record).
std::optional<uint64_t> snapshotBytes(const kosan::SnapshotRecord &s) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(s.count, uint64_t(kosan::dtypeSize(s.dtype)), &bytes))
    return std::nullopt;
  return bytes;
}

//===----------------------------------------------------------------------===//
// Options of kosan_diff
//===----------------------------------------------------------------------===//

using Json = nlohmann::json;

bool readTolerance(const Json &value, const std::string &where, double &out,
                   std::string *error) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) ||
      value.get<double>() < 0) {
    *error = where + " must be a non-negative number";
    return false;
  }
  out = value.get<double>();
  return true;
}

bool parseDiffOptions(const char *text, kosan::DiffOptions &options,
                      std::string *error) {
  if (!text || !*text)
    return true;
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "options are not a JSON object: " + std::string(text);
    return false;
  }
  for (const auto &[key, value] : doc.items()) {
    if (key == "atol" || key == "rtol") {
      double v = 0;
      if (!readTolerance(value, "option '" + key + "'", v, error))
        return false;
      (key == "atol" ? options.atol : options.rtol) = v;
    } else if (key == "tolerances") {
      if (!value.is_object()) {
        *error = "option 'tolerances' must be an object of dtype names, such as "
                 "{\"f16\": {\"atol\": 0.01, \"rtol\": 0.01}}";
        return false;
      }
      for (const auto &[name, tol] : value.items()) {
        std::optional<kosan::DType> dtype = kosan::parseDType(name);
        if (!dtype) {
          *error = "option 'tolerances': unknown dtype '" + name + "'";
          return false;
        }
        if (!tol.is_object()) {
          *error = "option 'tolerances': '" + name +
                   "' must be an object with \"atol\" and/or \"rtol\"";
          return false;
        }
        // What is not given keeps the dtype's default.
        kosan::Tolerance t = kosan::defaultTolerance(*dtype);
        for (const auto &[member, v] : tol.items()) {
          std::string where = "option 'tolerances': " + name + "." + member;
          if (member == "atol") {
            if (!readTolerance(v, where, t.atol, error))
              return false;
          } else if (member == "rtol") {
            if (!readTolerance(v, where, t.rtol, error))
              return false;
          } else {
            *error = where + " is not a tolerance (atol, rtol)";
            return false;
          }
        }
        options.per_dtype[*dtype] = t;
      }
    } else if (key == "launches") {
      const char *expected = "option 'launches' must be an array of "
                             "[reference id, candidate id] pairs";
      if (!value.is_array()) {
        *error = expected;
        return false;
      }
      for (const Json &pair : value) {
        auto isId = [](const Json &v) {
          return v.is_number_unsigned() &&
                 v.get<uint64_t>() <= std::numeric_limits<uint32_t>::max();
        };
        if (!pair.is_array() || pair.size() != 2 || !isId(pair[0]) || !isId(pair[1])) {
          *error = std::string(expected) + ", got " + pair.dump();
          return false;
        }
        options.launches.emplace_back(pair[0].get<uint32_t>(), pair[1].get<uint32_t>());
      }
    } else {
      *error = "unknown option '" + key + "' (known: atol, rtol, tolerances, launches)";
      return false;
    }
  }
  return true;
}

// nullptr for a format the library does not write.
std::string (*diffFormatter(const std::string &format))(const kosan::DiffResult &) {
  if (format == "json")
    return kosan::formatDiffJson;
  if (format == "text")
    return kosan::formatDiffText;
  if (format == "sarif")
    return kosan::formatDiffSarif;
  if (format == "junit")
    return kosan::formatDiffJunit;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// kosan_write_reference
//===----------------------------------------------------------------------===//

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The writing process's command line (a Python harness: "python3 harness.py"),
// so that a reference trace says where it came from.
std::vector<std::string> ownArgv() {
  std::vector<std::string> argv;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos)
      end = all.size();
    argv.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

bool writeReference(const char *path, const char *kernel, size_t n,
                    const char *const *names, const char *const *dtypes,
                    const void *const *data, const uint64_t *bytes,
                    std::string *error) {
  if (!path || !*path) {
    *error = "kosan_write_reference: no path given";
    return false;
  }
  if (n > 0 && (!names || !dtypes || !data || !bytes)) {
    *error = "kosan_write_reference: names, dtypes, data and bytes must not be null";
    return false;
  }
  // Check every output before creating the file, so that a bad call leaves
  // no half-written reference behind.
  std::vector<kosan::SnapshotRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    std::string name = names[i] ? names[i] : "";
    std::string what = "output " + std::to_string(i) + (name.empty() ? "" : " '" + name + "'");
    if (name.empty()) {
      *error = "kosan_write_reference: " + what + " has no name";
      return false;
    }
    for (size_t j = 0; j < i; ++j)
      if (records[j].name == name) {
        *error = "kosan_write_reference: two outputs are named '" + name + "'";
        return false;
      }
    std::optional<kosan::DType> dtype =
        dtypes[i] ? kosan::parseDType(dtypes[i]) : std::nullopt;
    if (!dtype) {
      *error = "kosan_write_reference: " + what + " has unknown dtype '" +
               (dtypes[i] ? dtypes[i] : "(null)") + "'";
      return false;
    }
    uint32_t size = kosan::dtypeSize(*dtype);
    if (bytes[i] % size != 0) {
      *error = "kosan_write_reference: " + what + " has " + std::to_string(bytes[i]) +
               " bytes, not a multiple of the " + std::to_string(size) + "-byte " +
               kosan::dtypeName(*dtype);
      return false;
    }
    if (bytes[i] > 0 && !data[i]) {
      *error = "kosan_write_reference: " + what + " has no data";
      return false;
    }
    kosan::SnapshotRecord &r = records[i];
    r.launch = 1;
    r.arg = static_cast<uint32_t>(i);
    r.name = name;
    r.dtype = *dtype;
    r.count = bytes[i] / size;
  }

  std::unique_ptr<kosan::TraceWriter> writer = kosan::TraceWriter::create(path, error);
  if (!writer)
    return false;
  kosan::TraceHeader header;
  header.kosan_version = KOSAN_VERSION_STRING;
  header.pid = ::getpid();
  header.argv = ownArgv();
  header.start_time = utcNow();
  writer->write(header);
  kosan::LaunchRecord launch;
  launch.id = 1;
  launch.kernel = kernel && *kernel ? kernel : "reference";
  writer->write(launch);
  for (size_t i = 0; i < n; ++i)
    writer->writeSnapshot(records[i], data[i], bytes[i]);
  kosan::TraceEnd end;
  end.launches = 1;
  writer->write(end);
  writer.reset();
  // The writer drops what it cannot write (a full disk must not stop an
  // instrumented program); a reference is worth nothing half written, so
  // read it back. This skips the contents and costs little.
  kosan::ReadResult check = kosan::readTrace(path);
  if (check.error != kosan::TraceError::None || check.trace.snapshots.size() != n ||
      !check.trace.end) {
    *error = "kosan_write_reference: could not write the whole reference to " +
             std::string(path) + (check.message.empty() ? "" : ": " + check.message);
    return false;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// The C functions
//===----------------------------------------------------------------------===//

KOSAN_CAPI_EXPORT int kosan_capi_version(void) { return KOSAN_CAPI_VERSION; }

KOSAN_CAPI_EXPORT char *kosan_checks_json(void) {
  try {
    Json out = Json::array();
    for (const kosan::CheckName &c : kosan::kCheckNames)
      out.push_back({{"name", std::string(c.name)},
                     {"bits", c.bits},
                     {"runtime", c.runtime},
                     {"all", c.runtime && (c.bits & kosan::kAllChecks) != 0}});
    return copyString(out.dump());
  } catch (...) {
    return nullptr;
  }
}

KOSAN_CAPI_EXPORT kosan_trace *kosan_trace_open(const char *path, char **error) {
  if (error)
    *error = nullptr;
  if (!path) {
    setError(error, "kosan_trace_open: no path given");
    return nullptr;
  }
  try {
    kosan::ReadResult read = kosan::readTrace(path);
    if (read.error != kosan::TraceError::None &&
        read.error != kosan::TraceError::Truncated) {
      setError(error, read.message);
      return nullptr;
    }
    // A truncated trace opens with what was complete; the message tells the
    // caller it is not the whole run.
    if (read.error == kosan::TraceError::Truncated)
      setError(error, read.message);
    return new kosan_trace{path, std::move(read.trace)};
  } catch (...) {
    setError(error, exceptionMessage("kosan_trace_open"));
    return nullptr;
  }
}

KOSAN_CAPI_EXPORT void kosan_trace_close(kosan_trace *trace) { delete trace; }

KOSAN_CAPI_EXPORT char *kosan_trace_header_json(const kosan_trace *trace) {
  if (!trace)
    return nullptr;
  try {
    return copyString(dumpJson(toJson(trace->trace.header)));
  } catch (...) {
    return nullptr;
  }
}

KOSAN_CAPI_EXPORT char *kosan_trace_json(const kosan_trace *trace) {
  if (!trace)
    return nullptr;
  try {
    return copyString(kosan::formatTraceJson(trace->trace));
  } catch (...) {
    return nullptr;
  }
}

// The records by kind: kosan_trace_<kind>_count and kosan_trace_<kind>_json
// (capi.h), each over one list of kosan::Trace.
#define KOSAN_CAPI_RECORDS(kind, member)                                                   \
  KOSAN_CAPI_EXPORT size_t kosan_trace_##kind##_count(const kosan_trace *trace) {          \
    return trace ? trace->trace.member.size() : 0;                                         \
  }                                                                                        \
  KOSAN_CAPI_EXPORT char *kosan_trace_##kind##_json(const kosan_trace *trace, size_t index) { \
    return recordJson(trace, &kosan::Trace::member, index);                                \
  }
KOSAN_CAPI_RECORDS(launch, launches)
KOSAN_CAPI_RECORDS(oob, oob)
KOSAN_CAPI_RECORDS(snapshot, snapshots)
KOSAN_CAPI_RECORDS(order_atomics, order_atomics)
KOSAN_CAPI_RECORDS(order_summary, order_summaries)
#undef KOSAN_CAPI_RECORDS

KOSAN_CAPI_EXPORT uint64_t kosan_trace_snapshot_bytes(const kosan_trace *trace,
                                                      size_t index) {
  if (!trace || index >= trace->trace.snapshots.size())
    return 0;
  return snapshotBytes(trace->trace.snapshots[index]).value_or(0);
}

KOSAN_CAPI_EXPORT int kosan_trace_snapshot_read(const kosan_trace *trace, size_t index,
                                                void *out, uint64_t capacity,
                                                char **error) {
  if (error)
    *error = nullptr;
  if (!trace) {
    setError(error, "kosan_trace_snapshot_read: no trace given");
    return -1;
  }
  const std::vector<kosan::SnapshotRecord> &snapshots = trace->trace.snapshots;
  if (index >= snapshots.size()) {
    setError(error, "kosan_trace_snapshot_read: no snapshot " + std::to_string(index) +
                        " in " + trace->path + " (it has " +
                        std::to_string(snapshots.size()) + ")");
    return -1;
  }
  try {
    const kosan::SnapshotRecord &record = snapshots[index];
    std::string what = "snapshot '" + record.name + "' of launch " +
                       std::to_string(record.launch) + " in " + trace->path;
    std::optional<uint64_t> expected = snapshotBytes(record);
    if (!expected) {
      setError(error, what + " claims more elements than fit in memory");
      return -1;
    }
    if (*expected > 0 && !out) {
      setError(error, "kosan_trace_snapshot_read: no output buffer given");
      return -1;
    }
    if (capacity < *expected) {
      setError(error, "kosan_trace_snapshot_read: " + what + " holds " +
                          std::to_string(*expected) + " bytes; the buffer has room for " +
                          std::to_string(capacity));
      return -1;
    }
    // Chunk by chunk straight into the caller's buffer: no second copy of
    // the whole snapshot.
    std::string message;
    std::unique_ptr<kosan::SnapshotStream> stream =
        kosan::SnapshotStream::open(trace->path, record, &message);
    if (!stream) {
      setError(error, message);
      return -1;
    }
    const uint64_t elementSize = kosan::dtypeSize(record.dtype);
    std::vector<char> chunk;
    uint64_t first = 0, filled = 0;
    while (stream->next(&chunk, &first, &message)) {
      uint64_t offset = 0;
      if (__builtin_mul_overflow(first, elementSize, &offset) || offset > *expected ||
          chunk.size() > *expected - offset) {
        setError(error, what + " has a chunk outside its " + std::to_string(*expected) +
                            " bytes");
        return -1;
      }
      std::memcpy(static_cast<char *>(out) + offset, chunk.data(), chunk.size());
      filled += chunk.size();
    }
    if (!message.empty()) {
      setError(error, message);
      return -1;
    }
    if (filled != *expected) {
      setError(error, what + " holds " + std::to_string(filled) + " of its " +
                          std::to_string(*expected) + " bytes");
      return -1;
    }
    return 0;
  } catch (...) {
    setError(error, exceptionMessage("kosan_trace_snapshot_read"));
    return -1;
  }
}

KOSAN_CAPI_EXPORT char *kosan_diff(const char *ref_path, const char *cand_path,
                                   const char *options_json, const char *format,
                                   int *verdict) {
  if (verdict)
    *verdict = static_cast<int>(kosan::Verdict::Trouble);
  try {
    std::string formatName = format ? format : "json";
    auto formatter = diffFormatter(formatName);
    kosan::DiffResult result;
    result.ref_path = ref_path ? ref_path : "";
    result.cand_path = cand_path ? cand_path : "";
    kosan::DiffOptions options;
    std::string problem;
    // Trouble found before the comparison is still written in the format
    // asked for (JSON for an unknown format), so that a caller parses one
    // shape of answer.
    if (!formatter) {
      problem = "unknown format '" + formatName + "' (known: json, text, sarif, junit)";
      formatter = kosan::formatDiffJson;
    } else if (!ref_path || !*ref_path) {
      problem = "no reference trace given";
    } else if (!cand_path || !*cand_path) {
      problem = "no candidate trace given";
    } else {
      parseDiffOptions(options_json, options, &problem);
    }
    if (problem.empty()) {
      result = kosan::diffTraces(ref_path, cand_path, options);
    } else {
      result.verdict = kosan::Verdict::Trouble;
      result.error = problem;
    }
    if (verdict)
      *verdict = static_cast<int>(result.verdict);
    return copyString(formatter(result));
  } catch (...) {
    // Last resort: the message as JSON, which every caller of the JSON
    // format can still parse.
    OrderedJson doc = OrderedJson::object();
    doc["verdict"] = "trouble";
    doc["exit_status"] = 2;
    doc["error"] = exceptionMessage("kosan_diff");
    try {
      return copyString(dumpJson(doc, 2) + "\n");
    } catch (...) {
      return nullptr;
    }
  }
}

KOSAN_CAPI_EXPORT int kosan_write_reference(const char *path, const char *kernel, size_t n,
                                            const char *const *names,
                                            const char *const *dtypes,
                                            const void *const *data,
                                            const uint64_t *bytes, char **error) {
  if (error)
    *error = nullptr;
  try {
    std::string message;
    if (writeReference(path, kernel, n, names, dtypes, data, bytes, &message))
      return 0;
    setError(error, message);
    return -1;
  } catch (...) {
    setError(error, exceptionMessage("kosan_write_reference"));
    return -1;
  }
}

KOSAN_CAPI_EXPORT void kosan_string_free(char *s) { std::free(s); }
