//===- test/fuzz/clang_args_fuzz.cpp - libFuzzer: kosan-clang++'s command line -===//
//
// Drives kosan::clangxx::parseCommand and planBuild, the whole of
// kosan-clang++'s argument handling, with command lines and in-memory
// response files (driver_fuzz_input.h) in several environments (CUDA 12 or
// 13, kosan's plugin present or not, objects with relocatable device code
// or not), and checks what every answer must hold: an error is one line
// without control characters; every planned command names a program and
// holds no NUL; a build in one command runs clang with the user's
// arguments in order; a build in steps device-links for some architecture
// and links the device link's object; "-o OUT" first, with no later output
// option, makes the build write OUT.
//
//===----------------------------------------------------------------------===//
#include "driver_fuzz_input.h"

#include "clang_plan.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace kosan::fuzz;

namespace {

constexpr const char *Clang = "/usr/lib/llvm-19/bin/clang++";
constexpr const char *CudaRoot = "/usr/local/cuda";
constexpr const char *Shim = "/home/u/.cache/kosan/cuda-shim-0123456789abcdef";
constexpr const char *Plugin = "/opt/kosan/lib/libkosan.so";
constexpr const char *Runtime = "/opt/kosan/lib/libkosan_rt.so";
constexpr const char *CompatInclude = "/opt/kosan/share/kosan/include";
constexpr const char *TempDir = "/tmp/kosan-rdc.fuzz";

bool startsWith(std::string_view S, std::string_view Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

/// Whether \p Arg may name an output or read arguments from a file.
bool mayChangeOutput(std::string_view Arg) {
  return startsWith(Arg, "@") || startsWith(Arg, "-o") || startsWith(Arg, "--o");
}

bool isArchOption(const std::string &Arg) {
  return startsWith(Arg, "--cuda-gpu-arch=") || startsWith(Arg, "--offload-arch=");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  DriverInput In = splitInput(Data, Size);
  auto ReadFile = [&In](const std::string &Name) { return In.read(Name); };
  kosan::clangxx::ParseResult Parsed = kosan::clangxx::parseCommand(In.Args, ReadFile);
  if (!Parsed.Error.empty()) {
    checkOneLine("error", Parsed.Error);
    return 0;
  }
  if (Parsed.Command.Options.Help)
    return 0;

  kosan::clangxx::Environment Env;
  Env.Clang = Clang;
  Env.CudaRoot = CudaRoot;
  Env.CudaMajor = In.Flags & 2 ? 12 : 13;
  Env.ClangCudaPath = [&Env] {
    return std::string(Env.CudaMajor >= kosan::clangxx::ShimCudaMajor ? Shim : CudaRoot);
  };
  Env.Plugin = Plugin;
  Env.Runtime = Runtime;
  Env.CompatInclude = CompatInclude;
  bool KosanBuilt = !(In.Flags & 4);
  Env.IsFile = [KosanBuilt](const std::string &Path) {
    return KosanBuilt && (Path == Plugin || Path == Runtime ||
                          Path == std::string(CompatInclude) + "/kosan_cuda_compat.h");
  };
  Env.IsDirectory = [](const std::string &Path) {
    return Path == std::string(CudaRoot) + "/include/cccl";
  };
  Env.ReadFile = ReadFile;
  bool AllRdc = In.Flags & 8;
  Env.HasRelocatableDeviceCode = [AllRdc](const std::string &Path) {
    return AllRdc || Path.find("rdc") != std::string::npos;
  };
  Env.DefaultGpuArchs = [] { return std::vector<std::string>{"sm_90"}; };
  Env.TemporaryDirectory = [] { return std::string(TempDir); };

  kosan::clangxx::PlanResult R = kosan::clangxx::planBuild(Parsed.Command, Env);
  if (!R.Error.empty()) {
    checkOneLine("error", R.Error);
    return 0;
  }
  const kosan::clangxx::Plan &P = R.P;
  const kosan::clangxx::DriverOptions &Options = Parsed.Command.Options;
  for (const std::vector<std::string> &Compile : P.Compiles) {
    checkCommand("compile", Compile);
    if (Compile.front() != Clang)
      fail("compile", Compile.front());
  }
  if (P.Final) {
    checkCommand("clang command", *P.Final);
    if (P.Final->front() != Clang)
      fail("clang command", P.Final->front());
  } else if (!(Options.DeviceLinkOnly && P.DeviceLink)) {
    fail("plan", "no clang command");
  }
  if (P.DeviceLink) {
    if (P.DeviceLink->Nvlinks.empty())
      fail("device link", "no nvlink command");
    for (const std::vector<std::string> &Nvlink : P.DeviceLink->Nvlinks)
      checkCommand("nvlink", Nvlink);
    checkCommand("fatbinary", P.DeviceLink->Fatbinary);
    checkCommand("link stub", P.DeviceLink->Stub);
    if (!writes(P.DeviceLink->Stub, P.DeviceLink->Output))
      fail("link stub does not write the device link's object", P.DeviceLink->Output);
    if (P.FinalNeedsDeviceLink &&
        (!P.Final || std::find(P.Final->begin(), P.Final->end(), P.DeviceLink->Output) ==
                         P.Final->end()))
      fail("the link lacks the device link's object", P.DeviceLink->Output);
  } else if (!P.Compiles.empty() || P.FinalNeedsDeviceLink) {
    fail("plan", "steps without a device link");
  }

  // One command: the user's arguments in order (less the architectures when
  // nothing is compiled for a GPU).
  bool OneCommand = P.Compiles.empty() && !P.DeviceLink;
  if (OneCommand) {
    std::vector<std::string> User = Options.ClangArgs;
    if (!Parsed.Command.Facts.CompilesCuda)
      User.erase(std::remove_if(User.begin(), User.end(), isArchOption), User.end());
    if (std::search(P.Final->begin(), P.Final->end(), User.begin(), User.end()) ==
        P.Final->end())
      fail("clang command", "the user's arguments are not in it, in order");
  }
  if (In.Flags & 1) {
    bool Free = true;
    for (size_t I = 2; I < In.Args.size(); ++I)
      Free &= !mayChangeOutput(In.Args[I]);
    if (Free) {
      bool Written = P.Final ? writes(*P.Final, FuzzOutput)
                             : P.DeviceLink && P.DeviceLink->Output == FuzzOutput;
      if (!Written)
        fail("-o fuzz-out.o", "the build does not write it");
    }
  }
  return 0;
}
