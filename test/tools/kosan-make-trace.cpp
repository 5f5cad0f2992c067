//===- kosan-make-trace - Write a trace from a short description (tests) --===//
//
// kosan-make-trace DESCRIPTION.json OUT.trace
//
// Writes, with TraceWriter, a trace whose launches, snapshots and OOB events
// are those of the description, so that kosan-diff's tests need no GPU:
//
//   {"argv": ["./ref"],                        optional header fields
//    "end": true,                              write an end record (default)
//    "launches": [
//      {"id": 1,                               default: 1, 2, ... in order
//       "kernel": "scale(float*, int)", "mangled": "_Z5scalePfi",
//       "snapshots": [
//         {"arg": 0, "name": "y", "dtype": "f32", "count": 1000,
//          "formula": "ramp*2+1e-3",            or "values": [1, 2.5, "nan", "-inf"]
//          "set": {"7": 1.5, "9": "nan"},       single elements
//          "poison": "0x7fc00001",              poisoned=true with these bits
//          "unwritten": [3, [10, 20]],          elements (ranges [a, b)) left poisoned
//          "shape": [10, 100], "read": false, "pre_hash": "0x1", "post_hash": "0x2",
//          "store_sites": ["k.cu:12:9"], "chunk_elements": 256}],
//       "oob": [{"kind": "global-buffer-overflow", "access": "WRITE",
//                "size": 4, "count": 32, "file": "k.cu", "line": 12,
//                "column": 9, "function": "scale", "buffer_name": "y"}],
//       "precision": [{"kind": "store", "op": "fma.rn.f16", "dtype": "f16",
//                      "from_dtype": "f32",          narrow only
//                      "file": "k.cu", "line": 14, "column": 23, "function": "dot",
//                      "site_id": 3, "module": 1, "count": 1000,
//                      "mean_rel_err": 1e-4, "max_rel_err": 1.1e-3,
//                      "max_ulp_err": 900,           bits_lost follows from it
//                      "hist": [0, 0, 0, 0, 1000, 0, 0, 0],
//                      "overflows": 0, "underflows": 0, "nans": 0,
//                      "real": 1843, "shadow": 1841.2, "block": [3, 0, 0],
//                      "thread": [17, 0, 0],         the worst value
//                      "launch_last": 2}]}]}       default: this launch
//
// Header fields: "argv", "pid", "options" (an object of strings).
//
// Formulas: a base (ramp = i/count, index = i, zero, one, sin = sin(i),
// random = a fixed pseudo-random sequence in [0, 1)) followed by any number
// of "+x", "-x", "*x", "/x", applied left to right, in double, then rounded
// to the dtype.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "kosan/precision.h"
#include "kosan/trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

using Json = nlohmann::json;
using namespace kosan;

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "kosan-make-trace: error: %s\n", message.c_str());
  std::exit(2);
}

uint64_t hexValue(const Json &j, const char *key) {
  if (!j.contains(key))
    return 0;
  const std::string s = j.at(key).get<std::string>();
  return std::stoull(s, nullptr, 16);
}

double jsonNumber(const Json &v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf")
      return -std::numeric_limits<double>::infinity();
    die("not a number: \"" + s + "\"");
  }
  return v.get<double>();
}

struct Formula {
  std::string base;
  std::vector<std::pair<char, double>> ops;
};

Formula parseFormula(const std::string &text) {
  Formula f;
  size_t i = text.find_first_of("+-*/");
  f.base = text.substr(0, i);
  while (i != std::string::npos && i < text.size()) {
    char op = text[i];
    size_t end = 0;
    double x = std::stod(text.substr(i + 1), &end);
    f.ops.push_back({op, x});
    i = text.find_first_of("+-*/", i + 1 + end);
  }
  static const char *kBases[] = {"ramp", "index", "zero", "one", "sin", "random"};
  if (std::find(std::begin(kBases), std::end(kBases), f.base) == std::end(kBases))
    die("unknown formula base '" + f.base + "'");
  return f;
}

double evaluate(const Formula &f, uint64_t i, uint64_t count, uint64_t &state) {
  double v = 0;
  if (f.base == "ramp")
    v = double(i) / double(count);
  else if (f.base == "index")
    v = double(i);
  else if (f.base == "one")
    v = 1;
  else if (f.base == "sin")
    v = std::sin(double(i));
  else if (f.base == "random") {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = double(state >> 11) / 9007199254740992.0;
  }
  for (auto [op, x] : f.ops) {
    switch (op) {
    case '+': v += x; break;
    case '-': v -= x; break;
    case '*': v *= x; break;
    case '/': v /= x; break;
    }
  }
  return v;
}

void writeSnapshot(TraceWriter &writer, uint32_t launch, const Json &s) {
  SnapshotRecord r;
  r.launch = launch;
  r.arg = s.value("arg", 0u);
  r.name = s.value("name", "arg" + std::to_string(r.arg));
  std::string dtype = s.value("dtype", "f32");
  std::optional<DType> t = parseDType(dtype);
  if (!t)
    die("unknown dtype '" + dtype + "'");
  r.dtype = *t;
  r.shape = s.value("shape", std::vector<int64_t>());
  r.address = hexValue(s, "address");
  r.read = s.value("read", false);
  r.poisoned = s.contains("poison");
  r.poison = hexValue(s, "poison");
  r.pre_hash = hexValue(s, "pre_hash");
  r.post_hash = hexValue(s, "post_hash");
  r.store_sites = s.value("store_sites", std::vector<std::string>());
  r.chunk_elements = s.value("chunk_elements", uint64_t(0));

  const uint32_t size = dtypeSize(r.dtype);
  uint64_t count = s.contains("values") ? s.at("values").size()
                                        : s.value("count", uint64_t(0));
  std::vector<char> data(count * size);
  if (s.contains("values")) {
    for (uint64_t i = 0; i < count; ++i)
      encodeElement(jsonNumber(s.at("values")[i]), r.dtype, &data[i * size]);
  } else {
    Formula f = parseFormula(s.value("formula", "zero"));
    uint64_t state = 12345;
    for (uint64_t i = 0; i < count; ++i)
      encodeElement(evaluate(f, i, count, state), r.dtype, &data[i * size]);
  }
  if (s.contains("set"))
    for (const auto &[index, value] : s.at("set").items()) {
      uint64_t i = std::stoull(index);
      if (i >= count)
        die("\"set\" index " + index + " is beyond the " + std::to_string(count) + " elements");
      encodeElement(jsonNumber(value), r.dtype, &data[i * size]);
    }
  if (s.contains("unwritten")) {
    for (const Json &item : s.at("unwritten")) {
      uint64_t begin = item.is_array() ? item.at(0).get<uint64_t>() : item.get<uint64_t>();
      uint64_t end = item.is_array() ? item.at(1).get<uint64_t>() : begin + 1;
      for (uint64_t i = begin; i < end && i < count; ++i)
        std::memcpy(&data[i * size], &r.poison, size);
    }
  }
  writer.writeSnapshot(r, data.data(), data.size());
}

void writeOob(TraceWriter &writer, uint32_t launch, const Json &o) {
  OobEvent e;
  e.launch = launch;
  e.kind = o.value("kind", "global-buffer-overflow");
  e.access = o.value("access", "WRITE");
  e.size = o.value("size", 4u);
  e.count = o.value("count", uint64_t(1));
  e.site.file = o.value("file", "");
  e.site.line = o.value("line", 0u);
  e.site.column = o.value("column", 0u);
  e.site.function = o.value("function", "");
  e.address = hexValue(o, "address");
  e.buffer_name = o.value("buffer_name", "");
  e.buffer_begin = hexValue(o, "buffer_begin");
  e.buffer_end = hexValue(o, "buffer_end");
  e.space = o.value("space", "global");
  writer.write(e);
}

Dim3 dimOf(const Json &j, const char *key) {
  if (!j.contains(key))
    return {0, 0, 0};
  const Json &a = j.at(key);
  return {a.at(0).get<uint32_t>(), a.at(1).get<uint32_t>(), a.at(2).get<uint32_t>()};
}

double numberOr(const Json &j, const char *key, double fallback) {
  return j.contains(key) ? jsonNumber(j.at(key)) : fallback;
}

DType dtypeOf(const Json &j, const char *key, const char *fallback) {
  std::string name = j.value(key, std::string(fallback));
  if (name.empty())
    return DType::Unknown;
  std::optional<DType> t = parseDType(name);
  if (!t)
    die("unknown dtype '" + name + "'");
  return *t;
}

void writePrecision(TraceWriter &writer, uint32_t launch, const Json &p) {
  PrecisionRecord r;
  r.launch_first = p.value("launch_first", launch);
  r.launch_last = p.value("launch_last", launch);
  r.kind = p.value("kind", "store");
  r.op = p.value("op", "");
  r.dtype = dtypeOf(p, "dtype", "f32");
  r.from_dtype = dtypeOf(p, "from_dtype", "");
  r.site.file = p.value("file", "");
  r.site.line = p.value("line", 0u);
  r.site.column = p.value("column", 0u);
  r.site.function = p.value("function", "");
  r.site.inlined_at = p.value("inlined_at", "");
  r.site_id = p.value("site_id", 0u);
  r.module = p.value("module", 0u);
  r.count = p.value("count", uint64_t(1));
  r.mean_rel_err = numberOr(p, "mean_rel_err", 0);
  r.max_rel_err = numberOr(p, "max_rel_err", 0);
  r.max_ulp_err = numberOr(p, "max_ulp_err", 0);
  r.bits_lost = numberOr(p, "bits_lost", prec::bitsLost(r.max_ulp_err));
  if (p.contains("hist"))
    for (size_t i = 0; i < r.hist.size(); ++i)
      r.hist[i] = p.at("hist").at(i).get<uint64_t>();
  r.overflows = p.value("overflows", uint64_t(0));
  r.underflows = p.value("underflows", uint64_t(0));
  r.nans = p.value("nans", uint64_t(0));
  r.worst.real = numberOr(p, "real", 0);
  r.worst.shadow = numberOr(p, "shadow", 0);
  r.worst.block = dimOf(p, "block");
  r.worst.thread = dimOf(p, "thread");
  r.worst.launch = p.value("worst_launch", launch);
  writer.write(r);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3)
    die("usage: kosan-make-trace DESCRIPTION.json OUT.trace");
  std::ifstream in(argv[1]);
  if (!in)
    die(std::string("cannot open ") + argv[1]);
  try {
    Json desc = Json::parse(in);
    std::string error;
    std::unique_ptr<TraceWriter> writer = TraceWriter::create(argv[2], &error);
    if (!writer)
      die(error);

    TraceHeader h;
    h.kosan_version = "0.1.0";
    h.pid = desc.value("pid", 1);
    h.argv = desc.value("argv", std::vector<std::string>{"./test"});
    h.start_time = "2024-05-01T12:00:00Z";
    h.gpu_name = "NVIDIA H200";
    h.gpu_arch = "sm_90";
    h.options = desc.value("options", std::map<std::string, std::string>());
    writer->write(h);

    uint32_t nextId = 1;
    uint64_t errors = 0, reports = 0;
    const Json launches = desc.value("launches", Json::array());
    for (const Json &l : launches) {
      LaunchRecord launch;
      launch.id = l.value("id", nextId);
      nextId = launch.id + 1;
      launch.kernel = l.value("kernel", "");
      launch.mangled = l.value("mangled", "");
      launch.module = l.value("module", 0u);
      launch.instrumented = true;
      writer->write(launch);
      for (const Json &o : l.value("oob", Json::array())) {
        writeOob(*writer, launch.id, o);
        errors += o.value("count", uint64_t(1));
        ++reports;
      }
      for (const Json &s : l.value("snapshots", Json::array()))
        writeSnapshot(*writer, launch.id, s);
      for (const Json &p : l.value("precision", Json::array()))
        writePrecision(*writer, launch.id, p);
    }
    if (desc.value("end", true)) {
      TraceEnd end;
      end.launches = launches.size();
      end.errors = errors;
      end.reports = reports;
      writer->write(end);
    }
  } catch (const std::exception &e) {
    die(std::string(argv[1]) + ": " + e.what());
  }
  return 0;
}
