//===- trace.cpp - Trace writer and reader --------------------------------===//
//
// The format is described in docs/trace-format.md.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "kosan/worker_pool.h"
#include "kosan/trace_fields.h"
#include "kosan/precision_verdict.h"
#include "base64.h"
#include "line_reader.h"
#include "trace_json.h"
#include "kosan/zstd_api.h"
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

namespace {

// The JSON form of each member (kosan/trace_fields.h): putPlain's value
// overloads, and one function per form.
OrderedJson plainJson(const Dim3 &d) { return OrderedJson::array({d.x, d.y, d.z}); }
OrderedJson plainJson(const SourceLoc &s);
OrderedJson plainJson(const PrecisionWorst &w);
OrderedJson plainJson(const PrecisionCause &c);
OrderedJson plainJson(const OrderParam &p);
OrderedJson plainJson(const OrderOpSite &s);
template <typename T> OrderedJson plainJson(const T &v);
template <typename T> OrderedJson plainJson(const std::vector<T> &items) {
  OrderedJson a = OrderedJson::array();
  for (const T &item : items)
    a.push_back(plainJson(item));
  return a;
}
template <typename T> OrderedJson plainJson(const T &v) { return OrderedJson(v); }

template <typename T> void putPlain(OrderedJson &j, const char *key, const T &v) {
  j[key] = plainJson(v);
}
void putAddress(OrderedJson &j, const char *key, uint64_t v) { j[key] = detail::hexAddress(v); }
void putDouble(OrderedJson &j, const char *key, double v) { j[key] = detail::doubleJson(v); }
void putDType(OrderedJson &j, const char *key, DType v) { j[key] = dtypeName(v); }
void putDTypeOrEmpty(OrderedJson &j, const char *key, DType v) {
  j[key] = v == DType::Unknown ? "" : dtypeName(v);
}
void putOmitEmpty(OrderedJson &j, const char *key, const std::string &v) {
  if (!v.empty())
    j[key] = v;
}
template <typename T> void putOptional(OrderedJson &j, const char *key, const T &v) {
  putPlain(j, key, v);
}
void putOptionalDouble(OrderedJson &j, const char *key, double v) { putDouble(j, key, v); }
void putOmitFalse(OrderedJson &j, const char *key, bool v) {
  if (v)
    j[key] = true;
}
template <typename T> void putOmitEmptyRecord(OrderedJson &j, const char *key, const T &v) {
  if (!v.kind.empty())
    putPlain(j, key, v);
}

#define KOSAN_PUT_FIELD(member, form) put##form(j, #member, r.member);
#define KOSAN_TO_JSON(Type, TABLE)                                                         \
  OrderedJson fieldsJson(const Type &r) {                                                  \
    OrderedJson j = OrderedJson::object();                                                 \
    TABLE(KOSAN_PUT_FIELD)                                                                 \
    return j;                                                                              \
  }
KOSAN_TO_JSON(TraceHeader, KOSAN_TRACE_HEADER_FIELDS)
KOSAN_TO_JSON(ModuleRecord, KOSAN_TRACE_MODULE_FIELDS)
KOSAN_TO_JSON(LaunchRecord, KOSAN_TRACE_LAUNCH_FIELDS)
KOSAN_TO_JSON(SourceLoc, KOSAN_TRACE_SOURCE_LOC_FIELDS)
KOSAN_TO_JSON(OobEvent, KOSAN_TRACE_OOB_FIELDS)
KOSAN_TO_JSON(PrecisionWorst, KOSAN_TRACE_PRECISION_WORST_FIELDS)
KOSAN_TO_JSON(PrecisionCause, KOSAN_TRACE_PRECISION_CAUSE_FIELDS)
KOSAN_TO_JSON(PrecisionRecord, KOSAN_TRACE_PRECISION_FIELDS)
KOSAN_TO_JSON(SnapshotRecord, KOSAN_TRACE_SNAPSHOT_FIELDS)
KOSAN_TO_JSON(TraceEnd, KOSAN_TRACE_END_FIELDS)
KOSAN_TO_JSON(KernelOrderInfo, KOSAN_TRACE_KERNEL_ORDER_FIELDS)
KOSAN_TO_JSON(OrderSummary, KOSAN_TRACE_ORDER_SUMMARY_FIELDS)
KOSAN_TO_JSON(OrderStoreRecord, KOSAN_TRACE_ORDER_STORES_HEAD_FIELDS)
KOSAN_TO_JSON(OrderAtomicRecord, KOSAN_TRACE_ORDER_ATOMICS_HEAD_FIELDS)
KOSAN_TO_JSON(OrderOpsRecord, KOSAN_TRACE_ORDER_OPS_HEAD_FIELDS)
KOSAN_TO_JSON(OrderParam, KOSAN_TRACE_ORDER_PARAM_FIELDS)
KOSAN_TO_JSON(OrderOpSite, KOSAN_TRACE_ORDER_OP_SITE_FIELDS)
#undef KOSAN_TO_JSON
#undef KOSAN_PUT_FIELD

OrderedJson plainJson(const SourceLoc &s) { return fieldsJson(s); }
OrderedJson plainJson(const PrecisionWorst &w) { return fieldsJson(w); }
OrderedJson plainJson(const PrecisionCause &c) { return fieldsJson(c); }
OrderedJson plainJson(const OrderParam &p) { return fieldsJson(p); }
OrderedJson plainJson(const OrderOpSite &s) { return fieldsJson(s); }

// The members every part line of an order record repeats.
template <typename Record> OrderedJson orderHead(const Record &r) { return fieldsJson(r); }

} // namespace

OrderedJson detail::doubleJson(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

OrderedJson detail::toJson(const TraceHeader &h) {
  OrderedJson j = OrderedJson::object();
  j["format"] = kTraceFormatName;
  OrderedJson fields = fieldsJson(h);
  for (auto &[key, value] : fields.items())
    j[key] = std::move(value);
  return j;
}

OrderedJson detail::toJson(const ModuleRecord &m) { return fieldsJson(m); }
OrderedJson detail::toJson(const LaunchRecord &l) { return fieldsJson(l); }
OrderedJson detail::toJson(const OobEvent &e) { return fieldsJson(e); }
OrderedJson detail::toJson(const PrecisionRecord &p) { return fieldsJson(p); }
OrderedJson detail::toJson(const SnapshotRecord &s) { return fieldsJson(s); }
OrderedJson detail::toJson(const TraceEnd &e) { return fieldsJson(e); }
OrderedJson detail::toJson(const KernelOrderInfo &k) { return fieldsJson(k); }
OrderedJson detail::toJson(const OrderSummary &o) { return fieldsJson(o); }

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

TraceWriter::TraceWriter(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), parent_pid_(::getpid()) {}

TraceWriter::~TraceWriter() {
  if (pool_ && pool_pid_ != ::getpid())
    (void)pool_.release(); // a forked child: its parent's threads are not here
  pool_.reset();           // its threads finish their chunks first
  closePayloadFiles();
  ::close(fd_);
}

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

class FieldReader;
void readFields(FieldReader &r, SourceLoc &out);
void readFields(FieldReader &r, PrecisionWorst &out);
void readFields(FieldReader &r, OrderParam &out);
void readFields(FieldReader &r, OrderOpSite &out);

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
  // A member of a nested record, worded as reading it would have.
  void invalidNested(const char *key, const char *member, const std::string &why) {
    if (ok())
      error_ = std::string("in '") + key + "': field '" + member + "' " + why;
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

  // Nested records and arrays of them, by their tables
  // (kosan/trace_fields.h); a problem is reported as "in 'key': ..." or
  // "in 'key' item N: ...".
  void read(const char *key, SourceLoc &out) { readNested(key, out); }
  void read(const char *key, PrecisionWorst &out) { readNested(key, out); }
  void read(const char *key, PrecisionCause &out) { readNested(key, out); }
  void read(const char *key, std::vector<OrderParam> &out) { readItems(key, out); }
  void read(const char *key, std::vector<OrderOpSite> &out) { readItems(key, out); }

  // A member that only some records carry (and traces of older runtimes
  // lack): left unchanged when absent.
  template <typename T> void readOptional(const char *key, T &out) {
    if (ok() && object_.contains(key))
      read(key, out);
  }

private:
  template <typename T> void readNested(const char *key, T &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_object()) {
      fail(key, "an object");
      return;
    }
    FieldReader inner(*v);
    readFields(inner, out);
    if (!inner.ok())
      error_ = std::string("in '") + key + "': " + inner.error();
  }

  template <typename T> void readItems(const char *key, std::vector<T> &out) {
    const Json *v = find(key);
    if (!v)
      return;
    if (!v->is_array()) {
      fail(key, "an array of objects");
      return;
    }
    out.clear();
    size_t index = 0;
    for (const Json &item : *v) {
      if (!item.is_object()) {
        fail(key, "an array of objects");
        return;
      }
      FieldReader inner(item);
      T value;
      readFields(inner, value);
      if (!inner.ok()) {
        error_ = std::string("in '") + key + "' item " + std::to_string(index) + ": " +
                 inner.error();
        return;
      }
      out.push_back(std::move(value));
      ++index;
    }
  }

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

// Reading each form of member (kosan/trace_fields.h).
template <typename T> void getPlain(FieldReader &r, const char *key, T &out) { r.read(key, out); }
void getAddress(FieldReader &r, const char *key, uint64_t &out) { r.readAddress(key, out); }
void getDouble(FieldReader &r, const char *key, double &out) { r.read(key, out); }
void getDType(FieldReader &r, const char *key, DType &out) { r.readDType(key, out); }
void getDTypeOrEmpty(FieldReader &r, const char *key, DType &out) {
  r.readDType(key, out, /*emptyAllowed=*/true);
}
void getOmitEmpty(FieldReader &r, const char *key, std::string &out) {
  r.readOptional(key, out);
}
template <typename T> void getOptional(FieldReader &r, const char *key, T &out) {
  r.readOptional(key, out);
}
void getOptionalDouble(FieldReader &r, const char *key, double &out) { r.readOptional(key, out); }
void getOmitFalse(FieldReader &r, const char *key, bool &out) { r.readOptional(key, out); }
template <typename T> void getOmitEmptyRecord(FieldReader &r, const char *key, T &out) {
  r.readOptional(key, out);
}

#define KOSAN_GET_FIELD(member, form) get##form(r, #member, out.member);
#define KOSAN_READ_FIELDS(Type, TABLE)                                                     \
  void readFields(FieldReader &r, Type &out) { TABLE(KOSAN_GET_FIELD) }
KOSAN_READ_FIELDS(TraceHeader, KOSAN_TRACE_HEADER_FIELDS)
KOSAN_READ_FIELDS(ModuleRecord, KOSAN_TRACE_MODULE_FIELDS)
KOSAN_READ_FIELDS(LaunchRecord, KOSAN_TRACE_LAUNCH_FIELDS)
KOSAN_READ_FIELDS(SourceLoc, KOSAN_TRACE_SOURCE_LOC_FIELDS)
KOSAN_READ_FIELDS(OobEvent, KOSAN_TRACE_OOB_FIELDS)
KOSAN_READ_FIELDS(PrecisionWorst, KOSAN_TRACE_PRECISION_WORST_FIELDS)
KOSAN_READ_FIELDS(PrecisionCause, KOSAN_TRACE_PRECISION_CAUSE_FIELDS)
KOSAN_READ_FIELDS(PrecisionRecord, KOSAN_TRACE_PRECISION_FIELDS)
KOSAN_READ_FIELDS(SnapshotRecord, KOSAN_TRACE_SNAPSHOT_FIELDS)
KOSAN_READ_FIELDS(TraceEnd, KOSAN_TRACE_END_FIELDS)
KOSAN_READ_FIELDS(KernelOrderInfo, KOSAN_TRACE_KERNEL_ORDER_FIELDS)
KOSAN_READ_FIELDS(OrderSummary, KOSAN_TRACE_ORDER_SUMMARY_FIELDS)
KOSAN_READ_FIELDS(OrderStoreRecord, KOSAN_TRACE_ORDER_STORES_HEAD_FIELDS)
KOSAN_READ_FIELDS(OrderAtomicRecord, KOSAN_TRACE_ORDER_ATOMICS_HEAD_FIELDS)
KOSAN_READ_FIELDS(OrderOpsRecord, KOSAN_TRACE_ORDER_OPS_HEAD_FIELDS)
KOSAN_READ_FIELDS(OrderParam, KOSAN_TRACE_ORDER_PARAM_FIELDS)
KOSAN_READ_FIELDS(OrderOpSite, KOSAN_TRACE_ORDER_OP_SITE_FIELDS)
#undef KOSAN_READ_FIELDS
#undef KOSAN_GET_FIELD

// A record whose members need no check beyond their form.
template <typename Record> std::string parseRecord(const Json &j, Record &out) {
  FieldReader r(j);
  readFields(r, out);
  return r.error();
}

std::string parseHeader(const Json &j, TraceHeader &h) {
  FieldReader r(j);
  std::string type;
  r.read("type", type);
  if (r.ok() && type != "header")
    return "field 'type' must be \"header\"";
  readFields(r, h);
  return r.error();
}

std::string parseRecord(const Json &j, PrecisionRecord &p) {
  FieldReader r(j);
  readFields(r, p);
  if (r.ok() && p.kind != "store" && p.kind != "atomic" && p.kind != "narrow" &&
      p.kind != "nonfinite")
    r.invalid("kind", "must be \"store\", \"atomic\", \"narrow\" or "
                      "\"nonfinite\", not \"" + p.kind + "\"");
  if (r.ok() && !p.cause.kind.empty() && p.cause.kind != "narrow" && p.cause.kind != "op")
    r.invalidNested("cause", "kind", "must be \"narrow\" or \"op\", not \"" + p.cause.kind + "\"");
  // Scale-aware error: traces of runtimes before it get the worst value's
  // error at its own magnitude.
  if (r.ok() && !j.contains("scaled_bits") && p.kind != "nonfinite" && p.count > 0) {
    p.max_abs_err = prec::absError(p.worst.real, p.worst.shadow);
    p.scale = prec::scaleOf(p.worst.shadow);
    p.scaled_bits = scaledBits(p.max_abs_err, p.scale);
  }
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

std::string parseRecord(const Json &j, SnapshotRecord &s) {
  FieldReader r(j);
  readFields(r, s);
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
  if (!s.hash.empty() && s.hash != kSnapshotHashChunks)
    return "field 'hash' is '" + s.hash + "' (this reader knows '" +
           std::string(kSnapshotHashChunks) + "')";
  // A file name next to the trace, nothing that reaches elsewhere.
  if (!s.payload.empty() && (s.payload.find('/') != std::string::npos ||
                             s.payload == "." || s.payload == ".." ||
                             s.payload.find('\0') != std::string::npos))
    return "field 'payload' must name a file in the trace's folder, not '" + s.payload + "'";
  return "";
}

enum class OrderKind { Stores, Atomics, Ops };

// One line of an order_stores, order_atomics or order_ops record: the
// record's members and one part of its payload, decoded.
struct OrderPart {
  uint32_t launch = 0, arg = 0;   // of the record, whichever its kind
  // The record's members (its kind's), without the payload.
  OrderStoreRecord stores;
  OrderAtomicRecord atomics;
  OrderOpsRecord ops;
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

std::string parseOrderPart(const Json &j, OrderKind kind, OrderPart &p) {
  FieldReader r(j);
  if (kind == OrderKind::Atomics) {
    readFields(r, p.atomics);
    p.launch = p.atomics.launch;
    p.arg = p.atomics.arg;
  } else if (kind == OrderKind::Ops) {
    readFields(r, p.ops);
    p.launch = p.ops.launch;
  } else {
    readFields(r, p.stores);
    p.launch = p.stores.launch;
    p.arg = p.stores.arg;
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
      // Chunks in the payload file are checked against it when they are read.
      if (pending->payload.empty() && claimed > detail::maxZstdContentSize(current.length))
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
      if (v < kMinTraceVersion || v > kTraceVersion)
        return fail(TraceError::Version,
                    path + " is a version " + std::to_string(v) +
                        " kosan trace; this reader knows versions " +
                        std::to_string(kMinTraceVersion) + " to " +
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
        if (kind == OrderKind::Atomics)
          o.atomics = std::move(part.atomics);
        else if (kind == OrderKind::Ops)
          o.ops = std::move(part.ops);
        else
          o.stores = std::move(part.stores);
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
