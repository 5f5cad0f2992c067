//===- options.cpp - Run-time options from KOSAN_OPTIONS ------------------===//
//
// The parser mirrors the sanitizers' FlagParser so that what works in
// ASAN_OPTIONS works here, but where a sanitizer dies on a malformed flag,
// kosan warns and goes on: a typo in an environment variable must not take a
// long GPU job down.
//
//===----------------------------------------------------------------------===//
#include "core/options.h"

#include "kosan/abi.h"
#include "kosan/checks.h"
#include "kosan/printable.h"

#include <algorithm>
#include <limits>
#include <cctype>
#include <bit>
#include <charconv>
#include <string_view>
#include <tuple>

namespace kosan::rt {
namespace {

constexpr std::string_view kWarning = "kosan: warning: KOSAN_OPTIONS: ";

// ',' is not a separator, unlike in the sanitizers: it separates the items of
// checks=oob,precision.
bool isSeparator(char c) {
  return c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Each parseValue leaves *out alone when the text is not a valid value.
bool parseValue(std::string_view text, bool *out) {
  if (text == "1" || text == "true" || text == "yes")
    *out = true;
  else if (text == "0" || text == "false" || text == "no")
    *out = false;
  else
    return false;
  return true;
}

bool parseValue(std::string_view text, int *out) {
  int value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end)
    return false;
  *out = value;
  return true;
}

bool parseValue(std::string_view text, std::string *out) {
  out->assign(text);
  return true;
}

std::string formatValue(bool value) { return value ? "1" : "0"; }
std::string formatValue(int value) { return std::to_string(value); }
std::string formatValue(const std::string &value) { return value; }

const char *typeName(const bool *) { return "bool"; }
const char *typeName(const int *) { return "int"; }
const char *typeName(const std::string *) { return "string"; }

using kosan::CheckName;
using kosan::kAllChecks;
using kosan::kCheckNames;

std::string_view trim(std::string_view s) {
  size_t begin = s.find_first_not_of(" \t\n\r");
  if (begin == std::string_view::npos)
    return {};
  return s.substr(begin, s.find_last_not_of(" \t\n\r") - begin + 1);
}

// Unknown names are skipped, and appended to *unknown when it is given.
uint32_t parseCheckList(std::string_view list,
                        std::vector<std::string_view> *unknown) {
  uint32_t bits = 0;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view()
                                           : list.substr(comma + 1);
    // Names are case-insensitive: checks=OOB means oob, not "no check".
    auto same = [&](std::string_view name) {
      return item.size() == name.size() &&
             std::equal(item.begin(), item.end(), name.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
             });
    };
    if (item.empty() || same("none"))
      continue;
    if (same("all")) {
      bits |= kAllChecks;
      continue;
    }
    auto known = std::find_if(std::begin(kCheckNames), std::end(kCheckNames),
                              [&](const CheckName &c) { return c.runtime && same(c.name); });
    if (known != std::end(kCheckNames))
      bits |= known->bits;
    else if (unknown)
      unknown->push_back(item);
  }
  return bits;
}

std::string checkListOf(uint32_t bits) {
  std::string list;
  for (const CheckName &check : kCheckNames) {
    if (!check.runtime || !(bits & check.bits))
      continue;
    if (!list.empty())
      list += ',';
    list += check.name;
  }
  return list.empty() ? "none" : list;
}

void setFlag(Options &options, std::string_view name, std::string_view value,
             std::vector<std::string> &warnings) {
#define KOSAN_FLAG(Type, Name, DefaultValue, Description)                      \
  if (name == #Name) {                                                         \
    if (!parseValue(value, &options.Name))                                     \
      warnings.push_back(                                                      \
          std::string(kWarning) + "invalid value '" + std::string(value) +     \
          "' for " + typeName(&options.Name) +                                 \
          " option '" #Name "'; keeping " + formatValue(options.Name));        \
    return;                                                                    \
  }
#include "core/flags.inc"
  warnings.push_back("kosan: warning: unknown option '" + std::string(name) +
                     "' in KOSAN_OPTIONS (see KOSAN_OPTIONS=help=1)");
}

// Checks that a value of the right type can still get wrong, once all flags
// are read so that each mistake is reported once, with its final value.
void validate(Options &options, std::vector<std::string> &warnings) {
  const Options defaults;
  auto warn = [&](const std::string &text) {
    warnings.push_back(std::string(kWarning) + text);
  };
  // An int option outside [lo, hi] warns ("<name>=<value> <why>; using
  // <default>") and takes its default.
  auto keepWithin = [&](const char *name, int &value, int lo, int hi, int fallback,
                        const char *why) {
    if (value >= lo && value <= hi)
      return;
    warn(std::string(name) + "=" + formatValue(value) + " " + why + "; using " +
         formatValue(fallback));
    value = fallback;
  };
  constexpr int kAny = std::numeric_limits<int>::max();

  std::vector<std::string_view> unknown;
  uint32_t bits = parseCheckList(options.checks, &unknown);
  for (std::string_view name : unknown)
    warn("unknown check '" + std::string(name) + "' in checks (valid: " +
         kosan::checkNameList(true) + "); ignored");
  // A list of nothing but mistakes does not turn checking off: only "none"
  // (or an empty list) does.
  if (!unknown.empty() && bits == 0) {
    bits = parseCheckList(defaults.checks, nullptr);
    warn("no valid check in checks=" + options.checks + "; using the default, " +
         checkListOf(bits));
  }
  options.checks = checkListOf(bits);
  if (options.order_leaves != "position" && options.order_leaves != "value") {
    warn("order_leaves=" + options.order_leaves +
         " is neither position nor value; using position");
    options.order_leaves = "position";
  }
  // Records are 16, 40 and 32 bytes: 64 Mi of each is 5.5 GiB of device memory.
  constexpr int kMaxOrderRecords = 1 << 26;
  // order_stores=0: no store records at all (only float atomics, as
  // without a trace).
  keepWithin("order_stores", options.order_stores, 0, kMaxOrderRecords, defaults.order_stores,
             "is not from 0 to 67108864");
  for (auto [name, value, fallback] :
       {std::tuple{"order_atomics", &options.order_atomics, defaults.order_atomics},
        std::tuple{"order_ops", &options.order_ops, defaults.order_ops}}) {
    keepWithin(name, *value, 1, kMaxOrderRecords, fallback, "is not from 1 to 67108864");
  }

  keepWithin("order_shadow_mb", options.order_shadow_mb, 0, 1 << 20, defaults.order_shadow_mb,
             "is not from 0 to 1048576");

  if (options.log_path == "stdout")
    warn("log_path=stdout is not supported: reports never go to stdout, "
         "where they would mix with the program's output; using stderr");
  if (options.log_path == "stdout" || options.log_path == "stderr")
    options.log_path.clear();

  keepWithin("snapshot_threads", options.snapshot_threads, 0, 1024, defaults.snapshot_threads,
             "is not 0 to 1024");
  keepWithin("snapshot_staging_mb", options.snapshot_staging_mb, 0, 65536,
             defaults.snapshot_staging_mb, "is not 0 to 65536");
  keepWithin("snapshot_writes", options.snapshot_writes, 0, 3, defaults.snapshot_writes,
             "is not 0, 1, 2 or 3");
  keepWithin("snapshot_max_mb", options.snapshot_max_mb, 0, kAny, defaults.snapshot_max_mb,
             "is negative");
  keepWithin("stop_after", options.stop_after, 0, kAny, defaults.stop_after, "is negative");
  keepWithin("quarantine_mb", options.quarantine_mb, 0, 1 << 20, defaults.quarantine_mb,
             "is not from 0 to 1048576");
  keepWithin("ptx_cache_mb", options.ptx_cache_mb, 0, 1 << 20, defaults.ptx_cache_mb,
             "is not from 0 to 1048576");
  keepWithin("print_limit", options.print_limit, 0, kAny, defaults.print_limit, "is negative");
  keepWithin("error_exitcode", options.error_exitcode, 0, 255, defaults.error_exitcode,
             "is not an exit status (0 to 255)");

  int threshold = std::clamp(options.precision_threshold, 0, 60);
  if (threshold != options.precision_threshold) {
    warn("precision_threshold=" + formatValue(options.precision_threshold) +
         " is not from 0 to 60; using " + formatValue(threshold));
    options.precision_threshold = threshold;
  }

  // kosan_prec_slot is 192 bytes: 64 Ki sites are 805 MB of device memory.
  constexpr int kMaxPrecisionSites = 1 << 16;
  int sites = std::clamp(options.precision_sites, 1, kMaxPrecisionSites);
  if (sites != options.precision_sites) {
    warn("precision_sites=" + formatValue(options.precision_sites) +
         " is not from 1 to 65536; using " + formatValue(sites));
    options.precision_sites = sites;
  }

  // kosan_device_state::slot_capacity must be a power of two.
  constexpr int kMinCapacity = 64, kMaxCapacity = 1 << 20;
  int capacity = std::clamp(options.log_capacity, kMinCapacity, kMaxCapacity);
  capacity = static_cast<int>(std::bit_ceil(static_cast<unsigned>(capacity)));
  if (capacity != options.log_capacity) {
    warn("log_capacity=" + formatValue(options.log_capacity) +
         " is not a power of two from 64 to 1048576; using " +
         formatValue(capacity));
    options.log_capacity = capacity;
  }
}

} // namespace

uint32_t Options::check_bits() const { return parseCheckList(checks, nullptr); }

ParsedOptions parseOptions(const char *text) {
  ParsedOptions result;
  std::vector<std::string> &warnings = result.warnings;
  std::string_view s = text ? text : "";
  size_t pos = 0;
  auto skipToSeparator = [&] {
    while (pos < s.size() && !isSeparator(s[pos]))
      ++pos;
  };

  while (true) {
    while (pos < s.size() && isSeparator(s[pos]))
      ++pos;
    if (pos == s.size())
      break;

    size_t start = pos;
    while (pos < s.size() && s[pos] != '=' && !isSeparator(s[pos]))
      ++pos;
    std::string_view name = s.substr(start, pos - start);
    if (pos == s.size() || s[pos] != '=') {
      warnings.push_back(std::string(kWarning) + "expected name=value, got '" +
                         std::string(name) + "'; ignored");
      continue;
    }
    ++pos;

    std::string_view value;
    if (pos < s.size() && (s[pos] == '\'' || s[pos] == '"')) {
      size_t close = s.find(s[pos], pos + 1);
      if (close == std::string_view::npos) {
        warnings.push_back(std::string(kWarning) +
                           "unterminated quote in the value of '" +
                           std::string(name) + "'; ignored");
        break;
      }
      value = s.substr(pos + 1, close - pos - 1);
      pos = close + 1;
      if (pos < s.size() && !isSeparator(s[pos])) {
        warnings.push_back(
            std::string(kWarning) +
            "expected ':' or a space after the quoted value of '" +
            std::string(name) + "'; ignored");
        skipToSeparator();
        continue;
      }
    } else {
      size_t valueStart = pos;
      skipToSeparator();
      value = s.substr(valueStart, pos - valueStart);
    }

    if (name.empty()) {
      warnings.push_back(std::string(kWarning) + "missing option name in '" +
                         std::string(s.substr(start, pos - start)) +
                         "'; ignored");
      continue;
    }
    setFlag(result.options, name, value, warnings);
  }

  validate(result.options, warnings);
  // A warning is one line, whatever the text it quotes holds.
  for (std::string &w : warnings)
    w = kosan::printable(w);
  return result;
}

std::string optionsHelp() {
  struct Row {
    std::string name, type, value, description;
  };
  const Options defaults;
  std::vector<Row> rows = {{"name", "type", "default", "description"}};
#define KOSAN_FLAG(Type, Name, DefaultValue, Description)                      \
  rows.push_back({#Name, typeName(&defaults.Name), formatValue(defaults.Name), \
                  Description});
#include "core/flags.inc"
  for (Row &row : rows)
    if (row.value.empty())
      row.value = "\"\"";

  size_t nameWidth = 0, typeWidth = 0, valueWidth = 0;
  for (const Row &row : rows) {
    nameWidth = std::max(nameWidth, row.name.size());
    typeWidth = std::max(typeWidth, row.type.size());
    valueWidth = std::max(valueWidth, row.value.size());
  }
  constexpr size_t kLineWidth = 80, kGap = 2;
  const size_t indent =
      kGap + nameWidth + kGap + typeWidth + kGap + valueWidth + kGap;
  // Keeps descriptions readable even if a long default pushes the column far.
  const size_t textWidth =
      std::max<size_t>(kLineWidth - std::min(indent, kLineWidth), 30);

  std::string out = "Set kosan options with "
                    "KOSAN_OPTIONS=name=value:name=value; quote values\n"
                    "that contain ':' or spaces (log_path='/tmp/a:b').\n";
  auto pad = [](std::string s, size_t width) {
    s.resize(width, ' ');
    return s;
  };
  for (const Row &row : rows) {
    std::string line =
        std::string(kGap, ' ') + pad(row.name, nameWidth + kGap) +
        pad(row.type, typeWidth + kGap) + pad(row.value, valueWidth + kGap);
    appendWrapped(out, std::move(line), row.description, indent, textWidth);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>>
optionsAsList(const Options &options) {
  std::vector<std::pair<std::string, std::string>> list;
#define KOSAN_FLAG(Type, Name, DefaultValue, Description)                      \
  list.emplace_back(#Name, formatValue(options.Name));
#include "core/flags.inc"
  return list;
}

std::string expandTracePath(const std::string &pattern, long pid) {
  const std::string pidText = std::to_string(pid);
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      path += pidText;
      ++i;
    } else {
      path += pattern[i];
    }
  }
  return path;
}

} // namespace kosan::rt
