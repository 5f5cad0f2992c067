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
//       "module": 1, "grid": [8, 1, 1], "block": [256, 1, 1],  default (1,1,1)
//       "shared_bytes": 0,
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
//                      "launch_last": 2,           default: this launch
//                      "max_abs_err": 1.8, "scale": 2048,  default: the worst
//                      "scaled_bits": 13.8,          value's; scaled_bits follows
//                      "to_shared": false,           narrow only
//                      "cause": {"kind": "op", "op": "fma.rn.f16", "dtype": "f16",
//                                "file": "k.cu", "line": 12, "column": 9,
//                                "local_log2": -11}}]}]}
//
// Header fields: "argv", "pid", "options" (an object of strings, e.g.
// {"checks": "order", "order_leaves": "value"}).
//
// checks=order records (fingerprints are "0x..." strings or numbers):
//
//   {"kernel_order": [{"module": 1, "kernel": "rowsum(float*)",  written after
//                      "mangled": "_Z6rowsumPf", "float_atomics": true,  the header
//                      "shuffle_reduction": false, "shared_reduction": false,
//                      "launch_dependent_loop": false, "fingerprints": true,
//                      "findings": "float atomics at k.cu:12"}],
//    "snapshot_payload": true,                snapshot contents in OUT.trace.bin
//    "snapshot_threads": 4,                   worker threads (default: one per
//                                             hardware thread)
//    "snapshot_writes": 0,                    as KOSAN_OPTIONS' (0 to 3; default 3:
//                                             a payload file per worker thread)
//    "order_part_bytes": 64,                  payload bytes per part line (small:
//                                             multi-part records)
//    "launches": [{...,
//      "order_stores": [
//        {"arg": 1, "name": "y", "dtype": "f32", "sites": ["k.cu:20:7"],
//         "elements": [[0, "0x1234"], [1, "0x99"]]}    explicit, or generated:
//        {"arg": 1, "name": "y", "count": 1024, "first": 0, "seed": "0x5",
//         "period": 256,                       fp(i) = mix(seed, i % period)
//         "set": {"5": "0xdead"},              single elements
//         "skip": [7, [10, 20]]}],             elements (ranges [a, b)) left out
//      "order_atomics": [
//        {"arg": 0, "name": "out", "dtype": "f32", "op": "fadd", "sites": [],
//         "exact": true,
//         "locations": [{"element": 17, "order": [[12, 0, "0xa"], [7, 3, "0xb", "0x3f800000"]],
//                        "fp": "0x..."}]}     [block, thread, fp, value bits];
//                                             fp: by default the contributions
//                                             folded onto the element's leaf
//        or generated: "count": 8 locations from "first", "contributions": 4
//        each (block k, thread element % 32), "seed", "period" as above,
//        "same_fp": true (one fingerprint per location: order-independent),
//        "swap": {"17": [0, 1]} (swaps two positions), "reverse": [17]}],
//      "order_summary": {"stores": 1024, "atomics": 32, "dropped_stores": 0,
//                        "dropped_atomics": 0, "order_dependent_locations": 8,
//                        "ops": 12, "dropped_ops": 0}}]}
//                                             members left out are computed
//                                             from the launch's records
//
// checks=order-ops: an order_stores element's fingerprint may be computed
// from an expression, whose operations go to the launch's order_ops record:
//
//      "order_stores": [{"arg": 1, "name": "y", "count": 4, "seed": 1,
//                        "exprs": {"3": EXPR}}],   element 3's fingerprint
//      "order_ops": {"params": [{"arg": 0, "name": "x", "dtype": "f32"}],
//                    "ops": [["0x1", "0x2", "fadd", "k.cu:3:5"]]}  extra raw
//                                             operations (a, b, op, site);
//                                             without "order_ops" the launch
//                                             has no order_ops record
// EXPR, as JSON arrays (SITE is "file:line:col"):
//   ["leaf", ARG, ELEMENT]                kosan_fp_leaf(ARG, ELEMENT * size of
//                                          ARG's dtype in "params", else 4)
//   ["f32", 0.5] / ["f64", 0.5]           kosan_fp_content of the value's bits
//   ["op", NAME, SITE, A, B]              an operation; fadd, fmul, fmin,
//                                          fmax, fma.mul sort their operands;
//                                          fma.mul is their sum
//   ["unary", NAME, SITE, A]              kosan_fp_unary
//   ["chain", NAME, SITE, ARG, FIRST, N]  ((ARG[FIRST] op ARG[FIRST+1]) op ...)
//   ["tree", NAME, SITE, ARG, FIRST, N]   pairwise: halves, recursively
//   ["fp", "0x..."]                       a fingerprint as it is (no operation)
//
// Formulas: a base (ramp = i/count, index = i, zero, one, sin = sin(i),
// random = a fixed pseudo-random sequence in [0, 1)) followed by any number
// of "+x", "-x", "*x", "/x", applied left to right, in double, then rounded
// to the dtype.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "kosan/order.h"
#include "kosan/precision.h"
#include "kosan/trace.h"
#include "kosan/precision_verdict.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

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
  e.conflict = o.value("conflict", "");
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
  // Scale-aware error: given, or the worst value's at its own magnitude.
  r.max_abs_err = numberOr(p, "max_abs_err", r.kind == "nonfinite"
                                                 ? 0
                                                 : prec::absError(r.worst.real, r.worst.shadow));
  r.scale = numberOr(p, "scale", r.kind == "nonfinite" ? 0 : prec::scaleOf(r.worst.shadow));
  r.scaled_bits = numberOr(p, "scaled_bits", scaledBits(r.max_abs_err, r.scale));
  r.to_shared = p.value("to_shared", false);
  if (p.contains("cause")) {
    const Json &c = p.at("cause");
    r.cause.kind = c.value("kind", "op");
    r.cause.op = c.value("op", "");
    r.cause.dtype = dtypeOf(c, "dtype", "f32");
    r.cause.from_dtype = dtypeOf(c, "from_dtype", "");
    r.cause.site.file = c.value("file", "");
    r.cause.site.line = c.value("line", 0u);
    r.cause.site.column = c.value("column", 0u);
    r.cause.local_log2 = c.value("local_log2", 0);
  }
  writer.write(r);
}

//===----------------------------------------------------------------------===//
// checks=order records
//===----------------------------------------------------------------------===//

uint64_t fpValue(const Json &v) {
  if (v.is_string())
    return std::stoull(v.get<std::string>(), nullptr, 0);
  return v.get<uint64_t>();
}

uint64_t fpOr(const Json &j, const char *key, uint64_t fallback) {
  return j.contains(key) ? fpValue(j.at(key)) : fallback;
}

// splitmix64: distinct fingerprints from (seed, key).
uint64_t mix(uint64_t seed, uint64_t key) {
  uint64_t x = seed + 0x9e3779b97f4a7c15ull * (key + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

KernelOrderInfo kernelOrder(const Json &k) {
  KernelOrderInfo info;
  info.module = k.value("module", 0u);
  info.kernel = k.value("kernel", "");
  info.mangled = k.value("mangled", "");
  info.float_atomics = k.value("float_atomics", false);
  info.shuffle_reduction = k.value("shuffle_reduction", false);
  info.shared_reduction = k.value("shared_reduction", false);
  info.launch_dependent_loop = k.value("launch_dependent_loop", false);
  info.fingerprints = k.value("fingerprints", true);
  info.findings = k.value("findings", "");
  return info;
}

class OpsBuilder;
uint64_t evaluateExpr(OpsBuilder &ops, const Json &e);

OrderStoreRecord orderStores(uint32_t launch, const Json &o, OpsBuilder &ops) {
  OrderStoreRecord r;
  r.launch = launch;
  r.arg = o.value("arg", 0u);
  r.name = o.value("name", "arg" + std::to_string(r.arg));
  r.dtype = dtypeOf(o, "dtype", "f32");
  r.sites = o.value("sites", std::vector<std::string>());
  std::map<uint64_t, uint64_t> elements;
  if (o.contains("elements")) {
    for (const Json &e : o.at("elements"))
      elements[e.at(0).get<uint64_t>()] = fpValue(e.at(1));
  } else {
    uint64_t first = o.value("first", uint64_t(0));
    uint64_t count = o.value("count", uint64_t(0));
    uint64_t seed = fpOr(o, "seed", 0);
    uint64_t period = o.value("period", uint64_t(0));
    for (uint64_t i = first; i < first + count; ++i)
      elements[i] = mix(seed, period ? i % period : i);
  }
  if (o.contains("set"))
    for (const auto &[index, fp] : o.at("set").items())
      elements[std::stoull(index)] = fpValue(fp);
  if (o.contains("exprs"))
    for (const auto &[index, e] : o.at("exprs").items())
      elements[std::stoull(index)] = evaluateExpr(ops, e);
  if (o.contains("skip"))
    for (const Json &item : o.at("skip")) {
      uint64_t begin = item.is_array() ? item.at(0).get<uint64_t>() : item.get<uint64_t>();
      uint64_t end = item.is_array() ? item.at(1).get<uint64_t>() : begin + 1;
      for (uint64_t i = begin; i < end; ++i)
        elements.erase(i);
    }
  for (auto [element, fp] : elements)
    r.elements.push_back({element, fp});
  return r;
}

// The location's fingerprint as order.h describes it: its leaf, folded
// with each contribution in landing order (test data: the operation code
// is kosan_fp_op("atomic.<op>")).
uint64_t foldLocation(const OrderAtomicRecord &r, uint64_t key, const AtomicSequence &l) {
  uint64_t acc = kosan_fp_leaf(r.arg, key * dtypeSize(r.dtype));
  uint64_t op = kosan_fp_op(("atomic." + r.op).c_str());
  for (const AtomicContribution &c : l.order)
    acc = kosan_fp_combine(op, acc, c.fp);
  return acc;
}

OrderAtomicRecord orderAtomics(uint32_t launch, const Json &o) {
  OrderAtomicRecord r;
  r.launch = launch;
  r.arg = o.value("arg", 0u);
  r.name = o.value("name", "arg" + std::to_string(r.arg));
  r.dtype = dtypeOf(o, "dtype", "f32");
  r.op = o.value("op", "fadd");
  r.sites = o.value("sites", std::vector<std::string>());
  r.exact = o.value("exact", true);
  uint64_t period = o.value("period", uint64_t(0));
  std::map<uint64_t, AtomicSequence> locations;
  std::map<uint64_t, bool> explicitFp;
  if (o.contains("locations")) {
    for (const Json &j : o.at("locations")) {
      AtomicSequence l;
      l.element = j.at("element").get<uint64_t>();
      for (const Json &c : j.at("order"))
        l.order.push_back({fpValue(c.at(2)), c.size() > 3 ? fpValue(c.at(3)) : 0,
                           c.at(0).get<uint32_t>(), c.at(1).get<uint32_t>()});
      if (j.contains("fp")) {
        l.fp = fpValue(j.at("fp"));
        explicitFp[l.element] = true;
      }
      locations[l.element] = std::move(l);
    }
  } else {
    uint64_t first = o.value("first", uint64_t(0));
    uint64_t count = o.value("count", uint64_t(0));
    uint64_t contributions = o.value("contributions", uint64_t(2));
    uint64_t seed = fpOr(o, "seed", 0);
    bool sameFp = o.value("same_fp", false);
    for (uint64_t e = first; e < first + count; ++e) {
      AtomicSequence l;
      l.element = e;
      uint64_t key = period ? e % period : e;
      for (uint64_t k = 0; k < contributions; ++k)
        l.order.push_back({mix(seed, key * 1000003 + (sameFp ? 0 : k + 1)), k + 1,
                           uint32_t(k), uint32_t(e % 32)});
      locations[e] = std::move(l);
    }
  }
  if (o.contains("swap"))
    for (const auto &[index, positions] : o.at("swap").items()) {
      AtomicSequence &l = locations.at(std::stoull(index));
      std::swap(l.order.at(positions.at(0).get<size_t>()),
                l.order.at(positions.at(1).get<size_t>()));
    }
  if (o.contains("reverse"))
    for (const Json &index : o.at("reverse")) {
      AtomicSequence &l = locations.at(index.get<uint64_t>());
      std::reverse(l.order.begin(), l.order.end());
    }
  for (auto &[element, l] : locations) {
    if (!explicitFp.count(element))
      l.fp = foldLocation(r, period ? element % period : element, l);
    r.locations.push_back(std::move(l));
  }
  return r;
}

// checks=order-ops: the operations the expressions of a launch's stores
// perform, collected into its order_ops record.
class OpsBuilder {
public:
  explicit OpsBuilder(const Json &desc) {
    for (const Json &p : desc.value("params", Json::array())) {
      OrderParam param;
      param.arg = p.value("arg", 0u);
      param.name = p.value("name", "arg" + std::to_string(param.arg));
      param.dtype = dtypeOf(p, "dtype", "f32");
      record_.params.push_back(param);
    }
    for (const Json &o : desc.value("ops", Json::array()))
      add(o.at(2).get<std::string>(), o.at(3).get<std::string>(), fpValue(o.at(0)),
          fpValue(o.at(1)), /*commutative=*/false);
  }

  uint64_t evaluate(const Json &e) {
    const std::string kind = e.at(0).get<std::string>();
    if (kind == "leaf")
      return leaf(e.at(1).get<uint32_t>(), e.at(2).get<uint64_t>());
    if (kind == "fp")
      return fpValue(e.at(1));
    if (kind == "f32") {
      float f = float(jsonNumber(e.at(1)));
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return kosan_fp_content(bits, uint32_t(DType::F32));
    }
    if (kind == "f64") {
      double d = jsonNumber(e.at(1));
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return kosan_fp_content(bits, uint32_t(DType::F64));
    }
    if (kind == "op") {
      std::string name = e.at(1).get<std::string>();
      return add(name, e.at(2).get<std::string>(), evaluate(e.at(3)), evaluate(e.at(4)),
                 commutative(name));
    }
    if (kind == "unary")
      return add(e.at(1).get<std::string>(), e.at(2).get<std::string>(), evaluate(e.at(3)),
                 KOSAN_FP_UNARY_SALT, false);
    if (kind == "chain" || kind == "tree") {
      std::string name = e.at(1).get<std::string>(), site = e.at(2).get<std::string>();
      uint32_t arg = e.at(3).get<uint32_t>();
      uint64_t first = e.at(4).get<uint64_t>(), n = e.at(5).get<uint64_t>();
      if (n == 0)
        die("a " + kind + " of no values");
      if (kind == "tree")
        return tree(name, site, arg, first, n);
      uint64_t acc = leaf(arg, first);
      for (uint64_t i = 1; i < n; ++i)
        acc = add(name, site, acc, leaf(arg, first + i), commutative(name));
      return acc;
    }
    die("unknown expression '" + kind + "'");
  }

  OrderOpsRecord record(uint32_t launch) {
    OrderOpsRecord r = record_;
    r.launch = launch;
    auto key = [](const OrderOp &o) { return std::tuple(o.a, o.b, o.op, o.site); };
    std::sort(r.ops.begin(), r.ops.end(),
              [&](const OrderOp &x, const OrderOp &y) { return key(x) < key(y); });
    r.ops.erase(std::unique(r.ops.begin(), r.ops.end()), r.ops.end());
    return r;
  }

private:
  static bool commutative(const std::string &name) {
    return name == "fadd" || name == "fmul" || name == "fmin" || name == "fmax" ||
           name == "fma.mul";
  }

  uint64_t leaf(uint32_t arg, uint64_t element) {
    uint32_t size = 4;
    for (const OrderParam &p : record_.params)
      if (p.arg == arg)
        size = dtypeSize(p.dtype);
    return kosan_fp_leaf(arg, element * size);
  }

  uint64_t tree(const std::string &name, const std::string &site, uint32_t arg,
                uint64_t first, uint64_t n) {
    if (n == 1)
      return leaf(arg, first);
    uint64_t half = n / 2;
    return add(name, site, tree(name, site, arg, first, half),
               tree(name, site, arg, first + half, n - half), commutative(name));
  }

  uint64_t add(const std::string &name, const std::string &location, uint64_t a, uint64_t b,
               bool sorted) {
    if (sorted && b < a)
      std::swap(a, b);
    OrderOpSite site{name, location};
    auto it = std::find(record_.sites.begin(), record_.sites.end(), site);
    if (it == record_.sites.end())
      it = record_.sites.insert(record_.sites.end(), site);
    uint64_t op = kosan_fp_op(name.c_str());
    record_.ops.push_back({a, b, op, uint32_t(it - record_.sites.begin())});
    return kosan_fp_logged_result(op, a, b);
  }

  OrderOpsRecord record_;
};

uint64_t evaluateExpr(OpsBuilder &ops, const Json &e) { return ops.evaluate(e); }

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
    // Snapshot contents in the payload file <OUT.trace>.bin, as the runtime
    // writes them (snapshot_payload=1), instead of base64 in the trace.
    writer->setSnapshotPayloadFile(desc.value("snapshot_payload", false));
    writer->setSnapshotThreads(desc.value("snapshot_threads", 0u));
    const unsigned writes = desc.value("snapshot_writes", 3u);
    if (writes > unsigned(TraceWriter::PayloadWrites::FilePerThread))
      die("\"snapshot_writes\" must be 0 to 3");
    writer->setSnapshotPayloadWrites(TraceWriter::PayloadWrites(writes));
    if (desc.contains("order_part_bytes"))
      writer->setOrderPartBytes(desc.at("order_part_bytes").get<uint64_t>());
    for (const Json &k : desc.value("kernel_order", Json::array()))
      writer->write(kernelOrder(k));

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
      if (l.contains("grid"))
        launch.grid = dimOf(l, "grid");
      if (l.contains("block"))
        launch.block = dimOf(l, "block");
      launch.shared_bytes = l.value("shared_bytes", uint64_t(0));
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
      OrderSummary summary;
      summary.launch = launch.id;
      OpsBuilder ops(l.value("order_ops", Json::object()));
      for (const Json &o : l.value("order_stores", Json::array())) {
        OrderStoreRecord r = orderStores(launch.id, o, ops);
        summary.stores += r.elements.size();
        writer->write(r);
      }
      if (l.contains("order_ops")) {
        OrderOpsRecord r = ops.record(launch.id);
        summary.ops = r.ops.size();
        writer->write(r);
      }
      for (const Json &o : l.value("order_atomics", Json::array())) {
        OrderAtomicRecord r = orderAtomics(launch.id, o);
        for (const AtomicSequence &loc : r.locations)
          summary.atomics += loc.order.size();
        summary.order_dependent_locations += orderDependentLocations(r);
        writer->write(r);
      }
      if (l.contains("order_summary")) {
        const Json &o = l.at("order_summary");
        summary.stores = o.value("stores", summary.stores);
        summary.atomics = o.value("atomics", summary.atomics);
        summary.dropped_stores = o.value("dropped_stores", uint64_t(0));
        summary.dropped_atomics = o.value("dropped_atomics", uint64_t(0));
        summary.ops = o.value("ops", summary.ops);
        summary.dropped_ops = o.value("dropped_ops", uint64_t(0));
        summary.order_dependent_locations =
            o.value("order_dependent_locations", summary.order_dependent_locations);
        writer->write(summary);
      }
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
