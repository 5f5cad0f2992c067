//===- kosan-clang++/clang_plan.h - A command line as commands to run -----===//
//
// kosan-clang++'s argument handling as two functions: parseCommand reads
// the user's command line (the driver's own options, what it asks of clang,
// and whether kosan refuses it); planBuild turns it into the commands the
// driver would run. Neither runs nor writes anything: what they need from
// the machine (clang, the CUDA toolkit, kosan's files, response files, a
// temporary directory) comes through Environment and FileReader, so that
// the tool and the fuzz target (test/fuzz/clang_args_fuzz.cpp) share every
// line of them. Errors are DriverError's one sentence, returned as text.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_CLANG_PLAN_H
#define KOSAN_TOOLS_CLANG_PLAN_H

#include "common/driver_util.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kosan::clangxx {

// CUDA 13's fatbinary dropped the --image syntax clang 19 uses.
constexpr int ShimCudaMajor = 13;

struct DriverOptions {
  /// The user's arguments for clang, in order, without the driver's own
  /// options and without --cuda-path= (the driver passes its own).
  std::vector<std::string> ClangArgs;
  std::optional<std::string> CudaPath;
  std::string Checks = "oob";
  std::optional<std::string> ChecksGiven; // the user's --kosan-checks=, as written
  bool Plain = false;
  bool PrintCommand = false;
  bool PrintCudaPath = false; // --kosan-print-cuda-path
  bool Help = false;
  bool DeviceLinkOnly = false; // --kosan-dlink
  // --kosan-defer-clones=: each clone compiled at its first checked launch,
  // kept as bitcode ("1", the default) or as PTX made at build time
  // ("ptx"), or with its module ("0"); see DeferredClones.h. The value is
  // the plugin's -fplugin-arg-kosan-defer=.
  std::string DeferClones = "1";
  std::optional<std::string> Mutate;     // --kosan-mutate=ID: build that mutant
  std::optional<std::string> MutateList; // --kosan-mutate-list=FILE
};

/// What the user's command asks clang to do, as far as the driver cares.
struct CommandFacts {
  bool HasInputs = false;
  bool StopsBeforeLink = false;
  bool CompilesCuda = false;
  bool HasGpuArch = false;
  bool HasDebugOption = false;
  bool LinksCudart = false;
  bool DryRun = false; // -###
  bool Rdc = false;    // -fgpu-rdc, the last of it and -fno-gpu-rdc
  bool EmitsText = false; // -S, -E or -emit-llvm: the user reads what clang writes
  /// Why the build cannot be instrumented, if it cannot.
  std::optional<std::string> Refusal;

  bool links() const { return HasInputs && !StopsBeforeLink; }
};

struct ParsedCommand {
  DriverOptions Options;
  CommandFacts Facts;
};

/// \p Args is argv without the program name; \p ReadFile reads @file
/// response files (clang reads them again itself). Error: one line without
/// control characters; empty when Command holds.
struct ParseResult {
  ParsedCommand Command;
  std::string Error;
};
ParseResult parseCommand(const std::vector<std::string> &Args,
                         const kosan::cli::FileReader &ReadFile);

/// What planBuild needs of the machine: where things are and what is there.
struct Environment {
  std::string Clang;    // clang++ of LLVM 19
  std::string CudaRoot; // the toolkit, canonical
  int CudaMajor = 0;
  /// The --cuda-path clang is given: for CUDA 13 the shim, made on first call.
  std::function<std::string()> ClangCudaPath;
  std::string Plugin, Runtime, CompatInclude; // kosan's files
  std::function<bool(const std::string &)> IsFile;
  std::function<bool(const std::string &)> IsDirectory;
  kosan::cli::FileReader ReadFile; // response files
  /// Whether an object or archive holds relocatable device code.
  std::function<bool(const std::string &)> HasRelocatableDeviceCode;
  /// GPU architectures when the command names none (sm_XX, never empty).
  std::function<std::vector<std::string>()> DefaultGpuArchs;
  /// A directory for the intermediate files of a build in steps, made on
  /// first call; it may throw DriverError.
  std::function<std::string()> TemporaryDirectory;
};

/// nvcc's device link, as kosan-clang++ runs it for relocatable device code.
struct DeviceLinkPlan {
  std::vector<std::vector<std::string>> Nvlinks; // one per architecture
  /// nvlink's list of the modules it linked: with "NUM_PRELINKED_OBJECTS 0"
  /// (nothing to link) Fatbinary and Stub are skipped, unless Always.
  std::string RegisterFile;
  std::vector<std::string> Fatbinary;
  std::vector<std::string> Stub; // writes Output
  std::string Output;
  bool Always = false; // --kosan-dlink: nvcc -dlink writes its object anyway
};

/// The commands of one kosan-clang++ call, in order.
struct Plan {
  /// Each source of a build in steps, compiled alone.
  std::vector<std::vector<std::string>> Compiles;
  std::optional<DeviceLinkPlan> DeviceLink;
  /// The last command: clang itself, which the driver becomes when nothing
  /// runs before it, or the link of a build in steps. None for --kosan-dlink.
  std::optional<std::vector<std::string>> Final;
  /// When the device link is skipped, its object is left out of Final.
  bool FinalNeedsDeviceLink = false;
  bool PrintCommands = false; // --kosan-print-command
  /// With --kosan-mutate: the file the plugin names the applied mutant in;
  /// the driver checks after the build that some device module had it.
  std::string MutateReport;
};

struct PlanResult {
  Plan P;
  std::string Error; // one line; empty when P holds
};
PlanResult planBuild(const ParsedCommand &Command, const Environment &Env);

} // namespace kosan::clangxx

#endif // KOSAN_TOOLS_CLANG_PLAN_H
