//===- report_format.cpp - ASan-style reports and trace summaries ---------===//
//
// The report text follows AddressSanitizer's layout (a ===== rule, an
// ==PID==ERROR: line, indented detail lines, a SUMMARY: line) so that tools
// and people that already read ASan output read kosan's too.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"
#include "trace_json.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

namespace kosan {

namespace {

using detail::hexAddress;

std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string bytes(uint64_t n) { return plural(n, "byte", "bytes"); }

std::string dim(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

// file:line:column, leaving out the parts the debug info did not have.
std::string fileLocation(const SourceLoc &s) {
  std::string out = s.file;
  if (s.line != 0) {
    out += ":" + std::to_string(s.line);
    if (s.column != 0)
      out += ":" + std::to_string(s.column);
  }
  return out;
}

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

  std::string buffer =
      (endKnown ? "the " + std::to_string(e.buffer_end - e.buffer_begin) +
                      "-byte buffer"
                : std::string("the buffer")) +
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
  if (!e.allocated_at.empty())
    out += "    " +
           (e.buffer_name.empty() ? "the buffer" : "'" + e.buffer_name + "'") +
           " was allocated at " + e.allocated_at + "\n";
  out += formatOobSummary(e) + "\n";
  return out;
}

std::string formatTraceText(const Trace &trace) {
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

std::string formatTraceJson(const Trace &trace) {
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
  doc["snapshots"] = detail::OrderedJson::array();
  for (const SnapshotRecord &s : trace.snapshots)
    doc["snapshots"].push_back(detail::toJson(s));
  doc["end"] = trace.end ? detail::toJson(*trace.end) : detail::OrderedJson();
  doc["warnings"] = trace.warnings;
  return detail::dumpJson(doc, 2) + "\n";
}

} // namespace kosan
