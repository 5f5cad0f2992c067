//===- kosan/trace.h - Trace data model, writer and reader -----------------===//
//
// The trace is JSON Lines (docs/trace-format.md): one self-contained JSON
// object per line, first line the header. Each record is written with a
// single write(2) on an O_APPEND descriptor, so a process that dies mid-run
// leaves every record it finished; a reader tells a torn last line apart from
// corruption in the middle.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TRACE_H
#define KOSAN_TRACE_H

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosan {

inline constexpr int kTraceVersion = 1;
inline constexpr const char *kTraceFormatName = "kosan-trace";

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  bool operator==(const Dim3 &) const = default;
};

struct TraceHeader {
  int version = kTraceVersion;
  std::string kosan_version;
  int64_t pid = 0;
  std::vector<std::string> argv;
  std::string start_time;              // ISO 8601, UTC
  std::map<std::string, std::string> options;  // effective KOSAN_OPTIONS
  std::string gpu_name;
  std::string gpu_arch;                // "sm_90"
  int driver_version = 0;              // cudaDriverGetVersion
  int runtime_version = 0;             // cudaRuntimeGetVersion
};

struct ModuleRecord {
  uint32_t id = 0;
  std::string source;     // translation unit
  std::string compiler;   // e.g. "Debian clang version 19.1.7"
  std::string fp_mode;    // compile options that decide FP results: "-O2 -ffp-contract=fast"
                          // (inferred from the IR, e.g. "fp-contract=fast", without -fplugin)
  uint32_t sites = 0;
};

struct LaunchRecord {
  uint32_t id = 0;                // 1-based, in launch order
  std::string kernel;             // demangled
  std::string mangled;
  uint32_t module = 0;            // ModuleRecord::id, 0 if unknown
  Dim3 grid, block;
  uint64_t shared_bytes = 0;
  uint64_t stream = 0;
  bool instrumented = false;      // false: the plain kernel ran (checks off)
};

struct SourceLoc {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string function;           // demangled
  std::string inlined_at;         // "file:line" of the outermost call, if any
};

// One OOB site as fired in one launch.
struct OobEvent {
  uint32_t launch = 0;            // LaunchRecord::id
  std::string kind;               // "global-buffer-overflow", ...
  std::string access;             // "READ", "WRITE", "ATOMIC"
  uint32_t size = 0;              // bytes per access
  uint64_t count = 0;             // offending accesses (threads)
  SourceLoc site;
  uint32_t site_id = 0;
  Dim3 block, thread;             // first offender
  uint64_t address = 0;
  // The buffer the access was checked against.
  std::string buffer_name;        // "" if unknown
  uint64_t buffer_begin = 0, buffer_end = 0;
  uint64_t pitch = 0, row_bytes = 0;  // pitched buffers only
  std::string allocated_at;       // "file:line" of the allocation, if known
  std::string space;              // "global", "shared", "local", "unknown"
};

// Element type of a snapshot (docs/trace-format.md names them).
enum class DType : uint8_t {
  Unknown = 0, // raw bytes: compared bit for bit
  F64, F32, F16, BF16, F8E4M3, F8E5M2,
  I64, I32, I16, I8, U64, U32, U16, U8, Bool,
};
const char *dtypeName(DType t);                   // "f32", "bf16", "bytes"
std::optional<DType> parseDType(std::string_view name);  // also accepts torch names: "float32", "half", "bfloat16"
uint32_t dtypeSize(DType t);                      // bytes per element; 1 for Unknown
bool dtypeIsFloat(DType t);

// One output buffer of one launch, as it was when the launch ended
// (KOSAN_OPTIONS=snapshot=1). Its contents follow in `chunks` snapshot_chunk
// records, in order, each holding up to chunk_elements elements.
struct SnapshotRecord {
  uint32_t launch = 0;            // LaunchRecord::id
  uint32_t arg = 0;               // kernel parameter index
  std::string name;               // registered name, else the parameter's name, else "arg<N>"
  DType dtype = DType::Unknown;
  uint64_t count = 0;             // elements
  std::vector<int64_t> shape;     // registered shape, if any (product == count)
  uint64_t address = 0;           // device address of element 0 (the argument's value)
  bool read = false;              // the kernel also reads it (in/out): it was not poisoned
  // poison=1: the buffer was filled with `poison` (one element's bits) before
  // the launch; elements still holding it were not written by the kernel.
  bool poisoned = false;
  uint64_t poison = 0;
  // Content hashes (FNV-1a 64 of the bytes) before and after the launch; 0:
  // not taken (pre_hash only for buffers the kernel reads and writes).
  uint64_t pre_hash = 0, post_hash = 0;
  std::vector<std::string> store_sites;  // "file:line:col" of the kernel's stores to it
  uint32_t chunks = 0;
  uint64_t chunk_elements = 0;
  // Reader only: byte offset in the trace file of the first snapshot_chunk
  // line, and its line number (for messages).
  uint64_t file_offset = 0;
  uint64_t file_line = 0;
};

// What writeSnapshot puts in one snapshot_chunk line when the record does not
// say: 4 MiB of raw elements (1 Mi f32), compressed with zstd at this level.
inline constexpr uint64_t kSnapshotChunkBytes = uint64_t(4) << 20;
inline constexpr int kSnapshotZstdLevel = 1;

struct TraceEnd {
  uint64_t launches = 0;
  uint64_t errors = 0;            // offending accesses in all
  uint64_t reports = 0;           // distinct (launch, site) reports
  uint64_t dropped = 0;           // events lost because the device log was full
  // Kernel pointer arguments (per launch) that pointed into no buffer the
  // runtime or the driver knew: accesses through them were not bounded.
  uint64_t unresolved_accesses = 0;
};

struct Trace {
  TraceHeader header;
  std::vector<ModuleRecord> modules;
  std::vector<LaunchRecord> launches;
  std::vector<OobEvent> oob;
  std::vector<SnapshotRecord> snapshots;  // contents are read with SnapshotStream
  std::optional<TraceEnd> end;    // absent: the process did not exit normally
  std::vector<std::string> warnings;  // non-fatal reading notes (unknown record types)
};

// Writes records; thread-safe; every record is one write(2).
class TraceWriter {
public:
  // Creates (truncates) path. Returns nullptr and sets *error on failure.
  static std::unique_ptr<TraceWriter> create(const std::string &path,
                                             std::string *error);
  ~TraceWriter();
  void write(const TraceHeader &);
  void write(const ModuleRecord &);
  void write(const LaunchRecord &);
  void write(const OobEvent &);
  void write(const TraceEnd &);
  // A snapshot: the record, then its contents (count * dtypeSize bytes) as
  // zstd-compressed, base64-encoded snapshot_chunk lines. Sets
  // record.chunks and record.chunk_elements if they are 0.
  void writeSnapshot(SnapshotRecord record, const void *data, size_t bytes);
  const std::string &path() const { return path_; }

private:
  TraceWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void writeLine(const std::string &line);
  void writeLineLocked(const std::string &line); // mutex_ held
  int fd_;
  std::string path_;
  std::mutex mutex_; // one record at a time, so lines never interleave
};

enum class TraceError {
  None,
  CannotOpen,   // missing file, permission
  Empty,        // zero bytes
  Foreign,      // first line is not a kosan trace header
  Version,      // a kosan trace of a version this reader does not know
  Corrupt,      // a complete line that does not parse or lacks fields
  Truncated,    // the last line is incomplete (process died mid-write)
};

struct ReadResult {
  TraceError error = TraceError::None;
  std::string message;   // one sentence naming the file and, where it applies, the line
  Trace trace;           // everything read before the error (complete records only)
};

// Reads every record but the snapshot contents, which it skips without
// decoding (their offsets land in SnapshotRecord::file_offset). Memory use is
// bounded by the records, not by the snapshots.
ReadResult readTrace(const std::string &path);

// Streams the contents of one snapshot, chunk by chunk.
class SnapshotStream {
public:
  // record: as readTrace returned it for this path.
  static std::unique_ptr<SnapshotStream> open(const std::string &path,
                                              const SnapshotRecord &record,
                                              std::string *error);
  virtual ~SnapshotStream() = default;
  // Next chunk's raw bytes into *bytes and its first element index into
  // *first. Returns false at the end (error empty) or on a corrupt or
  // truncated chunk (*error says which line and why).
  virtual bool next(std::vector<char> *bytes, uint64_t *first, std::string *error) = 0;
};
// Whole contents of one snapshot (small snapshots, tests).
bool readSnapshotData(const std::string &path, const SnapshotRecord &record,
                      std::vector<char> *bytes, std::string *error);

// ASan-style text of one OOB event (multi-line, ends with the SUMMARY line).
// pid is printed as ==PID==; pass 0 to print no pid.
std::string formatOobReport(const OobEvent &event, const LaunchRecord *launch,
                            int64_t pid);
// The one-line SUMMARY text, without the trailing newline.
std::string formatOobSummary(const OobEvent &event);

// Whole trace as text (what kosan-report prints) and as JSON.
std::string formatTraceText(const Trace &trace);
std::string formatTraceJson(const Trace &trace);

} // namespace kosan

#endif // KOSAN_TRACE_H
