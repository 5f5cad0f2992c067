//===- lib/precision_diff.cpp - Precision findings against a reference -----===//
//
// See precisionBeyondReference in include/kosan/diff.h.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "kosan/precision_verdict.h"
#include "text.h"

#include <algorithm>

namespace kosan {

namespace {


bool contains(const std::vector<std::string> &v, const std::string &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool valueSite(const PrecisionRecord &r) {
  return r.kind == "store" || r.kind == "atomic" || (r.kind == "narrow" && r.to_shared);
}

bool failedNarrowing(const PrecisionRecord &r) {
  return r.kind == "narrow" && (r.overflows > 0 || r.nans > 0);
}

} // namespace

std::vector<PrecisionBeyondRef> precisionBeyondReference(const LaunchDiff &d,
                                                         double threshold) {
  std::vector<PrecisionBeyondRef> out;
  double refLaunch = 0;
  bool refBirths = false, refFailedNarrowing = false;
  for (const PrecisionRecord &r : d.ref_precision) {
    if (valueSite(r))
      refLaunch = std::max(refLaunch, r.scaled_bits);
    refBirths = refBirths || (r.kind == "nonfinite" && isPrecisionFinding(r, threshold));
    refFailedNarrowing = refFailedNarrowing || failedNarrowing(r);
  }
  for (const PrecisionRecord &c : d.cand_precision) {
    if (!isPrecisionFinding(c, threshold))
      continue;
    PrecisionBeyondRef b;
    b.cand = c;
    b.ref_bits = refLaunch;
    std::string where = detail::fileLocation(c.site);
    const OutputDiff *output = nullptr;
    if (c.kind == "store" || c.kind == "atomic")
      for (const OutputDiff &o : d.outputs)
        if (contains(o.store_sites, where)) {
          output = &o;
          break;
        }
    if (output) {
      b.output = output->name.empty() ? "argument " + std::to_string(output->arg)
                                      : output->name;
      b.ref_bits = 0;
      for (const PrecisionRecord &r : d.ref_precision)
        if (valueSite(r) && contains(output->ref_store_sites, detail::fileLocation(r.site)))
          b.ref_bits = std::max(b.ref_bits, r.scaled_bits);
    }
    bool refHasKind = c.kind == "nonfinite" ? refBirths : refFailedNarrowing;
    if (beyondReference(c, b.ref_bits, refHasKind, threshold))
      out.push_back(std::move(b));
  }
  return out;
}

} // namespace kosan
