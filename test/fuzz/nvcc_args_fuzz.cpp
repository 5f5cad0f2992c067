//===- test/fuzz/nvcc_args_fuzz.cpp - libFuzzer: kosan-nvcc's command line -===//
//
// Drives kosan::nvcc::planCommand, the whole of kosan-nvcc's argument
// handling, with command lines and in-memory response files
// (driver_fuzz_input.h), and checks what every answer must hold: an error
// is one line without control characters; a plan's commands each name a
// program and hold no NUL; the kosan-clang++ command is the one given; the
// temporary objects lie in the temporary directory; -o's file is written by
// a command; "-o OUT" first, with no later output option, plans OUT.
//
//===----------------------------------------------------------------------===//
#include "driver_fuzz_input.h"

#include "nvcc_plan.h"

#include <string>
#include <vector>

using namespace kosan::fuzz;

namespace {

constexpr const char *KosanClang = "/opt/kosan/bin/kosan-clang++";
constexpr const char *TempDir = "/tmp/kosan-nvcc.fuzz";

bool startsWith(std::string_view S, std::string_view Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

/// Whether \p Arg may name an output or read options from a file, so that
/// "-o OUT" first need not decide the output.
bool mayChangeOutput(std::string_view Arg) {
  if (startsWith(Arg, "@") || Arg.find("optf") != std::string_view::npos ||
      Arg.find("options-file") != std::string_view::npos)
    return true;
  std::string_view Name = Arg;
  if (startsWith(Name, "--"))
    Name.remove_prefix(2);
  else if (startsWith(Name, "-"))
    Name.remove_prefix(1);
  else
    return false;
  return Name == "o" || startsWith(Name, "o=") || startsWith(Name, "output-file");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  DriverInput In = splitInput(Data, Size);
  kosan::nvcc::Environment Env;
  Env.KosanClang = KosanClang;
  if (In.Flags & 2)
    Env.CudaPathVariable = "/opt/cuda";
  Env.ReadFile = [&In](const std::string &Name) { return In.read(Name); };
  Env.IsDirectory = [](const std::string &Path) {
    return Path == "/usr/local/cuda" || Path == "/opt/cuda" || Path == "/opt/gcc";
  };
  Env.TemporaryDirectory = [] { return std::string(TempDir); };

  kosan::nvcc::PlanResult R = kosan::nvcc::planCommand(In.Args, Env);
  if (!R.Error.empty()) {
    checkOneLine("error", R.Error);
    return 0;
  }
  const kosan::nvcc::Plan &P = R.P;
  for (const std::string &Note : P.Notes)
    checkOneLine("note", Note);
  if (P.PrintHelp || P.PrintVersion)
    return 0;
  for (const std::vector<std::string> &Compile : P.HostCompiles)
    checkCommand("host compile", Compile);
  if (P.KosanCommand) {
    checkCommand("kosan-clang++ command", *P.KosanCommand);
    if (P.KosanCommand->front() != KosanClang)
      fail("kosan-clang++ command", P.KosanCommand->front());
  } else if (P.HostCompiles.empty()) {
    fail("plan", "nothing to run");
  }
  for (const std::string &Object : P.TemporaryObjects)
    if (!startsWith(Object, std::string(TempDir) + "/"))
      fail("temporary object outside the temporary directory", Object);

  if (P.Output) {
    bool Written = P.KosanCommand && writes(*P.KosanCommand, *P.Output);
    for (const std::vector<std::string> &Compile : P.HostCompiles)
      Written |= writes(Compile, *P.Output);
    if (!Written)
      fail("-o's file is written by no command", *P.Output);
  }
  if (In.Flags & 1) {
    bool Free = true;
    for (size_t I = 2; I < In.Args.size(); ++I)
      Free &= !mayChangeOutput(In.Args[I]);
    if (Free && P.Output != std::string(FuzzOutput))
      fail("-o fuzz-out.o planned another output", P.Output.value_or("(none)"));
  }
  return 0;
}
