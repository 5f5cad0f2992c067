//===- kosan/diff.h - Comparing a candidate run against a reference --------===//
//
// What kosan-diff does, as a library: match the launches of two traces,
// compare the snapshots of their outputs element by element, and gather the
// records (out-of-bounds events, precision losses, later order) that explain
// a difference. The comparison streams both snapshots chunk by chunk: memory
// use does not grow with the size of the outputs.
//
// Verdict and exit status: 0 equivalent within tolerance, 1 different,
// 2 trouble (a trace that cannot be read, launches that cannot be matched).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_DIFF_H
#define KOSAN_DIFF_H

#include "kosan/trace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kosan {

// allclose's rule: |cand - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double atol = 0, rtol = 0;
};
// Defaults per dtype: f32 1e-4, f16/bf16 1e-2 (fp8 1e-1, f64 1e-8), integers
// and raw bytes exact (docs/diff.md).
Tolerance defaultTolerance(DType t);

// Element-level arithmetic, exposed for tests and for the Python package.
// Distance in units in the last place of type t between two values of t
// (given widened to double): the number of representable values of t between
// them; +0 and -0 are 0 apart; NaN against anything but NaN is UINT64_MAX.
uint64_t ulpDistance(double a, double b, DType t);
// Decodes one element of type t at p to double (integers exactly up to 2^53).
double decodeElement(const void *p, DType t);
// The inverse: v rounded to the nearest value of t (ties to even; integers
// round to nearest and saturate; NaN of an integer type is 0; f8e4m3, which
// has no infinities, turns values beyond its range into NaN), dtypeSize(t)
// bytes at p.
void encodeElement(double v, DType t, void *p);

enum class Verdict { Equivalent = 0, Different = 1, Trouble = 2 };

struct ElementStats {
  uint64_t compared = 0;        // elements both sides wrote
  uint64_t over_tolerance = 0;  // outside allclose's rule (NaN mismatches included)
  uint64_t nan_mismatch = 0;    // NaN on one side only
  uint64_t inf_mismatch = 0;    // Inf on one side only, or Infs of opposite sign
  uint64_t unwritten_ref = 0;   // left unwritten by the reference (poison=1)
  uint64_t unwritten_cand = 0;  // left unwritten by the candidate where the reference wrote
  double max_abs = 0, mean_abs = 0, max_rel = 0;
  uint64_t max_ulp = 0;
  // The element with the largest error relative to the tolerance.
  uint64_t worst_index = 0;
  double worst_ref = 0, worst_cand = 0;
  double share_over() const { return compared ? double(over_tolerance) / compared : 0; }
};

// Compares two arrays of `count` elements of type t in memory, by the
// element rules of diffTraces (docs/diff.md); what diffTraces does for each
// chunk of an output. Elements whose bits are refPoison / candPoison are
// unwritten (pass std::nullopt where the buffer was not poisoned).
ElementStats compareElements(const void *ref, const void *cand, uint64_t count,
                             DType t, const Tolerance &tolerance,
                             std::optional<uint64_t> refPoison = std::nullopt,
                             std::optional<uint64_t> candPoison = std::nullopt);

struct OutputDiff {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  uint64_t count = 0;                 // elements (reference)
  std::vector<int64_t> shape;
  Tolerance tolerance;
  ElementStats stats;
  std::string problem;                // "" or why it could not be compared (sizes differ, ...)
  std::vector<std::string> store_sites; // candidate's stores to it: "file:line:col"
  bool equivalent = true;
};

// An argument the reference only reads and the candidate wrote.
struct ModifiedInput {
  uint32_t arg = 0;
  std::string name;
  bool changed = true;                // contents differ from before the launch
  std::vector<std::string> store_sites;
};

struct LaunchDiff {
  LaunchRecord ref, cand;
  std::vector<OutputDiff> outputs;
  std::vector<ModifiedInput> modified_inputs;
  std::vector<OobEvent> ref_oob, cand_oob;  // events of these launches
  // Precision records (checks=precision) that cover each launch, of its
  // module's sites, merged per site, worst first (precisionBySite).
  std::vector<PrecisionRecord> ref_precision, cand_precision;
  bool equivalent = true;
};

// How many of CAND's precision sites the text, SARIF and JUnit outputs list
// under a launch pair whose outputs differ.
inline constexpr size_t kDiffPrecisionSites = 3;

struct DiffOptions {
  // Overrides of the per-dtype defaults; atol/rtol set apply to every dtype.
  std::optional<double> atol, rtol;
  std::map<DType, Tolerance> per_dtype;
  // Explicit launch pairs (reference id, candidate id); empty: match by
  // kernel name and order (docs/diff.md).
  std::vector<std::pair<uint32_t, uint32_t>> launches;
  // Progress on long comparisons: (elements done, elements in all).
  std::function<void(uint64_t, uint64_t)> progress;
};

struct DiffResult {
  Verdict verdict = Verdict::Trouble;
  std::string error;                  // set when verdict is Trouble
  std::string ref_path, cand_path;
  TraceHeader ref_header, cand_header;
  std::vector<LaunchDiff> launches;
  std::vector<std::string> notes;     // e.g. unmatched launches, launches without snapshots
  uint64_t elements_compared = 0;
  // OOB events of launches outside the matched pairs. Those of CAND make it
  // different too: a candidate that writes outside its buffers is wrong
  // wherever it does so.
  std::vector<OobEvent> other_ref_oob, other_cand_oob;
};

DiffResult diffTraces(const std::string &refPath, const std::string &candPath,
                      const DiffOptions &options);

std::string formatDiffText(const DiffResult &result);
std::string formatDiffJson(const DiffResult &result);   // docs/diff.md
std::string formatDiffSarif(const DiffResult &result);  // SARIF 2.1.0
std::string formatDiffJunit(const DiffResult &result);  // JUnit XML
// The last line of formatDiffText, without its newline: "kosan-diff:
// EQUIVALENT: ...", "kosan-diff: DIFFERENT: ..." or "kosan-diff: TROUBLE: ...".
std::string formatDiffVerdict(const DiffResult &result);

} // namespace kosan

#endif // KOSAN_DIFF_H
