//===- kosan-diff - Compare a candidate run against a reference ------------===//
//
// kosan-diff [options] REF CAND: both traces written with
// KOSAN_OPTIONS=snapshot=1. Exit status: 0 equivalent within tolerance,
// 1 different, 2 trouble (a trace that cannot be read, launches that cannot
// be matched, wrong flags). The rules are in docs/diff.md.
//
// kosan-diff --order A B: two runs of one program (checks=order); 0
// deterministic, 1 nondeterministic, 2 trouble.
// kosan-diff --batch-invariance --rows SPEC --row-length N A B: a smaller
// batch against a larger one; 0 invariant, 1 batch-variant, 2 trouble.
//
//===----------------------------------------------------------------------===//
#include "kosan/diff.h"

#include "common/cli_options.h"
#include "common/cli_output.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <cstdlib>
#include <string>
#include <tuple>
#include <unistd.h>

namespace {

constexpr int kExitTrouble = 2;
// Comparisons smaller than this finish before progress would be worth it.
constexpr uint64_t kProgressThreshold = 10'000'000;

void printError(const std::string &message) { kosan::cli::printError("kosan-diff", message); }

bool writeOutput(const std::string &path, const std::string &text) {
  return kosan::cli::writeOutput("kosan-diff", path, text);
}

std::optional<double> parseNonNegative(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

std::optional<uint32_t> parseLaunchId(std::string_view s) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

// DTYPE=ATOL[,RTOL]; RTOL left out keeps the dtype's default.
bool parseTolerance(const std::string &spec, kosan::DiffOptions &options,
                    std::string *error) {
  size_t eq = spec.find('=');
  std::optional<kosan::DType> dtype =
      eq == std::string::npos ? std::nullopt : kosan::parseDType(spec.substr(0, eq));
  if (!dtype) {
    *error = "--tolerance " + spec +
             ": expected DTYPE=ATOL[,RTOL] with a dtype such as f32, f16, bf16, "
             "f64, i32";
    return false;
  }
  std::string values = spec.substr(eq + 1);
  size_t comma = values.find(',');
  std::optional<double> atol = parseNonNegative(values.substr(0, comma));
  std::optional<double> rtol =
      comma == std::string::npos
          ? std::optional(kosan::defaultTolerance(*dtype).rtol)
          : parseNonNegative(std::string_view(values).substr(comma + 1));
  if (!atol || !rtol) {
    *error = "--tolerance " + spec +
             ": ATOL and RTOL must be non-negative numbers such as 1e-3";
    return false;
  }
  options.per_dtype[*dtype] = {*atol, *rtol};
  return true;
}

// REF_ID[:CAND_ID]; CAND_ID left out is REF_ID.
bool parseLaunchPair(const std::string &spec, kosan::DiffOptions &options,
                     std::string *error) {
  size_t colon = spec.find(':');
  std::optional<uint32_t> ref = parseLaunchId(std::string_view(spec).substr(0, colon));
  std::optional<uint32_t> cand =
      colon == std::string::npos ? ref
                                 : parseLaunchId(std::string_view(spec).substr(colon + 1));
  if (!ref || !cand) {
    *error = "--launch " + spec +
             ": expected REF_ID[:CAND_ID], launch ids as kosan-report lists them";
    return false;
  }
  options.launches.push_back({*ref, *cand});
  return true;
}

// A row length: 1 or more.
std::optional<uint64_t> parseRowLength(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v == 0)
    return std::nullopt;
  return v;
}

// Writes the document of an --order or --batch-invariance comparison and
// returns the exit status. Text is written also on trouble where launches
// were compared (records the device log dropped), so that what was compared
// shows.
template <typename Result>
int finish(const Result &result, int verdict, bool trouble, const std::string &format,
           bool quiet, const std::string &output, std::string (*text)(const Result &),
           std::string (*json)(const Result &), std::string (*verdictLine)(const Result &)) {
  std::string document;
  if (format == "json")
    document = json(result);
  else if (quiet && !trouble)
    document = verdictLine(result) + "\n";
  else if (!trouble || (!quiet && !result.launches.empty()))
    document = text(result);
  if (!document.empty() && !writeOutput(output, document))
    return kExitTrouble;
  if (trouble) {
    printError(result.error);
    return kExitTrouble;
  }
  return verdict;
}

} // namespace

static int run(int argc, char **argv) {
  CLI::App app{"Compares the output snapshots of a candidate run (CAND) with "
               "those of a reference run (REF). Exit status: 0 equivalent, "
               "1 different, 2 trouble.\n"
               "With --order, compares the order fingerprints of two runs A and B "
               "of one program (KOSAN_OPTIONS=checks=order). Exit status: "
               "0 deterministic, 1 nondeterministic, 2 trouble.\n"
               "With --batch-invariance, compares rows of a run with a smaller "
               "batch (A) with rows of a run with a larger one (B). Exit status: "
               "0 invariant, 1 batch-variant, 2 trouble.",
               "kosan-diff"};
  app.footer("Modes:\n"
             "  kosan-diff [OPTIONS] REF CAND              outputs within tolerance "
             "(KOSAN_OPTIONS=snapshot=1)\n"
             "  kosan-diff --order [OPTIONS] A B           determinism "
             "(KOSAN_OPTIONS=checks=order)\n"
             "  kosan-diff --batch-invariance --rows RA:RB[:COUNT],... --row-length N "
             "[OPTIONS] A B\n"
             "                                             batch invariance "
             "(KOSAN_OPTIONS=checks=order:order_leaves=value)\n"
             "--atol, --rtol and --tolerance apply to the first mode alone; --order "
             "and --batch-invariance print text or json, and where both runs were "
             "built with --kosan-checks=order-ops, say at which operation the "
             "computations of a differing element part.\n"
             "docs/diff.md has the rules.");
  app.set_version_flag("--version", "kosan-diff " KOSAN_VERSION_STRING);
  app.failure_message([](const CLI::App *, const CLI::Error &e) {
    return std::string("kosan-diff: error: ") + e.what() +
           "\nRun with --help for more information.\n";
  });

  std::string format = "text";
  std::string output;
  std::string refPath, candPath;
  std::string atol, rtol;
  std::vector<std::string> tolerances, launches;
  bool quiet = false;
  bool orderMode = false, batchMode = false;
  std::string rowsSpec, rowLength;
  app.add_flag("--order", orderMode,
               "Compare the order fingerprints of two runs A and B of one program: "
               "is it deterministic?");
  app.add_flag("--batch-invariance", batchMode,
               "Compare rows of A (smaller batch) with rows of B (larger batch): "
               "is each row computed the same way in both?");
  app.add_option("--rows", rowsSpec,
                 "With --batch-invariance: rows RA.. of A against rows RB.. of B, "
                 "COUNT rows (default 1), e.g. 0:0,0:5")
      ->option_text("RA:RB[:COUNT],...");
  app.add_option("--row-length", rowLength,
                 "With --batch-invariance: elements per row of the outputs")
      ->option_text("N");
  app.add_option("--format", format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif", "junit"}))
      ->capture_default_str();
  app.add_option("-o,--output", output, "Write to FILE instead of stdout")
      ->option_text("FILE");
  app.add_option("--atol", atol, "Absolute tolerance for every dtype")
      ->option_text("X");
  app.add_option("--rtol", rtol, "Relative tolerance for every dtype")
      ->option_text("X");
  app.add_option("--tolerance", tolerances,
                 "Tolerance of one dtype, e.g. f16=1e-3,1e-3 (repeatable)")
      ->option_text("DTYPE=ATOL[,RTOL]")
      ->take_all()
      ->allow_extra_args(false);
  app.add_option("--launch", launches,
                 "Compare REF launch REF_ID with CAND launch CAND_ID "
                 "(repeatable; default: by kernel name and order)")
      ->option_text("REF_ID[:CAND_ID]")
      ->allow_extra_args(false);
  double precisionThreshold = kosan::prec::kDefaultThreshold;
  app.add_option("--precision-threshold", precisionThreshold,
                 "Bits of fp32 at a site's scale a stored value may lose before it is a "
                 "precision finding (docs/precision.md); CAND's findings that lose more "
                 "than REF at the same output make the pair different")
      ->option_text("BITS")
      ->capture_default_str()
      ->check(kosan::cli::precisionBits());
  app.add_flag("-q,--quiet", quiet, "Print only the verdict line (text format)");
  app.add_option("REF", refPath, "Trace of the reference run (A with --order, "
                                 "--batch-invariance)")->required();
  app.add_option("CAND", candPath, "Trace of the candidate run (B with --order, "
                                   "--batch-invariance)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version exit 0; every usage error exits like any other
    // trouble, so scripts need to check a single status.
    return app.exit(e) == 0 ? 0 : kExitTrouble;
  }

  // The modes and the flags that belong to them.
  if (orderMode && batchMode) {
    printError("--order and --batch-invariance are two different comparisons; "
               "give one of them");
    return kExitTrouble;
  }
  if (!batchMode && (!rowsSpec.empty() || !rowLength.empty())) {
    printError(std::string(!rowsSpec.empty() ? "--rows" : "--row-length") +
               " belongs to --batch-invariance; add --batch-invariance to compare rows");
    return kExitTrouble;
  }
  if (orderMode || batchMode) {
    const char *mode = orderMode ? "--order" : "--batch-invariance";
    for (auto [flag, given] : {std::pair{"--atol", !atol.empty()},
                               std::pair{"--rtol", !rtol.empty()},
                               std::pair{"--tolerance", !tolerances.empty()}})
      if (given) {
        printError(std::string(flag) + " sets a tolerance for comparing output "
                   "values; " + mode + " compares fingerprints and takes no tolerance");
        return kExitTrouble;
      }
    if (format == "sarif" || format == "junit") {
      printError("--format " + format + " is not available with " + mode +
                 "; use --format text or --format json");
      return kExitTrouble;
    }
  }

  if (orderMode || batchMode) {
    std::string error;
    kosan::DiffOptions pairs;
    for (const std::string &spec : launches)
      if (!parseLaunchPair(spec, pairs, &error)) {
        printError(error);
        return kExitTrouble;
      }
    if (orderMode) {
      kosan::OrderDiffOptions options;
      options.launches = pairs.launches;
      kosan::OrderDiffResult result = kosan::diffOrder(refPath, candPath, options);
      return finish(result, static_cast<int>(result.verdict),
                    result.verdict == kosan::OrderVerdict::Trouble, format, quiet, output,
                    &kosan::formatOrderDiffText, &kosan::formatOrderDiffJson,
                    &kosan::formatOrderDiffVerdict);
    }
    if (rowsSpec.empty() || rowLength.empty()) {
      printError("--batch-invariance needs --rows RA:RB[:COUNT],... and --row-length N "
                 "(the elements in a row of the output)");
      return kExitTrouble;
    }
    kosan::BatchDiffOptions options;
    options.launches = pairs.launches;
    std::optional<std::vector<kosan::RowPair>> rows = kosan::parseRowPairs(rowsSpec, &error);
    if (!rows) {
      printError(error);
      return kExitTrouble;
    }
    options.rows = *rows;
    std::optional<uint64_t> length = parseRowLength(rowLength);
    if (!length) {
      printError("--row-length " + rowLength +
                 ": expected the number of elements in a row of the output, 1 or more");
      return kExitTrouble;
    }
    options.row_length = *length;
    kosan::BatchDiffResult result = kosan::diffBatchInvariance(refPath, candPath, options);
    return finish(result, static_cast<int>(result.verdict),
                  result.verdict == kosan::BatchVerdict::Trouble, format, quiet, output,
                  &kosan::formatBatchDiffText, &kosan::formatBatchDiffJson,
                  &kosan::formatBatchDiffVerdict);
  }

  kosan::DiffOptions options;
  options.precision_threshold = precisionThreshold;
  for (auto [flag, text, value] : {std::tuple{"--atol", &atol, &options.atol},
                                   std::tuple{"--rtol", &rtol, &options.rtol}}) {
    if (text->empty())
      continue;
    *value = parseNonNegative(*text);
    if (!*value) {
      printError(std::string(flag) + " " + *text +
                 ": expected a non-negative number such as 1e-3");
      return kExitTrouble;
    }
  }
  std::string error;
  for (const std::string &spec : tolerances)
    if (!parseTolerance(spec, options, &error)) {
      printError(error);
      return kExitTrouble;
    }
  for (const std::string &spec : launches)
    if (!parseLaunchPair(spec, options, &error)) {
      printError(error);
      return kExitTrouble;
    }

  bool showProgress = isatty(STDERR_FILENO);
  if (showProgress)
    options.progress = [](uint64_t done, uint64_t total) {
      if (total < kProgressThreshold)
        return;
      std::fprintf(stderr, "\rkosan-diff: compared %3d%% (%llu of %llu elements)",
                   int(done * 100 / total), (unsigned long long)done,
                   (unsigned long long)total);
      if (done == total)
        std::fputs("\r\033[K", stderr);
      std::fflush(stderr);
    };

  kosan::DiffResult result = kosan::diffTraces(refPath, candPath, options);

  std::string text;
  if (format == "json")
    text = kosan::formatDiffJson(result);
  else if (format == "sarif")
    text = kosan::formatDiffSarif(result);
  else if (format == "junit")
    text = kosan::formatDiffJunit(result);
  else if (result.verdict != kosan::Verdict::Trouble)
    text = quiet ? kosan::formatDiffVerdict(result) + "\n"
                 : kosan::formatDiffText(result);

  // Trouble is on stderr in every format; the documents still say it, so
  // that CI sees an error rather than a missing file.
  if (!text.empty() && !writeOutput(output, text))
    return kExitTrouble;
  if (result.verdict == kosan::Verdict::Trouble) {
    printError(result.error);
    return kExitTrouble;
  }
  return static_cast<int>(result.verdict);
}

int main(int argc, char **argv) {
  return kosan::cli::runGuarded("kosan-diff", kExitTrouble, [&] { return run(argc, argv); });
}
