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

#include "kosan/abi.h"
#include "kosan/precision.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosan {

inline constexpr int kTraceVersion = 2;
// The oldest version readers still read (docs/trace-format.md, Compatibility).
inline constexpr int kMinTraceVersion = 1;
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
  std::string freed_at;           // heap-use-after-free: "file:line" of the free, if known
  std::string space;              // "global", "shared", "local", "unknown"
  // data-race: the earlier access of the pair, as the report says it:
  // "WRITE of size 4 at k.cu:12:7 in f() by thread (3,0,0)".
  std::string conflict;
};

// Element type of a snapshot (docs/trace-format.md names them).
// Unknown: raw bytes, compared bit for bit. The values are kosan_dtype's
// (abi.h, KOSAN_DTYPES).
enum class DType : uint8_t {
#define KOSAN_DTYPE_CPP(suffix, cpp, name, bytes, isFloat) cpp = KOSAN_DTYPE_##suffix,
  KOSAN_DTYPES(KOSAN_DTYPE_CPP)
#undef KOSAN_DTYPE_CPP
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
  // Content hashes before and after the launch, of the kind `hash` names;
  // 0: not taken (pre_hash only for buffers the kernel reads and writes).
  uint64_t pre_hash = 0, post_hash = 0;
  std::vector<std::string> store_sites;  // "file:line:col" of the kernel's stores to it
  uint32_t chunks = 0;
  uint64_t chunk_elements = 0;
  // What pre_hash and post_hash are: "" for fnv1aWords of the whole buffer
  // (version 1 traces), kSnapshotHashChunks for snapshotHash over the
  // snapshot's chunks.
  std::string hash;
  // The file, in the trace's folder, that holds the payloads of chunks
  // encoded "zstd" or "raw" ("<trace>.bin"); "": all chunks are inline.
  // A chunk whose line says "file": N (N > 0) is in snapshotPayloadFile(
  // payload, N) instead ("<trace>.bin.N").
  std::string payload;
  // Reader only: byte offset in the trace file of the first snapshot_chunk
  // line, and its line number (for messages).
  uint64_t file_offset = 0;
  uint64_t file_line = 0;
};

// What writeSnapshot puts in one snapshot_chunk line when the record does not
// say: 4 MiB of raw elements (1 Mi f32), compressed with zstd at this level.
inline constexpr uint64_t kSnapshotChunkBytes = uint64_t(4) << 20;
inline constexpr int kSnapshotZstdLevel = 1;

// Elements per chunk by default: kSnapshotChunkBytes of them, at least 1.
uint64_t snapshotChunkElements(DType t);

// FNV-1a 64 over 8-byte little-endian words, then the remaining bytes.
uint64_t fnv1aWords(const void *data, size_t bytes);
// The chunk hashes, combined in order: FNV-1a 64 over them as words.
uint64_t combineChunkHashes(const uint64_t *hashes, size_t n);
// SnapshotRecord::hash "fnv1a-chunks": fnv1aWords of each chunk of
// chunkBytes bytes (the last may be shorter), combined in order. Chunks
// hash independently, so threads can share the work.
inline constexpr const char *kSnapshotHashChunks = "fnv1a-chunks";
uint64_t snapshotHash(const void *data, size_t bytes, uint64_t chunkBytes);

// The first 16 bytes of a snapshot payload file (SnapshotRecord::payload).
inline constexpr char kSnapshotPayloadMagic[] = "kosan-payload-1\n";
inline constexpr size_t kSnapshotPayloadMagicBytes = 16;
// The name of payload file `index` of a snapshot whose record names
// `payload`: payload itself for 0, "<payload>.<index>" after it (one file
// per worker thread, so that their writes do not wait for each other).
std::string snapshotPayloadFile(const std::string &payload, uint64_t index);

// What the snapshot writer's threads spent per stage since the writer was
// made, summed over threads (KOSAN_OPTIONS=snapshot_stats=1 prints them):
// nanoseconds of steady_clock, taken once per chunk and stage.
struct SnapshotWriteStats {
  std::atomic<uint64_t> chunks{0};
  std::atomic<uint64_t> bytes{0};          // raw bytes of those chunks
  std::atomic<uint64_t> payload_bytes{0};  // written to payload files
  std::atomic<uint64_t> mapped_bytes{0};   // of those, through a mapping
  std::atomic<uint64_t> hash_ns{0};        // chunk hashes (also pre-launch ones)
  std::atomic<uint64_t> compress_ns{0};    // zstd: the probe, whole chunks
  std::atomic<uint64_t> write_ns{0};       // payload files, or base64 lines
  std::atomic<uint64_t> files{0};          // payload files opened
};

struct TraceEnd {
  uint64_t launches = 0;
  uint64_t errors = 0;            // offending accesses in all
  uint64_t reports = 0;           // distinct (launch, site) reports
  uint64_t dropped = 0;           // events lost because the device log was full
  // Kernel pointer arguments (per launch) that pointed into no buffer the
  // runtime or the driver knew: accesses through them were not bounded.
  uint64_t unresolved_accesses = 0;
};

// Where a precision site's worst value came from (PrecisionRecord::worst).
struct PrecisionWorst {
  double real = 0;                // the value the kernel computed
  double shadow = 0;              // the same computation in fp64
  Dim3 block{0, 0, 0}, thread{0, 0, 0};
  uint32_t launch = 0;            // LaunchRecord::id
};

// The operation a site's worst value owes its error to (precision.h, "local
// error"): the one with the largest local error along the value's history
// that introduced at least half of the error where it ran.
struct PrecisionCause {
  std::string kind;               // "" (none), "narrow" (a conversion), "op" (an operation)
  std::string op;                 // "fsub", "fma.rn.f16", "ex2.approx.ftz.f", "cvt.rn.f16.f32", ...
  DType dtype = DType::Unknown;   // of its result
  DType from_dtype = DType::Unknown; // narrow: converted from
  SourceLoc site;
  int local_log2 = 0;             // its local error: 2^local_log2 of its exact result
};

// What the precision check (checks=precision) recorded at one site over the
// launches [launch_first, launch_last]: the runtime collects the device's
// per-site totals at the program's synchronisation points and writes one
// record per site that saw values since the last collection. The arithmetic
// (relative error, error in ULPs, bits lost) is include/kosan/precision.h.
struct PrecisionRecord {
  uint32_t launch_first = 0, launch_last = 0;
  std::string kind;               // "store", "atomic", "narrow", "nonfinite"
  std::string op;                 // the operation: "fadd", "fma.rn.f16", "cvt.rn.bf16.f32", ...
  DType dtype = DType::Unknown;   // of the value the kernel computed
  DType from_dtype = DType::Unknown; // narrow: the type converted from; Unknown otherwise
  SourceLoc site;
  uint32_t site_id = 0;           // index in its module's site table
  uint32_t module = 0;            // ModuleRecord::id, 0 if unknown
  uint64_t count = 0;             // values recorded
  double mean_rel_err = 0;        // over the finite relative errors, divided by count
  double max_rel_err = 0;
  double max_ulp_err = 0;         // in ULPs of dtype
  double bits_lost = 0;           // bitsLost(max_ulp_err)
  // Bits lost per value: [0,1) [1,2) [2,4) [4,8) [8,12) [12,16) [16,24) [24,inf].
  std::array<uint64_t, 8> hist{};
  uint64_t overflows = 0;         // narrow: finite in, infinite out
  uint64_t underflows = 0;        // narrow: nonzero in, zero or subnormal out
  uint64_t nans = 0;              // narrow: NaN out of a non-NaN; nonfinite: NaN/Inf born here
  // Scale-aware error (store, atomic, narrow): the largest |real - shadow|,
  // the site's scale (the largest finite |shadow|), and the first over the
  // second in bits of fp32 (log2 of max_abs_err / the fp32 ULP at scale; 0
  // below one ULP): what verdicts use (include/kosan/precision_verdict.h).
  double max_abs_err = 0;
  double scale = 0;
  double scaled_bits = 0;
  bool to_shared = false;         // narrow: the narrowed value goes to shared memory
  PrecisionWorst worst;           // the value with the largest absolute error
  PrecisionCause cause;           // store, atomic: the worst value's root cause
};

// Adds `from` (the same site, another collection) into `into`: counts and
// the histogram add, maxima take the larger, the worst value follows the
// larger error in ULPs, the mean is recomputed from both sums, and the
// launch span widens to cover both.
void mergePrecision(PrecisionRecord &into, const PrecisionRecord &from);

// One entry per site, merged over all records, worst first: NaN/Inf births
// first of all, then narrowings that overflowed or produced NaN, then by
// bits lost, largest first. A site is a source location (file, line,
// column, function, kind, operation and types): the copies of one
// operation that unrolling or inlining made are one site. Records without
// a location are told apart by module and site id.
std::vector<PrecisionRecord>
precisionBySite(const std::vector<PrecisionRecord> &records);
// The order precisionBySite sorts in: true when a is to be listed before b.
bool precisionWorseThan(const PrecisionRecord &a, const PrecisionRecord &b);
// Bits lost as reports rank and filter by (--min-bits): infinite for NaN/Inf
// births and for narrowings that overflowed or made a NaN, else the
// scale-aware error in bits of fp32 (scaled_bits).
double precisionSeverity(const PrecisionRecord &r);

// One line, without newline, as kosan-report and the exit report print a
// site, e.g. "dot.cu:14:23: f16 store loses 9.8 bits (max rel err 1.1e-3
// over 524288 values; worst at block 3 thread 17: 1843 vs 1841.2)".
// threshold: the precision threshold (precision_verdict.h) the line's
// allowance and root cause follow.
std::string formatPrecisionLine(const PrecisionRecord &site,
                                double threshold = prec::kDefaultThreshold);
// The closing line, without newline: "kosan: precision: 3 sites, 1572864
// values; worst dot.cu:14 loses 9.8 bits". sites: as precisionBySite made them.
std::string formatPrecisionSummary(const std::vector<PrecisionRecord> &sites,
                                   double threshold = prec::kDefaultThreshold);

// checks=order, static half: what the compiler found in one kernel that can
// make its results depend on the order of arrival, the launch or the batch
// (the -Rpass=kosan-order remark). Written when the kernel's module is
// first seen, before any of its launches.
struct KernelOrderInfo {
  uint32_t module = 0;            // ModuleRecord::id
  std::string kernel;             // demangled
  std::string mangled;
  bool float_atomics = false;
  bool shuffle_reduction = false;
  bool shared_reduction = false;
  bool launch_dependent_loop = false;
  bool fingerprints = false;      // the clone computes fingerprints
  std::string findings;           // the remark's text
};

// The fingerprints of one output buffer of one launch (checks=order): for
// each element the kernel stored a floating-point value to, the fingerprint
// of the last value stored (include/kosan/order.h). Elements are indices in
// units of the dtype from the parameter's value.
struct OrderElement {
  uint64_t element = 0;
  uint64_t fp = 0;
  bool operator==(const OrderElement &) const = default;
};
struct OrderStoreRecord {
  uint32_t launch = 0;            // LaunchRecord::id
  uint32_t arg = 0;               // kernel parameter index
  std::string name;               // as SnapshotRecord::name
  DType dtype = DType::Unknown;
  std::vector<std::string> sites; // "file:line:col" of the stores
  std::vector<OrderElement> elements;  // sorted by element, one per element
};

// One float atomic's contribution to a location.
struct AtomicContribution {
  uint64_t fp = 0;                // fingerprint of the value added
  uint64_t value_bits = 0;        // the value added, its bits in dtype
  uint32_t block = 0, thread = 0; // linear indices
  bool operator==(const AtomicContribution &) const = default;
};
// The contributions to one location, in the order they landed.
struct AtomicSequence {
  uint64_t element = 0;
  uint64_t fp = 0;                // the location's fingerprint after them all
  std::vector<AtomicContribution> order;
};
// The float atomics of one launch on one buffer (checks=order).
struct OrderAtomicRecord {
  uint32_t launch = 0;
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  std::string op;                 // "fadd", "fsub", "fmin", "fmax"
  std::vector<std::string> sites;
  // true: the landing order was reconstructed exactly (each atomic returns
  // the value it found); false for some location: there it is the order in
  // which the log received the records.
  bool exact = true;
  std::vector<AtomicSequence> locations;  // sorted by element
};

// checks=order-ops (a build with --kosan-checks=order-ops): every
// floating-point operation one launch performed, so that the host can walk
// a stored fingerprint back to its leaves and say at which operation two
// computations part. An operation's result is kosan_fp_combine(op, a, b)
// (include/kosan/order.h); a fingerprint that no operation yields is a leaf
// (kosan_fp_leaf: a parameter and a byte offset), a content label
// (kosan_fp_content: bits and dtype), or an operation the log lost.
struct OrderOpSite {
  std::string op;                 // "fadd", "fma", "fma.mul", "fptrunc.f16", ...
  std::string location;           // "file:line:col"; "" when unknown
  bool operator==(const OrderOpSite &) const = default;
};
struct OrderOp {
  uint64_t a = 0, b = 0;          // the operands' fingerprints as combined
                                  // (sorted for commutative operations)
  uint64_t op = 0;                // kosan_fp_op of the operation's name
  uint32_t site = 0;              // index into OrderOpsRecord::sites
  bool operator==(const OrderOp &) const = default;
};
// A kernel parameter, to name leaves: "x[512]".
struct OrderParam {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;   // element type; Unknown: leaves are named by byte offset
  bool operator==(const OrderParam &) const = default;
};
struct OrderOpsRecord {
  uint32_t launch = 0;            // LaunchRecord::id
  std::vector<OrderParam> params;
  std::vector<OrderOpSite> sites;
  std::vector<OrderOp> ops;       // distinct, sorted by (a, b, op, site)
};

// Totals of one launch's order logs; written after its order records.
struct OrderSummary {
  uint32_t launch = 0;
  uint64_t stores = 0;            // log records received, plus elements stored to in shadows
  uint64_t atomics = 0;           // atomic records received
  uint64_t dropped_stores = 0;    // lost because the device log was full
  uint64_t dropped_atomics = 0;
  // checks=order-ops: operations received, and lost because the log was full.
  uint64_t ops = 0;
  uint64_t dropped_ops = 0;
  // Locations whose final value depends on the order its atomics landed in:
  // two or more contributions with different fingerprints (min and max
  // excepted).
  uint64_t order_dependent_locations = 0;
};

// Whether the result of float atomics of `op` on one location can depend on
// the order they land in: true for "fadd", "fsub" and operations this
// reader does not know; false for "fmin" and "fmax", whose result is the
// same in any order.
bool atomicOrderMatters(const std::string &op);
// A location whose final value depends on the order its atomics landed in:
// the op's order matters and two or more contributions have different
// fingerprints (OrderSummary::order_dependent_locations counts them).
bool orderDependent(const OrderAtomicRecord &record, const AtomicSequence &location);
uint64_t orderDependentLocations(const OrderAtomicRecord &record);
// The static findings as a list: "float atomics, warp-shuffle reduction,
// shared-memory reduction, launch-dependent reduction loop", or "none".
std::string formatKernelOrderFlags(const KernelOrderInfo &info);
// KOSAN_OPTIONS=order_leaves of a trace: "value", or "position" (the
// default, also when the header does not say).
std::string orderLeaves(const TraceHeader &header);

struct Trace {
  TraceHeader header;
  std::vector<ModuleRecord> modules;
  std::vector<LaunchRecord> launches;
  std::vector<OobEvent> oob;
  std::vector<PrecisionRecord> precision;
  std::vector<SnapshotRecord> snapshots;  // contents are read with SnapshotStream
  std::vector<KernelOrderInfo> kernel_order;
  std::vector<OrderStoreRecord> order_stores;
  std::vector<OrderAtomicRecord> order_atomics;
  std::vector<OrderOpsRecord> order_ops;
  std::vector<OrderSummary> order_summaries;
  std::optional<TraceEnd> end;    // absent: the process did not exit normally
  std::vector<std::string> warnings;  // non-fatal reading notes (unknown record types)
};

class TraceWriter;
class WorkerPool;

// One snapshot being written chunk by chunk (TraceWriter::beginSnapshot):
// chunks arrive in any order and from any thread, each is hashed,
// compressed and its payload written at once; finish() then writes the
// snapshot record and its chunk lines. Nothing reaches the trace's JSON
// lines before finish(), so the record can still change (post_hash = hash()).
class SnapshotBuilder {
public:
  ~SnapshotBuilder();
  SnapshotRecord &record() { return record_; }
  uint32_t chunks() const { return record_.chunks; }
  // Raw bytes of chunk `index`, and where it starts in the buffer.
  uint64_t chunkBytes(uint64_t index) const;
  uint64_t chunkStart(uint64_t index) const { return index * chunkBytes(0); }
  // Hashes, compresses and stores chunk `index` (chunkBytes(index) bytes at
  // data). Thread-safe for distinct indexes; each index once.
  void addChunk(uint64_t index, const void *data);
  // After every chunk was added: snapshotHash of the contents.
  uint64_t hash() const;
  // Writes the record, then its chunk lines. Every chunk must have been added.
  void finish();

private:
  friend class TraceWriter;
  SnapshotBuilder(TraceWriter &writer, SnapshotRecord record);
  TraceWriter &writer_;
  SnapshotRecord record_;
  std::vector<std::string> lines_;    // per chunk
  std::vector<uint64_t> hashes_;      // per chunk
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
  void write(const PrecisionRecord &);
  void write(const TraceEnd &);
  void write(const KernelOrderInfo &);
  void write(const OrderSummary &);
  void write(const OrderOpsRecord &);
  // Order records go out as one or more lines each (zstd + base64 payloads
  // of at most kSnapshotChunkBytes raw); the reader joins them.
  void write(const OrderStoreRecord &);
  void write(const OrderAtomicRecord &);
  // Raw payload bytes per order_stores/order_atomics line (0:
  // kSnapshotChunkBytes); small values make multi-part records in tests.
  void setOrderPartBytes(uint64_t bytes) { order_part_bytes_ = bytes; }
  // A snapshot: the record, then its contents (count * dtypeSize bytes) as
  // snapshot_chunk lines, one zstd frame per chunk (stored raw where zstd
  // does not shrink it), compressed on the worker threads. Sets
  // record.chunks and record.chunk_elements if they are 0; leaves the hashes
  // as given.
  void writeSnapshot(SnapshotRecord record, const void *data, size_t bytes);
  // The same in parts: record.count must be set; chunk_elements is set if 0.
  std::unique_ptr<SnapshotBuilder> beginSnapshot(SnapshotRecord record);
  // Payloads go to the binary file "<trace>.bin" (on), or base64-encoded
  // into the chunk lines, all in one file (off, the default).
  void setSnapshotPayloadFile(bool on) { payload_file_ = on; }
  // Threads that hash and compress snapshot chunks (0: one per hardware
  // thread); takes effect before the first snapshot.
  void setSnapshotThreads(unsigned threads) { snapshot_threads_ = threads; }
  // How payloads reach the payload files. FilePerThread, the default:
  // each worker thread appends with pwrite to a file of its own
  // ("<trace>.bin" for worker 0 and threads outside the pool,
  // "<trace>.bin.N" for worker N, opened when it first writes), so no
  // thread waits for another (Linux's buffered writes into one file hold
  // its lock: one thread at a time). The others write everything into
  // "<trace>.bin": Pwrite with pwrite only; Map copies payloads of 1 MiB
  // and more into a shared mapping of their bytes (fallocate, mmap: about
  // twice the CPU of pwrite, but side by side); MapWhenBusy maps where
  // another thread is already in pwrite. Smaller payloads, and all of them
  // where the file system cannot fallocate or map the file, go through
  // pwrite. The values are KOSAN_OPTIONS=snapshot_writes's.
  enum class PayloadWrites { Pwrite = 0, MapWhenBusy = 1, Map = 2, FilePerThread = 3 };
  void setSnapshotPayloadWrites(PayloadWrites how) { payload_writes_ = how; }
  WorkerPool &snapshotPool();
  SnapshotWriteStats &snapshotStats() { return stats_; }
  const std::string &path() const { return path_; }

private:
  friend class SnapshotBuilder;
  TraceWriter(int fd, std::string path);
  void writeLine(const std::string &line);
  void writeLineLocked(const std::string &line); // mutex_ held
  // Appends a payload to a payload file; its offset, or -1 if it cannot
  // (the chunk then goes inline); *file: which file (its index).
  int64_t writePayload(const void *data, size_t bytes, uint64_t *file);
  // One payload file: its descriptor (-1: none) and where the next payload
  // goes. File 0 is opened by beginSnapshot, the others on first use.
  struct PayloadFile {
    int fd = -1;
    std::atomic<bool> opened{false}; // tried, successfully or not
    std::atomic<uint64_t> end{kSnapshotPayloadMagicBytes};
  };
  // Creates payload file `index` (truncating it) and writes its magic;
  // payload_mutex_ held.
  void openPayloadFileLocked(size_t index);
  void closePayloadFiles();
  int fd_;
  std::string path_;
  std::mutex mutex_; // one record at a time, so lines never interleave
  uint64_t order_part_bytes_ = 0;
  bool payload_file_ = false;
  unsigned snapshot_threads_ = 0;
  std::mutex payload_mutex_;     // opens the payload files
  // [0]: "<trace>.bin"; one per worker thread with FilePerThread. Made by
  // the first snapshot (and again in a forked child), then never resized.
  std::vector<std::unique_ptr<PayloadFile>> payload_files_;
  int payload_pid_ = 0;          // the process that opened them (fork)
  int parent_pid_ = 0;           // the process that created the trace
  std::string payload_name_;     // file 0's name, without the folder
  std::string payload_dir_;      // the trace's folder, with its '/'
  PayloadWrites payload_writes_ = PayloadWrites::FilePerThread;
  std::atomic<bool> payload_unmappable_{false}; // fallocate or mmap refused
  std::mutex payload_pwrite_mutex_;             // held by the thread in pwrite
  std::unique_ptr<WorkerPool> pool_;
  int pool_pid_ = 0;             // the process whose threads it holds
  SnapshotWriteStats stats_;
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

// What kosan-report leaves out.
struct ReportOptions {
  // List only precision sites that lose at least this many bits (NaN/Inf
  // births always qualify); 0 lists every site.
  double min_bits = 0;
  // The precision threshold (include/kosan/precision_verdict.h): findings
  // are the sites above it; "all sites" lists the others too.
  double precision_threshold = prec::kDefaultThreshold;
  bool all_precision_sites = false;
};

// Whole trace as text (what kosan-report prints) and as JSON.
std::string formatTraceText(const Trace &trace, const ReportOptions &options = {});
std::string formatTraceJson(const Trace &trace, const ReportOptions &options = {});

} // namespace kosan

#endif // KOSAN_TRACE_H
