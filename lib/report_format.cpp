//===- report_format.cpp - ASan-style reports and trace summaries ---------===//
//
// The report text follows AddressSanitizer's layout (a ===== rule, an
// ==PID==ERROR: line, indented detail lines, a SUMMARY: line) so that tools
// and people that already read ASan output read kosan's too.
//
//===----------------------------------------------------------------------===//
#include "kosan/bounds.h"
#include "kosan/trace.h"
#include "kosan/precision_verdict.h"
#include "trace_json.h"
#include "text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

namespace kosan {

namespace {

using detail::hexAddress;

using detail::plural;

std::string bytes(uint64_t n) { return plural(n, "byte", "bytes"); }

std::string dim(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

using detail::fileLocation;

// The tail of a description of an access that starts inside a region, with
// `left` bytes of it to go, but runs past its end.
std::string overrun(const OobEvent &e, uint64_t left) {
  return "; the " + std::to_string(e.size) + "-byte access overruns it by " +
         bytes(e.size - left);
}

std::string describeAddress(const OobEvent &e) {
  std::string out = "address " + hexAddress(e.address) + " is ";
  if (e.buffer_name.empty() && e.buffer_begin == 0 && e.buffer_end == 0)
    return out + "not inside any known buffer";

  std::string name = e.buffer_name.empty() ? "" : " '" + e.buffer_name + "'";
  // Device-side bounds of a pitched buffer carry no end (abi.h), so an event
  // may come without one.
  bool endKnown = e.buffer_end > e.buffer_begin;
  std::string range = "[" + hexAddress(e.buffer_begin) + "," +
                      (endKnown ? hexAddress(e.buffer_end) : "?") + ")";

  if (e.pitch > 0 && e.row_bytes > 0 && e.address >= e.buffer_begin &&
      (e.address < e.buffer_end || !endKnown)) {
    uint64_t offset = e.address - e.buffer_begin;
    uint64_t row = offset / e.pitch, column = offset % e.pitch;
    std::string rowDesc = " row " + std::to_string(row) + " (row width " +
                          bytes(e.row_bytes) + ", pitch " +
                          std::to_string(e.pitch) + ") of the buffer" + name +
                          " " + range;
    if (column >= e.row_bytes)
      return out + bytes(column - e.row_bytes) + " past the end of" + rowDesc;
    uint64_t left = e.row_bytes - column;
    if (e.size > left)
      return out + bytes(left) + " before the end of" + rowDesc +
             overrun(e, left);
    return out + "inside" + rowDesc;
  }

  const char *noun = e.kind == "heap-use-after-free" ? "freed buffer" : "buffer";
  std::string buffer =
      (endKnown ? "the " + std::to_string(e.buffer_end - e.buffer_begin) +
                      "-byte " + noun
                : std::string("the ") + noun) +
      name + " " + range;
  if (e.address < e.buffer_begin)
    return out + bytes(e.buffer_begin - e.address) + " before " + buffer;
  if (!endKnown)
    return out + bytes(e.address - e.buffer_begin) + " past the start of " +
           buffer;
  if (e.address >= e.buffer_end)
    return out + bytes(e.address - e.buffer_end) + " after " + buffer;
  uint64_t left = e.buffer_end - e.address;
  if (e.size > left)
    return out + bytes(left) + " before the end of " + buffer +
           overrun(e, left);
  return out + "inside " + buffer;
}

// Arguments are quoted only where a shell would need it, so that the common
// case reads as typed.
std::string shellQuote(const std::string &arg) {
  bool plain = !arg.empty() &&
               std::all_of(arg.begin(), arg.end(), [](unsigned char c) {
                 return std::isalnum(c) ||
                        std::string_view("_-./=:,+@%").find(c) !=
                            std::string_view::npos;
               });
  if (plain)
    return arg;
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string orUnknown(const std::string &s) {
  return s.empty() ? "unknown" : s;
}

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cudaVersion(int v) {
  if (v <= 0)
    return "unknown";
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Columns padded to their widest cell; the last column is not padded, so a
// long template kernel name does not widen the lines of the others.
std::string formatTable(const std::vector<std::vector<std::string>> &rows,
                        const std::vector<bool> &rightAligned) {
  std::vector<size_t> width(rightAligned.size(), 0);
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto &row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      std::string pad(width[i] - row[i].size(), ' ');
      bool last = i + 1 == row.size();
      out += "  " + (rightAligned[i] ? pad + row[i]
                                     : row[i] + (last ? "" : pad));
    }
    out += "\n";
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

// Two significant digits, exponents without padding: 1.1e-3, 0.25, 3.9e+10.
std::string shortNumber(double v) { return detail::significantDigits(v, 2); }

std::string nonFinite(double v) {
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

// A value the kernel computed: the shortest text that reads back to it in
// its own type.
std::string realText(double v, DType t) {
  if (!std::isfinite(v))
    return nonFinite(v);
  char buf[64];
  std::to_chars_result r = t == DType::F32
                               ? std::to_chars(buf, buf + sizeof buf, float(v))
                               : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Significant digits of a number's text ("1843" 4, "0.0125" 3, "1.5e-07" 2).
int significantDigits(const std::string &text) {
  int digits = 0;
  bool leading = true;
  for (char c : text) {
    if (c == 'e' || c == 'E')
      break;
    if (c < '0' || c > '9')
      continue;
    if (leading && c == '0')
      continue;
    leading = false;
    ++digits;
  }
  return digits;
}

// A value the kernel computed and its fp64 shadow, with the same number of
// significant digits: the fewest (5 at least, and no fewer than the
// shortest text of the real value has) at which the two differ where the
// values do, so that where they part shows: "1843 vs 1841.2", and for 0.1f
// (0.10000000149) against 0.1000000001 "0.100000001 vs 0.1".
std::pair<std::string, std::string> realVsShadow(double real, double shadow, DType t) {
  std::string shortest = realText(real, t);
  int from = std::max(5, significantDigits(shortest));
  auto text = [](double v, int digits) {
    if (!std::isfinite(v))
      return nonFinite(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return std::string(buf);
  };
  if (!std::isfinite(real) || !std::isfinite(shadow) || real == shadow)
    return {shortest, text(shadow, from)};
  for (int digits = from; digits <= 17; ++digits) {
    std::string r = text(real, digits), s = text(shadow, digits);
    if (r != s)
      return {digits == from && std::strtod(shortest.c_str(), nullptr) ==
                                    std::strtod(r.c_str(), nullptr)
                  ? shortest
                  : r,
              s};
  }
  return {shortest, text(shadow, 17)};
}

std::string bitsText(double bits) {
  if (std::isinf(bits))
    return "all its bits";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f bits", bits);
  return buf;
}

// max_abs_err / scale as a power of two: "2^-7.2", "all" (infinite), "0".
std::string scaleFraction(const PrecisionRecord &r) {
  if (!std::isfinite(r.max_abs_err) || (r.scale == 0 && r.max_abs_err > 0))
    return "all";
  if (r.max_abs_err <= 0)
    return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "2^%.1f", std::log2(r.max_abs_err / r.scale));
  return buf;
}

// "19.2 bits of fp32 at scale 4614, over the allowance of 15"
std::string scaledText(const PrecisionRecord &r, double threshold) {
  double allowance = precisionAllowance(r, threshold);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", allowance);
  return bitsText(r.scaled_bits) + " of fp32 at scale " + shortNumber(r.scale) +
         (isPrecisionFinding(r, threshold) ? ", over the allowance of " : ", allowance ") +
         buf;
}

// "3" for (3,0,0), else "(3,1,0)".
std::string compactDim(const Dim3 &d) {
  if (d.y == 0 && d.z == 0)
    return std::to_string(d.x);
  return dim(d);
}

std::string precisionLocation(const SourceLoc &s, bool withColumn) {
  if (!s.file.empty()) {
    SourceLoc l = s;
    if (!withColumn)
      l.column = 0;
    return fileLocation(l);
  }
  if (!s.function.empty())
    return s.function + " (no line information)";
  return "an unknown location";
}

std::string worstAt(const PrecisionRecord &r) {
  std::string out;
  if (r.launch_first != r.launch_last && r.worst.launch != 0)
    out += "in launch #" + std::to_string(r.worst.launch) + " ";
  return out + "at block " + compactDim(r.worst.block) + " thread " +
         compactDim(r.worst.thread);
}

bool narrowingFailed(const PrecisionRecord &r) {
  return r.kind == "narrow" && (r.overflows > 0 || r.nans > 0);
}

// 0: NaN/Inf births; 1: narrowings that overflowed or made a NaN; 2: the rest.
int precisionRank(const PrecisionRecord &r) {
  if (r.kind == "nonfinite")
    return 0;
  return narrowingFailed(r) ? 1 : 2;
}

} // namespace

void mergePrecision(PrecisionRecord &into, const PrecisionRecord &from) {
  uint64_t count = into.count + from.count;
  double sum = into.mean_rel_err * double(into.count) +
               from.mean_rel_err * double(from.count);
  into.mean_rel_err = count ? sum / double(count) : 0;
  into.count = count;
  if (from.launch_first != 0 &&
      (into.launch_first == 0 || from.launch_first < into.launch_first))
    into.launch_first = from.launch_first;
  into.launch_last = std::max(into.launch_last, from.launch_last);
  into.max_rel_err = std::max(into.max_rel_err, from.max_rel_err);
  // The worst value is the one farthest from its shadow (by ULPs for
  // records without absolute errors, of older traces). The first of equal
  // maxima is kept: for NaN/Inf births, whose errors are all infinite or
  // absent, that is the earliest one collected.
  bool absolute = into.max_abs_err > 0 || from.max_abs_err > 0;
  if (absolute ? from.max_abs_err > into.max_abs_err : from.max_ulp_err > into.max_ulp_err) {
    into.worst = from.worst;
    into.cause = from.cause;
  }
  into.max_ulp_err = std::max(into.max_ulp_err, from.max_ulp_err);
  into.max_abs_err = std::max(into.max_abs_err, from.max_abs_err);
  into.scale = std::max(into.scale, from.scale);
  into.to_shared = into.to_shared || from.to_shared;
  // Against the larger scale, the larger error loses no more bits than the
  // two did alone.
  into.scaled_bits = into.max_abs_err > 0 || into.scaled_bits > 0 || from.scaled_bits > 0
                         ? std::min(std::max(into.scaled_bits, from.scaled_bits),
                                    scaledBits(into.max_abs_err, into.scale))
                         : 0;
  // bits lost grows with the error in ULPs: the larger of the two is the
  // bits lost of the larger error.
  into.bits_lost = std::max(into.bits_lost, from.bits_lost);
  for (size_t i = 0; i < into.hist.size(); ++i)
    into.hist[i] += from.hist[i];
  into.overflows += from.overflows;
  into.underflows += from.underflows;
  into.nans += from.nans;
}

double precisionSeverity(const PrecisionRecord &r) {
  if (precisionRank(r) < 2)
    return std::numeric_limits<double>::infinity();
  return r.scaled_bits;
}

bool precisionWorseThan(const PrecisionRecord &a, const PrecisionRecord &b) {
  int ra = precisionRank(a), rb = precisionRank(b);
  if (ra != rb)
    return ra < rb;
  auto key = [](const PrecisionRecord &r) {
    uint64_t failures = r.kind == "nonfinite" ? r.nans : r.overflows + r.nans;
    return std::make_tuple(failures, r.scaled_bits, r.bits_lost, r.max_rel_err, r.count);
  };
  if (key(a) != key(b))
    return key(a) > key(b);
  return std::tie(a.site.file, a.site.line, a.site.column, a.module, a.site_id) <
         std::tie(b.site.file, b.site.line, b.site.column, b.module, b.site_id);
}

std::vector<PrecisionRecord>
precisionBySite(const std::vector<PrecisionRecord> &records) {
  // A site is a place in the source: the copies an unrolled loop or an
  // inlined function makes of one operation are one site. Without a source
  // location, the module's site id tells sites apart.
  using Key = std::tuple<uint32_t, uint32_t, std::string, std::string, DType, DType,
                         std::string, uint32_t, uint32_t, std::string, std::string>;
  std::map<Key, size_t> index;
  std::vector<PrecisionRecord> sites;
  for (const PrecisionRecord &r : records) {
    bool located = !r.site.file.empty() && r.site.line != 0;
    Key key{located ? 0 : r.module, located ? 0 : r.site_id, r.kind, r.op, r.dtype,
            r.from_dtype, r.site.file, r.site.line, r.site.column, r.site.function,
            r.site.inlined_at};
    auto [it, inserted] = index.try_emplace(key, sites.size());
    if (inserted)
      sites.push_back(r);
    else
      mergePrecision(sites[it->second], r);
  }
  std::stable_sort(sites.begin(), sites.end(), precisionWorseThan);
  return sites;
}

std::string formatPrecisionLine(const PrecisionRecord &r, double threshold) {
  std::string out = precisionLocation(r.site, true) + ": ";
  if (r.kind == "nonfinite") {
    uint64_t births = r.nans ? r.nans : r.count;
    out += "NaN/Inf born in " + (r.op.empty() ? std::string("an operation") : r.op) +
           " (" + dtypeName(r.dtype) + ") " + plural(births, "time", "times") +
           " from finite operands; first " + worstAt(r) + ": " +
           realText(r.worst.real, r.dtype) + " (fp64 shadow " +
           realVsShadow(r.worst.real, r.worst.shadow, r.dtype).second + ")";
    return out;
  }
  if (r.kind == "narrow") {
    // Rounding to the narrower type loses its bits by design; what tells is
    // how far values moved, and what did not fit.
    DType from = r.from_dtype;
    out += std::string(from == DType::Unknown ? "?" : dtypeName(from)) + "->" +
           dtypeName(r.dtype) + " narrowing: max rel err " +
           shortNumber(r.max_rel_err) + " over " + plural(r.count, "value", "values");
    if (r.count > 0)
      out += "; worst " + worstAt(r) + ": " +
             realText(r.worst.shadow, from == DType::Unknown ? DType::F64 : from) +
             " -> " + realText(r.worst.real, r.dtype);
    out += "; " + plural(r.overflows, "overflow", "overflows") + " to inf, " +
           std::to_string(r.underflows) + " flushed to zero/subnormal, " +
           plural(r.nans, "NaN", "NaNs");
    if (r.to_shared && r.count > 0)
      out += "; stored to shared memory and used from there, off by " +
             scaleFraction(r) + " of its scale (" + scaledText(r, threshold) + ")";
    return out;
  }
  std::string what;
  if (r.kind == "atomic")
    what = std::string(dtypeName(r.dtype)) + " atomic" + (r.op.empty() ? "" : " " + r.op);
  else
    what = std::string(dtypeName(r.dtype)) + " " + r.kind;
  out += what + " is off by " + scaleFraction(r) + " of its scale (" +
         scaledText(r, threshold) + "; max rel err " + shortNumber(r.max_rel_err) + ", " +
         bitsText(r.bits_lost) + " of its own ULPs, over " +
         plural(r.count, "value", "values");
  if (r.count > 0) {
    auto [real, shadow] = realVsShadow(r.worst.real, r.worst.shadow, r.dtype);
    out += "; worst " + worstAt(r) + ": " + real + " vs " + shadow;
  }
  out += ")";
  if (isPrecisionFinding(r, threshold))
    if (std::string cause = formatPrecisionCause(r); !cause.empty())
      out += "; " + cause;
  return out;
}

std::string formatPrecisionSummary(const std::vector<PrecisionRecord> &sites,
                                   double threshold) {
  if (sites.empty())
    return "kosan: precision: no values recorded";
  uint64_t values = 0;
  for (const PrecisionRecord &r : sites)
    if (r.kind != "nonfinite")
      values += r.count;
  const PrecisionRecord &worst = sites.front();
  std::string out = "kosan: precision: " + formatPrecisionFindingSummary(sites, threshold) +
                    " in " + plural(sites.size(), "site", "sites") + ", " +
                    plural(values, "value", "values") + "; worst " +
                    precisionLocation(worst.site, false);
  if (worst.kind == "nonfinite")
    return out + ": NaN/Inf born " +
           plural(worst.nans ? worst.nans : worst.count, "time", "times");
  if (narrowingFailed(worst))
    return out + ": " + plural(worst.overflows, "overflow", "overflows") +
           " to inf and " + plural(worst.nans, "NaN", "NaNs") + " in narrowing";
  return out + " off by " + scaleFraction(worst) + " of its scale (" +
         bitsText(worst.scaled_bits) + " of fp32)";
}

namespace {

// The precision part of kosan-report's text: one line per site, worst
// first, then the summary.
std::string precisionSection(const Trace &trace, const ReportOptions &options) {
  auto checks = trace.header.options.find("checks");
  bool enabled = checks != trace.header.options.end() &&
                 checks->second.find("precision") != std::string::npos;
  if (trace.precision.empty() && !enabled)
    return "";
  std::vector<PrecisionRecord> sites = precisionBySite(trace.precision);
  std::string out;
  size_t hidden = 0, within = 0;
  for (const PrecisionRecord &r : sites) {
    if (!options.all_precision_sites && !isPrecisionFinding(r, options.precision_threshold)) {
      ++within;
      continue;
    }
    if (precisionSeverity(r) < options.min_bits) {
      ++hidden;
      continue;
    }
    out += formatPrecisionLine(r, options.precision_threshold) + "\n";
  }
  out += formatPrecisionSummary(sites, options.precision_threshold) + "\n";
  if (within > 0)
    out += "note: " + plural(within, "precision site stays", "precision sites stay") +
           (within == 1 ? " within its allowance and is" : " within their allowance and are") +
           " not listed (--all-sites lists them)\n";
  if (hidden > 0) {
    char bits[32];
    std::snprintf(bits, sizeof bits, "%g", options.min_bits);
    out += "note: " + plural(hidden, "precision site loses", "precision sites lose") +
           " fewer than " + bits + " bits and " + (hidden == 1 ? "is" : "are") +
           " not listed (--min-bits)\n";
  }
  return out;
}

} // namespace

std::string formatKernelOrderFlags(const KernelOrderInfo &k) {
  std::string out;
  for (auto [on, name] : {std::pair{k.float_atomics, "float atomics"},
                          std::pair{k.shuffle_reduction, "warp-shuffle reduction"},
                          std::pair{k.shared_reduction, "shared-memory reduction"},
                          std::pair{k.launch_dependent_loop,
                                    "launch-dependent reduction loop"}})
    if (on)
      out += (out.empty() ? "" : ", ") + std::string(name);
  return out.empty() ? "none" : out;
}

namespace {

std::string launchLabel(uint32_t id, const std::map<uint32_t, const LaunchRecord *> &launches) {
  std::string out = "launch #" + std::to_string(id);
  auto it = launches.find(id);
  if (it != launches.end() && !it->second->kernel.empty())
    out += " " + it->second->kernel;
  return out;
}

// The order part of kosan-report's text (checks=order): each kernel's
// static findings, then per launch what its order records hold, warnings
// for dropped records, and a closing line.
std::string orderSection(const Trace &trace,
                         const std::map<uint32_t, const LaunchRecord *> &launches) {
  auto checks = trace.header.options.find("checks");
  bool enabled = checks != trace.header.options.end() &&
                 checks->second.find("order") != std::string::npos;
  bool any = !trace.kernel_order.empty() || !trace.order_stores.empty() ||
             !trace.order_atomics.empty() || !trace.order_ops.empty() ||
             !trace.order_summaries.empty();
  if (!any && !enabled)
    return "";
  std::string out;
  if (!trace.kernel_order.empty()) {
    out += "order: static findings per kernel:\n";
    for (const KernelOrderInfo &k : trace.kernel_order) {
      std::string name = !k.kernel.empty() ? k.kernel : orUnknown(k.mangled);
      out += "  " + name + ": " + formatKernelOrderFlags(k);
      if (!k.fingerprints)
        out += " (no fingerprints computed)";
      out += "\n";
      std::string findings = k.findings;
      size_t start = 0;
      while (start < findings.size()) {
        size_t end = findings.find('\n', start);
        if (end == std::string::npos)
          end = findings.size();
        if (end > start)
          out += "    " + findings.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
  }

  // Launches in id order, each with its records.
  std::map<uint32_t, std::vector<std::string>> lines;
  std::map<uint32_t, std::vector<std::string>> warnings;
  uint64_t dependent = 0;
  std::map<uint32_t, bool> dependentLaunches;
  for (const OrderAtomicRecord &r : trace.order_atomics) {
    uint64_t contributions = 0;
    for (const AtomicSequence &l : r.locations)
      contributions += l.order.size();
    uint64_t d = orderDependentLocations(r);
    dependent += d;
    if (d > 0)
      dependentLaunches[r.launch] = true;
    std::string line = std::to_string(contributions) + " float atomics on '" + r.name +
                       "' at " + plural(r.locations.size(), "location", "locations") +
                       "; ";
    if (!atomicOrderMatters(r.op))
      line += "their result does not depend on the order they landed in (" + r.op + ")";
    else if (d == 0)
      line += "none is order-dependent";
    else if (d == 1)
      line += "1 is order-dependent (its result depends on the order the atomics landed in)";
    else
      line += std::to_string(d) + " are order-dependent (their result depends on "
                                  "the order the atomics landed in)";
    if (!r.exact)
      line += "; the landing order is the order the log received them, not "
              "reconstructed exactly";
    lines[r.launch].push_back(line);
  }
  for (const OrderStoreRecord &r : trace.order_stores) {
    std::string line = "fingerprints of " +
                       plural(r.elements.size(), "element", "elements") + " of '" +
                       r.name + "' (" + dtypeName(r.dtype) + ") recorded";
    if (!r.sites.empty()) {
      line += ", stored at ";
      for (size_t i = 0; i < r.sites.size(); ++i)
        line += (i ? ", " : "") + r.sites[i];
    }
    lines[r.launch].push_back(line);
  }
  for (const OrderSummary &o : trace.order_summaries) {
    // checks=order-ops adds the operation log; without it the line is as
    // before.
    bool ops = o.ops > 0 || o.dropped_ops > 0;
    lines[o.launch].push_back(plural(o.stores, "store record", "store records") +
                              (ops ? ", " : " and ") +
                              plural(o.atomics, "atomic record", "atomic records") +
                              (ops ? " and " + plural(o.ops, "operation", "operations")
                                   : std::string()) +
                              " received");
    if (o.dropped_stores > 0)
      warnings[o.launch].push_back(
          plural(o.dropped_stores, "store record", "store records") +
          " dropped: the device log was full; raise order_stores");
    if (o.dropped_atomics > 0)
      warnings[o.launch].push_back(
          plural(o.dropped_atomics, "atomic record", "atomic records") +
          " dropped: the device log was full; raise order_atomics");
    if (o.dropped_ops > 0)
      warnings[o.launch].push_back(
          plural(o.dropped_ops, "operation", "operations") +
          " dropped: the operation log was full; raise order_ops (kosan-diff may not "
          "find where two runs part)");
  }
  if (!lines.empty()) {
    out += "order: per launch:\n";
    for (const auto &[id, texts] : lines)
      for (const std::string &text : texts)
        out += "  " + launchLabel(id, launches) + ": " + text + "\n";
  }
  for (const auto &[id, texts] : warnings)
    for (const std::string &text : texts)
      out += "warning: " + launchLabel(id, launches) + ": " + text + "\n";

  if (lines.empty()) {
    out += "kosan: order: no order records (was the program built with "
           "--kosan-checks=order?)\n";
  } else {
    out += "kosan: order: " +
           plural(lines.size(), "launch", "launches") + " recorded; " +
           plural(dependent, "order-dependent location", "order-dependent locations");
    if (!dependentLaunches.empty())
      out += " in " + plural(dependentLaunches.size(), "launch", "launches");
    out += "\n";
  }
  return out;
}

} // namespace

std::string formatOobSummary(const OobEvent &e) {
  std::string out = "SUMMARY: kosan: " + e.kind;
  if (!e.site.file.empty())
    out += " " + fileLocation(e.site);
  if (!e.site.function.empty())
    out += " in " + e.site.function;
  return out;
}

std::string formatOobReport(const OobEvent &e, const LaunchRecord *launch,
                            int64_t pid) {
  std::string kernel =
      launch && !launch->kernel.empty() ? launch->kernel : e.site.function;
  std::string where;
  if (!e.site.file.empty())
    where = fileLocation(e.site);
  else if (!e.site.function.empty())
    where = e.site.function + " (no line information)";
  else
    where = "an unknown location (no line information)";

  std::string out(65, '=');
  out += "\n";
  out += pid != 0 ? "==" + std::to_string(pid) + "==" : "==";
  out += "ERROR: kosan: " + e.kind + ": " + e.access + " of size " +
         std::to_string(e.size) + " in " +
         (kernel.empty() ? "an unknown kernel" : "kernel '" + kernel + "'") +
         " at " + where + "\n";
  if (!e.site.inlined_at.empty())
    out += "    (inlined into " + e.site.inlined_at + ")\n";

  out += "    first by block " + dim(e.block) + " thread " + dim(e.thread) +
         "; this site fired " + plural(e.count, "time", "times") +
         " in launch #" + std::to_string(e.launch);
  if (launch)
    out += " (grid " + dim(launch->grid) + " block " + dim(launch->block) + ")";
  out += "\n";

  out += "    " + describeAddress(e) + "\n";
  if (e.kind == "misaligned-access") {
    uint64_t alignment = accessAlignment(e.size);
    out += "    the address is not " + std::to_string(alignment) + "-byte aligned (" +
           std::to_string(e.address % alignment) + " bytes past a boundary): the GPU "
           "faults on a " + std::to_string(e.size) + "-byte access there; kosan dropped it\n";
  }
  if (e.kind == "use-of-uninitialized-value")
    out += "    the bytes read still hold the fill of a fresh allocation "
           "(uninit=1): nothing wrote them\n";
  if (!e.allocated_at.empty())
    out += "    " +
           (e.buffer_name.empty() ? "the buffer" : "'" + e.buffer_name + "'") +
           " was allocated at " + e.allocated_at + "\n";
  if (!e.freed_at.empty())
    out += "    " +
           (e.buffer_name.empty() ? "the buffer" : "'" + e.buffer_name + "'") +
           " was freed " + (std::isdigit(static_cast<unsigned char>(e.freed_at.back())) ? "at " : "by ") +
           e.freed_at + "\n";
  out += formatOobSummary(e) + "\n";
  return out;
}

std::string formatTraceText(const Trace &trace, const ReportOptions &report) {
  const TraceHeader &h = trace.header;
  std::string out;

  std::string program;
  for (const std::string &arg : h.argv)
    program += (program.empty() ? "" : " ") + shellQuote(arg);
  out += "program: " + orUnknown(program) + "\n";
  out += "pid: " + std::to_string(h.pid) + "\n";
  out += "started: " + orUnknown(h.start_time) + "\n";
  out += "kosan version: " + orUnknown(h.kosan_version) + "\n";
  out += "GPU: " + orUnknown(h.gpu_name);
  if (!h.gpu_arch.empty())
    out += " (" + h.gpu_arch + ")";
  out += ", CUDA driver " + cudaVersion(h.driver_version) + ", runtime " +
         cudaVersion(h.runtime_version) + "\n";
  std::string options;
  for (const auto &[key, value] : h.options)
    options += " " + key + "=" + value;
  out += "options:" + (options.empty() ? std::string(" (defaults)") : options) +
         "\n";

  out += "modules:";
  if (trace.modules.empty())
    out += " none";
  out += "\n";
  for (const ModuleRecord &m : trace.modules) {
    std::string details;
    for (const std::string &part : {m.compiler, m.fp_mode})
      if (!part.empty())
        details += part + "; ";
    details += plural(m.sites, "site", "sites");
    out += "  #" + std::to_string(m.id) + " " + orUnknown(m.source) + " (" +
           details + ")\n";
  }

  out += "launches:";
  if (trace.launches.empty())
    out += " none";
  out += "\n";
  std::map<uint32_t, const LaunchRecord *> launchById;
  if (!trace.launches.empty()) {
    std::vector<std::vector<std::string>> rows = {
        {"id", "grid", "block", "shared", "instrumented", "kernel"}};
    for (const LaunchRecord &l : trace.launches) {
      launchById[l.id] = &l;
      rows.push_back({std::to_string(l.id), dim(l.grid), dim(l.block),
                      std::to_string(l.shared_bytes),
                      l.instrumented ? "yes" : "no", l.kernel});
    }
    out += formatTable(rows, {true, false, false, true, false, false});
  }

  if (!trace.snapshots.empty()) {
    out += "snapshots:\n";
    std::vector<std::vector<std::string>> rows = {
        {"launch", "arg", "dtype", "elements", "shape", "poisoned", "name"}};
    for (const SnapshotRecord &s : trace.snapshots) {
      std::string shape;
      for (int64_t extent : s.shape)
        shape += (shape.empty() ? "" : "x") + std::to_string(extent);
      rows.push_back({std::to_string(s.launch), std::to_string(s.arg),
                      dtypeName(s.dtype), std::to_string(s.count),
                      shape.empty() ? "-" : shape,
                      s.poisoned ? "yes" : "no", s.name});
    }
    out += formatTable(rows, {true, true, false, true, false, false, false});
  }

  uint64_t errors = 0;
  for (const OobEvent &e : trace.oob) {
    auto it = launchById.find(e.launch);
    out += formatOobReport(e, it == launchById.end() ? nullptr : it->second,
                           h.pid);
    errors += e.count;
  }

  out += "kosan: " + plural(errors, "error", "errors") + " (" +
         plural(trace.oob.size(), "report", "reports") + ") in " +
         plural(trace.launches.size(), "launch", "launches") + "\n";
  out += precisionSection(trace, report);
  out += orderSection(trace, launchById);
  size_t unchecked = std::count_if(
      trace.launches.begin(), trace.launches.end(),
      [](const LaunchRecord &l) { return !l.instrumented; });
  if (unchecked > 0)
    out += "note: " + plural(unchecked, "launch", "launches") +
           " ran without instrumentation and " +
           (unchecked == 1 ? "was" : "were") + " not checked\n";
  if (trace.end) {
    if (trace.end->dropped > 0)
      out += "note: " + plural(trace.end->dropped, "event was", "events were") +
             " dropped because the device log was full (raise log_capacity); "
             "the counts above are lower bounds\n";
    if (trace.end->unresolved_accesses > 0)
      out += "note: " +
             plural(trace.end->unresolved_accesses, "kernel pointer argument",
                    "kernel pointer arguments") +
             " pointed into no known buffer; accesses through " +
             (trace.end->unresolved_accesses == 1 ? "it" : "them") +
             " were not bounds-checked\n";
  } else {
    out += "note: the process did not exit normally; the trace holds every "
           "launch it recorded\n";
  }
  for (const std::string &warning : trace.warnings)
    out += "warning: " + warning + "\n";
  return out;
}

std::string formatTraceJson(const Trace &trace, const ReportOptions &options) {
  detail::OrderedJson doc = detail::OrderedJson::object();
  doc["header"] = detail::toJson(trace.header);
  doc["modules"] = detail::OrderedJson::array();
  for (const ModuleRecord &m : trace.modules)
    doc["modules"].push_back(detail::toJson(m));
  doc["launches"] = detail::OrderedJson::array();
  for (const LaunchRecord &l : trace.launches)
    doc["launches"].push_back(detail::toJson(l));
  doc["oob"] = detail::OrderedJson::array();
  for (const OobEvent &e : trace.oob)
    doc["oob"].push_back(detail::toJson(e));
  doc["precision"] = detail::OrderedJson::array();
  for (const PrecisionRecord &p : trace.precision)
    doc["precision"].push_back(detail::toJson(p));
  // Merged per site, worst first, as the text lists them.
  doc["precision_sites"] = detail::OrderedJson::array();
  for (const PrecisionRecord &p : precisionBySite(trace.precision))
    if (precisionSeverity(p) >= options.min_bits) {
      detail::OrderedJson site = detail::toJson(p);
      site["allowance"] = detail::doubleJson(precisionAllowance(p, options.precision_threshold));
      site["finding"] = isPrecisionFinding(p, options.precision_threshold);
      doc["precision_sites"].push_back(std::move(site));
    }
  doc["snapshots"] = detail::OrderedJson::array();
  for (const SnapshotRecord &s : trace.snapshots)
    doc["snapshots"].push_back(detail::toJson(s));
  doc["kernel_order"] = detail::OrderedJson::array();
  for (const KernelOrderInfo &k : trace.kernel_order)
    doc["kernel_order"].push_back(detail::toJson(k));
  // Order records without their elements: how many, and on which buffer.
  doc["order_stores"] = detail::OrderedJson::array();
  for (const OrderStoreRecord &r : trace.order_stores)
    doc["order_stores"].push_back(detail::toJson(r));
  doc["order_atomics"] = detail::OrderedJson::array();
  for (const OrderAtomicRecord &r : trace.order_atomics)
    doc["order_atomics"].push_back(detail::toJson(r));
  doc["order_ops"] = detail::OrderedJson::array();
  for (const OrderOpsRecord &r : trace.order_ops)
    doc["order_ops"].push_back(detail::toJson(r));
  doc["order_summaries"] = detail::OrderedJson::array();
  for (const OrderSummary &o : trace.order_summaries)
    doc["order_summaries"].push_back(detail::toJson(o));
  doc["end"] = trace.end ? detail::toJson(*trace.end) : detail::OrderedJson();
  doc["warnings"] = trace.warnings;
  return detail::dumpJson(doc, 2) + "\n";
}

std::string detail::significantDigits(double v, int digits) {
  if (v == 0)
    return "0";
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  std::string out = buf;
  size_t e = out.find('e');
  if (e != std::string::npos && e + 2 < out.size() && out[e + 2] == '0')
    out.erase(e + 2, out.find_first_not_of('0', e + 2) - (e + 2));
  return out;
}

} // namespace kosan
