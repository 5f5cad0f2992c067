//===- lib/precision_verdict.cpp - Which precision sites are findings ------===//
//
// See include/kosan/precision_verdict.h.
//
//===----------------------------------------------------------------------===//
#include "kosan/precision_verdict.h"
#include "kosan/abi.h"
#include "kosan/precision.h"

#include "text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kosan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int significand(DType t) { return prec::significandBits(uint32_t(t)); }

bool failedNarrowing(const PrecisionRecord &r) {
  return r.kind == "narrow" && (r.overflows > 0 || r.nans > 0);
}

std::string location(const SourceLoc &s) {
  if (s.file.empty())
    return s.function.empty() ? "an unknown location" : s.function;
  std::string out = s.file;
  if (s.line) {
    out += ":" + std::to_string(s.line);
    if (s.column)
      out += ":" + std::to_string(s.column);
  }
  return out;
}

// "2^-11", "2^0", "2^2", "2^-3.5".
std::string pow2(double e) {
  char buf[32];
  if (std::isinf(e))
    return e > 0 ? "inf" : "0";
  if (e == std::floor(e))
    std::snprintf(buf, sizeof buf, "2^%d", int(e));
  else
    std::snprintf(buf, sizeof buf, "2^%.1f", e);
  return buf;
}

} // namespace

double scaledBits(double maxAbsErr, double scale) {
  if (std::isnan(maxAbsErr) || std::isinf(maxAbsErr))
    return kInf;
  if (maxAbsErr <= 0)
    return 0;
  double ulp = prec::ulpOf(scale, KOSAN_DTYPE_F32);
  return prec::bitsLost(maxAbsErr / ulp);
}

double precisionAllowance(const PrecisionRecord &r, double threshold) {
  if (r.kind == "store" || r.kind == "atomic") {
    int p = significand(r.dtype);
    return p ? std::max(threshold, double(26 - p)) : threshold;
  }
  if (r.kind == "narrow" && r.to_shared)
    return threshold; // used again as the wider type it came from
  return kInf;
}

bool isPrecisionFinding(const PrecisionRecord &r, double threshold) {
  if (r.kind == "nonfinite")
    return r.nans > 0 || r.count > 0;
  if (failedNarrowing(r))
    return true;
  return r.count > 0 && r.scaled_bits > precisionAllowance(r, threshold);
}

std::vector<PrecisionRecord> precisionFindings(const std::vector<PrecisionRecord> &sites,
                                               double threshold) {
  std::vector<PrecisionRecord> out;
  for (const PrecisionRecord &r : sites)
    if (isPrecisionFinding(r, threshold))
      out.push_back(r);
  return out;
}

std::string formatPrecisionCause(const PrecisionRecord &r) {
  const PrecisionCause &c = r.cause;
  if (c.kind.empty())
    return "";
  std::string where = location(c.site);
  std::string local = pow2(c.local_log2);
  int p = significand(c.dtype);
  if (c.kind == "narrow")
    return std::string("introduced by the ") +
           (c.from_dtype == DType::Unknown ? "?" : dtypeName(c.from_dtype)) + "->" +
           dtypeName(c.dtype) + " narrowing at " + where + " (each rounding up to " + local +
           ")";
  bool addLike = c.op.find("add") != std::string::npos ||
                 c.op.find("sub") != std::string::npos ||
                 c.op.find("fma") != std::string::npos;
  // More than twice the operation's own rounding: its operands, rounded to
  // its type, cancelled.
  if (addLike && p && c.local_log2 > 1 - p)
    return "introduced by cancellation in " + c.op + " (" + dtypeName(c.dtype) + ") at " +
           where + " (local error " + local +
           " of its result: operands that already carried error, subtracted)";
  // A fast intrinsic as the program called it: "__expf (ex2.approx.ftz.f)",
  // "expf (exp.f32, afn)".
  bool named = c.op.find(" (") != std::string::npos;
  if (named && (c.op.find("approx") != std::string::npos ||
                c.op.find(", afn)") != std::string::npos))
    return "introduced by the fast intrinsic " + c.op + " at " + where +
           " (local error up to " + local + " of its result)";
  // An approximation by itself (inside a library function), or hexp.
  if (c.op.find("approx") != std::string::npos || c.op.rfind("hexp", 0) == 0)
    return "introduced by the fast approximation " + c.op + " at " + where +
           " (local error up to " + local + " of its result)";
  if (addLike && (c.dtype == DType::F16 || c.dtype == DType::BF16))
    return std::string("introduced by accumulation in ") + dtypeName(c.dtype) + " (" + c.op +
           ") at " + where + " (each rounding up to " + local + ")";
  return "introduced by " + c.op + " (" + dtypeName(c.dtype) + ") at " + where +
         " (local error up to " + local + " of its result)";
}

std::string formatPrecisionFindingSummary(const std::vector<PrecisionRecord> &sites,
                                          double threshold) {
  size_t findings = 0;
  for (const PrecisionRecord &r : sites)
    findings += isPrecisionFinding(r, threshold);
  char t[32];
  std::snprintf(t, sizeof t, "%g", threshold);
  return detail::plural(findings, "finding", "findings") + " above the threshold (" + t +
         " bits of fp32)";
}

bool beyondReference(const PrecisionRecord &cand, double refLevel, bool refHasKind,
                     double threshold) {
  if (!isPrecisionFinding(cand, threshold))
    return false;
  if (cand.kind == "nonfinite" || failedNarrowing(cand))
    return !refHasKind;
  return cand.scaled_bits > refLevel + kPrecisionReferenceMargin;
}

} // namespace kosan
