//===- kosan-clang++/main.cpp - Build CUDA programs with kosan -----------===//
//
// A driver around clang++-19. It passes the user's arguments to clang in
// order and adds what a kosan build needs: the kosan plugin and its check
// selection, the kosan runtime and the static CUDA runtime at link time, and
// a compatibility layer that lets clang 19 build against CUDA 12 and 13 the
// way nvcc does (see docs/driver.md).
//
// The translation of the command line is clang_plan.cpp's; this file finds
// what it needs on the machine (clang, the CUDA toolkit and its shim,
// kosan's files, the GPUs), then runs what was planned.
//
// Errors of the driver itself are one line, "kosan-clang++: error: ...", and
// exit status 1. Otherwise the driver replaces itself with clang (execv), so
// the exit status and signals a build tool sees are clang's.
//
//===----------------------------------------------------------------------===//

#include "kosan/checks.h"
#include "kosan/fnv.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "clang_plan.h"

#include "common/driver_util.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace {

using namespace kosan::cli;
using kosan::clangxx::ShimCudaMajor;

constexpr const char *ToolName = "kosan-clang++";
constexpr int RequiredClangMajor = 19;
constexpr const char *FallbackClang = "/usr/lib/llvm-19/bin/clang++";
constexpr int MinCudaMajor = 12;
// The newest GPU architecture clang 19 compiles for. A newer GPU runs the
// compute_90 PTX that clang embeds next to the sm_90 code.
constexpr int NewestClangSm = 90;
constexpr const char *DefaultGpuArch = "sm_90";
constexpr int NvidiaSmiTimeoutMs = 3000;
constexpr int ClangVersionTimeoutMs = 30000;
constexpr const char *ShimStampName = ".kosan-shim";
constexpr fs::perms WorldReadableExecutable =
    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
    fs::perms::others_read | fs::perms::others_exec;
constexpr const char *RealFatbinaryPlaceholder = "@KOSAN_REAL_FATBINARY@";

[[noreturn]] void fatal(const std::string &Message) {
  std::fprintf(stderr, "%s: error: %s\n", ToolName, Message.c_str());
  std::exit(1);
}

bool isFile(const fs::path &P) {
  std::error_code EC;
  return fs::is_regular_file(P, EC);
}

bool isDirectory(const fs::path &P) {
  std::error_code EC;
  return fs::is_directory(P, EC);
}

/// Writes \p Contents to \p P, throwing like the std::filesystem calls.
void writeFile(const fs::path &P, std::string_view Contents) {
  std::ofstream Out(P, std::ios::binary);
  Out.write(Contents.data(), static_cast<std::streamsize>(Contents.size()));
  Out.close();
  if (!Out)
    throw fs::filesystem_error("cannot write", P,
                               std::error_code(errno, std::generic_category()));
}

/// FNV-1a: a stable name for a cache entry, not a security boundary.
uint64_t fnv1a(std::string_view Data) { return kosan_fnv1a(Data.data(), Data.size()); }


/// Runs \p Argv with stdin and stderr on /dev/null and returns its standard
/// output, or nothing if it could not start, failed, or ran past \p TimeoutMs.
std::optional<std::string> captureOutput(const std::vector<std::string> &Argv,
                                         int TimeoutMs) {
  int Pipe[2];
  if (::pipe2(Pipe, O_CLOEXEC) != 0)
    return std::nullopt;
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], 1);
  posix_spawn_file_actions_addopen(&Actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char *> CArgv;
  for (const std::string &Arg : Argv)
    CArgv.push_back(const_cast<char *>(Arg.c_str()));
  CArgv.push_back(nullptr);
  pid_t Pid;
  int SpawnError =
      ::posix_spawn(&Pid, CArgv[0], &Actions, nullptr, CArgv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  ::close(Pipe[1]);
  if (SpawnError != 0) {
    ::close(Pipe[0]);
    return std::nullopt;
  }

  std::string Output;
  bool TimedOut = false;
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(TimeoutMs);
  while (true) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    Deadline - std::chrono::steady_clock::now())
                    .count();
    pollfd Poll = {Pipe[0], POLLIN, 0};
    int Ready = Left > 0 ? ::poll(&Poll, 1, static_cast<int>(Left)) : 0;
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready <= 0) {
      TimedOut = true;
      break;
    }
    char Buffer[4096];
    ssize_t Count = ::read(Pipe[0], Buffer, sizeof(Buffer));
    if (Count < 0 && errno == EINTR)
      continue;
    if (Count <= 0)
      break;
    Output.append(Buffer, static_cast<size_t>(Count));
  }
  ::close(Pipe[0]);
  if (TimedOut)
    ::kill(Pid, SIGKILL);
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  if (TimedOut || !WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    return std::nullopt;
  return Output;
}

//===----------------------------------------------------------------------===//
// Where things are
//===----------------------------------------------------------------------===//

/// kosan's own files, found relative to this executable (<prefix>/bin), so
/// that the build tree and an installation work alike.
struct KosanLayout {
  fs::path Plugin;
  fs::path Runtime;
  fs::path CompatInclude;
  fs::path FatbinaryTemplate;
};

KosanLayout locateKosan() {
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    fatal("cannot locate this executable through /proc/self/exe: " +
          EC.message());
  fs::path Prefix = Self.parent_path().parent_path();
  return {Prefix / "lib" / "libkosan.so", Prefix / "lib" / "libkosan_rt.so",
          Prefix / "share" / "kosan" / "include",
          Prefix / "share" / "kosan" / "cuda-shim" / "fatbinary.sh.in"};
}

fs::path findClang() {
  if (const char *Env = std::getenv("KOSAN_CLANG"); Env && *Env) {
    std::string Requested = Env;
    std::optional<fs::path> Found;
    if (Requested.find('/') == std::string::npos)
      Found = findOnPath(Requested);
    else if (isExecutableFile(Requested))
      Found = Requested;
    if (!Found)
      fatal("KOSAN_CLANG is set to '" + Requested +
            "', which is not an executable file; point it at clang++ of "
            "LLVM 19 or unset it");
    return *Found;
  }
  if (std::optional<fs::path> OnPath = findOnPath("clang++-19"))
    return *OnPath;
  if (isExecutableFile(FallbackClang))
    return FallbackClang;
  fatal("clang 19 not found (looked for $KOSAN_CLANG, clang++-19 on PATH, " +
        std::string(FallbackClang) + "); install the Debian package clang-19");
}

/// The plugin is built against clang 19's C++ API, which has no stable ABI:
/// any other clang would fail to load it, or crash.
void checkClangVersion(const fs::path &Clang) {
  std::optional<std::string> Version =
      captureOutput({Clang.string(), "--version"}, ClangVersionTimeoutMs);
  static const std::regex VersionRe(R"(clang version (\d+)\.(\d+)\.(\d+))");
  std::smatch Match;
  if (!Version || !std::regex_search(*Version, Match, VersionRe))
    fatal("needs clang " + std::to_string(RequiredClangMajor) + ", but " +
          Clang.string() +
          " --version names no clang version; install clang-19 or set "
          "KOSAN_CLANG");
  if (std::stoi(Match[1]) != RequiredClangMajor)
    fatal("needs clang " + std::to_string(RequiredClangMajor) + ", but " +
          Clang.string() + " is clang " + Match[1].str() + "." +
          Match[2].str() + "." + Match[3].str() +
          "; install clang-19 or set KOSAN_CLANG");
}

struct CudaToolkit {
  fs::path Root; // canonical
  int Major = 0;
  int Minor = 0;

  std::string version() const {
    return std::to_string(Major) + "." + std::to_string(Minor);
  }
};

std::optional<std::pair<int, int>> readCudaVersion(const fs::path &Root) {
  if (std::optional<std::string> Json = readFile(Root / "version.json")) {
    static const std::regex JsonRe(
        R"re("cuda"\s*:\s*\{[^}]*"version"\s*:\s*"(\d+)\.(\d+))re");
    std::smatch Match;
    if (std::regex_search(*Json, Match, JsonRe))
      return std::make_pair(std::stoi(Match[1]), std::stoi(Match[2]));
  }
  if (std::optional<std::string> Header = readFile(Root / "include/cuda.h")) {
    static const std::regex HeaderRe(R"(#define\s+CUDA_VERSION\s+(\d+))");
    std::smatch Match;
    if (std::regex_search(*Header, Match, HeaderRe)) {
      int Encoded = std::stoi(Match[1]); // 1000 * major + 10 * minor
      return std::make_pair(Encoded / 1000, Encoded % 1000 / 10);
    }
  }
  return std::nullopt;
}

CudaToolkit findCuda(const std::optional<std::string> &UserPath) {
  std::string Root = "/usr/local/cuda";
  if (UserPath)
    Root = *UserPath;
  else if (const char *Env = std::getenv("CUDA_PATH"); Env && *Env)
    Root = Env;
  else if (const char *Env = std::getenv("CUDA_HOME"); Env && *Env)
    Root = Env;

  const std::string Advice = "; pass --cuda-path= or set CUDA_PATH";
  for (const char *Needed :
       {"include/cuda_runtime_api.h", "bin/ptxas", "bin/fatbinary"})
    if (!isFile(fs::path(Root) / Needed))
      fatal("no CUDA toolkit at " + Root + " (no " + Needed + ")" + Advice);
  std::optional<std::pair<int, int>> Version = readCudaVersion(Root);
  if (!Version)
    fatal("cannot tell the version of the CUDA toolkit at " + Root +
          " (no version.json and no CUDA_VERSION in include/cuda.h)" + Advice);

  CudaToolkit Cuda;
  Cuda.Major = Version->first;
  Cuda.Minor = Version->second;
  if (Cuda.Major < MinCudaMajor)
    fatal("CUDA " + Cuda.version() + " at " + Root +
          " is too old: kosan needs CUDA " + std::to_string(MinCudaMajor) +
          ".0 or newer" + Advice);
  std::error_code EC;
  Cuda.Root = fs::canonical(Root, EC);
  if (EC)
    fatal("cannot resolve the CUDA path " + Root + ": " + EC.message());
  return Cuda;
}

//===----------------------------------------------------------------------===//
// The CUDA shim
//===----------------------------------------------------------------------===//

fs::path cacheDirectory() {
  // The XDG base directory spec says to ignore a relative XDG_CACHE_HOME.
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg == '/')
    return fs::path(Xdg) / "kosan";
  if (const char *Home = std::getenv("HOME"); Home && *Home)
    return fs::path(Home) / ".cache" / "kosan";
  fatal("cannot place the CUDA shim: neither XDG_CACHE_HOME nor HOME is set");
}

/// Fills \p Dir with symlinks to every entry of the toolkit, except that
/// bin/ is a directory of symlinks to the real tools in which fatbinary is the
/// argument-rewriting wrapper.
void populateShim(const fs::path &Dir, const CudaToolkit &Cuda,
                  const std::string &FatbinaryScript) {
  for (const fs::directory_entry &Entry : fs::directory_iterator(Cuda.Root)) {
    fs::path Name = Entry.path().filename();
    if (Name != "bin") {
      fs::create_symlink(Entry.path(), Dir / Name);
      continue;
    }
    fs::create_directory(Dir / "bin");
    for (const fs::directory_entry &Tool :
         fs::directory_iterator(Entry.path())) {
      if (Tool.path().filename() != "fatbinary")
        fs::create_symlink(Tool.path(), Dir / "bin" / Tool.path().filename());
    }
    fs::path Wrapper = Dir / "bin" / "fatbinary";
    writeFile(Wrapper, FatbinaryScript);
    fs::permissions(Wrapper, WorldReadableExecutable);
  }
  // Written last: its presence marks the shim complete.
  writeFile(Dir / ShimStampName, "cuda=" + Cuda.Root.string() +
                                     "\nversion=" + Cuda.version() + "\n");
}

/// Returns the --cuda-path clang should see: a shim directory in the user's
/// cache that repairs what clang 19 gets wrong about CUDA 13, created once
/// per toolkit and wrapper version and shared by concurrent builds.
fs::path ensureCudaShim(const CudaToolkit &Cuda,
                        const fs::path &FatbinaryTemplate) {
  std::optional<std::string> Template = readFile(FatbinaryTemplate);
  if (!Template)
    fatal("kosan fatbinary wrapper not found at " + FatbinaryTemplate.string() +
          "; build kosan first (see README)");
  std::string Script = *Template;
  size_t At = Script.find(RealFatbinaryPlaceholder);
  if (At == std::string::npos)
    fatal(FatbinaryTemplate.string() + " lacks " + RealFatbinaryPlaceholder);
  Script.replace(At, std::strlen(RealFatbinaryPlaceholder),
                 shellQuote((Cuda.Root / "bin" / "fatbinary").string()));

  char Hash[17];
  std::snprintf(
      Hash, sizeof(Hash), "%016llx",
      static_cast<unsigned long long>(
          fnv1a(Cuda.Root.string() + '\0' + Cuda.version() + '\0' + Script)));
  fs::path Cache = cacheDirectory();
  fs::path Shim = Cache / ("cuda-shim-" + std::string(Hash));
  if (isFile(Shim / ShimStampName))
    return Shim;

  std::error_code EC;
  fs::create_directories(Cache, EC);
  if (EC)
    fatal("cannot create " + Cache.string() + ": " + EC.message());
  // Built under a temporary name and renamed into place, so that no build
  // ever sees a half-made shim.
  std::string Pattern =
      (Cache / (".cuda-shim-" + std::string(Hash) + ".XXXXXX")).string();
  if (!::mkdtemp(Pattern.data()))
    fatal("cannot create a directory in " + Cache.string() + ": " +
          std::strerror(errno));
  fs::path Staging = Pattern;
  try {
    // mkdtemp makes it private; the toolkit it mirrors is world-readable.
    fs::permissions(Staging, WorldReadableExecutable);
    populateShim(Staging, Cuda, Script);
  } catch (const fs::filesystem_error &Error) {
    fs::remove_all(Staging, EC);
    fatal("cannot build the CUDA shim in " + Staging.string() + ": " +
          Error.code().message());
  }
  if (::rename(Staging.c_str(), Shim.c_str()) != 0) {
    int RenameErrno = errno;
    fs::remove_all(Staging, EC);
    // A concurrent kosan-clang++ made the same shim first.
    if (isFile(Shim / ShimStampName))
      return Shim;
    fatal("cannot create the CUDA shim " + Shim.string() + ": " +
          std::strerror(RenameErrno) + "; remove it and try again");
  }
  return Shim;
}

/// GPU architectures to compile for when the user names none: the
/// environment's choice, else the GPUs of this machine, else sm_90.
std::vector<std::string> defaultGpuArchs() {
  std::vector<std::string> Archs;
  if (const char *Env = std::getenv("KOSAN_CUDA_ARCH"); Env && *Env) {
    for (const std::string &Arch : split(Env, ',')) {
      if (Arch.empty())
        continue;
      bool Numeric = std::all_of(Arch.begin(), Arch.end(), [](unsigned char C) {
        return std::isdigit(C);
      });
      Archs.push_back(Numeric ? "sm_" + Arch : Arch);
    }
    if (!Archs.empty())
      return Archs;
  }
  if (std::optional<fs::path> Smi = findOnPath("nvidia-smi")) {
    std::optional<std::string> Output = captureOutput(
        {Smi->string(), "--query-gpu=compute_cap", "--format=csv,noheader"},
        NvidiaSmiTimeoutMs);
    static const std::regex CapabilityRe(R"(^\s*(\d+)\.(\d+)\s*$)");
    for (const std::string &Line : split(Output.value_or(""), '\n')) {
      std::smatch Match;
      if (!std::regex_match(Line, Match, CapabilityRe))
        continue;
      int Sm = std::min(std::stoi(Match[1]) * 10 + std::stoi(Match[2]),
                        NewestClangSm);
      std::string Arch = "sm_" + std::to_string(Sm);
      if (std::find(Archs.begin(), Archs.end(), Arch) == Archs.end())
        Archs.push_back(Arch);
    }
    if (!Archs.empty())
      return Archs;
  }
  return {DefaultGpuArch};
}

// instrumented when each unit was compiled, so the link adds no kosan code.

/// Runs \p Argv and returns its exit status (128 + the signal if killed).
int runCommand(const std::vector<std::string> &Argv, bool Print) {
  if (Print)
    std::fprintf(stderr, "%s\n", commandLine(Argv).c_str());
  std::fflush(nullptr);
  std::vector<char *> CArgv;
  for (const std::string &Arg : Argv)
    CArgv.push_back(const_cast<char *>(Arg.c_str()));
  CArgv.push_back(nullptr);
  pid_t Pid;
  if (int Error = ::posix_spawn(&Pid, CArgv[0], nullptr, nullptr, CArgv.data(), environ))
    fatal("cannot run " + Argv[0] + ": " + std::strerror(Error));
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

/// Whether \p P (an object or an archive) holds relocatable device code.
bool hasRelocatableDeviceCode(const fs::path &P) {
  std::optional<std::string> Data = readFile(P);
  return Data && Data->find("__nv_relfatbin") != std::string::npos;
}

void printHelp() {
  std::printf(
      R"(OVERVIEW: build CUDA programs with kosan instrumentation

USAGE: kosan-clang++ [kosan options] [clang++ options] <inputs>

Runs clang++ of LLVM 19 with the kosan plugin, links the kosan runtime and the
static CUDA runtime, and adapts clang 19 to the installed CUDA toolkit. Every
option not listed here goes to clang unchanged.

KOSAN OPTIONS:
  --kosan-checks=<list>   the checks compiled in, comma-separated (default:
                          oob; all: %s; none):
%s  --kosan-plain           build without instrumentation through the same
                          compatibility layer (a baseline; the plugin is
                          loaded with no checks, for its compatibility pass)
  --kosan-defer-clones=<1|ptx|0>
                          1 (default): each kernel's instrumented clone is
                          kept as LLVM bitcode, made PTX (libkosan_codegen.so)
                          and compiled by the driver at its first checked
                          launch, both kept on disk for later runs, so the
                          build compiles the plain kernels only; ptx: kept as
                          PTX made at build time (the program then runs
                          where LLVM is missing); 0: the clones are compiled
                          with the build. -S and -emit-llvm keep them in what
                          clang writes
  --kosan-mutate=<id>     build the mutant <id> of the device code (mutation
                          analysis: docs/mutate.md); exit status 2 if no
                          device module of the build has it
  --kosan-mutate-list=<file>
                          append the device code's mutants to <file>, one
                          JSON line each (what kosan-mutate list runs)
  --kosan-print-command   print the clang command to stderr, then run it
  --kosan-print-cuda-path print the CUDA toolkit that clang is given (for
                          CMake's CUDAToolkit_ROOT: share/kosan/kosan.cmake)
  --kosan-help            print this help
  --cuda-path=<dir>       CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME,
                          /usr/local/cuda)

ENVIRONMENT:
  KOSAN_CLANG             clang++ to run (default: clang++-19 on PATH, then
                          %s)
  KOSAN_CUDA_ARCH         GPU architectures when no --cuda-gpu-arch= is given,
                          e.g. sm_90 or sm_80,sm_90 (default: the GPUs
                          nvidia-smi reports, else %s)
  XDG_CACHE_HOME          where the CUDA shim is kept (default: ~/.cache)
)",
      kosan::checkNamesInProse(true).c_str(), kosan::checkHelp(26, 80).c_str(), FallbackClang,
      DefaultGpuArch);
}

/// The directory, made on first use, for the intermediate files of a build
/// in steps; removed when the driver exits.
std::string temporaryDirectory() {
  static TempDir Dir("kosan-rdc");
  if (!Dir.Error.empty())
    throw DriverError(Dir.Error);
  return Dir.Path.string();
}

/// Runs the commands of a build in steps; returns the exit status.
int runSteps(kosan::clangxx::Plan &P) {
  for (const std::vector<std::string> &Compile : P.Compiles)
    if (int Status = runCommand(Compile, P.PrintCommands))
      return Status;
  bool Linked = false;
  if (const std::optional<kosan::clangxx::DeviceLinkPlan> &Link = P.DeviceLink) {
    for (const std::vector<std::string> &Nvlink : Link->Nvlinks)
      if (int Status = runCommand(Nvlink, P.PrintCommands))
        return Status;
    // nvlink registers no module when no object holds relocatable device
    // code that is not linked yet.
    std::optional<std::string> Registered = readFile(Link->RegisterFile);
    Linked = Link->Always || !Registered ||
             Registered->find("NUM_PRELINKED_OBJECTS 0") == std::string::npos;
    if (Linked) {
      if (int Status = runCommand(Link->Fatbinary, P.PrintCommands))
        return Status;
      if (int Status = runCommand(Link->Stub, P.PrintCommands))
        return Status;
    }
  }
  if (!P.Final)
    return 0;
  std::vector<std::string> Final = *P.Final;
  if (P.FinalNeedsDeviceLink && !Linked)
    Final.erase(std::find(Final.begin(), Final.end(), P.DeviceLink->Output));
  return runCommand(Final, P.PrintCommands);
}

} // namespace

int main(int Argc, char **Argv) {
  auto ReadFile = [](const std::string &Path) { return readFile(Path); };
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  // KOSAN_CHECKS: the checks of builds whose command line names none (a
  // build system's or PyTorch's nvcc command that cannot be edited).
  const char *EnvChecks = std::getenv("KOSAN_CHECKS");
  bool FromEnvironment = false;
  if (EnvChecks && *EnvChecks &&
      std::none_of(Args.begin(), Args.end(), [](const std::string &Arg) {
        return Arg.rfind("--kosan-checks=", 0) == 0 || Arg == "--kosan-plain";
      })) {
    Args.insert(Args.begin(), std::string("--kosan-checks=") + EnvChecks);
    FromEnvironment = true;
  }
  kosan::clangxx::ParseResult Parsed = kosan::clangxx::parseCommand(Args, ReadFile);
  if (!Parsed.Error.empty())
    fatal(Parsed.Error + (FromEnvironment ? " (the checks come from KOSAN_CHECKS)" : ""));
  const kosan::clangxx::DriverOptions &Options = Parsed.Command.Options;
  if (Options.Help) {
    printHelp();
    return 0;
  }

  KosanLayout Kosan = locateKosan();
  if (Options.PrintCudaPath) {
    // The toolkit as clang sees it: tools that run the toolkit's programs
    // themselves (CMake's device link) need its fatbinary wrapper too.
    CudaToolkit Cuda = findCuda(Options.CudaPath);
    fs::path Path = Cuda.Major >= ShimCudaMajor
                        ? ensureCudaShim(Cuda, Kosan.FatbinaryTemplate)
                        : Cuda.Root;
    std::printf("%s\n", Path.string().c_str());
    return 0;
  }
  fs::path Clang = findClang();
  checkClangVersion(Clang);
  CudaToolkit Cuda = findCuda(Options.CudaPath);

  kosan::clangxx::Environment Env;
  Env.Clang = Clang.string();
  Env.CudaRoot = Cuda.Root.string();
  Env.CudaMajor = Cuda.Major;
  Env.ClangCudaPath = [&Cuda, &Kosan] {
    return (Cuda.Major >= ShimCudaMajor ? ensureCudaShim(Cuda, Kosan.FatbinaryTemplate)
                                        : Cuda.Root)
        .string();
  };
  Env.Plugin = Kosan.Plugin.string();
  Env.Runtime = Kosan.Runtime.string();
  Env.CompatInclude = Kosan.CompatInclude.string();
  Env.IsFile = [](const std::string &Path) { return isFile(Path); };
  Env.IsDirectory = [](const std::string &Path) { return isDirectory(Path); };
  Env.ReadFile = ReadFile;
  Env.HasRelocatableDeviceCode = [](const std::string &Path) {
    return hasRelocatableDeviceCode(Path);
  };
  Env.DefaultGpuArchs = defaultGpuArchs;
  Env.TemporaryDirectory = temporaryDirectory;
  kosan::clangxx::PlanResult Planned = kosan::clangxx::planBuild(Parsed.Command, Env);
  if (!Planned.Error.empty())
    fatal(Planned.Error);
  kosan::clangxx::Plan &P = Planned.P;

  if (Options.Mutate && !Parsed.Command.Facts.DryRun) {
    // Run clang as a child, then check that a device module had the mutant.
    int Status = !P.Compiles.empty() || P.DeviceLink ? runSteps(P)
                                                    : runCommand(*P.Final, P.PrintCommands);
    if (Status != 0)
      return Status;
    std::optional<std::string> Applied = readFile(P.MutateReport);
    if (!Applied || Applied->find(*Options.Mutate + "\n") == std::string::npos) {
      std::fprintf(stderr,
                   "%s: error: no mutant '%s' in this build's device code; `kosan-mutate list "
                   "-- <this command>` lists its mutants\n",
                   ToolName, Options.Mutate->c_str());
      std::exit(2);
    }
    return 0;
  }
  if (!P.Compiles.empty() || P.DeviceLink)
    return runSteps(P);
  std::vector<std::string> &Command = *P.Final;
  if (P.PrintCommands)
    std::fprintf(stderr, "%s\n", commandLine(Command).c_str());
  std::fflush(nullptr);
  std::vector<char *> CArgv;
  for (std::string &Arg : Command)
    CArgv.push_back(Arg.data());
  CArgv.push_back(nullptr);
  ::execv(CArgv[0], CArgv.data());
  fatal("cannot run " + Clang.string() + ": " + std::strerror(errno));
}
