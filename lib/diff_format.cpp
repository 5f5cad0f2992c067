//===- diff_format.cpp - kosan-diff's text, JSON, SARIF and JUnit output ---===//
//
// Text is for people; JSON has every field (docs/diff.md); SARIF 2.1.0 puts
// differences into code-scanning UIs at the stores that wrote them; JUnit
// puts one test case per output into CI dashboards.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"
#include "kosan/precision_verdict.h"
#include "trace_json.h"
#include "text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kosan {

namespace {

using detail::OrderedJson;

using detail::plural;

// Three significant digits, exponents without padding: 0.021, 2.1e-5, 4.2e+9.
std::string shortNumber(double v) { return detail::significantDigits(v, 3); }

// An element value as the dtype holds it: the shortest text that reads back
// to the same value.
std::string elementText(double v, DType t) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r =
      t == DType::F32 ? std::to_chars(buf, buf + sizeof buf, float(v))
                      : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string percent(double share) {
  if (share == 0)
    return "0%";
  if (share < 1e-4)
    return "<0.01%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", share * 100);
  return buf;
}

// The element's index, and for a shape of two or more dimensions its
// coordinates: "[i=1234]" or "[3,17,2] (i=1234)".
std::string elementIndex(uint64_t index, const std::vector<int64_t> &shape) {
  std::string flat = "i=" + std::to_string(index);
  if (shape.size() < 2)
    return "[" + flat + "]";
  std::vector<uint64_t> coords(shape.size());
  uint64_t rest = index;
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t extent = shape[d] > 0 ? uint64_t(shape[d]) : 1;
    coords[d] = rest % extent;
    rest /= extent;
  }
  std::string out = "[";
  for (size_t d = 0; d < coords.size(); ++d)
    out += (d ? "," : "") + std::to_string(coords[d]);
  return out + "] (" + flat + ")";
}

std::string launchName(const char *role, const LaunchRecord &l) {
  std::string out = std::string(role) + " #" + std::to_string(l.id);
  if (!l.kernel.empty())
    out += " " + l.kernel;
  return out;
}

std::string pairName(const LaunchDiff &d) {
  return launchName("REF", d.ref) + " vs " + launchName("CAND", d.cand);
}

std::string outputHeading(const OutputDiff &o) {
  return o.name + " (" + dtypeName(o.dtype) + ", " +
         plural(o.count, "element", "elements") + ")";
}

// What differs in one output, in one line without the heading.
std::string outputFindings(const OutputDiff &o) {
  if (!o.problem.empty())
    return "not compared: " + o.problem;
  const ElementStats &s = o.stats;
  std::string out;
  if (o.equivalent) {
    out = "equivalent (atol " + shortNumber(o.tolerance.atol) + ", rtol " +
          shortNumber(o.tolerance.rtol) + ")";
  } else {
    out = std::to_string(s.over_tolerance) + " over tolerance (" +
          percent(s.share_over()) + ")";
    if (s.nan_mismatch)
      out += ", " + plural(s.nan_mismatch, "NaN mismatch", "NaN mismatches");
    if (s.inf_mismatch)
      out += ", " + plural(s.inf_mismatch, "Inf mismatch", "Inf mismatches");
    if (s.unwritten_cand)
      out += ", " + std::to_string(s.unwritten_cand) + " left unwritten by CAND";
  }
  out += ", max abs " + shortNumber(s.max_abs);
  if (dtypeIsFloat(o.dtype))
    out += ", max rel " + shortNumber(s.max_rel) + ", max " +
           std::to_string(s.max_ulp) + " ULP";
  if (s.unwritten_ref)
    out += "; " + std::to_string(s.unwritten_ref) +
           " unwritten by REF, not compared";
  if (!o.equivalent && s.compared > 0)
    out += "; worst " + elementIndex(s.worst_index, o.shape) + ": ref " +
           elementText(s.worst_ref, o.dtype) + " cand " +
           elementText(s.worst_cand, o.dtype);
  if (!o.equivalent && !o.store_sites.empty()) {
    out += "; CAND stores to it at ";
    for (size_t i = 0; i < o.store_sites.size(); ++i)
      out += (i ? ", " : "") + o.store_sites[i];
  }
  return out;
}

std::string inputFindings(const ModifiedInput &m) {
  std::string out = "input " + m.name + " (argument " + std::to_string(m.arg) +
                    "): CAND writes it, REF only reads it; " +
                    (m.changed ? "its contents changed"
                               : "its contents are unchanged");
  if (!m.store_sites.empty()) {
    out += "; CAND stores to it at ";
    for (size_t i = 0; i < m.store_sites.size(); ++i)
      out += (i ? ", " : "") + m.store_sites[i];
  }
  return out;
}

struct Counts {
  size_t outputs = 0, differing = 0, modified = 0, candOob = 0, precision = 0;
};

Counts countFindings(const DiffResult &r) {
  Counts c;
  for (const LaunchDiff &d : r.launches) {
    c.outputs += d.outputs.size();
    for (const OutputDiff &o : d.outputs)
      c.differing += !o.equivalent;
    c.modified += d.modified_inputs.size();
    c.candOob += d.cand_oob.size();
    c.precision += d.precision_beyond.size();
  }
  c.candOob += r.other_cand_oob.size();
  return c;
}

// CAND's worst precision sites of a pair whose outputs differ: the likely
// explanation of a numeric difference. None when the outputs match.
std::vector<const PrecisionRecord *> precisionToExplain(const LaunchDiff &d) {
  std::vector<const PrecisionRecord *> out;
  bool differs = std::any_of(d.outputs.begin(), d.outputs.end(),
                             [](const OutputDiff &o) { return !o.equivalent; });
  if (!differs)
    return out;
  for (const PrecisionRecord &p : d.cand_precision) {
    if (out.size() == kDiffPrecisionSites)
      break;
    out.push_back(&p);
  }
  return out;
}

std::string precisionLine(const PrecisionRecord &p) {
  return "CAND precision: " + formatPrecisionLine(p);
}

std::string precisionBeyondLine(const PrecisionBeyondRef &b) {
  char bits[32];
  std::snprintf(bits, sizeof bits, "%.1f", b.ref_bits);
  std::string ref = b.cand.kind == "nonfinite" ? std::string("REF: no NaN/Inf born")
                    : b.cand.kind == "narrow" && !b.cand.to_shared
                        ? std::string("REF: no narrowing overflowed")
                        : (b.output.empty() ? std::string("REF's worst site: ")
                                            : "REF at " + b.output + ": ") +
                              bits + " bits of fp32";
  return "CAND loses more precision than REF (" + ref + "): " + formatPrecisionLine(b.cand);
}

std::string oobLine(const OobEvent &e, const char *role) {
  return formatOobSummary(e) + " (" + role + " launch #" +
         std::to_string(e.launch) + ", " + e.access + " of size " +
         std::to_string(e.size) + ", " + plural(e.count, "time", "times") + ")";
}

} // namespace

std::string formatDiffVerdict(const DiffResult &r) {
  if (r.verdict == Verdict::Trouble)
    return "kosan-diff: TROUBLE: " + r.error;
  Counts c = countFindings(r);
  if (r.verdict == Verdict::Equivalent)
    return "kosan-diff: EQUIVALENT: " +
           plural(c.outputs, "output", "outputs") + " within tolerance in " +
           plural(r.launches.size(), "launch pair", "launch pairs") + " (" +
           plural(r.elements_compared, "element", "elements") + " compared)";
  std::string out = "kosan-diff: DIFFERENT: " + std::to_string(c.differing) +
                    " of " + plural(c.outputs, "output differs", "outputs differ");
  if (c.outputs == 1 && c.differing == 1)
    out = "kosan-diff: DIFFERENT: 1 of 1 output differs";
  if (c.modified)
    out += "; CAND writes " + plural(c.modified, "input", "inputs") +
           " REF only reads";
  if (c.candOob)
    out += "; CAND made " +
           plural(c.candOob, "out-of-bounds access site", "out-of-bounds access sites") +
           " fire";
  if (c.precision)
    out += "; CAND loses more precision than REF at " +
           plural(c.precision, "site", "sites");
  return out;
}

std::string formatDiffText(const DiffResult &r) {
  std::string out;
  if (r.verdict != Verdict::Trouble) {
    for (const LaunchDiff &d : r.launches) {
      out += pairName(d) + ":\n";
      for (const OutputDiff &o : d.outputs)
        out += "  " + outputHeading(o) + ": " + outputFindings(o) + "\n";
      for (const ModifiedInput &m : d.modified_inputs)
        out += "  " + inputFindings(m) + "\n";
      for (const OobEvent &e : d.cand_oob)
        out += "  " + oobLine(e, "CAND") + "\n";
      for (const OobEvent &e : d.ref_oob)
        out += "  " + oobLine(e, "REF") + "\n";
      for (const PrecisionBeyondRef &b : d.precision_beyond)
        out += "  " + precisionBeyondLine(b) + "\n";
      for (const PrecisionRecord *p : precisionToExplain(d))
        out += "  " + precisionLine(*p) + "\n";
    }
    if (!r.other_cand_oob.empty()) {
      out += "CAND launches not compared:\n";
      for (const OobEvent &e : r.other_cand_oob)
        out += "  " + oobLine(e, "CAND") + "\n";
    }
  }
  for (const std::string &note : r.notes)
    out += "note: " + note + "\n";
  return out + formatDiffVerdict(r) + "\n";
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

const char *verdictName(Verdict v) {
  switch (v) {
  case Verdict::Equivalent:
    return "equivalent";
  case Verdict::Different:
    return "different";
  case Verdict::Trouble:
    return "trouble";
  }
  return "trouble";
}

// JSON has no NaN or Inf: those are strings.
OrderedJson number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

OrderedJson statsJson(const ElementStats &s) {
  OrderedJson j = OrderedJson::object();
  j["compared"] = s.compared;
  j["over_tolerance"] = s.over_tolerance;
  j["share_over"] = s.share_over();
  j["nan_mismatch"] = s.nan_mismatch;
  j["inf_mismatch"] = s.inf_mismatch;
  j["unwritten_ref"] = s.unwritten_ref;
  j["unwritten_cand"] = s.unwritten_cand;
  j["max_abs"] = number(s.max_abs);
  j["mean_abs"] = number(s.mean_abs);
  j["max_rel"] = number(s.max_rel);
  j["max_ulp"] = s.max_ulp;
  j["worst"] = {{"index", s.worst_index},
                {"ref", number(s.worst_ref)},
                {"cand", number(s.worst_cand)}};
  return j;
}

OrderedJson oobArray(const std::vector<OobEvent> &events) {
  OrderedJson a = OrderedJson::array();
  for (const OobEvent &e : events)
    a.push_back(detail::toJson(e));
  return a;
}

OrderedJson precisionArray(const std::vector<PrecisionRecord> &sites) {
  OrderedJson a = OrderedJson::array();
  for (const PrecisionRecord &p : sites)
    a.push_back(detail::toJson(p));
  return a;
}

} // namespace

std::string formatDiffJson(const DiffResult &r) {
  OrderedJson doc = OrderedJson::object();
  doc["format"] = "kosan-diff";
  doc["version"] = 1;
  doc["verdict"] = verdictName(r.verdict);
  doc["exit_status"] = static_cast<int>(r.verdict);
  doc["error"] = r.error;
  doc["summary"] = formatDiffVerdict(r);
  doc["ref"] = {{"path", r.ref_path}, {"header", detail::toJson(r.ref_header)}};
  doc["cand"] = {{"path", r.cand_path}, {"header", detail::toJson(r.cand_header)}};
  doc["elements_compared"] = r.elements_compared;
  doc["launches"] = OrderedJson::array();
  for (const LaunchDiff &d : r.launches) {
    OrderedJson l = OrderedJson::object();
    l["ref"] = detail::toJson(d.ref);
    l["cand"] = detail::toJson(d.cand);
    l["equivalent"] = d.equivalent;
    l["outputs"] = OrderedJson::array();
    for (const OutputDiff &o : d.outputs) {
      OrderedJson j = OrderedJson::object();
      j["arg"] = o.arg;
      j["name"] = o.name;
      j["dtype"] = dtypeName(o.dtype);
      j["count"] = o.count;
      j["shape"] = o.shape;
      j["tolerance"] = {{"atol", o.tolerance.atol}, {"rtol", o.tolerance.rtol}};
      j["equivalent"] = o.equivalent;
      j["problem"] = o.problem;
      j["stats"] = statsJson(o.stats);
      j["store_sites"] = o.store_sites;
      l["outputs"].push_back(std::move(j));
    }
    l["modified_inputs"] = OrderedJson::array();
    for (const ModifiedInput &m : d.modified_inputs)
      l["modified_inputs"].push_back({{"arg", m.arg},
                                      {"name", m.name},
                                      {"changed", m.changed},
                                      {"store_sites", m.store_sites}});
    l["ref_oob"] = oobArray(d.ref_oob);
    l["cand_oob"] = oobArray(d.cand_oob);
    l["precision"] = {{"ref", precisionArray(d.ref_precision)},
                      {"cand", precisionArray(d.cand_precision)}};
    l["precision_beyond_ref"] = OrderedJson::array();
    for (const PrecisionBeyondRef &b : d.precision_beyond) {
      OrderedJson j = detail::toJson(b.cand);
      j["ref_bits"] = detail::doubleJson(b.ref_bits);
      j["output"] = b.output;
      l["precision_beyond_ref"].push_back(std::move(j));
    }
    doc["launches"].push_back(std::move(l));
  }
  doc["other_ref_oob"] = oobArray(r.other_ref_oob);
  doc["other_cand_oob"] = oobArray(r.other_cand_oob);
  doc["notes"] = r.notes;
  return detail::dumpJson(doc, 2) + "\n";
}

//===----------------------------------------------------------------------===//
// SARIF 2.1.0
//===----------------------------------------------------------------------===//

namespace {

struct Rule {
  const char *id, *name, *description;
};
constexpr Rule kRules[] = {
    {"KOSAN-OUTPUT-MISMATCH", "OutputMismatch",
     "An output of the candidate differs from the reference's beyond the "
     "tolerance, or cannot be compared with it."},
    {"KOSAN-UNWRITTEN-OUTPUT", "UnwrittenOutput",
     "The candidate left elements of an output unwritten that the reference "
     "wrote."},
    {"KOSAN-MODIFIED-INPUT", "ModifiedInput",
     "The candidate writes an argument that the reference only reads."},
    {"KOSAN-OOB", "OutOfBounds",
     "A kernel accessed memory outside the buffer its pointer was derived "
     "from."},
    {"KOSAN-PRECISION", "PrecisionLoss",
     "A site of the candidate computes values that stray from the same "
     "computation in fp64, or turns finite values into NaN or Inf, in a "
     "launch whose outputs differ from the reference's."},
};


OrderedJson physicalLocation(const std::string &file, uint64_t line,
                             uint64_t column) {
  std::string uri = file;
  if (!uri.empty() && uri[0] == '/')
    uri = "file://" + uri;
  OrderedJson region = OrderedJson::object();
  region["startLine"] = line;
  if (column > 0)
    region["startColumn"] = column;
  OrderedJson loc = OrderedJson::object();
  loc["physicalLocation"] = {{"artifactLocation", {{"uri", uri}}},
                             {"region", region}};
  return loc;
}

// "file:line:col" or "file:line" (a file name may hold ':' itself).
std::optional<OrderedJson> siteLocation(const std::string &site) {
  // Peels a trailing ":<number>" off `rest`.
  auto peel = [](std::string_view &rest, uint64_t &out) {
    size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == rest.size())
      return false;
    std::string_view digits = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    if (ec != std::errc() || end != digits.data() + digits.size())
      return false;
    rest = rest.substr(0, colon);
    return true;
  };
  std::string_view rest = site;
  uint64_t last = 0, line = 0, column = 0;
  if (!peel(rest, last))
    return std::nullopt;
  if (peel(rest, line)) {
    column = last;
  } else {
    line = last;
  }
  if (rest.empty() || line == 0)
    return std::nullopt;
  return physicalLocation(std::string(rest), line, column);
}

OrderedJson sarifResult(const char *ruleId, const char *level,
                        const std::string &message,
                        const std::vector<std::string> &sites) {
  OrderedJson res = OrderedJson::object();
  res["ruleId"] = ruleId;
  size_t index = 0;
  for (size_t i = 0; i < std::size(kRules); ++i)
    if (std::string_view(kRules[i].id) == ruleId)
      index = i;
  res["ruleIndex"] = index;
  res["level"] = level;
  res["message"] = {{"text", message}};
  OrderedJson locations = OrderedJson::array();
  for (const std::string &site : sites)
    if (std::optional<OrderedJson> loc = siteLocation(site))
      locations.push_back(*loc);
  if (!locations.empty())
    res["locations"] = std::move(locations);
  return res;
}

OrderedJson oobResult(const OobEvent &e, const char *role, const char *level) {
  std::string message = std::string(role) + " launch #" + std::to_string(e.launch) +
                        ": " + e.kind + ": " + e.access + " of size " +
                        std::to_string(e.size) + " in " + e.site.function +
                        " (" + plural(e.count, "time", "times") + ")";
  OrderedJson res = sarifResult("KOSAN-OOB", level, message, {});
  if (!e.site.file.empty() && e.site.line > 0)
    res["locations"] = OrderedJson::array(
        {physicalLocation(e.site.file, e.site.line, e.site.column)});
  return res;
}

} // namespace

std::string formatDiffSarif(const DiffResult &r) {
  OrderedJson rules = OrderedJson::array();
  for (const Rule &rule : kRules)
    rules.push_back({{"id", rule.id},
                     {"name", rule.name},
                     {"shortDescription", {{"text", rule.description}}}});
  OrderedJson driver = OrderedJson::object();
  driver["name"] = "kosan-diff";
  driver["rules"] = std::move(rules);

  OrderedJson results = OrderedJson::array();
  for (const LaunchDiff &d : r.launches) {
    std::string where = pairName(d) + ": ";
    for (const OutputDiff &o : d.outputs) {
      if (o.equivalent)
        continue;
      bool mismatch = !o.problem.empty() || o.stats.over_tolerance > 0;
      if (mismatch)
        results.push_back(sarifResult("KOSAN-OUTPUT-MISMATCH", "error",
                                      where + "output " + outputHeading(o) +
                                          ": " + outputFindings(o),
                                      o.store_sites));
      if (o.stats.unwritten_cand > 0)
        results.push_back(sarifResult(
            "KOSAN-UNWRITTEN-OUTPUT", "error",
            where + "output " + outputHeading(o) + ": " +
                plural(o.stats.unwritten_cand, "element", "elements") +
                " that REF wrote are left unwritten by CAND",
            o.store_sites));
    }
    for (const ModifiedInput &m : d.modified_inputs)
      results.push_back(sarifResult("KOSAN-MODIFIED-INPUT",
                                    m.changed ? "error" : "warning",
                                    where + inputFindings(m), m.store_sites));
    for (const OobEvent &e : d.cand_oob)
      results.push_back(oobResult(e, "CAND", "error"));
    for (const OobEvent &e : d.ref_oob)
      results.push_back(oobResult(e, "REF", "note"));
    for (const PrecisionBeyondRef &b : d.precision_beyond) {
      OrderedJson res = sarifResult("KOSAN-PRECISION", "error", where + precisionBeyondLine(b), {});
      if (!b.cand.site.file.empty() && b.cand.site.line > 0)
        res["locations"] = OrderedJson::array(
            {physicalLocation(b.cand.site.file, b.cand.site.line, b.cand.site.column)});
      results.push_back(std::move(res));
    }
    for (const PrecisionRecord *p : precisionToExplain(d)) {
      OrderedJson res = sarifResult(
          "KOSAN-PRECISION",
          isPrecisionFinding(*p, r.precision_threshold) ? "warning" : "note",
          where + formatPrecisionLine(*p), {});
      if (!p->site.file.empty() && p->site.line > 0)
        res["locations"] = OrderedJson::array(
            {physicalLocation(p->site.file, p->site.line, p->site.column)});
      results.push_back(std::move(res));
    }
  }
  for (const OobEvent &e : r.other_cand_oob)
    results.push_back(oobResult(e, "CAND", "error"));
  for (const OobEvent &e : r.other_ref_oob)
    results.push_back(oobResult(e, "REF", "note"));

  OrderedJson invocation = OrderedJson::object();
  invocation["executionSuccessful"] = r.verdict != Verdict::Trouble;
  invocation["exitCode"] = static_cast<int>(r.verdict);
  OrderedJson notifications = OrderedJson::array();
  if (r.verdict == Verdict::Trouble)
    notifications.push_back({{"level", "error"}, {"message", {{"text", r.error}}}});
  for (const std::string &note : r.notes)
    notifications.push_back({{"level", "note"}, {"message", {{"text", note}}}});
  invocation["toolExecutionNotifications"] = std::move(notifications);

  OrderedJson run = OrderedJson::object();
  run["tool"] = {{"driver", std::move(driver)}};
  run["invocations"] = OrderedJson::array({std::move(invocation)});
  run["results"] = std::move(results);

  OrderedJson doc = OrderedJson::object();
  doc["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  doc["version"] = "2.1.0";
  doc["runs"] = OrderedJson::array({std::move(run)});
  return detail::dumpJson(doc, 2) + "\n";
}

//===----------------------------------------------------------------------===//
// JUnit XML
//===----------------------------------------------------------------------===//

namespace {

std::string xmlEscape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    case '\n': out += "&#10;"; break;
    default:
      // XML 1.0 allows no other control characters.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
        out += "?";
      else
        out += c;
    }
  }
  return out;
}

struct TestCase {
  std::string classname, name;
  std::string failure; // "" passed
  std::string details;
};

} // namespace

std::string formatDiffJunit(const DiffResult &r) {
  std::vector<TestCase> cases;
  for (const LaunchDiff &d : r.launches) {
    std::string classname = pairName(d);
    std::string precision;
    for (const PrecisionRecord *p : precisionToExplain(d))
      precision += "\n" + precisionLine(*p);
    for (const OutputDiff &o : d.outputs)
      cases.push_back({classname, "output " + o.name,
                       o.equivalent ? "" : outputFindings(o),
                       outputHeading(o) + ": " + outputFindings(o) +
                           (o.equivalent ? "" : precision)});
    for (const ModifiedInput &m : d.modified_inputs)
      cases.push_back({classname, "input " + m.name + " not written",
                       inputFindings(m), inputFindings(m)});
    std::string oob;
    for (const OobEvent &e : d.cand_oob)
      oob += oobLine(e, "CAND") + "\n";
    cases.push_back({classname, "no out-of-bounds accesses",
                     d.cand_oob.empty()
                         ? ""
                         : "CAND made " +
                               plural(d.cand_oob.size(), "out-of-bounds access site",
                                      "out-of-bounds access sites") +
                               " fire",
                     oob});
    std::string beyond;
    for (const PrecisionBeyondRef &b : d.precision_beyond)
      beyond += precisionBeyondLine(b) + "\n";
    cases.push_back({classname, "no precision loss beyond REF",
                     d.precision_beyond.empty()
                         ? ""
                         : "CAND loses more precision than REF at " +
                               plural(d.precision_beyond.size(), "site", "sites"),
                     beyond});
  }
  if (!r.other_cand_oob.empty()) {
    std::string oob;
    for (const OobEvent &e : r.other_cand_oob)
      oob += oobLine(e, "CAND") + "\n";
    cases.push_back({"CAND launches not compared", "no out-of-bounds accesses",
                     "CAND made " +
                         plural(r.other_cand_oob.size(), "out-of-bounds access site",
                                "out-of-bounds access sites") +
                         " fire",
                     oob});
  }

  size_t failures = 0;
  for (const TestCase &c : cases)
    failures += !c.failure.empty();
  size_t errors = r.verdict == Verdict::Trouble ? 1 : 0;
  size_t tests = cases.size() + errors;
  std::string counts = " tests=\"" + std::to_string(tests) + "\" failures=\"" +
                       std::to_string(failures) + "\" errors=\"" +
                       std::to_string(errors) + "\"";

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"kosan-diff\"" + counts + ">\n";
  out += "  <testsuite name=\"kosan-diff\"" + counts + ">\n";
  if (errors)
    out += "    <testcase classname=\"kosan-diff\" name=\"compare " +
           xmlEscape(r.ref_path) + " with " + xmlEscape(r.cand_path) +
           "\">\n      <error message=\"" + xmlEscape(r.error) + "\"/>\n" +
           "    </testcase>\n";
  for (const TestCase &c : cases) {
    out += "    <testcase classname=\"" + xmlEscape(c.classname) + "\" name=\"" +
           xmlEscape(c.name) + "\"";
    if (c.failure.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n      <failure message=\"" + xmlEscape(c.failure) + "\">" +
           xmlEscape(c.details) + "</failure>\n    </testcase>\n";
  }
  std::string notes;
  for (const std::string &note : r.notes)
    notes += "note: " + note + "\n";
  if (!notes.empty())
    out += "    <system-out>" + xmlEscape(notes) + "</system-out>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace kosan
