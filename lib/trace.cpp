//===- trace.cpp - Trace writer and reader --------------------------------===//
//
// The format is described in docs/trace-format.md.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "line_reader.h"
#include "trace_json.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string_view>
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
  if (!r.ok())
    return r.error();
  if (p.launch_first > p.launch_last)
    return "field 'launch_first' (" + std::to_string(p.launch_first) +
           ") must not be greater than 'launch_last' (" +
           std::to_string(p.launch_last) + ")";
  for (auto [key, value] : {std::pair{"mean_rel_err", p.mean_rel_err},
                            std::pair{"max_rel_err", p.max_rel_err},
                            std::pair{"max_ulp_err", p.max_ulp_err},
                            std::pair{"bits_lost", p.bits_lost}})
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

template <typename Record>
std::string parseInto(const Json &j, std::vector<Record> &out) {
  Record record;
  std::string error = parseRecord(j, record);
  if (error.empty())
    out.push_back(std::move(record));
  return error;
}

std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
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

} // namespace

ReadResult readTrace(const std::string &path) {
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
  size_t lineNo = 0;
  // A snapshot record whose chunk lines are still to come: it joins
  // trace.snapshots when the last one has been seen.
  std::optional<SnapshotRecord> pending;
  size_t pendingLine = 0;
  uint32_t chunksSeen = 0;

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

    std::string error;
    if (type == "module") {
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

} // namespace kosan
