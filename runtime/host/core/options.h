//===- options.h - Run-time options from KOSAN_OPTIONS ----------*- C++ -*-===//
//
// KOSAN_OPTIONS follows the syntax of ASAN_OPTIONS: name=value pairs
// separated by ':' or whitespace; a value that starts with ' or " runs to the
// matching quote and may contain separators (log_path='/tmp/a:b'). Mistakes
// never stop the program: each one becomes a warning and leaves the flag as
// it was.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_OPTIONS_H
#define KOSAN_RUNTIME_HOST_OPTIONS_H

#include "kosan/precision.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kosan::rt {

// One field per flag of flags.inc, holding its default until parsed.
// parseOptions normalizes two of them: `checks` lists the enabled checks
// (or is "none"), and `log_path` is "" for stderr.
struct Options {
#define KOSAN_FLAG(Type, Name, DefaultValue, Description)                      \
  Type Name = DefaultValue;
#include "core/flags.inc"

  // KOSAN_CHECK_* bits (kosan/abi.h) of the checks `checks` enables.
  uint32_t check_bits() const;
};

struct ParsedOptions {
  Options options;
  // One sentence each, starting with "kosan: warning: ", for stderr.
  std::vector<std::string> warnings;
};

// Parses the value of KOSAN_OPTIONS; nullptr gives the defaults. A repeated
// flag takes its last value.
ParsedOptions parseOptions(const char *text);

// The text help=1 prints: a table of every flag with its type, default and
// description, wrapped to 80 columns.
std::string optionsHelp();

// Every flag with its effective value, in flags.inc order (bools as 0/1), for
// the trace header.
std::vector<std::pair<std::string, std::string>>
optionsAsList(const Options &options);

// The trace file name for `pattern` (the trace flag): every "%p" becomes pid.
std::string expandTracePath(const std::string &pattern, long pid);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_OPTIONS_H
