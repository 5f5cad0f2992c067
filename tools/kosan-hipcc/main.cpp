//===- kosan-hipcc/main.cpp - Build HIP programs with kosan ---------------===//
//
// hipcc's command line over clang 19 with kosan. For AMD GPUs (the default,
// HIP_PLATFORM=amd) it runs clang++ of LLVM 19 as hipcc runs ROCm's clang:
// sources (.hip, .cpp, .cc, .cxx, .cu) compiled as HIP (-x hip), for
// gfx90a unless an --offload-arch is given, against the HIP headers and
// ROCm device libraries of --rocm-path (default: /usr, Debian's
// libamdhip64-dev and rocm-device-libs), with the kosan plugin and its
// checks, and a link with libamdhip64 (kosan's runtime is loaded by the
// loader the plugin links into instrumented objects). For NVIDIA GPUs
// (HIP_PLATFORM=nvidia or --kosan-hip-platform=nvidia) it runs the
// kosan-clang++ beside it on the same command line with the sources
// compiled as CUDA through kosan's HIP-on-CUDA header, kosan_hip_nvidia.h.
//
// Errors of the driver itself are one line, "kosan-hipcc: error: ...", and
// exit status 1; otherwise the driver replaces itself with what it runs
// (execv), so the exit status is clang's. Nothing of what it builds for AMD
// GPUs has run on one: see docs/driver.md.
//
//===----------------------------------------------------------------------===//

#include "common/driver_util.h"

#include "kosan/checks.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace kosan::cli;

namespace {

constexpr const char *ToolName = "kosan-hipcc";
constexpr const char *DefaultClang = "/usr/lib/llvm-19/bin/clang++";
constexpr const char *DefaultRocmPath = "/usr";
constexpr const char *DefaultOffloadArch = "gfx90a";
// The architectures kosan's device runtime is built for (wave64).
constexpr std::string_view KnownArchs[] = {"gfx90a", "gfx942"};
constexpr const char *NvidiaHeader = "kosan_hip_nvidia.h";

[[noreturn]] void fatal(const std::string &Message) {
  std::fprintf(stderr, "%s: error: %s\n", ToolName, Message.c_str());
  std::exit(1);
}

// %1$s: the checks of "all"; %2$s: every check with what it finds.
const char *Usage =
    "usage: kosan-hipcc [kosan options] <hipcc/clang arguments>\n"
    "\n"
    "Builds HIP programs with kosan's checks: for AMD GPUs with clang 19 (default\n"
    "--offload-arch=gfx90a; gfx90a and gfx942), or for NVIDIA GPUs through\n"
    "kosan-clang++ (HIP_PLATFORM=nvidia).\n"
    "\n"
    "kosan options:\n"
    "  --kosan-checks=LIST         the checks to instrument, comma-separated (default:\n"
    "                              oob; all: %1$s; none):\n"
    "%2$s"
    "  --kosan-plain               build without checks\n"
    "  --kosan-hip-platform=amd|nvidia\n"
    "                              the GPU platform (default: $HIP_PLATFORM, else amd)\n"
    "  --kosan-print-command       print the command run, on stderr\n"
    "  --kosan-help                this help\n"
    "\n"
    "Execution on AMD GPUs has not been verified.\n";

enum class Platform { Amd, Nvidia };

Platform parsePlatform(std::string_view Value, std::string_view From) {
  if (Value == "amd" || Value == "hcc")
    return Platform::Amd;
  if (Value == "nvidia" || Value == "nvcc")
    return Platform::Nvidia;
  fatal("unknown HIP platform '" + std::string(Value) + "' in " + std::string(From) +
        " (known: amd, nvidia)");
}

bool isSourceFile(std::string_view Path) {
  std::string Ext = fs::path(Path).extension().string();
  return Ext == ".hip" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".cu" ||
         Ext == ".c++" || Ext == ".C";
}

struct Command {
  std::vector<std::string> Args; // the user's, without kosan-hipcc's own options
  std::string Checks = "oob";
  std::optional<std::string> ChecksGiven;
  bool Plain = false;
  bool Print = false;
  std::optional<Platform> PlatformGiven;
  // What the arguments ask.
  bool HasSources = false, StopsBeforeLink = false, DryRun = false, HasArch = false,
       HasRocmPath = false, HasDeviceLibPath = false, HasDebug = false;
  bool HasInputs = false;
};

Command parse(int argc, char **argv) {
  Command C;
  for (int I = 1; I < argc; ++I) {
    std::string_view Arg = argv[I];
    if (startsWith(Arg, "--kosan-checks=")) {
      C.Checks = std::string(Arg.substr(std::strlen("--kosan-checks=")));
      C.ChecksGiven = std::string(Arg);
    } else if (Arg == "--kosan-plain") {
      C.Plain = true;
    } else if (Arg == "--kosan-print-command") {
      C.Print = true;
    } else if (startsWith(Arg, "--kosan-hip-platform=")) {
      C.PlatformGiven = parsePlatform(Arg.substr(std::strlen("--kosan-hip-platform=")),
                                      "--kosan-hip-platform=");
    } else if (Arg == "--kosan-help" || Arg == "--help") {
      std::printf(Usage, kosan::checkNamesInProse(true).c_str(),
                  kosan::checkHelp(30, 80).c_str());
      std::exit(0);
    } else if (startsWith(Arg, "--kosan-")) {
      fatal("unknown option '" + std::string(Arg) + "' (see --kosan-help)");
    } else {
      C.Args.emplace_back(Arg);
    }
  }
  for (const std::string &Check : split(C.Checks, ',')) {
    bool Known = Check == "all" || Check == "none" ||
                 std::any_of(std::begin(kosan::kCheckNames), std::end(kosan::kCheckNames),
                             [&](const kosan::CheckName &N) { return N.name == Check; });
    if (!Known)
      fatal("unknown check '" + Check + "' in --kosan-checks= (known checks: " +
            kosan::checkNameList(false) + ")");
  }
  if (C.Plain && C.ChecksGiven)
    fatal("--kosan-plain builds without checks and cannot be combined with " + *C.ChecksGiven +
          "; give one of them");

  for (size_t I = 0; I < C.Args.size(); ++I) {
    std::string_view Arg = C.Args[I];
    if (SeparateValueOptions.count(Arg) && I + 1 < C.Args.size()) {
      ++I;
      continue;
    }
    if (Arg == "-x" || (Arg != "-" && !startsWith(Arg, "-"))) {
      if (Arg == "-x") {
        ++I;
        continue;
      }
      C.HasInputs = true;
      C.HasSources |= isSourceFile(Arg);
      continue;
    }
    if (startsWith(Arg, "-x"))
      continue;
    C.StopsBeforeLink |= StopBeforeLinkOptions.count(Arg) > 0;
    C.DryRun |= Arg == "-###";
    C.HasArch |= startsWith(Arg, "--offload-arch=") || startsWith(Arg, "--cuda-gpu-arch=") ||
                 startsWith(Arg, "--amdgpu-target=");
    C.HasRocmPath |= startsWith(Arg, "--rocm-path=");
    C.HasDeviceLibPath |= startsWith(Arg, "--rocm-device-lib-path=");
    C.HasDebug |= startsWith(Arg, "-g") && !startsWith(Arg, "-gpu");
  }
  return C;
}

// The arguments with each input preceded by the language it is compiled as:
// `source` for sources, none (by its name) for objects and libraries. An
// -x of the user's holds for what follows it, as in clang; -x hip becomes
// `userHip`.
std::vector<std::string> withLanguages(const std::vector<std::string> &Args,
                                       const std::string &Source, const std::string &UserHip) {
  std::vector<std::string> Out;
  std::string Current = "none";
  bool UserLanguage = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &Arg = Args[I];
    if (SeparateValueOptions.count(Arg) && I + 1 < Args.size()) {
      Out.push_back(Arg);
      Out.push_back(Args[++I]);
      continue;
    }
    if ((Arg == "-x" && I + 1 < Args.size()) || (startsWith(Arg, "-x") && Arg.size() > 2)) {
      std::string Language = Arg == "-x" ? Args[++I] : Arg.substr(2);
      if (Language == "hip")
        Language = UserHip;
      UserLanguage = Language != "none";
      Current = Language;
      Out.insert(Out.end(), {"-x", Language});
      continue;
    }
    if (!UserLanguage && Arg != "-" && !startsWith(Arg, "-")) {
      std::string Want = isSourceFile(Arg) ? Source : "none";
      if (Want != Current) {
        Out.insert(Out.end(), {"-x", Want});
        Current = Want;
      }
    }
    Out.push_back(Arg);
  }
  return Out;
}

[[noreturn]] void run(const std::vector<std::string> &Command, bool Print) {
  if (Print) {
    std::fprintf(stderr, "%s\n", commandLine(Command).c_str());
    std::fflush(stderr);
  }
  std::vector<char *> Argv;
  for (const std::string &A : Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  ::execv(Argv[0], Argv.data());
  fatal("cannot run " + Command[0] + ": " + std::strerror(errno));
}

fs::path prefix() {
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    fatal("cannot locate this executable through /proc/self/exe: " + EC.message());
  return Self.parent_path().parent_path();
}

// HIP_PLATFORM=nvidia: the same command through kosan-clang++, sources as
// CUDA with kosan's HIP-on-CUDA header first.
[[noreturn]] void runNvidia(const Command &C, const fs::path &Prefix) {
  std::vector<std::string> Cmd = {(Prefix / "bin" / "kosan-clang++").string()};
  if (C.Plain)
    Cmd.push_back("--kosan-plain");
  if (C.ChecksGiven)
    Cmd.push_back(*C.ChecksGiven);
  if (C.Print)
    Cmd.push_back("--kosan-print-command");
  if (C.HasSources)
    Cmd.insert(Cmd.end(), {"-include", NvidiaHeader});
  std::vector<std::string> Args = withLanguages(C.Args, "cuda", "cuda");
  Cmd.insert(Cmd.end(), Args.begin(), Args.end());
  run(Cmd, false);
}

[[noreturn]] void runAmd(const Command &C, const fs::path &Prefix) {
  fs::path Plugin = Prefix / "lib" / "libkosan.so";
  fs::path Runtime = Prefix / "lib" / "libkosan_rt.so";
  fs::path Bitcode = Prefix / "share" / "kosan" / "amdgcn-bitcode";
  bool Instrument = !C.Plain && C.Checks != "none";
  bool Links = C.HasInputs && !C.StopsBeforeLink;
  if (!C.DryRun) {
    if (!fs::is_regular_file(Plugin))
      fatal("kosan plugin not found at " + Plugin.string() + "; build kosan first (see README)");
    if (Instrument && Links && !fs::is_regular_file(Runtime))
      fatal("kosan runtime not found at " + Runtime.string() + "; build kosan first (see README)");
  }
  std::string Clang = DefaultClang;
  if (const char *Env = std::getenv("KOSAN_CLANG"); Env && *Env)
    Clang = Env;
  std::string RocmPath = DefaultRocmPath;
  if (const char *Env = std::getenv("ROCM_PATH"); Env && *Env)
    RocmPath = Env;

  std::vector<std::string> Cmd = {Clang};
  if (C.HasSources) {
    if (!C.HasRocmPath)
      Cmd.push_back("--rocm-path=" + RocmPath);
    if (!C.HasDeviceLibPath && fs::is_directory(Bitcode))
      Cmd.push_back("--rocm-device-lib-path=" + Bitcode.string());
    if (!C.HasArch)
      Cmd.push_back(std::string("--offload-arch=") + DefaultOffloadArch);
    if (Instrument)
      Cmd.push_back("-D__KOSAN__");
    Cmd.push_back("-fplugin=" + Plugin.string());
    Cmd.push_back("-fplugin-arg-kosan-checks=" + (Instrument ? C.Checks : std::string("none")));
    if (!C.HasDebug)
      Cmd.push_back("-gline-tables-only");
    Cmd.push_back("-fno-discard-value-names");
  }
  // hipcc's spelling of the architectures.
  std::vector<std::string> Args;
  for (const std::string &A : C.Args) {
    if (startsWith(A, "--amdgpu-target="))
      Args.push_back("--offload-arch=" + A.substr(std::strlen("--amdgpu-target=")));
    else
      Args.push_back(A);
  }
  for (const std::string &A : Args)
    if (startsWith(A, "--offload-arch="))
      for (const std::string &Arch : split(A.substr(std::strlen("--offload-arch=")), ','))
        if (std::find(std::begin(KnownArchs), std::end(KnownArchs), Arch) == std::end(KnownArchs))
          std::fprintf(stderr,
                       "%s: warning: %s is not an architecture kosan is built for (gfx90a, "
                       "gfx942); its build may fail or be unchecked\n",
                       ToolName, Arch.c_str());
  Args = withLanguages(Args, "hip", "hip");
  Cmd.insert(Cmd.end(), Args.begin(), Args.end());
  // kosan's runtime is not named: the loader the plugin links into each
  // instrumented object loads it when the program starts (docs/design.md).
  if (Links)
    Cmd.push_back("-lamdhip64");
  run(Cmd, C.Print);
}

} // namespace

int main(int argc, char **argv) {
  Command C = parse(argc, argv);
  Platform P = Platform::Amd;
  if (C.PlatformGiven)
    P = *C.PlatformGiven;
  else if (const char *Env = std::getenv("HIP_PLATFORM"); Env && *Env)
    P = parsePlatform(Env, "HIP_PLATFORM");
  if (C.Args.empty())
    fatal("no input files (see --kosan-help)");
  fs::path Prefix = prefix();
  if (P == Platform::Nvidia)
    runNvidia(C, Prefix);
  runAmd(C, Prefix);
}
