//===- kosan-nvcc/nvcc_plan.h - An nvcc command line as commands to run ---===//
//
// The whole of kosan-nvcc's argument handling as one function: an nvcc
// command line in, the commands kosan-nvcc would run out (or the one
// sentence that refuses it). It runs nothing and writes nothing: what it
// needs from the machine (files, directories, a temporary directory) comes
// through Environment, so that the tool and the fuzz target
// (test/fuzz/nvcc_args_fuzz.cpp) share every line of it.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_NVCC_PLAN_H
#define KOSAN_TOOLS_NVCC_PLAN_H

#include "common/driver_util.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kosan::nvcc {

/// What the translation may ask of the machine.
struct Environment {
  /// The kosan-clang++ to run.
  std::string KosanClang;
  /// $CUDA_PATH, else $CUDA_HOME (unset or empty: nothing).
  std::optional<std::string> CudaPathVariable;
  /// Response files (@file, --options-file).
  kosan::cli::FileReader ReadFile;
  std::function<bool(const std::string &)> IsDirectory;
  /// A directory for the objects of host sources at a link, made on first
  /// call; it may throw DriverError.
  std::function<std::string()> TemporaryDirectory;
};

/// What one kosan-nvcc call does, in order: the host compiler once per C or
/// C++ source, then kosan-clang++ unless only host sources were compiled.
struct Plan {
  bool PrintHelp = false;    // --help: nothing else is planned
  bool PrintVersion = false; // --version: nothing else is planned
  /// The CUDA toolkit's folder (--cuda-path=, the variables, /usr/local/cuda)
  /// if it is one.
  std::optional<std::string> CudaRoot;

  std::vector<std::vector<std::string>> HostCompiles;
  std::optional<std::vector<std::string>> KosanCommand;
  std::vector<std::string> TemporaryObjects; // the host objects of a link
  /// Notes for stderr ("kosan-nvcc: note: ..."), one line each.
  std::vector<std::string> Notes;
  /// -o's file, as the commands name it.
  std::optional<std::string> Output;

  bool DryRun = false;       // --dryrun: print, run nothing
  bool Verbose = false;      // -v
  bool ClangDryRun = false;  // -###: clang prints and runs nothing
  bool PrintCommands = false; // --kosan-print-command
};

/// The plan for \p Args (argv without the program name), or Error: one line,
/// without control characters, saying what is wrong with the command line.
struct PlanResult {
  Plan P;
  std::string Error; // empty: P holds
};

PlanResult planCommand(const std::vector<std::string> &Args, const Environment &Env);

/// The OPTIONS section of --help: one line per row of the option table.
std::string optionsHelp();

} // namespace kosan::nvcc

#endif // KOSAN_TOOLS_NVCC_PLAN_H
