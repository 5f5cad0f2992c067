//===- kosan-report - Print a kosan trace ----------------------------------===//
//
// Exit status: 0 when the trace was read completely, 1 with --fail-on-error
// when it holds errors, 2 when it could not be read or the flags are wrong.
// A truncated trace (the process died mid-write) still prints every record
// that was complete, then exits 2.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"

#include "common/cli_options.h"
#include "common/cli_output.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace {

constexpr int kExitErrorsFound = 1;
constexpr int kExitFailure = 2;

void printError(const std::string &message) { kosan::cli::printError("kosan-report", message); }

bool writeOutput(const std::string &path, const std::string &text) {
  return kosan::cli::writeOutput("kosan-report", path, text);
}

} // namespace

static int run(int argc, char **argv) {
  CLI::App app{"Prints the out-of-bounds accesses, the precision losses and "
               "the order findings (checks=order) recorded in a kosan trace.",
               "kosan-report"};
  app.set_version_flag("--version", "kosan-report " KOSAN_VERSION_STRING);
  app.failure_message([](const CLI::App *, const CLI::Error &e) {
    return std::string("kosan-report: error: ") + e.what() +
           "\nRun with --help for more information.\n";
  });

  std::string format = "text";
  std::string output;
  std::string tracePath;
  bool failOnError = false;
  kosan::ReportOptions reportOptions;
  app.add_option("--format", format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-o,--output", output, "Write to FILE instead of stdout")
      ->option_text("FILE");
  app.add_flag("--fail-on-error", failOnError,
               "Exit with status 1 when the trace holds errors");
  app.add_option("--min-bits", reportOptions.min_bits,
                 "List only precision sites that lose at least X bits (NaN/Inf "
                 "births are always listed)")
      ->option_text("X")
      ->check(CLI::Validator(
          [](std::string &value) {
            char *end = nullptr;
            double bits = std::strtod(value.c_str(), &end);
            return end != value.c_str() && *end == '\0' && bits >= 0
                       ? std::string()
                       : "expected a number of bits, 0 or more, not '" + value + "'";
          },
          "BITS"));
  app.add_option("--precision-threshold", reportOptions.precision_threshold,
                 "Bits of fp32 at a site's scale a stored value may lose before the "
                 "site is a precision finding (docs/precision.md)")
      ->option_text("BITS")
      ->capture_default_str()
      ->check(kosan::cli::precisionBits());
  app.add_flag("--all-sites", reportOptions.all_precision_sites,
               "List every precision site, not only the findings");
  app.add_option("TRACE", tracePath, "Trace written by an instrumented program")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version exit 0; every usage error exits like any other
    // failure, so scripts need to check a single status.
    return app.exit(e) == 0 ? 0 : kExitFailure;
  }

  kosan::ReadResult result = kosan::readTrace(tracePath);
  bool printable = result.error == kosan::TraceError::None ||
                   result.error == kosan::TraceError::Truncated;
  if (printable) {
    std::string text = format == "json"
                           ? kosan::formatTraceJson(result.trace, reportOptions)
                           : kosan::formatTraceText(result.trace, reportOptions);
    if (!writeOutput(output, text))
      return kExitFailure;
  }
  if (result.error != kosan::TraceError::None) {
    printError(result.message);
    return kExitFailure;
  }
  return failOnError && !result.trace.oob.empty() ? kExitErrorsFound : 0;
}

int main(int argc, char **argv) {
  return kosan::cli::runGuarded("kosan-report", kExitFailure, [&] { return run(argc, argv); });
}
