//===- kosan/diff.h - Comparing a candidate run against a reference --------===//
//
// What kosan-diff does, as a library: match the launches of two traces,
// compare the snapshots of their outputs element by element, and gather the
// records (out-of-bounds events, precision losses) that explain a
// difference; and, from the fingerprints of checks=order, whether two runs
// computed their outputs in the same order (determinism, batch
// invariance). The comparison streams both snapshots chunk by chunk: memory
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
#include <set>
#include <string>
#include <string_view>
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
  std::vector<std::string> ref_store_sites; // the reference's
  bool equivalent = true;
};

// A precision finding of the candidate (precision_verdict.h) that loses
// more than the reference does at the same output.
struct PrecisionBeyondRef {
  PrecisionRecord cand;
  double ref_bits = 0;        // the reference's scaled_bits it was held to
  std::string output;         // the output the site stores to; "" when none matched
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
  // CAND's precision findings beyond REF's (precisionBeyondReference); any
  // makes the pair different.
  std::vector<PrecisionBeyondRef> precision_beyond;
  bool equivalent = true;
};

// The candidate's precision findings at threshold (precision_verdict.h) that
// lose more than the reference at the same output: a site that stores to an
// output (OutputDiff::store_sites) is held to the largest scaled_bits of the
// reference's sites that store to it (ref_store_sites), other sites to the
// reference's largest over the launch; beyond means more than
// kPrecisionReferenceMargin bits above, or, for NaN/Inf births and failed
// narrowings, none of the kind in the reference.
std::vector<PrecisionBeyondRef> precisionBeyondReference(const LaunchDiff &d,
                                                         double threshold);

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
  // The precision threshold (precision_verdict.h) of findings beyond REF.
  double precision_threshold = prec::kDefaultThreshold;
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
  double precision_threshold = prec::kDefaultThreshold; // DiffOptions'
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

//===----------------------------------------------------------------------===//
// checks=order: determinism (--order) and batch invariance
// (--batch-invariance) from order fingerprints (docs/diff.md). Both compare
// two traces A and B written with KOSAN_OPTIONS=checks=order; launches are
// paired as above (kernel name and occurrence, or explicit pairs), among the
// launches that have order records.
//===----------------------------------------------------------------------===//

// How many element indices (or locations) a finding lists.
inline constexpr size_t kOrderExamples = 5;

namespace detail {

// One trace as diffTraces, diffOrder and diffBatchInvariance pair its
// launches: its role in messages ("REF", "CAND", "A" or "B"), its path,
// every launch it describes, and those with something to compare.
struct DiffSide {
  DiffSide(const char *role, std::string path) : role(role), path(std::move(path)) {}
  const char *role;
  std::string path;
  Trace trace;
  std::map<uint32_t, LaunchRecord> launches; // all, by id
  std::set<uint32_t> compared;               // with snapshots, or with order records
  // "A launch #3 (kernel)", or "A launch #3" for a launch without a name.
  std::string describe(uint32_t id) const;
};

// Launch pairs among the launches of a and b with `what` to compare
// ("output snapshots", "order records"): the pairs given, else by kernel
// name and occurrence, else in order where no kernel name is common to both
// (docs/diff.md). Launches left unpaired go to the notes; false with *error
// where the launches cannot be paired.
bool pairLaunches(const DiffSide &a, const DiffSide &b, const char *what,
                  const std::vector<std::pair<uint32_t, uint32_t>> &given,
                  std::vector<std::pair<uint32_t, uint32_t>> *pairs,
                  std::vector<std::string> *notes, std::string *error);

} // namespace detail

// Both runs' snapshots of one output (KOSAN_OPTIONS=snapshot=1), bit for
// bit: where the fingerprints say the order changed, whether the bits did.
struct OrderBits {
  bool compared = false;          // both traces have a snapshot of it
  uint64_t elements = 0;          // compared
  uint64_t differing = 0;         // elements whose bits differ
  std::vector<uint64_t> first;    // their indices, kOrderExamples at most
  std::string problem;            // why the snapshots could not be compared
};

// checks=order-ops: where the computations of one element part in A and B,
// found by walking both runs' operation logs (OrderOpsRecord) back from the
// element's two fingerprints: the largest value both computed (the last
// common one), and what each run does with it next; or, where they share no
// operation, each run's first.
struct OrderParting {
  uint64_t element = 0;           // in A's output
  uint64_t element_b = 0;         // in B's (the same, except for rows of a batch)
  bool explained = false;         // false: `missing` says why
  std::string missing;
  uint64_t common_ops = 0;        // operations of the last common value
  std::string common;             // that value described; "" where they share no operation
  std::string a, b;               // what A and B do next ("adds x[4] to it")
  std::string a_site, b_site;     // "file:line:col op" of those operations
  std::string text;               // the sentence the text format prints
};

// The hint printed under an output whose differing elements could not be
// explained because a run has no operation log of the launch.
inline constexpr const char *kOrderOpsHint =
    "to see at which operation they part, build with --kosan-checks=order-ops and "
    "record both runs again";

// One output buffer's store fingerprints (OrderStoreRecord) in A and B.
struct OrderStoreDiff {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  std::vector<std::string> sites;
  uint64_t elements_a = 0, elements_b = 0;
  uint64_t compared = 0;          // elements both runs stored to
  uint64_t differing = 0;         // of those, with other fingerprints
  uint64_t only_a = 0, only_b = 0; // stored to in one run only
  std::vector<uint64_t> first_differing, first_only_a, first_only_b;
  std::string problem;            // recorded in one run only, other dtypes
  // checks=order-ops: where the first differing elements part; and a note
  // (kOrderOpsHint where a run has no operation log of the launch, or that
  // the logs dropped operations), "" otherwise.
  std::vector<OrderParting> partings;
  std::string parting_note;
  OrderBits bits;
  // A or B dropped store records of this launch: a fingerprint may be an
  // earlier store's, an element may be missing. Only bits count then.
  bool incomplete = false;
  bool deterministic = true;
};

// Where the landing orders of one location part.
struct AtomicDivergence {
  uint64_t element = 0;
  uint64_t contributions = 0;     // at this location, in A
  uint64_t position = 0;          // the first position (from 0) that differs
  AtomicContribution a, b;        // what landed there in A and in B
};

// One buffer's float atomics (OrderAtomicRecord) in A and B. Contributions
// are the same when their (block, thread, fingerprint) are.
struct OrderAtomicDiff {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  std::string op;
  std::vector<std::string> sites;
  bool exact_a = true, exact_b = true;
  bool order_matters = true;      // atomicOrderMatters(op): false for fmin, fmax
  uint64_t locations = 0;         // locations both runs hit
  uint64_t contributions_a = 0, contributions_b = 0;
  uint64_t reordered = 0;         // the same contributions, landed in another order
  uint64_t other_contributions = 0; // the contributions themselves differ
  uint64_t fp_differing = 0;      // the locations' fingerprints differ
  // Locations whose result depends on the order the atomics land in
  // (orderDependent) in A or in B, and of those, the ones both runs happened
  // to land alike.
  uint64_t order_dependent = 0, dependent_alike = 0;
  uint64_t only_a = 0, only_b = 0; // hit in one run only
  std::vector<AtomicDivergence> divergences;  // the first reordered locations
  std::vector<uint64_t> first_other, first_dependent, first_only_a, first_only_b;
  std::string problem;
  OrderBits bits;
  // A or B dropped atomic records of this launch: contributions may be
  // missing. Only order dependence among those recorded, and bits, count.
  bool incomplete = false;
  bool deterministic = true;
};

struct OrderLaunchDiff {
  LaunchRecord a, b;
  std::optional<KernelOrderInfo> findings;   // the kernel's static findings (A's, else B's)
  std::optional<OrderSummary> summary_a, summary_b;
  std::vector<OrderStoreDiff> stores;
  std::vector<OrderAtomicDiff> atomics;
  bool deterministic = true;
};

enum class OrderVerdict { Deterministic = 0, Nondeterministic = 1, Trouble = 2 };

struct OrderDiffOptions {
  // Explicit launch pairs (A id, B id); empty: by kernel name and order.
  std::vector<std::pair<uint32_t, uint32_t>> launches;
};

struct OrderDiffResult {
  OrderVerdict verdict = OrderVerdict::Trouble;
  std::string error;              // set when verdict is Trouble
  std::string a_path, b_path;
  TraceHeader a_header, b_header;
  std::vector<OrderLaunchDiff> launches;
  std::vector<std::string> notes;
};

// kosan-diff --order A B: two runs of one program. Deterministic when every
// fingerprint matches and no location's result depends on the order its
// atomics land in.
OrderDiffResult diffOrder(const std::string &aPath, const std::string &bPath,
                          const OrderDiffOptions &options = {});
std::string formatOrderDiffText(const OrderDiffResult &result);
std::string formatOrderDiffJson(const OrderDiffResult &result);
// "kosan-diff: DETERMINISTIC: ...", "kosan-diff: NONDETERMINISTIC: ..." or
// "kosan-diff: TROUBLE: ...", without newline.
std::string formatOrderDiffVerdict(const OrderDiffResult &result);

// Rows RA.. of A's outputs against rows RB.. of B's, `count` rows.
struct RowPair {
  uint64_t a = 0, b = 0, count = 1;
  bool operator==(const RowPair &) const = default;
};
// "RA:RB[:COUNT],...": COUNT left out is 1. Returns nothing, with *error
// saying what is wrong, for anything else (COUNT 0, an empty item, ...).
std::optional<std::vector<RowPair>> parseRowPairs(std::string_view spec,
                                                  std::string *error);

struct BatchDiffOptions {
  std::vector<RowPair> rows;
  uint64_t row_length = 0;        // elements per row of every output compared
  std::vector<std::pair<uint32_t, uint32_t>> launches;
};

// One row of A against one row of B in one output.
struct BatchRowDiff {
  uint64_t row_a = 0, row_b = 0;
  // A or B dropped order records of the launch: fingerprints may be
  // missing or an earlier store's. Only bits count then.
  bool incomplete = false;
  uint64_t compared = 0;          // columns both rows have fingerprints of
  uint64_t variant = 0;           // of those, with other fingerprints
  uint64_t only_a = 0, only_b = 0; // columns written in one row only
  std::vector<uint64_t> first_variant;  // columns, kOrderExamples at most
  // As OrderStoreDiff's, for the columns of first_variant.
  std::vector<OrderParting> partings;
  std::string parting_note;
  OrderBits bits;                 // indices in `first` are columns
  bool invariant = true;
};

struct BatchOutputDiff {
  uint32_t arg = 0;
  std::string name;
  DType dtype = DType::Unknown;
  std::string written_by;         // "stores", "atomics" or "stores and atomics"
  std::string problem;            // why it could not be compared
  std::vector<BatchRowDiff> rows;
  bool invariant = true;
};

struct BatchLaunchDiff {
  LaunchRecord a, b;
  std::optional<KernelOrderInfo> findings;
  // Why the kernel can depend on the batch, from its static findings.
  std::vector<std::string> reasons;
  std::vector<BatchOutputDiff> outputs;
  bool invariant = true;
};

enum class BatchVerdict { Invariant = 0, BatchVariant = 1, Trouble = 2 };

struct BatchDiffResult {
  BatchVerdict verdict = BatchVerdict::Trouble;
  std::string error;
  std::string a_path, b_path;
  TraceHeader a_header, b_header;
  std::vector<RowPair> rows;
  uint64_t row_length = 0;
  std::vector<BatchLaunchDiff> launches;
  std::vector<std::string> notes;
};

// kosan-diff --batch-invariance A B --rows SPEC --row-length N: A a run
// with a smaller batch, B one with a larger; each row of A is to be
// computed the same way as its row in B.
BatchDiffResult diffBatchInvariance(const std::string &aPath, const std::string &bPath,
                                    const BatchDiffOptions &options);
std::string formatBatchDiffText(const BatchDiffResult &result);
std::string formatBatchDiffJson(const BatchDiffResult &result);
std::string formatBatchDiffVerdict(const BatchDiffResult &result);

} // namespace kosan

#endif // KOSAN_DIFF_H
