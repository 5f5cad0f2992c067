//===- kosan-clang++/clang_plan.cpp - A command line as commands to run ---===//
//
// The driver passes the user's arguments to clang in order and adds what a
// kosan build needs: the kosan plugin and its check selection, the kosan
// runtime and the static CUDA runtime at link time, and a compatibility
// layer that lets clang 19 build against CUDA 12 and 13 the way nvcc does
// (see docs/driver.md). Relocatable device code at a link is built in
// steps, as nvcc builds it.
//
//===----------------------------------------------------------------------===//

#include "clang_plan.h"

#include "common/driver_util.h"
#include "common/response_file.h"
#include "kosan/checks.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace kosan::clangxx {
namespace {

using namespace kosan::cli;

// Response files may name further response files; clang stops at 20 too.
constexpr int MaxResponseFileDepth = 20;

[[noreturn]] void fatal(const std::string &Message) { throw DriverError(Message); }

DriverOptions parseDriverOptions(const std::vector<std::string> &Args) {
  DriverOptions Options;
  for (const std::string &Whole : Args) {
    std::string_view Arg = Whole;
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
    else if (Arg == "--kosan-defer-clones=0" || Arg == "--kosan-defer-clones=1" ||
             Arg == "--kosan-defer-clones=ptx")
      Options.DeferClones = std::string(Arg.substr(std::strlen("--kosan-defer-clones=")));
    else if (startsWith(Arg, "--kosan-mutate=")) {
      std::string Id(Arg.substr(std::strlen("--kosan-mutate=")));
      if (Id.size() != 12 ||
          Id.find_first_not_of("0123456789abcdef") != std::string::npos)
        fatal("--kosan-mutate=" + Id +
              ": a mutant id is 12 lowercase hex digits, as `kosan-mutate list` prints them");
      Options.Mutate = Id;
    } else if (startsWith(Arg, "--kosan-mutate-list="))
      Options.MutateList = std::string(Arg.substr(std::strlen("--kosan-mutate-list=")));
    else if (startsWith(Arg, "--kosan-"))
      fatal("unknown option '" + std::string(Arg) + "' (see --kosan-help)");
    else
      Options.ClangArgs.emplace_back(Arg);
  }

  for (const std::string &Check : split(Options.Checks, ',')) {
    bool Known = Check == "all" || Check == "none" ||
                 std::any_of(std::begin(kCheckNames), std::end(kCheckNames),
                             [&](const CheckName &C) { return C.name == Check; });
    if (!Known)
      fatal("unknown check '" + Check + "' in --kosan-checks= (known checks: " +
            checkNameList(false) + ")");
  }
  if (Options.Plain && Options.ChecksGiven)
    fatal("--kosan-plain builds without checks and cannot be combined with " +
          *Options.ChecksGiven + "; give one of them");
  return Options;
}

/// The arguments with @file response files expanded: what clang will see.
/// Used only to inspect the command; clang still reads the files itself.
void expandResponseFiles(const std::vector<std::string> &Args, int Depth,
                         const FileReader &ReadFile,
                         std::vector<std::string> &Expanded) {
  for (const std::string &Arg : Args) {
    std::optional<std::string> Contents;
    if (Depth < MaxResponseFileDepth && startsWith(Arg, "@"))
      Contents = ReadFile(Arg.substr(1));
    // A NUL would end the argument it is in when a command runs.
    if (Contents && Contents->find('\0') != std::string::npos)
      fatal("the response file '" + Arg.substr(1) + "' holds a NUL byte: it must be text");
    if (Contents)
      expandResponseFiles(splitGnuArguments(*Contents), Depth + 1, ReadFile, Expanded);
    else
      Expanded.push_back(Arg);
  }
}

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

CommandFacts inspectCommand(const std::vector<std::string> &ClangArgs,
                            const FileReader &ReadFile) {
  std::vector<std::string> Args;
  expandResponseFiles(ClangArgs, 0, ReadFile, Args);

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
    if (Arg == "-S" || Arg == "-E" || Arg == "-emit-llvm")
      Facts.EmitsText = true;
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
    Facts.Refusal = "kosan-clang++ builds CUDA only; build HIP with "
                    "kosan-hipcc (saw '" +
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

/// The device link of \p Objects for \p Archs (sm_XX) into the host object
/// \p Output, its intermediate files in \p Dir.
DeviceLinkPlan planDeviceLink(const std::vector<std::string> &Objects,
                              const std::vector<std::string> &Archs,
                              const std::string &Output, const Environment &Env,
                              const fs::path &Dir, bool Always) {
  fs::path Cuda = Env.CudaRoot;
  DeviceLinkPlan Link;
  Link.RegisterFile = (Dir / "dlink.reg.c").string();
  Link.Output = Output;
  Link.Always = Always;
  fs::path Fatbin = Dir / "dlink.fatbin.c";
  Link.Fatbinary = {(Cuda / "bin" / "fatbinary").string(), "-64", "-link",
                    "--embedded-fatbin=" + Fatbin.string()};
  std::vector<std::string> Seen;
  for (const std::string &Arch : Archs) {
    if (!startsWith(Arch, "sm_") ||
        std::find(Seen.begin(), Seen.end(), Arch) != Seen.end())
      continue;
    Seen.push_back(Arch);
    fs::path Cubin = Dir / ("dlink." + Arch + ".cubin");
    std::vector<std::string> Nvlink = {
        (Cuda / "bin" / "nvlink").string(), "-m64", "--arch=" + Arch,
        "--register-link-binaries=" + Link.RegisterFile,
        "-L" + (Cuda / "lib64").string(), "-cpu-arch=X86_64"};
    Nvlink.insert(Nvlink.end(), Objects.begin(), Objects.end());
    Nvlink.insert(Nvlink.end(), {"-lcudadevrt", "-o", Cubin.string()});
    Link.Nvlinks.push_back(std::move(Nvlink));
    std::string Sm = Arch.substr(3);
    // CUDA 13's fatbinary knows only --image3 (see the CUDA shim).
    Link.Fatbinary.push_back(Env.CudaMajor >= ShimCudaMajor
                                 ? "--image3=kind=elf,sm=" + Sm + ",file=" + Cubin.string()
                                 : "--image=profile=" + Arch + ",file=" + Cubin.string());
  }
  if (Seen.empty())
    fatal("no GPU architecture to link device code for (--cuda-gpu-arch=sm_XX)");
  Link.Stub = {
      Env.Clang, "-c", "-x", "c++", "-fPIC", "-w",
      "-DFATBINFILE=\"" + Fatbin.string() + "\"",
      "-DREGISTERLINKBINARYFILE=\"" + Link.RegisterFile + "\"",
      "-D__NV_EXTRA_INITIALIZATION=", "-D__NV_EXTRA_FINALIZATION=",
      "-D__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__",
      "-I" + (Cuda / "include").string(),
      (Cuda / "bin" / "crt" / "link.stub").string(), "-o", Output};
  return Link;
}

/// Relocatable device code at a link, and --kosan-dlink: compiles each
/// source alone, device-links every object that holds relocatable device
/// code and links the program with the device link's object. Returns false
/// when the link needs no device link (one clang command does it all).
bool planInSteps(const DriverOptions &Options, const CommandFacts &Facts,
                 const std::vector<std::string> &Prefix,
                 const std::vector<std::string> &LinkTail, const Environment &Env,
                 Plan &P) {
  std::vector<std::string> Args;
  expandResponseFiles(Options.ClangArgs, 0, Env.ReadFile, Args);
  SplitCommand Split = splitCommand(Args);
  bool HasSources = std::any_of(Split.Inputs.begin(), Split.Inputs.end(),
                                [](const SplitCommand::Input &In) { return In.Source; });
  bool RdcObjects = std::any_of(
      Split.Inputs.begin(), Split.Inputs.end(), [&Env](const SplitCommand::Input &In) {
        return !In.Source && Env.HasRelocatableDeviceCode(In.Path);
      });
  if (Options.DeviceLinkOnly) {
    if (HasSources)
      fatal("--kosan-dlink links objects; compile the sources first (-c "
            "-fgpu-rdc)");
  } else if (!(Facts.Rdc && HasSources) && !RdcObjects) {
    return false;
  }
  if (Split.Archs.empty())
    Split.Archs = Env.DefaultGpuArchs();

  fs::path Temp = Env.TemporaryDirectory();
  std::vector<std::string> Objects;
  for (size_t I = 0; I < Split.Inputs.size(); ++I) {
    const SplitCommand::Input &In = Split.Inputs[I];
    if (!In.Source) {
      Objects.push_back(In.Path);
      continue;
    }
    std::string Object =
        (Temp / (std::to_string(I) + "-" + fs::path(In.Path).stem().string() + ".o"))
            .string();
    std::vector<std::string> Compile = Prefix;
    Compile.insert(Compile.end(), Split.CompileOptions.begin(), Split.CompileOptions.end());
    Compile.insert(Compile.end(), {"-c", "-x", In.Language, In.Path, "-o", Object});
    P.Compiles.push_back(std::move(Compile));
    Objects.push_back(Object);
  }

  std::vector<std::string> DeviceObjects;
  for (const std::string &Object : Objects)
    if (fs::path(Object).extension() != ".so" && Object.find(".so.") == std::string::npos)
      DeviceObjects.push_back(Object);
  if (Options.DeviceLinkOnly) {
    P.DeviceLink = planDeviceLink(DeviceObjects, Split.Archs,
                                  Split.Output.value_or("a_dlink.o"), Env, Temp,
                                  /*Always=*/true);
    return true;
  }
  std::string DeviceLinked = (Temp / "dlink.o").string();
  P.DeviceLink = planDeviceLink(DeviceObjects, Split.Archs, DeviceLinked, Env, Temp,
                                /*Always=*/false);
  // Objects first, then the options: the sources became objects, and no
  // -x may apply to them.
  // The compile options came along: each source's compile used them.
  std::vector<std::string> Link = Prefix;
  Link.push_back("-Wno-unused-command-line-argument");
  Link.insert(Link.end(), Objects.begin(), Objects.end());
  Link.push_back(DeviceLinked);
  Link.insert(Link.end(), Split.LinkOptions.begin(), Split.LinkOptions.end());
  if (Split.Output)
    Link.insert(Link.end(), {"-o", *Split.Output});
  Link.insert(Link.end(), LinkTail.begin(), LinkTail.end());
  P.Final = std::move(Link);
  P.FinalNeedsDeviceLink = true;
  return true;
}

void planCommands(const DriverOptions &Options, const CommandFacts &Facts,
                  const Environment &Env, Plan &P) {
  P.PrintCommands = Options.PrintCommand;
  // -### only prints commands, so it works before kosan is fully built.
  bool Instrument = !Options.Plain;
  if (!Facts.DryRun) {
    if (!Env.IsFile(Env.Plugin))
      fatal("kosan plugin not found at " + Env.Plugin +
            "; build kosan first (see README)");
    if (Instrument && Facts.links() && !Env.IsFile(Env.Runtime))
      fatal("kosan runtime not found at " + Env.Runtime +
            "; build kosan first (see README)");
  }
  if (!Env.IsFile((fs::path(Env.CompatInclude) / "kosan_cuda_compat.h").string()))
    fatal("kosan compatibility headers not found at " + Env.CompatInclude +
          "; build kosan first (see README)");

  std::vector<std::string> Command = {Env.Clang};
  auto Add = [&Command](std::initializer_list<std::string> Args) {
    Command.insert(Command.end(), Args);
  };
  // Only a CUDA compile uses it; clang warns about it anywhere else.
  if (Facts.CompilesCuda)
    Add({"--cuda-path=" + Env.ClangCudaPath()});
  Add({"-Wno-unknown-cuda-version", "-isystem", Env.CompatInclude});
  // CUDA 13 keeps thrust, cub and libcu++ here, and nvcc adds it by itself.
  fs::path Cccl = fs::path(Env.CudaRoot) / "include" / "cccl";
  if (Env.IsDirectory(Cccl.string()))
    Add({"-isystem", Cccl.string()});
  Add({"-include", "kosan_cuda_compat.h"});
  if (Instrument)
    Add({"-D__KOSAN__"});
  // Plain builds load the plugin too, with no checks: its compatibility
  // pass (passes/compat/CudaCompat.cpp) makes device code compute what nvcc's does.
  Add({"-fplugin=" + Env.Plugin,
       "-fplugin-arg-kosan-checks=" + (Instrument ? Options.Checks : "none")});
  // Clones compiled at their first checked launch: not when the user reads
  // the device code clang writes (-S, -emit-llvm), where they stay in it.
  if (Instrument && Options.DeferClones != "0" && !Facts.EmitsText)
    Add({"-fplugin-arg-kosan-defer=" + Options.DeferClones});
  // Mutation analysis (docs/mutate.md), in plain builds too.
  if (Options.Mutate) {
    P.MutateReport = Facts.DryRun ? "mutants-applied"
                                  : (fs::path(Env.TemporaryDirectory()) / "mutants-applied").string();
    Add({"-fplugin-arg-kosan-mutate=" + *Options.Mutate,
         "-fplugin-arg-kosan-mutate-report=" + P.MutateReport});
  }
  if (Options.MutateList)
    Add({"-fplugin-arg-kosan-mutate-list=" + *Options.MutateList});
  // Reports name source lines; a user's own -g choice wins.
  if (!Facts.HasDebugOption)
    Add({"-gline-tables-only"});
  // Reports name kernel parameters by their IR names.
  Add({"-fno-discard-value-names"});
  if (Facts.CompilesCuda && !Facts.HasGpuArch)
    for (const std::string &Arch : Env.DefaultGpuArchs())
      Add({"--cuda-gpu-arch=" + Arch});
  const std::vector<std::string> Prefix = Command;
  Command.insert(Command.end(), Options.ClangArgs.begin(), Options.ClangArgs.end());
  size_t TailAt = Command.size();
  // After the user's objects and libraries, which reference them.
  if (Facts.links()) {
    // No kosan runtime here: instrumented objects carry a loader that
    // finds libkosan_rt.so when the program runs (runtime/host/core/loader.cpp).
    Add({"-L" + (fs::path(Env.CudaRoot) / "lib64").string()});
    if (!Facts.LinksCudart)
      Add({"-lcudart_static", "-ldl", "-lrt", "-lpthread"});
  }

  if (Options.DeviceLinkOnly || (Facts.links() && !Facts.DryRun)) {
    std::vector<std::string> Tail(Command.begin() + TailAt, Command.end());
    if (planInSteps(Options, Facts, Prefix, Tail, Env, P))
      return;
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
  P.Final = std::move(Command);
}

} // namespace

ParseResult parseCommand(const std::vector<std::string> &Args, const FileReader &ReadFile) {
  ParseResult R;
  try {
    R.Command.Options = parseDriverOptions(Args);
    if (R.Command.Options.Help)
      return R;
    R.Command.Facts = inspectCommand(R.Command.Options.ClangArgs, ReadFile);
    if (R.Command.Facts.Refusal)
      fatal(*R.Command.Facts.Refusal);
  } catch (const DriverError &Error) {
    R.Command = ParsedCommand();
    R.Error = escapeControl(Error.what());
  }
  return R;
}

PlanResult planBuild(const ParsedCommand &Command, const Environment &Env) {
  PlanResult R;
  try {
    planCommands(Command.Options, Command.Facts, Env, R.P);
  } catch (const DriverError &Error) {
    R.P = Plan();
    R.Error = escapeControl(Error.what());
  }
  return R;
}

} // namespace kosan::clangxx
