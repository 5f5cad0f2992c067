//===- kosan/precision_verdict.h - Which precision sites are findings ------===//
//
// One rule for the runtime's exit report, kosan-report and kosan-diff.
//
// A site is a *finding* when
//   - a NaN or infinity was born there from finite operands (nonfinite), or
//   - a narrowing there overflowed to infinity or made a NaN, or
//   - a value it stored (store, atomic), or a narrowed value it sent to
//     shared memory (narrow, to_shared), is farther from its fp64 shadow
//     than a correct kernel's would be: scaled_bits, the largest
//     |real - shadow| in fp32 ULPs at the site's scale (the largest |shadow|
//     it recorded), exceeds the allowance
//         max(threshold, 26 - significand bits of the stored type)
//     threshold (default 10): what fp32 arithmetic may lose at that scale,
//     2^10 ULPs, as much as a worst-case fp32 reduction of 1024 terms;
//     26 - p: two ULPs of a narrower stored type at that scale (f16: 15,
//     bf16: 18), which rounding to it costs by itself.
// Other sites (narrowings, which round by design, and stores within their
// allowance) are listed on request, never counted.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PRECISION_VERDICT_H
#define KOSAN_PRECISION_VERDICT_H

#include "kosan/trace.h"

#include <string>
#include <vector>

namespace kosan {

inline constexpr double kDefaultPrecisionThreshold = prec::kDefaultThreshold;

// Bits of fp32 at scale that the site may lose without being a finding
// (infinite for sites that are never findings by error alone).
double precisionAllowance(const PrecisionRecord &r, double threshold);
bool isPrecisionFinding(const PrecisionRecord &r, double threshold);
// The findings among sites (as precisionBySite made them), in their order.
std::vector<PrecisionRecord> precisionFindings(const std::vector<PrecisionRecord> &sites,
                                               double threshold);

// scaled_bits of an error max_abs_err at scale: log2(max_abs_err / ulp of
// fp32 at scale), 0 below one ULP, infinite for an infinite error.
double scaledBits(double maxAbsErr, double scale);

// "introduced by the f32->f16 narrowing at dot.cu:57 (each rounding up to
// 2^-11)" and the like; "" when the record has no cause.
std::string formatPrecisionCause(const PrecisionRecord &r);
// "2 findings above the threshold (10 bits of fp32)": the count the exit
// summary and kosan-report's summary line give.
std::string formatPrecisionFindingSummary(const std::vector<PrecisionRecord> &sites,
                                          double threshold);

// Against a reference: the candidate's findings that lose more than the
// reference does at the same output. refLevel: the reference's largest
// scaled_bits over the sites that store to the output the candidate's site
// stores to (or, for sites matched to no output, over all its value sites);
// a candidate finding is beyond the reference when its scaled_bits exceed
// refLevel by more than kPrecisionReferenceMargin bits, or when the
// reference has no finding of its kind (births, failed narrowings).
inline constexpr double kPrecisionReferenceMargin = 1;
bool beyondReference(const PrecisionRecord &cand, double refLevel, bool refHasKind,
                     double threshold);

} // namespace kosan

#endif // KOSAN_PRECISION_VERDICT_H
