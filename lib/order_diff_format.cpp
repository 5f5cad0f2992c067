//===- order_diff_format.cpp - Text and JSON of --order, --batch-invariance -===//
//
// The layouts are in docs/diff.md: one block per launch pair, the kernel's
// static findings first, then one line per output with its details
// indented below it, the notes, and one verdict line.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "trace_json.h"
#include "text.h"

#include <algorithm>
#include <functional>

namespace kosan {

namespace {

using detail::OrderedJson;

using detail::plural;

std::string launchName(const char *role, const LaunchRecord &l) {
  std::string out = std::string(role) + " #" + std::to_string(l.id);
  if (!l.kernel.empty())
    out += " " + l.kernel;
  return out;
}

// "[5], [9], [17]": element indices as the output diff writes them.
std::string elementList(const std::vector<uint64_t> &elements, uint64_t total) {
  std::string out;
  for (uint64_t e : elements)
    out += (out.empty() ? "[" : ", [") + std::to_string(e) + "]";
  if (total > elements.size())
    out += ", ...";
  return out;
}

std::string columnList(const std::vector<uint64_t> &columns, uint64_t total) {
  std::string out;
  for (uint64_t c : columns)
    out += (out.empty() ? "" : ", ") + std::to_string(c);
  if (total > columns.size())
    out += ", ...";
  return out;
}

std::string dim(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// "  launch configuration differs: grid (8,1,1) vs (1,1,1), block ..." when
// the two launches ran with another grid, block or dynamic shared memory.
std::string configText(const LaunchRecord &a, const LaunchRecord &b) {
  std::vector<std::string> parts;
  if (a.grid != b.grid)
    parts.push_back("grid " + dim(a.grid) + " vs " + dim(b.grid));
  if (a.block != b.block)
    parts.push_back("block " + dim(a.block) + " vs " + dim(b.block));
  if (a.shared_bytes != b.shared_bytes)
    parts.push_back("dynamic shared memory " + std::to_string(a.shared_bytes) + " vs " +
                    std::to_string(b.shared_bytes) + " bytes");
  if (parts.empty())
    return "";
  std::string out = "  launch configuration differs: ";
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? ", " : "") + parts[i];
  return out + "\n";
}

// The static findings of a kernel, as the lines under a launch pair.
std::string findingsText(const std::optional<KernelOrderInfo> &k) {
  if (!k)
    return "  static findings: none recorded for this kernel\n";
  std::string out = "  static findings: " + formatKernelOrderFlags(*k) + "\n";
  size_t start = 0;
  while (start < k->findings.size()) {
    size_t end = k->findings.find('\n', start);
    if (end == std::string::npos)
      end = k->findings.size();
    if (end > start)
      out += "    " + k->findings.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// The bits line under an output whose snapshots were compared, or "".
std::string bitsLine(const OrderBits &b, bool fingerprintsDiffer, const char *unit,
                     bool columns) {
  if (!b.problem.empty() && !b.compared)
    return "    bits: not compared: " + b.problem + "\n";
  if (!b.compared)
    return "";
  std::string out = "    bits: ";
  std::string elements = plural(b.elements, unit, (std::string(unit) + "s").c_str());
  if (b.differing > 0)
    out += std::to_string(b.differing) + "/" + elements + " differ (" +
           (columns ? columnList(b.first, b.differing) : elementList(b.first, b.differing)) +
           ")";
  else if (fingerprintsDiffer)
    out += "identical (" + elements +
           "), although the order differs: the results happened to round alike "
           "this time";
  else
    out += "identical (" + elements + ")";
  if (!b.problem.empty())
    out += "; " + b.problem;
  return out + "\n";
}

// The findings of an output's line, "; " between them, and its newline.
std::string partsLine(const std::vector<std::string> &parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? "; " : "") + parts[i];
  return out + "\n";
}

// The lines under an output whose elements differ: where each of the first
// ones parts (checks=order-ops), and the note in parentheses.
std::string partingLines(const std::vector<OrderParting> &partings, const std::string &note,
                         const std::function<std::string(const OrderParting &)> &label) {
  std::string out;
  for (const OrderParting &p : partings)
    out += "    " + label(p) + ": " + p.text + "\n";
  if (!note.empty())
    out += "    (" + note + ")\n";
  return out;
}

OrderedJson partingsJson(const std::vector<OrderParting> &partings) {
  OrderedJson list = OrderedJson::array();
  for (const OrderParting &p : partings) {
    OrderedJson j = OrderedJson::object();
    j["element"] = p.element;
    j["element_b"] = p.element_b;
    j["explained"] = p.explained;
    j["missing"] = p.missing;
    j["common_ops"] = p.common_ops;
    j["common"] = p.common;
    j["a"] = p.a;
    j["b"] = p.b;
    j["a_site"] = p.a_site;
    j["b_site"] = p.b_site;
    j["text"] = p.text;
    list.push_back(std::move(j));
  }
  return list;
}

OrderedJson bitsJson(const OrderBits &b) {
  if (!b.compared && b.problem.empty())
    return nullptr;
  OrderedJson j = OrderedJson::object();
  j["compared"] = b.compared;
  j["elements"] = b.elements;
  j["differing"] = b.differing;
  j["first"] = b.first;
  j["problem"] = b.problem;
  return j;
}

OrderedJson optionalJson(const std::optional<KernelOrderInfo> &k) {
  return k ? detail::toJson(*k) : OrderedJson();
}
OrderedJson optionalJson(const std::optional<OrderSummary> &s) {
  return s ? detail::toJson(*s) : OrderedJson();
}

// The lines that open a launch pair's block: the two launches, how their
// configurations differ, and the kernel's static findings.
template <typename LaunchDiff> std::string pairHeading(const LaunchDiff &d) {
  return launchName("A", d.a) + " vs " + launchName("B", d.b) + ":\n" + configText(d.a, d.b) +
         findingsText(d.findings);
}

// The lines that close a document: its notes and its verdict.
std::string notesAndVerdict(const std::vector<std::string> &notes, const std::string &verdict) {
  std::string out;
  for (const std::string &note : notes)
    out += "note: " + note + "\n";
  return out + verdict + "\n";
}

// The members a JSON document opens with, up to A and B.
template <typename Result>
OrderedJson documentHead(const Result &r, const char *mode, const char *verdict,
                         const std::string &summary) {
  OrderedJson doc = OrderedJson::object();
  doc["format"] = "kosan-diff";
  doc["version"] = 1;
  doc["mode"] = mode;
  doc["verdict"] = verdict;
  doc["exit_status"] = static_cast<int>(r.verdict);
  doc["error"] = r.error;
  doc["summary"] = summary;
  doc["a"] = {{"path", r.a_path}, {"header", detail::toJson(r.a_header)}};
  doc["b"] = {{"path", r.b_path}, {"header", detail::toJson(r.b_header)}};
  return doc;
}

//===----------------------------------------------------------------------===//
// --order
//===----------------------------------------------------------------------===//

std::string storeText(const OrderStoreDiff &s) {
  std::string out = "  " + s.name + " (" + dtypeName(s.dtype) + ", " +
                    plural(s.elements_a, "element", "elements") + " stored): ";
  if (!s.problem.empty() && s.compared == 0)
    return out + "not compared: " + s.problem + "\n";
  std::vector<std::string> parts;
  if (!s.problem.empty())
    parts.push_back(s.problem);
  if (s.differing > 0)
    parts.push_back("fingerprints differ at " + std::to_string(s.differing) + "/" +
                    plural(s.compared, "element", "elements") + " (" +
                    elementList(s.first_differing, s.differing) + ")");
  if (s.only_a > 0)
    parts.push_back(plural(s.only_a, "element", "elements") + " stored in A only (" +
                    elementList(s.first_only_a, s.only_a) + ")");
  if (s.only_b > 0)
    parts.push_back(plural(s.only_b, "element", "elements") + " stored in B only (" +
                    elementList(s.first_only_b, s.only_b) + ")");
  if (parts.empty())
    parts.push_back("same fingerprints at all " + plural(s.compared, "element", "elements"));
  out += partsLine(parts);
  out += partingLines(s.partings, s.parting_note, [&](const OrderParting &p) {
    return s.name + "[" + std::to_string(p.element) + "]";
  });
  if (s.incomplete)
    out += "    store records of this launch were dropped: a fingerprint may be an "
           "earlier store's, and only the bits count\n";
  return out + bitsLine(s.bits, s.differing > 0, "element", false);
}

std::string contributor(const AtomicContribution &c) {
  return "block " + std::to_string(c.block) + " thread " + std::to_string(c.thread);
}

std::string atomicText(const OrderAtomicDiff &t) {
  uint64_t total = std::max(t.contributions_a, t.contributions_b);
  std::string out = "  " + t.name + " (" + dtypeName(t.dtype) + ", " +
                    std::to_string(total) + " " + (t.op.empty() ? "" : t.op + " ") +
                    (total == 1 ? "atomic" : "atomics") + " at " +
                    plural(std::max(t.locations + t.only_a, t.locations + t.only_b),
                           "location", "locations") +
                    "): ";
  if (!t.problem.empty() && t.locations == 0)
    return out + "not compared: " + t.problem + "\n";
  std::vector<std::string> parts;
  if (!t.problem.empty())
    parts.push_back(t.problem);
  if (t.reordered > 0)
    parts.push_back(std::to_string(t.reordered) + "/" +
                    plural(t.locations, "location", "locations") +
                    (t.reordered == 1 ? " had its" : " had their") +
                    " atomics land in a different order");
  if (t.other_contributions > 0)
    parts.push_back(plural(t.other_contributions, "location", "locations") +
                    " received other contributions (" +
                    elementList(t.first_other, t.other_contributions) + ")");
  if (t.order_matters && t.fp_differing > 0)
    parts.push_back("fingerprints differ at " +
                    plural(t.fp_differing, "location", "locations"));
  if (t.only_a > 0)
    parts.push_back(plural(t.only_a, "location", "locations") + " hit in A only (" +
                    elementList(t.first_only_a, t.only_a) + ")");
  if (t.only_b > 0)
    parts.push_back(plural(t.only_b, "location", "locations") + " hit in B only (" +
                    elementList(t.first_only_b, t.only_b) + ")");
  if (parts.empty())
    parts.push_back("the same contributions in the same order at all " +
                    plural(t.locations, "location", "locations"));
  if (!t.order_matters)
    parts.push_back(t.op + ": the result does not depend on the order they land in");
  out += partsLine(parts);
  for (const AtomicDivergence &v : t.divergences)
    out += "    " + t.name + "[" + std::to_string(v.element) + "]: " +
           plural(v.contributions, "atomic contribution", "atomic contributions") +
           " landed in a different order; first divergence at position " +
           std::to_string(v.position) + " (A: " + contributor(v.a) + ", B: " +
           contributor(v.b) + ")\n";
  if (t.reordered > t.divergences.size())
    out += "    ... and " + std::to_string(t.reordered - t.divergences.size()) +
           " more reordered locations\n";
  if (t.reordered > 0 && (!t.exact_a || !t.exact_b))
    out += std::string("    the landing order of ") +
           (!t.exact_a && !t.exact_b ? "both runs" : !t.exact_a ? "A" : "B") +
           " is the order the log received the atomics, not reconstructed exactly\n";
  if (t.order_dependent > 0) {
    out += "    " + plural(t.order_dependent, "location depends", "locations depend") +
           " on the order atomics land in";
    if (t.dependent_alike == t.order_dependent)
      out += std::string(" (both runs happened to land ") +
             (t.order_dependent == 1 ? "it" : "them") + " alike)";
    else if (t.dependent_alike > 0)
      out += " (both runs happened to land " + std::to_string(t.dependent_alike) +
             " of them alike)";
    out += ": " + elementList(t.first_dependent, t.order_dependent) + "\n";
  }
  if (t.incomplete)
    out += "    atomic records of this launch were dropped: contributions may be "
           "missing, and only the order dependence of those recorded and the bits "
           "count\n";
  bool fingerprintsDiffer = t.order_matters ? t.fp_differing > 0 : false;
  return out + bitsLine(t.bits, fingerprintsDiffer || t.reordered > 0, "element", false);
}

struct OrderCounts {
  uint64_t outputs = 0, nondeterministic = 0, elements = 0, locations = 0, dependent = 0;
};

OrderCounts countOrder(const OrderDiffResult &r) {
  OrderCounts c;
  for (const OrderLaunchDiff &d : r.launches) {
    for (const OrderStoreDiff &s : d.stores) {
      ++c.outputs;
      c.nondeterministic += !s.deterministic;
      c.elements += s.compared;
    }
    for (const OrderAtomicDiff &t : d.atomics) {
      ++c.outputs;
      c.nondeterministic += !t.deterministic;
      c.locations += t.locations;
      c.dependent += t.order_dependent;
    }
  }
  return c;
}

const char *orderVerdictName(OrderVerdict v) {
  switch (v) {
  case OrderVerdict::Deterministic:
    return "deterministic";
  case OrderVerdict::Nondeterministic:
    return "nondeterministic";
  case OrderVerdict::Trouble:
    return "trouble";
  }
  return "trouble";
}

OrderedJson contributionJson(const AtomicContribution &c) {
  OrderedJson j = OrderedJson::object();
  j["block"] = c.block;
  j["thread"] = c.thread;
  j["fp"] = detail::hexFingerprint(c.fp);
  j["value_bits"] = detail::hexFingerprint(c.value_bits);
  return j;
}

//===----------------------------------------------------------------------===//
// --batch-invariance
//===----------------------------------------------------------------------===//

struct BatchCounts {
  uint64_t outputs = 0, rows = 0, variantRows = 0, elements = 0, variant = 0, bitsRows = 0;
};

BatchCounts countBatch(const BatchDiffResult &r) {
  BatchCounts c;
  for (const BatchLaunchDiff &d : r.launches)
    for (const BatchOutputDiff &o : d.outputs) {
      ++c.outputs;
      for (const BatchRowDiff &row : o.rows) {
        ++c.rows;
        c.variantRows += !row.invariant;
        c.elements += row.compared;
        c.variant += row.variant;
        c.bitsRows += row.bits.differing > 0;
      }
    }
  return c;
}

const char *batchVerdictName(BatchVerdict v) {
  switch (v) {
  case BatchVerdict::Invariant:
    return "invariant";
  case BatchVerdict::BatchVariant:
    return "batch-variant";
  case BatchVerdict::Trouble:
    return "trouble";
  }
  return "trouble";
}

std::string rowText(const BatchOutputDiff &o, const BatchRowDiff &row, uint64_t n) {
  std::string out = "  " + o.name + " row " + std::to_string(row.row_a) + " of A vs row " +
                    std::to_string(row.row_b) + " of B: ";
  std::vector<std::string> parts;
  if (row.variant > 0)
    parts.push_back(std::to_string(row.variant) + "/" +
                    plural(row.compared, "element", "elements") +
                    " batch-variant (columns " +
                    columnList(row.first_variant, row.variant) + "; first: A [" +
                    std::to_string(row.row_a * n + row.first_variant[0]) + "], B [" +
                    std::to_string(row.row_b * n + row.first_variant[0]) + "])");
  if (row.only_a > 0)
    parts.push_back(plural(row.only_a, "column", "columns") + " written in A only");
  if (row.only_b > 0)
    parts.push_back(plural(row.only_b, "column", "columns") + " written in B only");
  if (parts.empty())
    parts.push_back("invariant (same fingerprints at all " +
                    plural(row.compared, "element", "elements") + ")");
  out += partsLine(parts);
  out += partingLines(row.partings, row.parting_note, [&](const OrderParting &p) {
    return "column " + std::to_string(p.element - row.row_a * n);
  });
  if (row.incomplete)
    out += "    order records of this launch were dropped: only the bits count\n";
  return out + bitsLine(row.bits, row.variant > 0, "column", true);
}

} // namespace

std::string formatOrderDiffVerdict(const OrderDiffResult &r) {
  if (r.verdict == OrderVerdict::Trouble)
    return "kosan-diff: TROUBLE: " + r.error;
  OrderCounts c = countOrder(r);
  std::string pairs = plural(r.launches.size(), "launch pair", "launch pairs");
  if (r.verdict == OrderVerdict::Deterministic)
    return "kosan-diff: DETERMINISTIC: " + plural(c.outputs, "output", "outputs") + " of " +
           pairs + (c.outputs == 1 ? " comes" : " come") + " out the same from run to run (" +
           plural(c.elements, "stored element", "stored elements") + ", " +
           plural(c.locations, "atomic location", "atomic locations") + " compared)";
  std::string out = "kosan-diff: NONDETERMINISTIC: " + std::to_string(c.nondeterministic) +
                    " of " + plural(c.outputs, "output", "outputs") + " in " + pairs +
                    " can differ from run to run";
  if (c.dependent > 0)
    out += "; " + plural(c.dependent, "atomic location depends", "atomic locations depend") +
           " on the order atomics land in";
  return out;
}

std::string formatOrderDiffText(const OrderDiffResult &r) {
  std::string out;
  for (const OrderLaunchDiff &d : r.launches) {
    out += pairHeading(d);
    for (const OrderAtomicDiff &t : d.atomics)
      out += atomicText(t);
    for (const OrderStoreDiff &s : d.stores)
      out += storeText(s);
    if (d.stores.empty() && d.atomics.empty())
      out += "  no floating-point stores or float atomics recorded\n";
  }
  return out + notesAndVerdict(r.notes, formatOrderDiffVerdict(r));
}

std::string formatOrderDiffJson(const OrderDiffResult &r) {
  OrderedJson doc =
      documentHead(r, "order", orderVerdictName(r.verdict), formatOrderDiffVerdict(r));
  doc["launches"] = OrderedJson::array();
  for (const OrderLaunchDiff &d : r.launches) {
    OrderedJson l = OrderedJson::object();
    l["a"] = detail::toJson(d.a);
    l["b"] = detail::toJson(d.b);
    l["deterministic"] = d.deterministic;
    l["findings"] = optionalJson(d.findings);
    l["summary_a"] = optionalJson(d.summary_a);
    l["summary_b"] = optionalJson(d.summary_b);
    l["stores"] = OrderedJson::array();
    for (const OrderStoreDiff &s : d.stores) {
      OrderedJson j = OrderedJson::object();
      j["arg"] = s.arg;
      j["name"] = s.name;
      j["dtype"] = dtypeName(s.dtype);
      j["sites"] = s.sites;
      j["deterministic"] = s.deterministic;
      j["incomplete"] = s.incomplete;
      j["problem"] = s.problem;
      j["elements_a"] = s.elements_a;
      j["elements_b"] = s.elements_b;
      j["compared"] = s.compared;
      j["differing"] = s.differing;
      j["only_a"] = s.only_a;
      j["only_b"] = s.only_b;
      j["first_differing"] = s.first_differing;
      j["first_only_a"] = s.first_only_a;
      j["first_only_b"] = s.first_only_b;
      j["partings"] = partingsJson(s.partings);
      j["parting_note"] = s.parting_note;
      j["bits"] = bitsJson(s.bits);
      l["stores"].push_back(std::move(j));
    }
    l["atomics"] = OrderedJson::array();
    for (const OrderAtomicDiff &t : d.atomics) {
      OrderedJson j = OrderedJson::object();
      j["arg"] = t.arg;
      j["name"] = t.name;
      j["dtype"] = dtypeName(t.dtype);
      j["op"] = t.op;
      j["sites"] = t.sites;
      j["deterministic"] = t.deterministic;
      j["incomplete"] = t.incomplete;
      j["problem"] = t.problem;
      j["order_matters"] = t.order_matters;
      j["exact_a"] = t.exact_a;
      j["exact_b"] = t.exact_b;
      j["locations"] = t.locations;
      j["contributions_a"] = t.contributions_a;
      j["contributions_b"] = t.contributions_b;
      j["reordered"] = t.reordered;
      j["other_contributions"] = t.other_contributions;
      j["fp_differing"] = t.fp_differing;
      j["order_dependent"] = t.order_dependent;
      j["dependent_alike"] = t.dependent_alike;
      j["only_a"] = t.only_a;
      j["only_b"] = t.only_b;
      j["divergences"] = OrderedJson::array();
      for (const AtomicDivergence &v : t.divergences)
        j["divergences"].push_back({{"element", v.element},
                                    {"contributions", v.contributions},
                                    {"position", v.position},
                                    {"a", contributionJson(v.a)},
                                    {"b", contributionJson(v.b)}});
      j["first_other"] = t.first_other;
      j["first_dependent"] = t.first_dependent;
      j["first_only_a"] = t.first_only_a;
      j["first_only_b"] = t.first_only_b;
      j["bits"] = bitsJson(t.bits);
      l["atomics"].push_back(std::move(j));
    }
    doc["launches"].push_back(std::move(l));
  }
  doc["notes"] = r.notes;
  return detail::dumpJson(doc, 2) + "\n";
}

std::string formatBatchDiffVerdict(const BatchDiffResult &r) {
  if (r.verdict == BatchVerdict::Trouble)
    return "kosan-diff: TROUBLE: " + r.error;
  BatchCounts c = countBatch(r);
  std::string where = plural(c.outputs, "output", "outputs") + " of " +
                      plural(r.launches.size(), "launch pair", "launch pairs");
  if (r.verdict == BatchVerdict::Invariant)
    return "kosan-diff: INVARIANT: " + plural(c.rows, "row pair", "row pairs") + " in " +
           where + " have the same fingerprints (" +
           plural(c.elements, "element", "elements") + " compared)";
  std::string out = "kosan-diff: BATCH-VARIANT: " + std::to_string(c.variantRows) + " of " +
                    plural(c.rows, "row pair differs", "row pairs differ") + " in " + where +
                    " (" + plural(c.variant, "batch-variant element", "batch-variant elements");
  if (c.bitsRows > 0)
    out += "; bits differ in " + plural(c.bitsRows, "row pair", "row pairs");
  return out + ")";
}

std::string formatBatchDiffText(const BatchDiffResult &r) {
  std::string out;
  for (const BatchLaunchDiff &d : r.launches) {
    out += pairHeading(d);
    for (const BatchOutputDiff &o : d.outputs) {
      if (!o.problem.empty()) {
        out += "  " + o.name + ": not compared: " + o.problem + "\n";
        continue;
      }
      for (const BatchRowDiff &row : o.rows)
        out += rowText(o, row, r.row_length);
    }
    for (const std::string &reason : d.reasons)
      out += "  why: " + reason + "\n";
  }
  return out + notesAndVerdict(r.notes, formatBatchDiffVerdict(r));
}

std::string formatBatchDiffJson(const BatchDiffResult &r) {
  OrderedJson doc = documentHead(r, "batch-invariance", batchVerdictName(r.verdict),
                                 formatBatchDiffVerdict(r));
  doc["row_length"] = r.row_length;
  doc["rows"] = OrderedJson::array();
  for (const RowPair &p : r.rows)
    doc["rows"].push_back({{"a", p.a}, {"b", p.b}, {"count", p.count}});
  doc["launches"] = OrderedJson::array();
  for (const BatchLaunchDiff &d : r.launches) {
    OrderedJson l = OrderedJson::object();
    l["a"] = detail::toJson(d.a);
    l["b"] = detail::toJson(d.b);
    l["invariant"] = d.invariant;
    l["findings"] = optionalJson(d.findings);
    l["reasons"] = d.reasons;
    l["outputs"] = OrderedJson::array();
    for (const BatchOutputDiff &o : d.outputs) {
      OrderedJson j = OrderedJson::object();
      j["arg"] = o.arg;
      j["name"] = o.name;
      j["dtype"] = dtypeName(o.dtype);
      j["written_by"] = o.written_by;
      j["invariant"] = o.invariant;
      j["problem"] = o.problem;
      j["rows"] = OrderedJson::array();
      for (const BatchRowDiff &row : o.rows)
        j["rows"].push_back({{"row_a", row.row_a},
                             {"row_b", row.row_b},
                             {"invariant", row.invariant},
                             {"incomplete", row.incomplete},
                             {"compared", row.compared},
                             {"variant", row.variant},
                             {"only_a", row.only_a},
                             {"only_b", row.only_b},
                             {"first_variant", row.first_variant},
                             {"partings", partingsJson(row.partings)},
                             {"parting_note", row.parting_note},
                             {"bits", bitsJson(row.bits)}});
      l["outputs"].push_back(std::move(j));
    }
    doc["launches"].push_back(std::move(l));
  }
  doc["notes"] = r.notes;
  return detail::dumpJson(doc, 2) + "\n";
}

} // namespace kosan
