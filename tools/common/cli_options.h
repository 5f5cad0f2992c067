//===- tools/common/cli_options.h - Options several kosan tools take -------===//
//
// CLI11 pieces shared by kosan-report and kosan-diff.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_CLI_OPTIONS_H
#define KOSAN_TOOLS_CLI_OPTIONS_H

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace kosan::cli {

// --precision-threshold: bits of fp32, 0 to 60.
inline CLI::Validator precisionBits() {
  return CLI::Validator(
      [](std::string &value) {
        char *end = nullptr;
        double bits = std::strtod(value.c_str(), &end);
        return end != value.c_str() && *end == '\0' && bits >= 0 && bits <= 60
                   ? std::string()
                   : "expected a number of bits from 0 to 60, not '" + value + "'";
      },
      "BITS");
}

} // namespace kosan::cli

#endif
