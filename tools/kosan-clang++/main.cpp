//===- kosan-clang++/main.cpp - Build CUDA programs with kosan -----------===//
//
// A driver around clang++-19. It passes the user's arguments to clang in
// order and adds what a kosan build needs: the kosan plugin and its check
// selection, the kosan runtime and the static CUDA runtime at link time, and
// a compatibility layer that lets clang 19 build against CUDA 12 and 13 the
// way nvcc does (see docs/driver.md).
//
// Errors of the driver itself are one line, "kosan-clang++: error: ...", and
// exit status 1. Otherwise the driver replaces itself with clang (execv), so
// the exit status and signals a build tool sees are clang's.
//
//===----------------------------------------------------------------------===//

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

#include "../common/driver_util.h"
#include "../common/response_file.h"

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

constexpr const char *ToolName = "kosan-clang++";
constexpr int RequiredClangMajor = 19;
constexpr const char *FallbackClang = "/usr/lib/llvm-19/bin/clang++";
constexpr int MinCudaMajor = 12;
// CUDA 13's fatbinary dropped the --image syntax clang 19 uses.
constexpr int ShimCudaMajor = 13;
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
constexpr std::string_view KnownChecks[] = {"oob", "precision", "order", "order-ops"};
// Response files may name further response files; clang stops at 20 too.
constexpr int MaxResponseFileDepth = 20;

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
uint64_t fnv1a(std::string_view Data) {
  uint64_t Hash = 0xcbf29ce484222325ULL;
  for (unsigned char C : Data) {
    Hash ^= C;
    Hash *= 0x100000001b3ULL;
  }
  return Hash;
}


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

//===----------------------------------------------------------------------===//
// The command line
//===----------------------------------------------------------------------===//

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
};

DriverOptions parseDriverOptions(int Argc, char **Argv) {
  DriverOptions Options;
  for (int I = 1; I < Argc; ++I) {
    std::string_view Arg = Argv[I];
    if (startsWith(Arg, "--cuda-path="))
      Options.CudaPath = std::string(Arg.substr(std::strlen("--cuda-path=")));
    else if (startsWith(Arg, "--kosan-checks=")) {
      Options.Checks = Arg.substr(std::strlen("--kosan-checks="));
      Options.ChecksGiven = std::string(Arg);
    }
    else if (Arg == "--kosan-plain")
      Options.Plain = true;
    else if (Arg == "--kosan-print-command")
      Options.PrintCommand = true;
    else if (Arg == "--kosan-help")
      Options.Help = true;
    else if (Arg == "--kosan-print-cuda-path")
      Options.PrintCudaPath = true;
    else if (Arg == "--kosan-dlink")
      Options.DeviceLinkOnly = true;
    else if (startsWith(Arg, "--kosan-"))
      fatal("unknown option '" + std::string(Arg) + "' (see --kosan-help)");
    else
      Options.ClangArgs.emplace_back(Arg);
  }

  for (const std::string &Check : split(Options.Checks, ',')) {
    if (std::find(std::begin(KnownChecks), std::end(KnownChecks), Check) ==
        std::end(KnownChecks))
      fatal("unknown check '" + Check +
            "' in --kosan-checks= (known checks: oob, precision, order, order-ops)");
  }
  if (Options.Plain && Options.ChecksGiven)
    fatal("--kosan-plain builds without checks and cannot be combined with " +
          *Options.ChecksGiven + "; give one of them");
  return Options;
}

/// The arguments with @file response files expanded: what clang will see.
/// Used only to inspect the command; clang still reads the files itself.
void expandResponseFiles(const std::vector<std::string> &Args, int Depth,
                         std::vector<std::string> &Expanded) {
  for (const std::string &Arg : Args) {
    std::optional<std::string> Contents;
    if (Depth < MaxResponseFileDepth && startsWith(Arg, "@"))
      Contents = readFile(Arg.substr(1));
    if (Contents)
      expandResponseFiles(splitGnuArguments(*Contents), Depth + 1, Expanded);
    else
      Expanded.push_back(Arg);
  }
}

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
  /// Why the build cannot be instrumented, if it cannot.
  std::optional<std::string> Refusal;

  bool links() const { return HasInputs && !StopsBeforeLink; }
};

/// Options whose value is the next argument (when not written joined). The
/// driver must skip those values so as not to mistake them for inputs.
// clang-format off
const std::set<std::string_view> SeparateValueOptions = {
    "-A", "-B", "-D", "-F", "-I", "-L", "-MF", "-MJ", "-MQ", "-MT", "-T", "-U",
    "-Xarch_device", "-Xarch_host", "-Xassembler", "-Xclang",
    "-Xcuda-fatbinary", "-Xcuda-ptxas", "-Xlinker", "-Xoffload-linker",
    "-Xopenmp-target", "-Xpreprocessor", "--config", "--param", "--sysroot",
    "-arch", "-cxx-isystem", "-dependency-dot", "-dependency-file", "-e",
    "-iframework", "-idirafter", "-imacros", "-include", "-include-pch",
    "-iprefix", "-iquote", "-isysroot", "-isystem", "-ivfsoverlay",
    "-iwithprefix", "-iwithprefixbefore", "-mllvm", "-o", "-rpath",
    "-serialize-diagnostics", "-target", "-u", "-z"};
// clang-format on

const std::set<std::string_view> StopBeforeLinkOptions = {
    "-c",           "-S",
    "-E",           "-M",
    "-MM",          "-fsyntax-only",
    "--precompile", "--cuda-device-only"};

bool isCudartLibrary(std::string_view Name) {
  return Name == "cudart" || Name == "cudart_static" ||
         startsWith(Name, ":libcudart");
}

/// Options that make clang link device code after the kosan pass has run:
/// the last of the enabling or disabling spellings wins, as in clang.
struct LateDeviceLinkOption {
  std::vector<std::string_view> Enable;
  std::vector<std::string_view> Disable;
  std::string_view Reason;
};

const LateDeviceLinkOption LateDeviceLinkOptions[] = {
    {{"--offload-new-driver"},
     {"--no-offload-new-driver"},
     "kosan links relocatable device code as nvcc does, with nvlink, and "
     "the new offload driver's objects are not nvcc's (-fgpu-rdc works "
     "without it)"},
    {{"-foffload-lto", "-foffload-lto="},
     {"-fno-offload-lto"},
     "device code is then optimized and compiled at link time, after the "
     "kosan pass has run"},
};

/// cc1 options that, given through -Xclang, would take away what the driver
/// does for a build without a word: clang would run without them noticing.
struct RefusedCc1Option {
  std::vector<std::string_view> Spellings;
  std::string_view Reason;
  std::string_view Instead; // what to write instead; empty: leave it out
};

const RefusedCc1Option RefusedCc1Options[] = {
    {{"-fgpu-rdc", "-fcuda-rdc"},
     "kosan-clang++ device-links relocatable device code only when it sees "
     "the option itself",
     "-fgpu-rdc"},
    {{"-fno-gpu-rdc", "-fno-cuda-rdc"},
     "kosan-clang++ decides how to link device code from the options it sees",
     "-fno-gpu-rdc"},
    {{"-disable-llvm-passes", "-disable-llvm-optzns"},
     "clang then runs no LLVM passes, so kosan's instrumentation and "
     "compatibility passes would not run either",
     ""},
};

std::optional<std::string> refuseCc1Option(std::string_view Cc1Arg) {
  for (const RefusedCc1Option &Option : RefusedCc1Options)
    if (std::find(Option.Spellings.begin(), Option.Spellings.end(), Cc1Arg) !=
        Option.Spellings.end())
      return "-Xclang " + std::string(Cc1Arg) + " is not supported: " +
             std::string(Option.Reason) + "; " +
             (Option.Instead.empty()
                  ? "build without it"
                  : "pass " + std::string(Option.Instead) + " instead");
  return std::nullopt;
}

/// A spelling that ends in '=' takes a value: -foffload-lto=thin.
bool matchesSpelling(std::string_view Arg, std::string_view Spelling) {
  return Spelling.back() == '=' ? startsWith(Arg, Spelling) : Arg == Spelling;
}

CommandFacts inspectCommand(const std::vector<std::string> &ClangArgs) {
  std::vector<std::string> Args;
  expandResponseFiles(ClangArgs, 0, Args);

  CommandFacts Facts;
  std::string Language = "none"; // the current -x
  std::optional<std::string> HipUse;
  std::optional<std::string> Cc1Refusal;
  std::vector<std::optional<std::string>> LateLinkSpelling(
      std::size(LateDeviceLinkOptions));
  for (size_t I = 0; I < Args.size(); ++I) {
    std::string_view Arg = Args[I];
    bool HasNext = I + 1 < Args.size();
    if ((Arg == "-x" && HasNext) || (startsWith(Arg, "-x") && Arg.size() > 2)) {
      Language = Arg == "-x" ? Args[++I] : std::string(Arg.substr(2));
      if (Language == "hip")
        HipUse = "-x hip";
      continue;
    }
    if (Arg == "-l" && HasNext) {
      Facts.LinksCudart |= isCudartLibrary(Args[++I]);
      continue;
    }
    if ((Arg == "-Xclang" && HasNext) || startsWith(Arg, "-Xclang=")) {
      std::string Cc1Arg =
          Arg == "-Xclang" ? Args[++I] : std::string(Arg.substr(8));
      if (!Cc1Refusal)
        Cc1Refusal = refuseCc1Option(Cc1Arg);
      continue;
    }
    if (SeparateValueOptions.count(Arg) && HasNext) {
      ++I;
      continue;
    }
    if (Arg == "-" || !startsWith(Arg, "-")) {
      Facts.HasInputs = true;
      std::string Extension = fs::path(Arg).extension().string();
      std::string Name = fs::path(Arg).filename().string();
      if (Language == "cuda" || Language == "cu" ||
          (Language == "none" && Extension == ".cu"))
        Facts.CompilesCuda = true;
      if (Language == "none" && Extension == ".hip")
        HipUse = std::string(Arg);
      Facts.LinksCudart |= startsWith(Name, "libcudart");
      continue;
    }

    if (StopBeforeLinkOptions.count(Arg))
      Facts.StopsBeforeLink = true;
    else if (Arg == "-###")
      Facts.DryRun = true;
    else if (startsWith(Arg, "-l"))
      Facts.LinksCudart |= isCudartLibrary(Arg.substr(2));
    else if (startsWith(Arg, "-Wl,")) {
      for (const std::string &Part : split(Arg.substr(4), ','))
        Facts.LinksCudart |=
            startsWith(Part, "-l") && isCudartLibrary(Part.substr(2));
    } else if (startsWith(Arg, "--cuda-gpu-arch=") ||
               startsWith(Arg, "--offload-arch=")) {
      Facts.HasGpuArch = true;
      if (Arg.find("=gfx") != std::string_view::npos)
        HipUse = std::string(Arg);
    } else if (startsWith(Arg, "-g") && !startsWith(Arg, "-gpu")) {
      Facts.HasDebugOption = true;
    } else if (Arg == "-fgpu-rdc" || Arg == "-fcuda-rdc") {
      Facts.Rdc = true;
    } else if (Arg == "-fno-gpu-rdc" || Arg == "-fno-cuda-rdc") {
      Facts.Rdc = false;
    }
    for (size_t K = 0; K < std::size(LateDeviceLinkOptions); ++K) {
      const LateDeviceLinkOption &Option = LateDeviceLinkOptions[K];
      for (std::string_view Spelling : Option.Enable)
        if (matchesSpelling(Arg, Spelling))
          LateLinkSpelling[K] = std::string(Arg);
      for (std::string_view Spelling : Option.Disable)
        if (matchesSpelling(Arg, Spelling))
          LateLinkSpelling[K].reset();
    }
  }

  if (HipUse) {
    Facts.Refusal = "HIP is not supported yet: kosan-clang++ builds CUDA "
                    "only (saw '" +
                    *HipUse + "')";
    return Facts;
  }
  for (size_t K = 0; K < std::size(LateDeviceLinkOptions); ++K) {
    if (const std::optional<std::string> &Spelling = LateLinkSpelling[K]) {
      Facts.Refusal = *Spelling + " is not supported: " +
                      std::string(LateDeviceLinkOptions[K].Reason) +
                      "; build without " + *Spelling;
      return Facts;
    }
  }
  Facts.Refusal = Cc1Refusal;
  return Facts;
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

//===----------------------------------------------------------------------===//
// Relocatable device code
//===----------------------------------------------------------------------===//
//
// With -fgpu-rdc clang 19 (without --offload-new-driver) writes objects as
// nvcc -dc does: each object's device code is a relocatable cubin in the
// __nv_relfatbin section, and its host code registers it through
// __cudaRegisterLinkedBinary_<module id>, which the device link defines.
// The device link is nvcc's: nvlink links the cubins of every object into
// one image per architecture and lists the module ids it linked, fatbinary
// wraps the images, and the toolkit's crt/link.stub, compiled with both,
// becomes a host object that registers the image. Everything was
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


/// Device-links \p Objects for \p Archs (sm_XX) into the host object
/// \p Output. Returns false when none of them holds relocatable device code
/// that is not linked yet (nvlink then registers no module), unless
/// \p Always: nvcc -dlink writes its object either way.
bool deviceLink(const std::vector<std::string> &Objects,
                const std::vector<std::string> &Archs,
                const std::string &Output, const CudaToolkit &Cuda,
                const fs::path &Clang, const fs::path &Dir, bool Always,
                bool Print) {
  fs::path Register = Dir / "dlink.reg.c";
  fs::path Fatbin = Dir / "dlink.fatbin.c";
  std::vector<std::string> Fatbinary = {
      (Cuda.Root / "bin" / "fatbinary").string(), "-64", "-link",
      "--embedded-fatbin=" + Fatbin.string()};
  std::vector<std::string> Seen;
  for (const std::string &Arch : Archs) {
    if (!startsWith(Arch, "sm_") ||
        std::find(Seen.begin(), Seen.end(), Arch) != Seen.end())
      continue;
    Seen.push_back(Arch);
    fs::path Cubin = Dir / ("dlink." + Arch + ".cubin");
    std::vector<std::string> Nvlink = {
        (Cuda.Root / "bin" / "nvlink").string(), "-m64", "--arch=" + Arch,
        "--register-link-binaries=" + Register.string(),
        "-L" + (Cuda.Root / "lib64").string(), "-cpu-arch=X86_64"};
    Nvlink.insert(Nvlink.end(), Objects.begin(), Objects.end());
    Nvlink.insert(Nvlink.end(), {"-lcudadevrt", "-o", Cubin.string()});
    if (int Status = runCommand(Nvlink, Print))
      std::exit(Status);
    std::string Sm = Arch.substr(3);
    // CUDA 13's fatbinary knows only --image3 (see the CUDA shim).
    Fatbinary.push_back(Cuda.Major >= ShimCudaMajor
                            ? "--image3=kind=elf,sm=" + Sm + ",file=" + Cubin.string()
                            : "--image=profile=" + Arch + ",file=" + Cubin.string());
  }
  if (Seen.empty())
    fatal("no GPU architecture to link device code for (--cuda-gpu-arch=sm_XX)");
  std::optional<std::string> Registered = readFile(Register);
  if (!Always && Registered &&
      Registered->find("NUM_PRELINKED_OBJECTS 0") != std::string::npos)
    return false;
  if (int Status = runCommand(Fatbinary, Print))
    std::exit(Status);
  std::vector<std::string> Stub = {
      Clang.string(), "-c", "-x", "c++", "-fPIC", "-w",
      "-DFATBINFILE=\"" + Fatbin.string() + "\"",
      "-DREGISTERLINKBINARYFILE=\"" + Register.string() + "\"",
      "-D__NV_EXTRA_INITIALIZATION=", "-D__NV_EXTRA_FINALIZATION=",
      "-D__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__",
      "-I" + (Cuda.Root / "include").string(),
      (Cuda.Root / "bin" / "crt" / "link.stub").string(), "-o", Output};
  if (int Status = runCommand(Stub, Print))
    std::exit(Status);
  return true;
}

/// The user's arguments sorted for a build in steps: inputs, with the
/// language each is compiled as, and the options around them.
struct SplitCommand {
  struct Input {
    std::string Path;
    std::string Language; // the -x in effect, "none": by file name
    bool Source = false;
  };
  std::vector<Input> Inputs;
  std::vector<std::string> CompileOptions; // no inputs, -o, -x, link options
  std::vector<std::string> LinkOptions;    // no inputs, -x (objects go first)
  std::optional<std::string> Output;
  std::vector<std::string> Archs;
};

SplitCommand splitCommand(const std::vector<std::string> &Args) {
  SplitCommand Split;
  std::string Language = "none";
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &Arg = Args[I];
    bool HasNext = I + 1 < Args.size();
    if ((Arg == "-x" && HasNext) || (startsWith(Arg, "-x") && Arg.size() > 2)) {
      Language = Arg == "-x" ? Args[++I] : Arg.substr(2);
      continue;
    }
    if (Arg == "-o" && HasNext) {
      Split.Output = Args[++I];
      continue;
    }
    if (Arg == "-" || !startsWith(Arg, "-")) {
      std::string Extension = fs::path(Arg).extension().string();
      bool Object = Language == "none" &&
                    (Extension == ".o" || Extension == ".a" || Extension == ".so" ||
                     Extension == ".lo" || Arg.find(".so.") != std::string::npos);
      Split.Inputs.push_back({Arg, Language, !Object});
      continue;
    }
    bool LinkOnly = startsWith(Arg, "-l") || startsWith(Arg, "-L") ||
                    startsWith(Arg, "-Wl,") || Arg == "-Xlinker" ||
                    Arg == "-shared" || Arg == "-rdynamic" || Arg == "-pie" ||
                    Arg == "-no-pie" || startsWith(Arg, "-static") ||
                    startsWith(Arg, "-fuse-ld=");
    std::vector<std::string> Option = {Arg};
    if ((SeparateValueOptions.count(Arg) || Arg == "-l") && HasNext)
      Option.push_back(Args[++I]);
    bool Arch = true;
    if (startsWith(Arg, "--cuda-gpu-arch="))
      Split.Archs.push_back(Arg.substr(std::strlen("--cuda-gpu-arch=")));
    else if (startsWith(Arg, "--offload-arch="))
      Split.Archs.push_back(Arg.substr(std::strlen("--offload-arch=")));
    else
      Arch = false;
    if (!LinkOnly)
      Split.CompileOptions.insert(Split.CompileOptions.end(), Option.begin(), Option.end());
    // The link compiles nothing: clang would call an architecture unused.
    if (!Arch)
      Split.LinkOptions.insert(Split.LinkOptions.end(), Option.begin(), Option.end());
  }
  return Split;
}

/// Relocatable device code at a link, and --kosan-dlink: compiles each
/// source alone, device-links every object that holds relocatable device
/// code and links the program with the device link's object. Returns the
/// exit status, or nothing when the link needs no device link (one clang
/// command does it all).
std::optional<int> buildInSteps(const DriverOptions &Options,
                                const CommandFacts &Facts,
                                const std::vector<std::string> &Prefix,
                                const std::vector<std::string> &LinkTail,
                                const CudaToolkit &Cuda, const fs::path &Clang) {
  std::vector<std::string> Args;
  expandResponseFiles(Options.ClangArgs, 0, Args);
  SplitCommand Split = splitCommand(Args);
  bool HasSources = std::any_of(Split.Inputs.begin(), Split.Inputs.end(),
                                [](const SplitCommand::Input &In) { return In.Source; });
  bool RdcObjects = std::any_of(
      Split.Inputs.begin(), Split.Inputs.end(), [](const SplitCommand::Input &In) {
        return !In.Source && hasRelocatableDeviceCode(In.Path);
      });
  if (Options.DeviceLinkOnly) {
    if (HasSources)
      fatal("--kosan-dlink links objects; compile the sources first (-c "
            "-fgpu-rdc)");
  } else if (!(Facts.Rdc && HasSources) && !RdcObjects) {
    return std::nullopt;
  }
  if (Split.Archs.empty())
    Split.Archs = defaultGpuArchs();

  TempDir Temp("kosan-rdc");
  if (!Temp.Error.empty())
    fatal(Temp.Error);
  std::vector<std::string> Objects;
  for (size_t I = 0; I < Split.Inputs.size(); ++I) {
    const SplitCommand::Input &In = Split.Inputs[I];
    if (!In.Source) {
      Objects.push_back(In.Path);
      continue;
    }
    std::string Object =
        (Temp.Path / (std::to_string(I) + "-" + fs::path(In.Path).stem().string() + ".o"))
            .string();
    std::vector<std::string> Compile = Prefix;
    Compile.insert(Compile.end(), Split.CompileOptions.begin(), Split.CompileOptions.end());
    Compile.insert(Compile.end(), {"-c", "-x", In.Language, In.Path, "-o", Object});
    if (int Status = runCommand(Compile, Options.PrintCommand))
      return Status;
    Objects.push_back(Object);
  }

  std::vector<std::string> DeviceObjects;
  for (const std::string &Object : Objects)
    if (fs::path(Object).extension() != ".so" && Object.find(".so.") == std::string::npos)
      DeviceObjects.push_back(Object);
  if (Options.DeviceLinkOnly) {
    std::string Output = Split.Output.value_or("a_dlink.o");
    deviceLink(DeviceObjects, Split.Archs, Output, Cuda, Clang, Temp.Path,
               /*Always=*/true, Options.PrintCommand);
    return 0;
  }
  std::string DeviceLinked = (Temp.Path / "dlink.o").string();
  bool Linked = deviceLink(DeviceObjects, Split.Archs, DeviceLinked, Cuda, Clang,
                           Temp.Path, /*Always=*/false, Options.PrintCommand);
  // Objects first, then the options: the sources became objects, and no
  // -x may apply to them.
  // The compile options came along: each source's compile used them.
  std::vector<std::string> Link = Prefix;
  Link.push_back("-Wno-unused-command-line-argument");
  Link.insert(Link.end(), Objects.begin(), Objects.end());
  if (Linked)
    Link.push_back(DeviceLinked);
  Link.insert(Link.end(), Split.LinkOptions.begin(), Split.LinkOptions.end());
  if (Split.Output)
    Link.insert(Link.end(), {"-o", *Split.Output});
  Link.insert(Link.end(), LinkTail.begin(), LinkTail.end());
  return runCommand(Link, Options.PrintCommand);
}

void printHelp() {
  std::printf(
      R"(OVERVIEW: build CUDA programs with kosan instrumentation

USAGE: kosan-clang++ [kosan options] [clang++ options] <inputs>

Runs clang++ of LLVM 19 with the kosan plugin, links the kosan runtime and the
static CUDA runtime, and adapts clang 19 to the installed CUDA toolkit. Every
option not listed here goes to clang unchanged.

KOSAN OPTIONS:
  --kosan-checks=<list>   checks compiled in, of oob, precision and order
                          (default: oob); order-ops is order that also logs
                          every floating-point operation, so that kosan-diff
                          can say at which operation two runs part (slow:
                          for diagnosis)
  --kosan-plain           build without instrumentation through the same
                          compatibility layer (a baseline; the plugin is
                          loaded with no checks, for its compatibility pass)
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
      FallbackClang, DefaultGpuArch);
}

} // namespace

int main(int Argc, char **Argv) {
  DriverOptions Options = parseDriverOptions(Argc, Argv);
  if (Options.Help) {
    printHelp();
    return 0;
  }
  CommandFacts Facts = inspectCommand(Options.ClangArgs);
  if (Facts.Refusal)
    fatal(*Facts.Refusal);

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

  // -### only prints commands, so it works before kosan is fully built.
  bool Instrument = !Options.Plain;
  if (!Facts.DryRun) {
    if (!isFile(Kosan.Plugin))
      fatal("kosan plugin not found at " + Kosan.Plugin.string() +
            "; build kosan first (see README)");
    if (Instrument && Facts.links() && !isFile(Kosan.Runtime))
      fatal("kosan runtime not found at " + Kosan.Runtime.string() +
            "; build kosan first (see README)");
  }
  if (!isFile(Kosan.CompatInclude / "kosan_cuda_compat.h"))
    fatal("kosan compatibility headers not found at " +
          Kosan.CompatInclude.string() + "; build kosan first (see README)");

  std::vector<std::string> Command = {Clang.string()};
  auto Add = [&Command](std::initializer_list<std::string> Args) {
    Command.insert(Command.end(), Args);
  };
  // Only a CUDA compile uses it; clang warns about it anywhere else.
  if (Facts.CompilesCuda) {
    fs::path ClangCudaPath = Cuda.Major >= ShimCudaMajor
                                 ? ensureCudaShim(Cuda, Kosan.FatbinaryTemplate)
                                 : Cuda.Root;
    Add({"--cuda-path=" + ClangCudaPath.string()});
  }
  Add({"-Wno-unknown-cuda-version", "-isystem", Kosan.CompatInclude.string()});
  // CUDA 13 keeps thrust, cub and libcu++ here, and nvcc adds it by itself.
  fs::path Cccl = Cuda.Root / "include" / "cccl";
  if (isDirectory(Cccl))
    Add({"-isystem", Cccl.string()});
  Add({"-include", "kosan_cuda_compat.h"});
  if (Instrument)
    Add({"-D__KOSAN__"});
  // Plain builds load the plugin too, with no checks: its compatibility
  // pass (passes/CudaCompat.cpp) makes device code compute what nvcc's does.
  Add({"-fplugin=" + Kosan.Plugin.string(),
       "-fplugin-arg-kosan-checks=" + (Instrument ? Options.Checks : "none")});
  // Reports name source lines; a user's own -g choice wins.
  if (!Facts.HasDebugOption)
    Add({"-gline-tables-only"});
  // Reports name kernel parameters by their IR names.
  Add({"-fno-discard-value-names"});
  if (Facts.CompilesCuda && !Facts.HasGpuArch)
    for (const std::string &Arch : defaultGpuArchs())
      Add({"--cuda-gpu-arch=" + Arch});
  const std::vector<std::string> Prefix = Command;
  Command.insert(Command.end(), Options.ClangArgs.begin(),
                 Options.ClangArgs.end());
  size_t TailAt = Command.size();
  // After the user's objects and libraries, which reference them.
  if (Facts.links()) {
    // No kosan runtime here: instrumented objects carry a loader that
    // finds libkosan_rt.so when the program runs (runtime/host/loader.cpp).
    Add({"-L" + (Cuda.Root / "lib64").string()});
    if (!Facts.LinksCudart)
      Add({"-lcudart_static", "-ldl", "-lrt", "-lpthread"});
  }

  if (Options.DeviceLinkOnly || (Facts.links() && !Facts.DryRun)) {
    std::vector<std::string> Tail(Command.begin() + TailAt, Command.end());
    if (std::optional<int> Status =
            buildInSteps(Options, Facts, Prefix, Tail, Cuda, Clang))
      return *Status;
  }

  // A link of objects names the architectures to device-link for (as
  // kosan-nvcc's links do); clang, compiling nothing, would call them unused.
  if (!Facts.CompilesCuda)
    Command.erase(std::remove_if(Command.begin() + 1, Command.end(),
                                 [](const std::string &Arg) {
                                   return startsWith(Arg, "--cuda-gpu-arch=") ||
                                          startsWith(Arg, "--offload-arch=");
                                 }),
                  Command.end());

  if (Options.PrintCommand)
    std::fprintf(stderr, "%s\n", commandLine(Command).c_str());
  std::fflush(nullptr);
  std::vector<char *> CArgv;
  for (std::string &Arg : Command)
    CArgv.push_back(Arg.data());
  CArgv.push_back(nullptr);
  ::execv(CArgv[0], CArgv.data());
  fatal("cannot run " + Clang.string() + ": " + std::strerror(errno));
}
