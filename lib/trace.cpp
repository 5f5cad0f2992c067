//===- trace.cpp - Trace writer and reader --------------------------------===//
//
// The format is described in docs/trace-format.md.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "kosan/precision_verdict.h"
#include "base64.h"
#include "line_reader.h"
#include "trace_json.h"
#include "zstd_api.h"
#include "text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string_view>
#include <tuple>
#include <unistd.h>

namespace kosan {

using detail::OrderedJson;
using Json = nlohmann::json;

//===----------------------------------------------------------------------===//
// JSON form of the records
//===----------------------------------------------------------------------===//

namespace {

OrderedJson dimJson(const Dim3 &d) { return OrderedJson::array({d.x, d.y, d.z}); }

OrderedJson siteJson(const SourceLoc &s) {
  OrderedJson j = OrderedJson::object();
  j["file"] = s.file;
  j["line"] = s.line;
  j["column"] = s.column;
  j["function"] = s.function;
  j["inlined_at"] = s.inlined_at;
  return j;
}

// A trace line: {"type": type, ...body}.
std::string recordLine(const char *type, const OrderedJson &body) {
  OrderedJson line = OrderedJson::object();
  line["type"] = type;
  for (const auto &[key, value] : body.items())
    line[key] = value;
  return detail::dumpJson(line) + '\n';
}

} // namespace

std::string detail::hexAddress(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return buf;
}

std::string detail::dumpJson(const OrderedJson &value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false,
                    OrderedJson::error_handler_t::replace);
}

OrderedJson detail::toJson(const TraceHeader &h) {
  OrderedJson j = OrderedJson::object();
  j["format"] = kTraceFormatName;
  j["version"] = h.version;
  j["kosan_version"] = h.kosan_version;
  j["pid"] = h.pid;
  j["argv"] = h.argv;
  j["start_time"] = h.start_time;
  j["options"] = OrderedJson::object();
  for (const auto &[key, value] : h.options)
    j["options"][key] = value;
  j["gpu_name"] = h.gpu_name;
  j["gpu_arch"] = h.gpu_arch;
  j["driver_version"] = h.driver_version;
  j["runtime_version"] = h.runtime_version;
  return j;
}

OrderedJson detail::toJson(const ModuleRecord &m) {
  OrderedJson j = OrderedJson::object();
  j["id"] = m.id;
  j["source"] = m.source;
  j["compiler"] = m.compiler;
  j["fp_mode"] = m.fp_mode;
  j["sites"] = m.sites;
  return j;
}

OrderedJson detail::toJson(const LaunchRecord &l) {
  OrderedJson j = OrderedJson::object();
  j["id"] = l.id;
  j["kernel"] = l.kernel;
  j["mangled"] = l.mangled;
  j["module"] = l.module;
  j["grid"] = dimJson(l.grid);
  j["block"] = dimJson(l.block);
  j["shared_bytes"] = l.shared_bytes;
  j["stream"] = hexAddress(l.stream);
  j["instrumented"] = l.instrumented;
  return j;
}

OrderedJson detail::toJson(const OobEvent &e) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = e.launch;
  j["kind"] = e.kind;
  j["access"] = e.access;
  j["size"] = e.size;
  j["count"] = e.count;
  j["site"] = siteJson(e.site);
  j["site_id"] = e.site_id;
  j["block"] = dimJson(e.block);
  j["thread"] = dimJson(e.thread);
  j["address"] = hexAddress(e.address);
  j["buffer_name"] = e.buffer_name;
  j["buffer_begin"] = hexAddress(e.buffer_begin);
  j["buffer_end"] = hexAddress(e.buffer_end);
  j["pitch"] = e.pitch;
  j["row_bytes"] = e.row_bytes;
  j["allocated_at"] = e.allocated_at;
  if (!e.freed_at.empty())
    j["freed_at"] = e.freed_at;
  j["space"] = e.space;
  return j;
}

OrderedJson detail::doubleJson(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

OrderedJson detail::toJson(const PrecisionRecord &p) {
  OrderedJson j = OrderedJson::object();
  j["launch_first"] = p.launch_first;
  j["launch_last"] = p.launch_last;
  j["kind"] = p.kind;
  j["op"] = p.op;
  j["dtype"] = dtypeName(p.dtype);
  j["from_dtype"] = p.from_dtype == DType::Unknown ? "" : dtypeName(p.from_dtype);
  j["site"] = siteJson(p.site);
  j["site_id"] = p.site_id;
  j["module"] = p.module;
  j["count"] = p.count;
  j["mean_rel_err"] = doubleJson(p.mean_rel_err);
  j["max_rel_err"] = doubleJson(p.max_rel_err);
  j["max_ulp_err"] = doubleJson(p.max_ulp_err);
  j["bits_lost"] = doubleJson(p.bits_lost);
  j["hist"] = p.hist;
  j["overflows"] = p.overflows;
  j["underflows"] = p.underflows;
  j["nans"] = p.nans;
  OrderedJson worst = OrderedJson::object();
  worst["real"] = doubleJson(p.worst.real);
  worst["shadow"] = doubleJson(p.worst.shadow);
  worst["block"] = dimJson(p.worst.block);
  worst["thread"] = dimJson(p.worst.thread);
  worst["launch"] = p.worst.launch;
  j["worst"] = std::move(worst);
  j["max_abs_err"] = doubleJson(p.max_abs_err);
  j["scale"] = doubleJson(p.scale);
  j["scaled_bits"] = doubleJson(p.scaled_bits);
  if (p.kind == "narrow")
    j["to_shared"] = p.to_shared;
  if (!p.cause.kind.empty()) {
    OrderedJson cause = OrderedJson::object();
    cause["kind"] = p.cause.kind;
    cause["op"] = p.cause.op;
    cause["dtype"] = dtypeName(p.cause.dtype);
    cause["from_dtype"] =
        p.cause.from_dtype == DType::Unknown ? "" : dtypeName(p.cause.from_dtype);
    cause["site"] = siteJson(p.cause.site);
    cause["local_log2"] = p.cause.local_log2;
    j["cause"] = std::move(cause);
  }
  return j;
}

OrderedJson detail::toJson(const SnapshotRecord &s) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = s.launch;
  j["arg"] = s.arg;
  j["name"] = s.name;
  j["dtype"] = dtypeName(s.dtype);
  j["count"] = s.count;
  j["shape"] = s.shape;
  j["address"] = hexAddress(s.address);
  j["read"] = s.read;
  j["poisoned"] = s.poisoned;
  j["poison"] = hexAddress(s.poison);
  j["pre_hash"] = hexAddress(s.pre_hash);
  j["post_hash"] = hexAddress(s.post_hash);
  j["store_sites"] = s.store_sites;
  j["chunks"] = s.chunks;
  j["chunk_elements"] = s.chunk_elements;
  return j;
}

OrderedJson detail::toJson(const TraceEnd &e) {
  OrderedJson j = OrderedJson::object();
  j["launches"] = e.launches;
  j["errors"] = e.errors;
  j["reports"] = e.reports;
  j["dropped"] = e.dropped;
  j["unresolved_accesses"] = e.unresolved_accesses;
  return j;
}

OrderedJson detail::toJson(const KernelOrderInfo &k) {
  OrderedJson j = OrderedJson::object();
  j["module"] = k.module;
  j["kernel"] = k.kernel;
  j["mangled"] = k.mangled;
  j["float_atomics"] = k.float_atomics;
  j["shuffle_reduction"] = k.shuffle_reduction;
  j["shared_reduction"] = k.shared_reduction;
  j["launch_dependent_loop"] = k.launch_dependent_loop;
  j["fingerprints"] = k.fingerprints;
  j["findings"] = k.findings;
  return j;
}

OrderedJson detail::toJson(const OrderSummary &o) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = o.launch;
  j["stores"] = o.stores;
  j["atomics"] = o.atomics;
  j["dropped_stores"] = o.dropped_stores;
  j["dropped_atomics"] = o.dropped_atomics;
  j["ops"] = o.ops;
  j["dropped_ops"] = o.dropped_ops;
  j["order_dependent_locations"] = o.order_dependent_locations;
  return j;
}

namespace {

// The members every part line of an order record repeats.
OrderedJson orderHead(const OrderStoreRecord &r) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = r.launch;
  j["arg"] = r.arg;
  j["name"] = r.name;
  j["dtype"] = dtypeName(r.dtype);
  j["sites"] = r.sites;
  return j;
}

OrderedJson orderHead(const OrderAtomicRecord &r) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = r.launch;
  j["arg"] = r.arg;
  j["name"] = r.name;
  j["dtype"] = dtypeName(r.dtype);
  j["op"] = r.op;
  j["sites"] = r.sites;
  j["exact"] = r.exact;
  return j;
}

OrderedJson orderHead(const OrderOpsRecord &r) {
  OrderedJson j = OrderedJson::object();
  j["launch"] = r.launch;
  j["params"] = OrderedJson::array();
  for (const OrderParam &p : r.params) {
    OrderedJson param = OrderedJson::object();
    param["arg"] = p.arg;
    param["name"] = p.name;
    param["dtype"] = dtypeName(p.dtype);
    j["params"].push_back(std::move(param));
  }
  j["sites"] = OrderedJson::array();
  for (const OrderOpSite &site : r.sites) {
    OrderedJson o = OrderedJson::object();
    o["op"] = site.op;
    o["location"] = site.location;
    j["sites"].push_back(std::move(o));
  }
  return j;
}

} // namespace

OrderedJson detail::toJson(const OrderOpsRecord &r) {
  OrderedJson j = orderHead(r);
  j["count"] = r.ops.size();
  return j;
}

OrderedJson detail::toJson(const OrderStoreRecord &r) {
  OrderedJson j = orderHead(r);
  j["count"] = r.elements.size();
  return j;
}

OrderedJson detail::toJson(const OrderAtomicRecord &r) {
  OrderedJson j = orderHead(r);
  uint64_t contributions = 0;
  for (const AtomicSequence &l : r.locations)
    contributions += l.order.size();
  j["count"] = r.locations.size();
  j["contributions"] = contributions;
  j["order_dependent_locations"] = orderDependentLocations(r);
  return j;
}

//===----------------------------------------------------------------------===//
// Order helpers
//===----------------------------------------------------------------------===//

bool atomicOrderMatters(const std::string &op) {
  return op != "fmin" && op != "fmax";
}

bool orderDependent(const OrderAtomicRecord &record, const AtomicSequence &location) {
  if (!atomicOrderMatters(record.op) || location.order.size() < 2)
    return false;
  uint64_t first = location.order.front().fp;
  for (const AtomicContribution &c : location.order)
    if (c.fp != first)
      return true;
  return false;
}

uint64_t orderDependentLocations(const OrderAtomicRecord &record) {
  uint64_t n = 0;
  for (const AtomicSequence &l : record.locations)
    n += orderDependent(record, l);
  return n;
}

std::string orderLeaves(const TraceHeader &header) {
  auto it = header.options.find("order_leaves");
  return it != header.options.end() && it->second == "value" ? "value" : "position";
}

//===----------------------------------------------------------------------===//
// TraceWriter
//===----------------------------------------------------------------------===//

std::unique_ptr<TraceWriter> TraceWriter::create(const std::string &path,
                                                 std::string *error) {
  // O_APPEND: a forked child that inherits the descriptor appends after the
  // parent's records instead of overwriting them.
  int fd = ::open(path.c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (error)
      *error = "cannot create trace " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<TraceWriter>(new TraceWriter(fd, path));
}

TraceWriter::~TraceWriter() { ::close(fd_); }

void TraceWriter::write(const TraceHeader &h) {
  writeLine(recordLine("header", detail::toJson(h)));
}
void TraceWriter::write(const ModuleRecord &m) {
  writeLine(recordLine("module", detail::toJson(m)));
}
void TraceWriter::write(const LaunchRecord &l) {
  writeLine(recordLine("launch", detail::toJson(l)));
}
void TraceWriter::write(const OobEvent &e) {
  writeLine(recordLine("oob", detail::toJson(e)));
}
void TraceWriter::write(const PrecisionRecord &p) {
  writeLine(recordLine("precision", detail::toJson(p)));
}
void TraceWriter::write(const TraceEnd &e) {
  writeLine(recordLine("end", detail::toJson(e)));
}

void TraceWriter::write(const KernelOrderInfo &k) {
  writeLine(recordLine("kernel_order", detail::toJson(k)));
}
void TraceWriter::write(const OrderSummary &o) {
  writeLine(recordLine("order_summary", detail::toJson(o)));
}

namespace {

// Sizes of the order payloads (docs/trace-format.md).
constexpr size_t kStoreEntryBytes = 16;       // u64 element, u64 fp
constexpr size_t kLocationHeadBytes = 24;     // u64 element, u64 fp, u32 n, u32 0
constexpr size_t kContributionBytes = 24;     // u64 fp, u64 value bits, u32 block, u32 thread
constexpr size_t kOpBytes = 32;               // u64 a, u64 b, u64 op, u32 site, u32 0

void putU64(std::vector<uint8_t> &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}
void putU32(std::vector<uint8_t> &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}
uint64_t getU64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}
uint32_t getU32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

// One part line: the record's members, then the part's, then its payload
// compressed with zstd (stored as it is where zstd is not available, as
// snapshot chunks are) in base64. The payload is appended to the text
// directly: megabytes of base64 need no JSON escaping.
std::string orderPartLine(const char *type, const OrderedJson &head,
                          uint64_t count, uint32_t part, uint32_t parts,
                          const std::vector<uint8_t> &raw) {
  const detail::ZstdApi *zstd = detail::zstdApi();
  std::vector<uint8_t> compressed;
  bool isCompressed = false;
  if (zstd) {
    compressed.resize(zstd->compressBound(raw.size()));
    size_t n = zstd->compress(compressed.data(), compressed.size(), raw.data(),
                              raw.size(), kSnapshotZstdLevel);
    if (!zstd->isError(n)) {
      compressed.resize(n);
      isCompressed = true;
    }
  }
  const std::vector<uint8_t> &payload = isCompressed ? compressed : raw;
  OrderedJson line = OrderedJson::object();
  line["type"] = type;
  for (const auto &[key, value] : head.items())
    line[key] = value;
  line["count"] = count;
  line["part"] = part;
  line["parts"] = parts;
  line["bytes"] = raw.size();
  line["encoding"] = isCompressed ? "zstd+base64" : "base64";
  std::string text = detail::dumpJson(line);
  text.pop_back(); // the closing brace
  text.reserve(text.size() + 12 + (payload.size() + 2) / 3 * 4);
  text += ",\"data\":\"";
  detail::base64Encode(payload.data(), payload.size(), text);
  text += "\"}\n";
  return text;
}

} // namespace

namespace {

// Writes n entries of entryBytes each as the lines of one order record:
// parts of at most partBytes (at most UINT32_MAX parts), put(raw, i)
// appending entry i, emit taking each line in order.
template <typename Put, typename Emit>
void fixedSizeParts(const char *type, const OrderedJson &head, uint64_t n,
                    uint64_t entryBytes, uint64_t partBytes, Put put, Emit emit) {
  uint64_t perPart = std::max<uint64_t>(1, partBytes / entryBytes);
  uint64_t parts = n == 0 ? 1 : (n - 1) / perPart + 1;
  if (parts > UINT32_MAX) {
    perPart = (n - 1) / UINT32_MAX + 1;
    parts = (n - 1) / perPart + 1;
  }
  std::vector<uint8_t> raw;
  for (uint64_t part = 0; part < parts; ++part) {
    uint64_t first = part * perPart;
    uint64_t count = std::min(perPart, n - std::min(n, first));
    raw.clear();
    raw.reserve(count * entryBytes);
    for (uint64_t i = first; i < first + count; ++i)
      put(raw, i);
    emit(orderPartLine(type, head, count, uint32_t(part), uint32_t(parts), raw));
  }
}

} // namespace

void TraceWriter::write(const OrderOpsRecord &r) {
  uint64_t partBytes = order_part_bytes_ ? order_part_bytes_ : kSnapshotChunkBytes;
  OrderedJson head = orderHead(r);
  // The parts follow one another with nothing in between.
  std::lock_guard<std::mutex> lock(mutex_);
  fixedSizeParts(
      "order_ops", head, r.ops.size(), kOpBytes, partBytes,
      [&](std::vector<uint8_t> &raw, uint64_t i) {
        const OrderOp &op = r.ops[i];
        putU64(raw, op.a);
        putU64(raw, op.b);
        putU64(raw, op.op);
        putU32(raw, op.site);
        putU32(raw, 0);
      },
      [&](const std::string &line) { writeLineLocked(line); });
}

void TraceWriter::write(const OrderStoreRecord &r) {
  uint64_t partBytes = order_part_bytes_ ? order_part_bytes_ : kSnapshotChunkBytes;
  OrderedJson head = orderHead(r);
  std::lock_guard<std::mutex> lock(mutex_);
  fixedSizeParts(
      "order_stores", head, r.elements.size(), kStoreEntryBytes, partBytes,
      [&](std::vector<uint8_t> &raw, uint64_t i) {
        putU64(raw, r.elements[i].element);
        putU64(raw, r.elements[i].fp);
      },
      [&](const std::string &line) { writeLineLocked(line); });
}

void TraceWriter::write(const OrderAtomicRecord &r) {
  uint64_t partBytes = order_part_bytes_ ? order_part_bytes_ : kSnapshotChunkBytes;
  // Parts split at location boundaries; a location larger than a part gets
  // a part of its own.
  std::vector<std::pair<size_t, size_t>> ranges; // [begin, end) of locations
  size_t begin = 0;
  uint64_t bytes = 0;
  for (size_t i = 0; i < r.locations.size(); ++i) {
    uint64_t size = kLocationHeadBytes + kContributionBytes * r.locations[i].order.size();
    if (i > begin && bytes + size > partBytes) {
      ranges.push_back({begin, i});
      begin = i;
      bytes = 0;
    }
    bytes += size;
  }
  ranges.push_back({begin, r.locations.size()});
  OrderedJson head = orderHead(r);
  std::vector<uint8_t> raw;
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t part = 0; part < ranges.size(); ++part) {
    raw.clear();
    for (size_t i = ranges[part].first; i < ranges[part].second; ++i) {
      const AtomicSequence &l = r.locations[i];
      putU64(raw, l.element);
      putU64(raw, l.fp);
      putU32(raw, uint32_t(l.order.size()));
      putU32(raw, 0);
      for (const AtomicContribution &c : l.order) {
        putU64(raw, c.fp);
        putU64(raw, c.value_bits);
        putU32(raw, c.block);
        putU32(raw, c.thread);
      }
    }
    writeLineLocked(orderPartLine("order_atomics", head,
                                  ranges[part].second - ranges[part].first,
                                  uint32_t(part), uint32_t(ranges.size()), raw));
  }
}

void TraceWriter::writeLine(const std::string &line) {
  std::lock_guard<std::mutex> lock(mutex_);
  writeLineLocked(line);
}

void TraceWriter::writeLineLocked(const std::string &line) {
  const char *p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    // A full disk or a closed pipe: the program under test must go on, and
    // the reader reports the cut-off record as a truncated trace.
    if (n <= 0)
      return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

//===----------------------------------------------------------------------===//
// readTrace
//===----------------------------------------------------------------------===//

namespace {

// Reads the members of one record. The first problem is kept and later reads
// are no-ops, so a record is parsed straight through and checked once. Only
// non-throwing accessors of nlohmann::json are used: any input, however
// mistyped, ends as a message and never as an exception.
class FieldReader {
public:
  explicit FieldReader(const Json &object) : object_(object) {}

  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }

  // A member that has the right JSON type but a wrong value.
  void invalid(const char *key, const std::string &why) {
    if (ok())
      error_ = std::string("field '") + key + "' " + why;
  }

  // An element type by name (docs/trace-format.md); "" is allowed, and
  // leaves out unchanged, only where emptyAllowed.
  void readDType(const char *key, DType &out, bool emptyAllowed = false) {
    std::string name;
    read(key, name);
    if (!ok() || (emptyAllowed && name.empty()))
      return;
    if (std::optional<DType> t = parseDType(name))
      out = *t;
    else
      invalid(key, std::string("must be ") + (emptyAllowed ? "\"\" or " : "") +
                       "an element type such as \"f32\" (docs/trace-format.md), not \"" +
                       name + "\"");
  }

  void read(const char *key, std::string &out) {
    if (const Json *v = find(key)) {
      if (v->is_string())
        out = v->get_ref<const std::string &>();
      else
        fail(key, "a string");
    }
  }

  // A member that only some records carry (and traces of older runtimes
  // lack): left unchanged when absent.
  void readOptional(const char *key, std::string &out) {
    if (ok() && object_.contains(key))
      read(key, out);
  }
  template <typename T> void readIfPresent(const char *key, T &out) {
    if (ok() && object_.contains(key))
      read(key, out);
  }
  template <typename Body> void readObjectIfPresent(const char *key, Body body) {
    if (ok() && object_.contains(key))
      readObject(key, body);
  }

  void read(const char *key, bool &out) {
    if (const Json *v = find(key)) {
      if (v->is_boolean())
        out = v->get<bool>();
      else
        fail(key, "true or false");
    }
  }

  void read(const char *key, uint32_t &out) {
    uint64_t wide = 0;
    if (readUnsigned(key, wide, std::numeric_limits<uint32_t>::max(),
                     "an unsigned 32-bit integer"))
      out = static_cast<uint32_t>(wide);
  }

  void read(const char *key, uint64_t &out) {
    readUnsigned(key, out, std::numeric_limits<uint64_t>::max(),
                 "an unsigned 64-bit integer");
  }

  void read(const char *key, int &out) {
    int64_t wide = 0;
    if (readSigned(key, wide, std::numeric_limits<int>::min(),
                   std::numeric_limits<int>::max(), "a 32-bit integer"))
      out = static_cast<int>(wide);
  }

  void read(const char *key, int64_t &out) {
    readSigned(key, out, std::numeric_limits<int64_t>::min(),
               std::numeric_limits<int64_t>::max(), "a 64-bit integer");
  }

  // A number, or one of the strings "inf", "-inf" and "nan" that the writer
  // puts where JSON has no number.
  void read(const char *key, double &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (v->is_number()) {
      out = v->get<double>();
      return;
    }
    if (v->is_string()) {
      const std::string &s = v->get_ref<const std::string &>();
      if (s == "inf" || s == "-inf" || s == "nan") {
        out = s == "nan"   ? std::numeric_limits<double>::quiet_NaN()
              : s == "inf" ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
        return;
      }
    }
    fail(key, "a number or one of \"inf\", \"-inf\", \"nan\"");
  }

  template <size_t N> void read(const char *key, std::array<uint64_t, N> &out) {
    const Json *v = find(key);
    if (!v)
      return;
    static const std::string expected =
        "an array of " + std::to_string(N) + " unsigned 64-bit integers";
    if (!v->is_array() || v->size() != N) {
      fail(key, expected.c_str());
      return;
    }
    for (size_t i = 0; i < N; ++i) {
      const Json &item = (*v)[i];
      if (!item.is_number_unsigned()) {
        fail(key, expected.c_str());
        return;
      }
      out[i] = item.get<uint64_t>();
    }
  }

  // A nested object, read by `body` with a reader of its own; its problem
  // is reported as "in 'key': ...".
  template <typename Body> void readObject(const char *key, Body body) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_object()) {
      fail(key, "an object");
      return;
    }
    FieldReader inner(*v);
    body(inner);
    if (!inner.ok())
      error_ = std::string("in '") + key + "': " + inner.error();
  }

  void read(const char *key, Dim3 &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_array() || v->size() != 3) {
      fail(key, "an array of 3 unsigned 32-bit integers");
      return;
    }
    uint32_t *parts[] = {&out.x, &out.y, &out.z};
    for (size_t i = 0; i < 3; ++i) {
      const Json &item = (*v)[i];
      if (!item.is_number_unsigned() ||
          item.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
        fail(key, "an array of 3 unsigned 32-bit integers");
        return;
      }
      *parts[i] = static_cast<uint32_t>(item.get<uint64_t>());
    }
  }

  void read(const char *key, std::vector<std::string> &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_array()) {
      fail(key, "an array of strings");
      return;
    }
    out.clear();
    for (const Json &item : *v) {
      if (!item.is_string()) {
        fail(key, "an array of strings");
        return;
      }
      out.push_back(item.get_ref<const std::string &>());
    }
  }

  void read(const char *key, std::vector<int64_t> &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_array()) {
      fail(key, "an array of 64-bit integers");
      return;
    }
    out.clear();
    for (const Json &item : *v) {
      bool inRange = item.is_number_unsigned()
                         ? item.get<uint64_t>() <=
                               uint64_t(std::numeric_limits<int64_t>::max())
                         : item.is_number_integer();
      if (!inRange) {
        fail(key, "an array of 64-bit integers");
        return;
      }
      out.push_back(item.get<int64_t>());
    }
  }

  void read(const char *key, std::map<std::string, std::string> &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_object()) {
      fail(key, "an object of strings");
      return;
    }
    out.clear();
    for (const auto &[name, value] : v->items()) {
      if (!value.is_string()) {
        fail(key, "an object of strings");
        return;
      }
      out[name] = value.get_ref<const std::string &>();
    }
  }

  // "0x" and 1 to 16 hex digits.
  void readAddress(const char *key, uint64_t &out) {
    const Json *v = find(key);
    if (!v)
      return;
    const char *expected = "a hex string such as \"0x7f00\"";
    if (!v->is_string()) {
      fail(key, expected);
      return;
    }
    const std::string &s = v->get_ref<const std::string &>();
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' ||
        (s[1] != 'x' && s[1] != 'X')) {
      fail(key, expected);
      return;
    }
    uint64_t value = 0;
    for (size_t i = 2; i < s.size(); ++i) {
      int digit = hexDigit(s[i]);
      if (digit < 0) {
        fail(key, expected);
        return;
      }
      value = value << 4 | static_cast<uint64_t>(digit);
    }
    out = value;
  }

  void read(const char *key, SourceLoc &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_object()) {
      fail(key, "an object");
      return;
    }
    FieldReader site(*v);
    site.read("file", out.file);
    site.read("line", out.line);
    site.read("column", out.column);
    site.read("function", out.function);
    site.read("inlined_at", out.inlined_at);
    if (!site.ok())
      error_ = std::string("in '") + key + "': " + site.error();
  }

private:
  const Json *find(const char *key) {
    if (!ok())
      return nullptr;
    auto it = object_.find(key);
    if (it == object_.end()) {
      error_ = std::string("missing field '") + key + "'";
      return nullptr;
    }
    return &*it;
  }

  void fail(const char *key, const char *expected) {
    error_ = std::string("field '") + key + "' must be " + expected;
  }

  bool readUnsigned(const char *key, uint64_t &out, uint64_t max,
                    const char *expected) {
    const Json *v = find(key);
    if (!v)
      return false;
    if (!v->is_number_unsigned() || v->get<uint64_t>() > max) {
      fail(key, expected);
      return false;
    }
    out = v->get<uint64_t>();
    return true;
  }

  bool readSigned(const char *key, int64_t &out, int64_t min, int64_t max,
                  const char *expected) {
    const Json *v = find(key);
    if (!v)
      return false;
    // Non-negative integers are stored as unsigned; check them before the
    // conversion to int64_t can wrap.
    bool inRange =
        v->is_number_unsigned()
            ? v->get<uint64_t>() <= static_cast<uint64_t>(max)
            : v->is_number_integer() && v->get<int64_t>() >= min &&
                  v->get<int64_t>() <= max;
    if (!inRange) {
      fail(key, expected);
      return false;
    }
    out = v->get<int64_t>();
    return true;
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  const Json &object_;
  std::string error_;
};

using detail::plural;

std::string parseHeader(const Json &j, TraceHeader &h) {
  FieldReader r(j);
  std::string type;
  r.read("type", type);
  if (r.ok() && type != "header")
    return "field 'type' must be \"header\"";
  r.read("version", h.version);
  r.read("kosan_version", h.kosan_version);
  r.read("pid", h.pid);
  r.read("argv", h.argv);
  r.read("start_time", h.start_time);
  r.read("options", h.options);
  r.read("gpu_name", h.gpu_name);
  r.read("gpu_arch", h.gpu_arch);
  r.read("driver_version", h.driver_version);
  r.read("runtime_version", h.runtime_version);
  return r.error();
}

std::string parseRecord(const Json &j, ModuleRecord &m) {
  FieldReader r(j);
  r.read("id", m.id);
  r.read("source", m.source);
  r.read("compiler", m.compiler);
  r.read("fp_mode", m.fp_mode);
  r.read("sites", m.sites);
  return r.error();
}

std::string parseRecord(const Json &j, LaunchRecord &l) {
  FieldReader r(j);
  r.read("id", l.id);
  r.read("kernel", l.kernel);
  r.read("mangled", l.mangled);
  r.read("module", l.module);
  r.read("grid", l.grid);
  r.read("block", l.block);
  r.read("shared_bytes", l.shared_bytes);
  r.readAddress("stream", l.stream);
  r.read("instrumented", l.instrumented);
  return r.error();
}

std::string parseRecord(const Json &j, OobEvent &e) {
  FieldReader r(j);
  r.read("launch", e.launch);
  r.read("kind", e.kind);
  r.read("access", e.access);
  r.read("size", e.size);
  r.read("count", e.count);
  r.read("site", e.site);
  r.read("site_id", e.site_id);
  r.read("block", e.block);
  r.read("thread", e.thread);
  r.readAddress("address", e.address);
  r.read("buffer_name", e.buffer_name);
  r.readAddress("buffer_begin", e.buffer_begin);
  r.readAddress("buffer_end", e.buffer_end);
  r.read("pitch", e.pitch);
  r.read("row_bytes", e.row_bytes);
  r.read("allocated_at", e.allocated_at);
  r.readOptional("freed_at", e.freed_at);
  r.read("space", e.space);
  return r.error();
}

std::string parseRecord(const Json &j, PrecisionRecord &p) {
  FieldReader r(j);
  r.read("launch_first", p.launch_first);
  r.read("launch_last", p.launch_last);
  r.read("kind", p.kind);
  if (r.ok() && p.kind != "store" && p.kind != "atomic" && p.kind != "narrow" &&
      p.kind != "nonfinite")
    r.invalid("kind", "must be \"store\", \"atomic\", \"narrow\" or "
                      "\"nonfinite\", not \"" + p.kind + "\"");
  r.read("op", p.op);
  r.readDType("dtype", p.dtype);
  r.readDType("from_dtype", p.from_dtype, /*emptyAllowed=*/true);
  r.read("site", p.site);
  r.read("site_id", p.site_id);
  r.read("module", p.module);
  r.read("count", p.count);
  r.read("mean_rel_err", p.mean_rel_err);
  r.read("max_rel_err", p.max_rel_err);
  r.read("max_ulp_err", p.max_ulp_err);
  r.read("bits_lost", p.bits_lost);
  r.read("hist", p.hist);
  r.read("overflows", p.overflows);
  r.read("underflows", p.underflows);
  r.read("nans", p.nans);
  r.readObject("worst", [&](FieldReader &w) {
    w.read("real", p.worst.real);
    w.read("shadow", p.worst.shadow);
    w.read("block", p.worst.block);
    w.read("thread", p.worst.thread);
    w.read("launch", p.worst.launch);
  });
  // Scale-aware error and root cause: absent from traces of runtimes
  // before them, which get the worst value's error at its own magnitude.
  if (r.ok() && !j.contains("scaled_bits") && p.kind != "nonfinite" && p.count > 0) {
    p.max_abs_err = prec::absError(p.worst.real, p.worst.shadow);
    p.scale = prec::scaleOf(p.worst.shadow);
    p.scaled_bits = scaledBits(p.max_abs_err, p.scale);
  }
  r.readIfPresent("max_abs_err", p.max_abs_err);
  r.readIfPresent("scale", p.scale);
  r.readIfPresent("scaled_bits", p.scaled_bits);
  r.readIfPresent("to_shared", p.to_shared);
  r.readObjectIfPresent("cause", [&](FieldReader &c) {
    c.read("kind", p.cause.kind);
    if (c.ok() && p.cause.kind != "narrow" && p.cause.kind != "op")
      c.invalid("kind", "must be \"narrow\" or \"op\", not \"" + p.cause.kind + "\"");
    c.read("op", p.cause.op);
    c.readDType("dtype", p.cause.dtype);
    c.readDType("from_dtype", p.cause.from_dtype, /*emptyAllowed=*/true);
    c.read("site", p.cause.site);
    c.read("local_log2", p.cause.local_log2);
  });
  if (!r.ok())
    return r.error();
  if (p.launch_first > p.launch_last)
    return "field 'launch_first' (" + std::to_string(p.launch_first) +
           ") must not be greater than 'launch_last' (" +
           std::to_string(p.launch_last) + ")";
  for (auto [key, value] : {std::pair{"mean_rel_err", p.mean_rel_err},
                            std::pair{"max_rel_err", p.max_rel_err},
                            std::pair{"max_ulp_err", p.max_ulp_err},
                            std::pair{"bits_lost", p.bits_lost},
                            std::pair{"max_abs_err", p.max_abs_err},
                            std::pair{"scale", p.scale},
                            std::pair{"scaled_bits", p.scaled_bits}})
    if (value < 0)
      return std::string("field '") + key + "' must not be negative";
  return "";
}

std::string parseRecord(const Json &j, TraceEnd &e) {
  FieldReader r(j);
  r.read("launches", e.launches);
  r.read("errors", e.errors);
  r.read("reports", e.reports);
  r.read("dropped", e.dropped);
  r.read("unresolved_accesses", e.unresolved_accesses);
  return r.error();
}

std::string parseRecord(const Json &j, SnapshotRecord &s) {
  FieldReader r(j);
  r.read("launch", s.launch);
  r.read("arg", s.arg);
  r.read("name", s.name);
  r.readDType("dtype", s.dtype);
  r.read("count", s.count);
  r.read("shape", s.shape);
  r.readAddress("address", s.address);
  r.read("read", s.read);
  r.read("poisoned", s.poisoned);
  r.readAddress("poison", s.poison);
  r.readAddress("pre_hash", s.pre_hash);
  r.readAddress("post_hash", s.post_hash);
  r.read("store_sites", s.store_sites);
  r.read("chunks", s.chunks);
  r.read("chunk_elements", s.chunk_elements);
  if (!r.ok())
    return r.error();

  if (!s.shape.empty()) {
    uint64_t product = 1;
    bool valid = true;
    for (int64_t extent : s.shape) {
      if (extent < 0 || (extent > 0 && product > UINT64_MAX / uint64_t(extent)))
        valid = false;
      else
        product *= uint64_t(extent);
    }
    if (!valid || product != s.count)
      return "field 'shape' must hold non-negative extents whose product is "
             "'count' (" + std::to_string(s.count) + ")";
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(s.count, uint64_t(dtypeSize(s.dtype)), &bytes))
    return "field 'count' is " + std::to_string(s.count) + ": " + dtypeName(s.dtype) +
           " elements of that many are more than 2^64 bytes";
  uint64_t chunks = s.count == 0 || s.chunk_elements == 0
                        ? 0
                        : (s.count - 1) / s.chunk_elements + 1;
  if (s.count > 0 && s.chunk_elements == 0)
    return "field 'chunk_elements' must not be 0 when 'count' is not";
  if (chunks != s.chunks)
    return "field 'chunks' is " + std::to_string(s.chunks) + ", but " +
           std::to_string(s.count) + " elements in chunks of " +
           std::to_string(s.chunk_elements) + " make " + std::to_string(chunks);
  return "";
}

std::string parseRecord(const Json &j, KernelOrderInfo &k) {
  FieldReader r(j);
  r.read("module", k.module);
  r.read("kernel", k.kernel);
  r.read("mangled", k.mangled);
  r.read("float_atomics", k.float_atomics);
  r.read("shuffle_reduction", k.shuffle_reduction);
  r.read("shared_reduction", k.shared_reduction);
  r.read("launch_dependent_loop", k.launch_dependent_loop);
  r.read("fingerprints", k.fingerprints);
  r.read("findings", k.findings);
  return r.error();
}

std::string parseRecord(const Json &j, OrderSummary &o) {
  FieldReader r(j);
  r.read("launch", o.launch);
  r.read("stores", o.stores);
  r.read("atomics", o.atomics);
  r.read("dropped_stores", o.dropped_stores);
  r.read("dropped_atomics", o.dropped_atomics);
  // checks=order-ops only; traces written before it lack them.
  if (j.contains("ops"))
    r.read("ops", o.ops);
  if (j.contains("dropped_ops"))
    r.read("dropped_ops", o.dropped_ops);
  r.read("order_dependent_locations", o.order_dependent_locations);
  return r.error();
}

enum class OrderKind { Stores, Atomics, Ops };

// One line of an order_stores, order_atomics or order_ops record: the
// record's members and one part of its payload, decoded.
struct OrderPart {
  uint32_t launch = 0, arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  std::vector<std::string> sites;
  std::string op;                 // order_atomics
  bool exact = true;              // order_atomics
  std::vector<OrderParam> params;       // order_ops
  std::vector<OrderOpSite> opSites;     // order_ops
  uint64_t count = 0;
  uint32_t part = 0, parts = 0;
  std::vector<uint8_t> raw;
};

// The payload of a part line as raw bytes: "encoding" and "data" (and
// "bytes", where present) checked.
std::string decodeOrderPayload(const Json &j, std::vector<uint8_t> &raw) {
  FieldReader r(j);
  std::string encoding, data;
  r.read("encoding", encoding);
  r.read("data", data);
  std::optional<uint64_t> bytes;
  if (r.ok() && j.contains("bytes")) {
    uint64_t b = 0;
    r.read("bytes", b);
    bytes = b;
  }
  if (!r.ok())
    return r.error();
  bool compressed = encoding == "zstd+base64";
  if (!compressed && encoding != "base64")
    return "unknown encoding '" + encoding +
           "' (this reader knows zstd+base64 and base64)";
  std::vector<uint8_t> decoded;
  if (!detail::base64Decode(data, decoded))
    return "field 'data' is not valid base64";
  if (!compressed) {
    raw = std::move(decoded);
  } else {
    const detail::ZstdApi *zstd = detail::zstdApi();
    if (!zstd)
      return "it is zstd-compressed and zstd is not available here (libzstd.so.1)";
    unsigned long long size = zstd->getFrameContentSize(decoded.data(), decoded.size());
    if (size == detail::kZstdContentSizeError)
      return "field 'data' is not a zstd frame";
    if (size == detail::kZstdContentSizeUnknown) {
      if (!bytes)
        return "field 'data' is a zstd frame without its size, and field "
               "'bytes' is missing";
      size = *bytes;
    }
    // A part holds at most a few MB; a frame that claims much more, or more
    // than its own bytes can decompress to, is damaged.
    if (size > (uint64_t(1) << 32))
      return "field 'data' claims " + std::to_string(size) +
             " bytes, more than a part can hold";
    if (size > detail::maxZstdContentSize(decoded.size()))
      return "field 'data' claims " + std::to_string(size) + " bytes, more than a " +
             std::to_string(decoded.size()) + "-byte zstd frame can hold";
    if (bytes && size != *bytes)
      return "field 'data' decompresses to " + std::to_string(size) +
             " bytes, field 'bytes' says " + std::to_string(*bytes);
    raw.resize(size);
    size_t n = zstd->decompress(raw.data(), raw.size(), decoded.data(), decoded.size());
    if (zstd->isError(n))
      return std::string("field 'data' does not decompress: ") + zstd->getErrorName(n);
    if (n != size)
      return "field 'data' decompresses to " + std::to_string(n) +
             " bytes, its frame says " + std::to_string(size);
  }
  if (bytes && raw.size() != *bytes)
    return "field 'data' holds " + std::to_string(raw.size()) +
           " bytes, field 'bytes' says " + std::to_string(*bytes);
  return "";
}

// An array of objects, each read by `body` with a reader of its own; a
// problem is reported as "in 'key' item N: ...".
template <typename Body>
std::string readObjects(const Json &j, const char *key, Body body) {
  auto it = j.find(key);
  if (it == j.end())
    return std::string("missing field '") + key + "'";
  if (!it->is_array())
    return std::string("field '") + key + "' must be an array of objects";
  size_t index = 0;
  for (const Json &item : *it) {
    if (!item.is_object())
      return std::string("field '") + key + "' must be an array of objects";
    FieldReader r(item);
    body(r);
    if (!r.ok())
      return std::string("in '") + key + "' item " + std::to_string(index) + ": " + r.error();
    ++index;
  }
  return "";
}

std::string parseOrderPart(const Json &j, OrderKind kind, OrderPart &p) {
  FieldReader r(j);
  r.read("launch", p.launch);
  if (kind != OrderKind::Ops) {
    r.read("arg", p.arg);
    r.read("name", p.name);
    r.readDType("dtype", p.dtype);
  }
  if (kind == OrderKind::Atomics)
    r.read("op", p.op);
  if (kind != OrderKind::Ops)
    r.read("sites", p.sites);
  if (kind == OrderKind::Atomics)
    r.read("exact", p.exact);
  if (!r.ok())
    return r.error();
  if (kind == OrderKind::Ops) {
    std::string error = readObjects(j, "params", [&](FieldReader &item) {
      OrderParam param;
      item.read("arg", param.arg);
      item.read("name", param.name);
      item.readDType("dtype", param.dtype);
      p.params.push_back(std::move(param));
    });
    if (error.empty())
      error = readObjects(j, "sites", [&](FieldReader &item) {
        OrderOpSite site;
        item.read("op", site.op);
        item.read("location", site.location);
        p.opSites.push_back(std::move(site));
      });
    if (!error.empty())
      return error;
  }
  r.read("count", p.count);
  r.read("part", p.part);
  r.read("parts", p.parts);
  if (!r.ok())
    return r.error();
  if (p.parts == 0)
    return "field 'parts' must be 1 or more";
  if (p.part >= p.parts)
    return "field 'part' is " + std::to_string(p.part) + ", but the record has " +
           plural(p.parts, "part", "parts") + " (numbered from 0)";
  return decodeOrderPayload(j, p.raw);
}

// Whether a part's payload holds exactly `count` entries of `entryBytes`;
// checked before anything is reserved for them, so that a count whose size
// does not fit in 64 bits cannot wrap around and pass.
std::string payloadSizeError(const OrderPart &p, size_t entryBytes, const char *one,
                             const char *many) {
  uint64_t expected = 0;
  if (__builtin_mul_overflow(p.count, uint64_t(entryBytes), &expected))
    return "field 'count' says " + plural(p.count, one, many) + " of " +
           std::to_string(entryBytes) + " bytes each, more than 2^64 bytes; field "
           "'data' holds " + std::to_string(p.raw.size()) + " bytes";
  if (p.raw.size() != expected)
    return "field 'data' holds " + std::to_string(p.raw.size()) + " bytes, but " +
           plural(p.count, one, many) + (p.count == 1 ? " is " : " are ") +
           std::to_string(expected) + " bytes";
  return "";
}

// Appends the elements of one order_stores part; they must continue the
// record's ascending order.
std::string appendStores(const OrderPart &p, OrderStoreRecord &r) {
  if (std::string error = payloadSizeError(p, kStoreEntryBytes, "element", "elements");
      !error.empty())
    return error;
  r.elements.reserve(r.elements.size() + p.count);
  for (uint64_t i = 0; i < p.count; ++i) {
    const uint8_t *q = p.raw.data() + i * kStoreEntryBytes;
    OrderElement e{getU64(q), getU64(q + 8)};
    if (!r.elements.empty() && e.element <= r.elements.back().element)
      return "its elements are not in ascending order: element " +
             std::to_string(e.element) + " follows element " +
             std::to_string(r.elements.back().element);
    r.elements.push_back(e);
  }
  return "";
}

std::string appendAtomics(const OrderPart &p, OrderAtomicRecord &r) {
  const uint8_t *q = p.raw.data(), *end = q + p.raw.size();
  for (uint64_t i = 0; i < p.count; ++i) {
    if (size_t(end - q) < kLocationHeadBytes)
      return "field 'data' ends inside location " + std::to_string(i) + " of " +
             std::to_string(p.count);
    AtomicSequence l;
    l.element = getU64(q);
    l.fp = getU64(q + 8);
    uint32_t n = getU32(q + 16);
    q += kLocationHeadBytes;
    if (uint64_t(end - q) < uint64_t(n) * kContributionBytes)
      return "field 'data' ends inside the " + plural(n, "contribution", "contributions") +
             " of element " + std::to_string(l.element);
    l.order.resize(n);
    for (AtomicContribution &c : l.order) {
      c.fp = getU64(q);
      c.value_bits = getU64(q + 8);
      c.block = getU32(q + 16);
      c.thread = getU32(q + 20);
      q += kContributionBytes;
    }
    if (!r.locations.empty() && l.element <= r.locations.back().element)
      return "its locations are not in ascending order: element " +
             std::to_string(l.element) + " follows element " +
             std::to_string(r.locations.back().element);
    r.locations.push_back(std::move(l));
  }
  if (q != end)
    return "field 'data' holds " + std::to_string(end - q) +
           " bytes after the " + plural(p.count, "location", "locations") +
           " field 'count' announces";
  return "";
}

// Appends the operations of one order_ops part; they must continue the
// record's ascending (a, b, op, site) order and name sites it has.
std::string appendOps(const OrderPart &p, OrderOpsRecord &r) {
  if (std::string error = payloadSizeError(p, kOpBytes, "operation", "operations");
      !error.empty())
    return error;
  r.ops.reserve(r.ops.size() + p.count);
  auto key = [](const OrderOp &o) { return std::tuple(o.a, o.b, o.op, o.site); };
  for (uint64_t i = 0; i < p.count; ++i) {
    const uint8_t *q = p.raw.data() + i * kOpBytes;
    OrderOp op{getU64(q), getU64(q + 8), getU64(q + 16), getU32(q + 24)};
    if (op.site >= r.sites.size())
      return "operation " + std::to_string(r.ops.size()) + " names site " +
             std::to_string(op.site) + ", but the record has " +
             plural(r.sites.size(), "site", "sites");
    if (!r.ops.empty() && key(op) <= key(r.ops.back()))
      return "its operations are not in ascending order of (a, b, op, site): operation " +
             std::to_string(r.ops.size()) + " does not follow operation " +
             std::to_string(r.ops.size() - 1);
    r.ops.push_back(op);
  }
  return "";
}

template <typename Record>
std::string parseInto(const Json &j, std::vector<Record> &out) {
  Record record;
  std::string error = parseRecord(j, record);
  if (error.empty())
    out.push_back(std::move(record));
  return error;
}

bool isBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// How a header line starts when the writer made it; a first line cut short
// inside this prefix is a trace whose process died at once, not a foreign
// file.
constexpr std::string_view kHeaderStart =
    R"({"type":"header","format":"kosan-trace")";

// Closes a descriptor on every return path.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

ReadResult readTraceLines(const std::string &path, size_t &lineNo);

} // namespace

ReadResult readTrace(const std::string &path) {
  // Every claim a record makes is checked before memory is reserved for it;
  // should an allocation fail all the same, the caller gets the one-line
  // error it gets for any other unreadable trace, never an exception.
  size_t lineNo = 0;
  try {
    return readTraceLines(path, lineNo);
  } catch (const std::bad_alloc &) {
    ReadResult result;
    result.error = TraceError::Corrupt;
    result.message = path + ":" + std::to_string(lineNo) +
                     ": cannot read the trace: out of memory";
    return result;
  } catch (const std::exception &e) {
    ReadResult result;
    result.error = TraceError::Corrupt;
    result.message = path + ":" + std::to_string(lineNo) +
                     ": cannot read the trace: internal error in the reader (" +
                     e.what() + ")";
    return result;
  }
}

namespace {

ReadResult readTraceLines(const std::string &path, size_t &lineNo) {
  ReadResult result;
  auto fail = [&](TraceError error, std::string message) {
    result.error = error;
    result.message = std::move(message);
    return std::move(result);
  };

  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(TraceError::CannotOpen,
                "cannot open " + path + ": " + std::strerror(errno));
  FdCloser closer{fd};
  detail::LineReader reader(fd);

  Trace &trace = result.trace;
  uint64_t records = 0;
  // A snapshot record whose chunk lines are still to come: it joins
  // trace.snapshots when the last one has been seen.
  std::optional<SnapshotRecord> pending;
  size_t pendingLine = 0;
  uint32_t chunksSeen = 0;
  // An order_stores, order_atomics or order_ops record whose later parts
  // are still to come: it joins its vector when the last one has been read.
  struct PendingOrder {
    std::string type;
    OrderKind kind = OrderKind::Stores;
    size_t line = 0;
    uint32_t parts = 0, seen = 0;
    uint32_t launch = 0, arg = 0;
    OrderStoreRecord stores;
    OrderAtomicRecord atomics;
    OrderOpsRecord ops;
    // "launch 1, argument 2"; "launch 1" for order_ops, which has no argument.
    std::string owner() const {
      return "launch " + std::to_string(launch) +
             (kind == OrderKind::Ops ? "" : ", argument " + std::to_string(arg));
    }
  };
  std::optional<PendingOrder> pendingOrder;

  detail::LineReader::Line current;
  for (;;) {
    detail::LineReader::Status status = reader.next(&current);
    if (status == detail::LineReader::Status::Error)
      return fail(TraceError::CannotOpen, "cannot read " + path + ": " +
                                              std::strerror(reader.error()));
    if (status == detail::LineReader::Status::End)
      break;
    ++lineNo;
    const std::string &line = current.text;
    bool complete = current.complete;
    std::string where = path + ":" + std::to_string(lineNo) + ": ";

    // The writer ends every record with its newline in the same write(2): a
    // last line without one that does not parse is a record cut short.
    auto truncated = [&] {
      return fail(TraceError::Truncated,
                  path + " ends mid-record after " +
                      plural(records, "complete record", "complete records") +
                      " (line " + std::to_string(lineNo) +
                      " is incomplete); the process likely died while "
                      "writing it");
    };
    // Chunk lines are only counted here; SnapshotStream decodes them.
    auto chunkLine = [&]() -> std::optional<ReadResult> {
      if (!pending)
        return fail(TraceError::Corrupt,
                    where + "corrupt snapshot_chunk record: no snapshot "
                            "record announces it");
      // What a chunk claims must fit in its line, whatever the line holds:
      // the chunks are decoded later (SnapshotStream), and a claim the file
      // cannot back must not get that far.
      uint64_t first = uint64_t(chunksSeen) * pending->chunk_elements;
      uint64_t elements = std::min(pending->chunk_elements, pending->count - first);
      uint64_t claimed = elements * dtypeSize(pending->dtype);
      if (claimed > detail::maxZstdContentSize(current.length))
        return fail(TraceError::Corrupt,
                    where + "corrupt snapshot_chunk record: chunk " +
                        std::to_string(chunksSeen + 1) + " of the snapshot record on line " +
                        std::to_string(pendingLine) + " should hold " +
                        std::to_string(claimed) + " bytes, more than its " +
                        std::to_string(current.length) + "-byte line can encode");
      ++records;
      if (++chunksSeen == pending->chunks) {
        trace.snapshots.push_back(std::move(*pending));
        pending.reset();
      }
      return std::nullopt;
    };

    if (current.skipped) {
      // Data is base64 and the line a flat object: only its own closing
      // brace can end it, so a line cut short never ends in '}'.
      if (!complete && current.last != '}')
        return truncated();
      if (auto error = chunkLine())
        return std::move(*error);
      continue;
    }

    const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    bool parsed = !j.is_discarded();

    if (lineNo == 1) {
      if (!parsed && !complete &&
          (line.starts_with(kHeaderStart) || kHeaderStart.starts_with(line)))
        return truncated();
      if (!parsed || !j.is_object() || !j.contains("format") ||
          j["format"] != kTraceFormatName)
        return fail(TraceError::Foreign,
                    path + " is not a kosan trace (first line is not a kosan "
                           "trace header)");
      FieldReader version(j);
      int v = 0;
      version.read("version", v);
      if (!version.ok())
        return fail(TraceError::Corrupt, where + "corrupt header: " +
                                             version.error());
      if (v != kTraceVersion)
        return fail(TraceError::Version,
                    path + " is a version " + std::to_string(v) +
                        " kosan trace; this reader knows only version " +
                        std::to_string(kTraceVersion));
      std::string error = parseHeader(j, trace.header);
      if (!error.empty())
        return fail(TraceError::Corrupt, where + "corrupt header: " + error);
      ++records;
      // Only after the header: a file whose first line is a chunk is foreign.
      reader.skipLinesStartingWith(detail::kSnapshotChunkStart);
      continue;
    }

    if (isBlank(line))
      continue;
    if (!parsed)
      return complete ? fail(TraceError::Corrupt,
                             where + "corrupt record: not valid JSON")
                      : truncated();
    if (!j.is_object())
      return fail(TraceError::Corrupt,
                  where + "corrupt record: not a JSON object");
    auto typeIt = j.find("type");
    if (typeIt == j.end() || !typeIt->is_string())
      return fail(TraceError::Corrupt,
                  where + "corrupt record: field 'type' must be a string");
    const std::string &type = typeIt->get_ref<const std::string &>();

    // A chunk line the writer did not lay out (spaces, another member order).
    if (type == "snapshot_chunk") {
      if (auto error = chunkLine())
        return std::move(*error);
      continue;
    }
    if (pending)
      return fail(TraceError::Corrupt,
                  where + "corrupt snapshot: the snapshot record on line " +
                      std::to_string(pendingLine) + " announces " +
                      plural(pending->chunks, "snapshot_chunk line",
                             "snapshot_chunk lines") +
                      " but only " + std::to_string(chunksSeen) +
                      " follow it");

    bool orderPart =
        type == "order_stores" || type == "order_atomics" || type == "order_ops";
    if (pendingOrder && !orderPart)
      return fail(TraceError::Corrupt,
                  where + "corrupt " + pendingOrder->type + " record: the " +
                      pendingOrder->type + " record that starts on line " +
                      std::to_string(pendingOrder->line) + " has " +
                      plural(pendingOrder->parts, "part", "parts") + ", and only " +
                      std::to_string(pendingOrder->seen) +
                      " of them come before this line");

    std::string error;
    if (orderPart) {
      OrderKind kind = type == "order_atomics" ? OrderKind::Atomics
                       : type == "order_ops"   ? OrderKind::Ops
                                               : OrderKind::Stores;
      OrderPart part;
      error = parseOrderPart(j, kind, part);
      if (error.empty() && pendingOrder) {
        const PendingOrder &o = *pendingOrder;
        std::string expected = "part " + std::to_string(o.seen) + " of the " + o.type +
                               " record of " + o.owner() + " (" +
                               plural(o.parts, "part", "parts") + ", from line " +
                               std::to_string(o.line) + ")";
        if (type != o.type || part.launch != o.launch ||
            (kind != OrderKind::Ops && part.arg != o.arg) || part.parts != o.parts)
          error = "it is part " + std::to_string(part.part) + " of a record of launch " +
                  std::to_string(part.launch) +
                  (kind == OrderKind::Ops ? "" : ", argument " + std::to_string(part.arg)) +
                  ", but " + expected + " was expected";
        else if (part.part != o.seen)
          error = "it is part " + std::to_string(part.part) + " where " + expected +
                  " was expected (a part line is missing or out of order)";
      } else if (error.empty() && part.part != 0) {
        error = "it is part " + std::to_string(part.part) + " of " +
                std::to_string(part.parts) + ", but no part 0 comes before it";
      }
      if (error.empty() && !pendingOrder) {
        PendingOrder o;
        o.type = type;
        o.kind = kind;
        o.line = lineNo;
        o.parts = part.parts;
        o.launch = part.launch;
        o.arg = part.arg;
        if (kind == OrderKind::Atomics) {
          o.atomics.launch = part.launch;
          o.atomics.arg = part.arg;
          o.atomics.name = part.name;
          o.atomics.dtype = part.dtype;
          o.atomics.op = part.op;
          o.atomics.sites = part.sites;
          o.atomics.exact = part.exact;
        } else if (kind == OrderKind::Ops) {
          o.ops.launch = part.launch;
          o.ops.params = std::move(part.params);
          o.ops.sites = std::move(part.opSites);
        } else {
          o.stores.launch = part.launch;
          o.stores.arg = part.arg;
          o.stores.name = part.name;
          o.stores.dtype = part.dtype;
          o.stores.sites = part.sites;
        }
        pendingOrder = std::move(o);
      }
      if (error.empty())
        error = kind == OrderKind::Atomics ? appendAtomics(part, pendingOrder->atomics)
                : kind == OrderKind::Ops   ? appendOps(part, pendingOrder->ops)
                                           : appendStores(part, pendingOrder->stores);
      if (error.empty() && ++pendingOrder->seen == pendingOrder->parts) {
        if (kind == OrderKind::Atomics)
          trace.order_atomics.push_back(std::move(pendingOrder->atomics));
        else if (kind == OrderKind::Ops)
          trace.order_ops.push_back(std::move(pendingOrder->ops));
        else
          trace.order_stores.push_back(std::move(pendingOrder->stores));
        pendingOrder.reset();
      }
    } else if (type == "kernel_order") {
      error = parseInto(j, trace.kernel_order);
    } else if (type == "order_summary") {
      error = parseInto(j, trace.order_summaries);
    } else if (type == "module") {
      error = parseInto(j, trace.modules);
    } else if (type == "launch") {
      error = parseInto(j, trace.launches);
    } else if (type == "oob") {
      error = parseInto(j, trace.oob);
    } else if (type == "precision") {
      error = parseInto(j, trace.precision);
    } else if (type == "snapshot") {
      SnapshotRecord snapshot;
      error = parseRecord(j, snapshot);
      if (error.empty()) {
        snapshot.file_offset = current.offset + current.length + 1;
        snapshot.file_line = lineNo + 1;
        if (snapshot.chunks == 0) {
          trace.snapshots.push_back(std::move(snapshot));
        } else {
          pending = std::move(snapshot);
          pendingLine = lineNo;
          chunksSeen = 0;
        }
      }
    } else if (type == "end") {
      TraceEnd end;
      error = parseRecord(j, end);
      if (error.empty())
        trace.end = end;
    } else if (type == "header") {
      error = "only line 1 may hold the header";
    } else {
      // Newer writers may add record types; what this reader knows still
      // makes a complete report.
      trace.warnings.push_back(where + "skipped a record of unknown type '" +
                               type + "'");
    }
    if (!error.empty())
      return fail(TraceError::Corrupt,
                  where + "corrupt " + type + " record: " + error);
    ++records;
  }

  if (lineNo == 0)
    return fail(TraceError::Empty,
                path + " is empty (the process wrote no trace header)");
  if (pendingOrder)
    return fail(TraceError::Truncated,
                path + " ends mid-record after " +
                    plural(records, "complete record", "complete records") +
                    " (the " + pendingOrder->type + " record that starts on line " +
                    std::to_string(pendingOrder->line) + " has " +
                    plural(pendingOrder->parts, "part", "parts") + ", " +
                    std::to_string(pendingOrder->seen) +
                    " of them in the file); the process likely died while "
                    "writing it");
  if (pending)
    return fail(TraceError::Truncated,
                path + " ends mid-snapshot after " +
                    plural(records, "complete record", "complete records") +
                    " (the snapshot record on line " +
                    std::to_string(pendingLine) + " announces " +
                    plural(pending->chunks, "snapshot_chunk line",
                           "snapshot_chunk lines") +
                    ", " + std::to_string(chunksSeen) +
                    " follow it); the process likely died while writing it");
  return result;
}

} // namespace

} // namespace kosan
