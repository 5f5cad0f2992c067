//===- kosan-nvcc/main.cpp - An nvcc command line, built with kosan -------===//
//
// nvcc has no plugin interface (its device compiler is closed), so builds
// that call nvcc (torch.utils.cpp_extension, CMake, Makefiles) get kosan by
// calling kosan-nvcc instead. It translates an nvcc command line into a
// kosan-clang++ command line for the CUDA sources, objects and the link, and
// runs kosan-clang++, found beside it (<prefix>/bin), which adds the plugin,
// the runtime and the CUDA compatibility layer (docs/driver.md). C and C++
// sources go to the host compiler first (gcc, or -ccbin's), as nvcc gives
// them, since they hold no device code and may rely on the host compiler's
// dialect (implicit int, <omp.h>); at a link their objects are temporaries
// that kosan-clang++ links.
//
// The translation of the command line is nvcc_plan.cpp's (an option table
// from which parsing and --help are derived); this file finds what it needs
// on the machine, prints and runs what it planned. An option kosan-nvcc
// cannot honour is an error naming it ("kosan-nvcc: error: ...", exit
// status 1), never a silent drop that would change what is built.
//
//===----------------------------------------------------------------------===//

#include "nvcc_plan.h"

#include "common/driver_util.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace {

using namespace kosan::cli;

constexpr const char *ToolName = "kosan-nvcc";

[[noreturn]] void fatal(const std::string &Message) {
  std::fprintf(stderr, "%s: error: %s\n", ToolName, Message.c_str());
  std::exit(1);
}

void note(const std::string &Message) {
  std::fprintf(stderr, "%s: note: %s\n", ToolName, Message.c_str());
}

fs::path selfPath() {
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    fatal("cannot locate this executable through /proc/self/exe: " +
          EC.message());
  return Self;
}


/// Runs \p Command (searching PATH for a bare name, as nvcc runs gcc) and
/// returns its exit status, 128 + the signal that ended it, or 127 if it
/// could not start.
int runCommand(const std::vector<std::string> &Command) {
  std::fflush(nullptr);
  std::vector<char *> CArgv;
  for (const std::string &Arg : Command)
    CArgv.push_back(const_cast<char *>(Arg.c_str()));
  CArgv.push_back(nullptr);
  pid_t Pid;
  if (int Error = ::posix_spawnp(&Pid, CArgv[0], nullptr, nullptr,
                                 CArgv.data(), environ)) {
    std::fprintf(stderr, "%s: error: cannot run %s: %s\n", ToolName,
                 CArgv[0], std::strerror(Error));
    return 127;
  }
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

[[noreturn]] void execKosanClang(std::vector<std::string> Command) {
  std::fflush(nullptr);
  std::vector<char *> CArgv;
  for (std::string &Arg : Command)
    CArgv.push_back(Arg.data());
  CArgv.push_back(nullptr);
  ::execv(CArgv[0], CArgv.data());
  fatal("cannot run " + Command.front() + ": " + std::strerror(errno) +
        (std::getenv("KOSAN_CLANGXX") ? " (from KOSAN_CLANGXX)"
                                      : "; build kosan-clang++ first"));
}

//===----------------------------------------------------------------------===//
// --version and --help
//===----------------------------------------------------------------------===//

/// nvcc's own banner when the toolkit has an nvcc that is not this program;
/// otherwise one in its words from version.json (torch reads "release X.Y").
void printVersion(const std::optional<fs::path> &Cuda) {
  if (!Cuda)
    fatal("no CUDA toolkit to take the version from (looked at "
          "--cuda-path=, $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)");
  fs::path Nvcc = *Cuda / "bin" / "nvcc";
  std::error_code EC;
  fs::path RealNvcc = fs::canonical(Nvcc, EC);
  if (!EC && RealNvcc != fs::canonical(selfPath(), EC) &&
      ::access(Nvcc.c_str(), X_OK) == 0) {
    std::fflush(nullptr);
    execl(Nvcc.c_str(), Nvcc.c_str(), "--version", static_cast<char *>(nullptr));
  }

  std::string Release, Build;
  if (std::optional<std::string> Json = readFile(*Cuda / "version.json")) {
    static const std::regex CudaRe(
        R"re("cuda"\s*:\s*\{[^}]*"version"\s*:\s*"(\d+)\.(\d+)(\.\d+)?")re");
    static const std::regex NvccRe(
        R"re("cuda_nvcc"\s*:\s*\{[^}]*"version"\s*:\s*"([\d.]+)")re");
    std::smatch Match;
    if (std::regex_search(*Json, Match, CudaRe)) {
      Release = Match[1].str() + "." + Match[2].str();
      Build = Release + (Match[3].matched ? Match[3].str() : ".0");
    }
    if (std::regex_search(*Json, Match, NvccRe))
      Build = Match[1];
  }
  if (Release.empty())
    if (std::optional<std::string> Header = readFile(*Cuda / "include/cuda.h")) {
      static const std::regex HeaderRe(R"(#define\s+CUDA_VERSION\s+(\d+))");
      std::smatch Match;
      if (std::regex_search(*Header, Match, HeaderRe)) {
        int Encoded = std::stoi(Match[1]);
        Release = std::to_string(Encoded / 1000) + "." +
                  std::to_string(Encoded % 1000 / 10);
        Build = Release + ".0";
      }
    }
  if (Release.empty())
    fatal("cannot tell the version of the CUDA toolkit at " + Cuda->string() +
          " (no bin/nvcc, no version.json, no CUDA_VERSION in include/cuda.h)");
  std::printf("nvcc: NVIDIA (R) Cuda compiler driver\n"
              "kosan-nvcc: compiles through kosan-clang++ (clang 19) against "
              "the toolkit at %s\n"
              "Cuda compilation tools, release %s, V%s\n",
              Cuda->c_str(), Release.c_str(), Build.c_str());
  std::exit(0);
}

void printHelp() {
  std::printf(
      "OVERVIEW: nvcc's command line, compiled with kosan instrumentation\n\n"
      "USAGE: kosan-nvcc [nvcc options] <inputs>\n\n"
      "Translates the nvcc command line into a kosan-clang++ command and runs\n"
      "it (see docs/driver.md). Options may be written with one or two\n"
      "dashes, their values after '=' or as the next argument; @file and\n"
      "--options-file read further options from a file. An option not listed\n"
      "here is an error, unless -forward-unknown-to-host-compiler is given.\n\n"
      "OPTIONS:\n");
  std::printf("%s", kosan::nvcc::optionsHelp().c_str());
  std::printf("\nENVIRONMENT:\n"
              "  KOSAN_CLANGXX   the kosan-clang++ to run (default: the one "
              "beside kosan-nvcc)\n"
              "  and kosan-clang++'s: KOSAN_CLANG, KOSAN_CUDA_ARCH, "
              "XDG_CACHE_HOME\n");
}

fs::path findKosanClang() {
  if (const char *Env = std::getenv("KOSAN_CLANGXX"); Env && *Env)
    return Env;
  return selfPath().parent_path() / "kosan-clang++";
}


/// The directory, made on first use, for the objects of host sources at a
/// link. A static, so that it is removed however kosan-nvcc ends short of a
/// signal (a return from main, or exit() after an error), as nvcc removes
/// its tmpxft files.
std::string temporaryDirectory() {
  static TempDir Dir("kosan-nvcc");
  if (!Dir.Error.empty())
    throw DriverError(Dir.Error);
  return Dir.Path.string();
}

kosan::nvcc::Environment machineEnvironment() {
  kosan::nvcc::Environment Env;
  Env.KosanClang = findKosanClang().string();
  for (const char *Name : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *Value = std::getenv(Name); Value && *Value) {
      Env.CudaPathVariable = Value;
      break;
    }
  Env.ReadFile = [](const std::string &Path) { return readFile(Path); };
  Env.IsDirectory = [](const std::string &Path) {
    std::error_code EC;
    return fs::is_directory(Path, EC);
  };
  Env.TemporaryDirectory = temporaryDirectory;
  return Env;
}

} // namespace

int main(int Argc, char **Argv) {
  kosan::nvcc::PlanResult Planned = kosan::nvcc::planCommand(
      std::vector<std::string>(Argv + 1, Argv + Argc), machineEnvironment());
  if (!Planned.Error.empty())
    fatal(Planned.Error);
  kosan::nvcc::Plan &P = Planned.P;
  if (P.PrintHelp) {
    printHelp();
    return 0;
  }
  if (P.PrintVersion)
    printVersion(P.CudaRoot);
  for (const std::string &Note : P.Notes)
    note(Note);

  // --dryrun and -v print the host compiler's commands as nvcc prints its
  // steps; --kosan-print-command as kosan-clang++ prints its own.
  for (const std::vector<std::string> &Compile : P.HostCompiles) {
    if (P.DryRun || P.Verbose)
      std::fprintf(stderr, "#$ %s\n", commandLine(Compile).c_str());
    else if (P.PrintCommands)
      std::fprintf(stderr, "%s\n", commandLine(Compile).c_str());
    if (!P.DryRun)
      if (int Status = runCommand(Compile))
        return Status;
  }
  // clang -### still wants the inputs of the link to exist, which the host
  // compiler has not written under --dryrun or -###.
  if (P.DryRun || P.ClangDryRun)
    for (const std::string &Object : P.TemporaryObjects)
      std::ofstream{Object};
  if (!P.KosanCommand)
    return 0;
  if (P.DryRun) {
    std::vector<std::string> Shown = *P.KosanCommand;
    Shown.erase(std::find(Shown.begin(), Shown.end(), "-###"));
    std::fprintf(stderr, "#$ %s\n", commandLine(Shown).c_str());
  }
  // Nothing to remove afterwards: kosan-clang++ takes this process over.
  if (P.TemporaryObjects.empty())
    execKosanClang(std::move(*P.KosanCommand));
  return runCommand(*P.KosanCommand);
}
