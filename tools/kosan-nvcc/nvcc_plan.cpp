//===- kosan-nvcc/nvcc_plan.cpp - An nvcc command line as commands to run -===//
//
// Every option kosan-nvcc knows is one row of NvccOptions below: its
// spellings, whether it takes a value, its help line and what it becomes.
// Parsing and --help are derived from that table. An option kosan-nvcc cannot
// honour is an error naming it, never a silent drop that would change what
// is built.
//
// The parser is written by hand rather than with CLI11: nvcc accepts every
// option with one or two dashes, values after '=' or as the next argument,
// some values joined to a short name (-DX, -I/p, -O3, -lm), comma-separated
// lists inside values, and its options are not positional (-x cu applies to
// every input, libraries go after the objects). CLI11 models none of that
// without fighting it.
//
//===----------------------------------------------------------------------===//

#include "nvcc_plan.h"

#include "common/driver_util.h"
#include "common/response_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace kosan::nvcc {
namespace {

using namespace kosan::cli;

// The newest GPU architecture clang 19 compiles for; kosan-clang++ makes the
// same choice for the GPUs it detects. A newer GPU runs the compute_90 PTX
// that clang embeds next to the sm_90 code.
constexpr int NewestClangSm = 90;
// -arch=all and -arch=all-major: the architectures both clang 19 and CUDA 13
// (which dropped everything before sm_75) compile for.
constexpr std::string_view AllArchs[] = {"sm_75", "sm_80", "sm_86",
                                         "sm_87", "sm_89", "sm_90"};
constexpr std::string_view AllMajorArchs[] = {"sm_80", "sm_90"};
// Response files may name further response files; clang stops at 20 too.
constexpr int MaxResponseFileDepth = 20;

[[noreturn]] void fatal(const std::string &Message) { throw DriverError(Message); }

//===----------------------------------------------------------------------===//
// The translation
//===----------------------------------------------------------------------===//

/// What the nvcc command line asks for, collected while parsing and turned
/// into the kosan-clang++ command at the end. nvcc's options are not
/// positional, so inputs and link libraries are kept apart from the other
/// options and placed as nvcc places them: options, inputs, linker options,
/// libraries.
/// Which host compilations an option for the host compiler reaches.
enum class HostUse {
  All,
  CxxOnly,       // -std=, as nvcc gives it to C++ sources only
  OwnOutputOnly, // dependency files: not for a temporary object
};

struct HostOption {
  std::string Arg;
  HostUse Use;
};

struct Translation {
  std::vector<std::string> Options;      // compile options, in order
  std::vector<HostOption> HostOptions;   // for the host compiler, in order
  std::vector<std::string> KosanOptions; // for kosan-clang++ itself
  std::vector<std::string> Inputs;       // as given
  std::vector<std::string> LinkerOptions;
  std::vector<std::string> Libraries;

  // -x: the language of every source input ("" = by file name).
  std::string Language;
  // GPU architectures: -arch, -code and -gencode values as given.
  std::vector<std::string> ArchValues;
  std::vector<std::string> CodeValues;
  std::vector<std::string> GencodeCodes;
  // nvcc's floating-point options; unset means the default.
  bool FastMath = false;
  std::optional<bool> Ftz, PrecDiv, PrecSqrt, Fmad;
  bool DeviceDebug = false; // -G
  bool DeviceOptimize = true;
  bool HostDebug = false; // -g
  bool LineInfo = false;
  bool StopsBeforeLink = false;
  bool DeviceLink = false; // -dlink
  std::optional<std::string> Cudart; // -cudart
  std::optional<std::string> CudaPath;
  std::optional<std::string> HostCompiler; // -ccbin
  std::optional<std::string> Output;       // -o
  bool DeviceOnly = false;                 // -ptx, -cubin
  bool Verbose = false;                    // -v
  bool ForwardUnknownToHost = false;
  bool ForwardUnknownToLinker = false;
  bool DryRun = false;
  bool PrintVersion = false;
  bool PrintHelp = false;
};

using Handler = void (*)(Translation &, std::string_view Value);

enum class Arity {
  Flag,   // -opt
  Value,  // -opt V, -opt=V, and for Joined also -optV
  Prefix, // every option that starts with the name, passed on whole
};

struct NvccOption {
  std::string_view Long;  // spelled --long (or -long)
  std::string_view Short; // spelled -short (or --short); may equal Long
  Arity Takes;
  bool Joined; // the value may follow -Short directly: -DX, -I/p, -O3
  std::string_view Help;
  Handler Handle;
};

void add(std::vector<std::string> &To, std::initializer_list<std::string> Args) {
  To.insert(To.end(), Args);
}

void addHost(Translation &T, std::initializer_list<std::string> Args,
             HostUse Use = HostUse::All) {
  for (const std::string &Arg : Args)
    T.HostOptions.push_back({Arg, Use});
}

/// An option that both clang (for CUDA sources) and the host compiler (for C
/// and C++ sources) are given, as nvcc gives it to every compilation.
void addBoth(Translation &T, std::initializer_list<std::string> Args,
             HostUse Use = HostUse::All) {
  add(T.Options, Args);
  addHost(T, Args, Use);
}

/// nvcc splits list values at commas and then hands each piece to the shell
/// command it builds for the host compiler, so a piece may carry quotes
/// ('-fPIC', as torch passes it) or several words.
std::vector<std::string> splitListValue(std::string_view Value) {
  std::vector<std::string> Items;
  for (const std::string &Piece : split(Value, ','))
    for (std::string &Word : kosan::cli::splitGnuArguments(Piece))
      Items.push_back(std::move(Word));
  return Items;
}

bool parseBool(std::string_view Option, std::string_view Value) {
  if (Value == "true" || Value == "1")
    return true;
  if (Value == "false" || Value == "0")
    return false;
  fatal("--" + std::string(Option) + " takes true or false, not '" +
        std::string(Value) + "'");
}

[[noreturn]] void refuse(std::string_view Option, std::string_view Why) {
  fatal(std::string(Option) + " is not supported: " + std::string(Why));
}

// clang-format off
#define NVCC_HANDLER(body) [](Translation &T, std::string_view V) { (void)T; (void)V; body; }
// clang-format on

const NvccOption NvccOptions[] = {
    // What to produce.
    {"compile", "c", Arity::Flag, false, "compile and assemble, do not link",
     NVCC_HANDLER(T.StopsBeforeLink = true; addBoth(T, {"-c"}))},
    {"output-file", "o", Arity::Value, false, "the output file",
     NVCC_HANDLER(if (V.empty()) fatal("-o names no file");
                  T.Output = std::string(V);
                  add(T.Options, {"-o", std::string(V)}))},
    {"shared", "shared", Arity::Flag, false, "link a shared library",
     NVCC_HANDLER(add(T.Options, {"-shared"}))},
    {"preprocess", "E", Arity::Flag, false, "preprocess only",
     NVCC_HANDLER(T.StopsBeforeLink = true; addBoth(T, {"-E"}))},
    {"ptx", "ptx", Arity::Flag, false,
     "device code as PTX (clang: --cuda-device-only -S; one architecture)",
     NVCC_HANDLER(T.StopsBeforeLink = true; T.DeviceOnly = true;
                  add(T.Options, {"--cuda-device-only", "-S"}))},
    {"cubin", "cubin", Arity::Flag, false,
     "device code as a cubin (clang: --cuda-device-only -c; one architecture)",
     NVCC_HANDLER(T.StopsBeforeLink = true; T.DeviceOnly = true;
                  add(T.Options, {"--cuda-device-only", "-c"}))},
    {"fatbin", "fatbin", Arity::Flag, false, "refused",
     NVCC_HANDLER(refuse("-fatbin", "clang writes fat binaries only inside "
                                    "objects; use -c"))},
    {"lib", "lib", Arity::Flag, false, "refused",
     NVCC_HANDLER(refuse("-lib", "build the objects with -c and archive "
                                 "them with ar"))},
    {"run", "run", Arity::Flag, false, "refused",
     NVCC_HANDLER(refuse("-run", "link the program, then run it"))},
    {"link", "link", Arity::Flag, false, "compile and link (the default)",
     NVCC_HANDLER()},
    {"x", "x", Arity::Value, false,
     "the language of every input: cu (clang: -x cuda), c++, c",
     NVCC_HANDLER(
         if (V == "cu") T.Language = "cuda";
         else if (V == "c++" || V == "c") T.Language = std::string(V);
         else fatal("-x " + std::string(V) +
                    " is not supported: kosan-nvcc compiles cu, c++ and c"))},

    // Dependency files (clang writes the host compilation's; the host
    // compiler those of C and C++ sources, except for temporary objects).
    {"generate-dependencies", "M", Arity::Flag, false,
     "print the dependencies", NVCC_HANDLER(T.StopsBeforeLink = true;
                                            addBoth(T, {"-M"}))},
    {"generate-nonsystem-dependencies", "MM", Arity::Flag, false,
     "print the non-system dependencies",
     NVCC_HANDLER(T.StopsBeforeLink = true; addBoth(T, {"-MM"}))},
    {"generate-dependencies-with-compile", "MD", Arity::Flag, false,
     "write a dependency file while compiling (clang: -MD)",
     NVCC_HANDLER(addBoth(T, {"-MD"}, HostUse::OwnOutputOnly))},
    {"generate-nonsystem-dependencies-with-compile", "MMD", Arity::Flag,
     false, "the same without system headers (clang: -MMD)",
     NVCC_HANDLER(addBoth(T, {"-MMD"}, HostUse::OwnOutputOnly))},
    {"dependency-output", "MF", Arity::Value, false,
     "the dependency file (clang: -MF)",
     NVCC_HANDLER(addBoth(T, {"-MF", std::string(V)},
                          HostUse::OwnOutputOnly))},
    {"dependency-target-name", "MT", Arity::Value, false,
     "the target named in the dependency file (clang: -MT)",
     NVCC_HANDLER(addBoth(T, {"-MT", std::string(V)},
                          HostUse::OwnOutputOnly))},

    // GPU architectures.
    {"gpu-architecture", "arch", Arity::Value, false,
     "sm_XX, compute_XX, native, all or all-major (clang: --cuda-gpu-arch=)",
     NVCC_HANDLER(for (std::string &A : split(V, ','))
                      T.ArchValues.push_back(std::move(A)))},
    {"gpu-code", "code", Arity::Value, false,
     "sm_XX or compute_XX list: the architectures compiled for",
     NVCC_HANDLER(for (std::string &C : splitListValue(V))
                      T.CodeValues.push_back(std::move(C)))},
    {"generate-code", "gencode", Arity::Value, false,
     "arch=compute_XX,code=[sm_XX,compute_XX]: each code compiled for",
     NVCC_HANDLER({
       // arch=A,code=C1  or  code=[C1,C2]  or  code="C1,C2"; either order.
       std::string Clean;
       for (char C : V)
         if (!std::strchr("[]\"'", C))
           Clean += C;
       bool InCode = false;
       for (const std::string &Field : split(Clean, ',')) {
         if (startsWith(Field, "arch=")) {
           InCode = false;
         } else if (startsWith(Field, "code=")) {
           InCode = true;
           T.GencodeCodes.push_back(Field.substr(5));
         } else if (InCode && !Field.empty()) {
           T.GencodeCodes.push_back(Field);
         } else if (!Field.empty()) {
           fatal("cannot read -gencode '" + std::string(V) +
                 "': expected arch=compute_XX,code=sm_XX");
         }
       }
     })},

    // Options for the host compiler, ptxas, the linker and fatbinary.
    {"compiler-options", "Xcompiler", Arity::Value, false,
     "host compiler options, comma-separated (given to the host compiler for "
     "C and C++ sources, to clang for CUDA sources)",
     NVCC_HANDLER(for (const std::string &O : splitListValue(V))
                      addBoth(T, {O}))},
    {"linker-options", "Xlinker", Arity::Value, false,
     "linker options, comma-separated (clang: -Xlinker)",
     NVCC_HANDLER(for (std::string &O : splitListValue(V))
                      add(T.LinkerOptions, {"-Xlinker", O}))},
    {"ptxas-options", "Xptxas", Arity::Value, false,
     "ptxas options, comma-separated (clang: -Xcuda-ptxas)",
     NVCC_HANDLER(for (std::string &O : splitListValue(V))
                      add(T.Options, {"-Xcuda-ptxas", O}))},
    {"fatbin-options", "Xfatbin", Arity::Value, false,
     "fatbinary options, comma-separated (clang: -Xcuda-fatbinary)",
     NVCC_HANDLER(for (std::string &O : splitListValue(V))
                      add(T.Options, {"-Xcuda-fatbinary", O}))},
    {"nvlink-options", "Xnvlink", Arity::Value, false, "refused",
     NVCC_HANDLER(refuse("-Xnvlink", "kosan-clang++ runs nvlink itself and "
                                     "takes no options for it"))},
    {"cudafe-options", "Xcudafe", Arity::Value, false,
     "accepted for its diagnostic options only (--diag_suppress=...), "
     "which clang does not have",
     NVCC_HANDLER(for (const std::string &O : splitListValue(V)) if (
         !startsWith(O, "--diag") && !startsWith(O, "--display_error_number"))
         refuse("-Xcudafe " + O,
                "cudafe is nvcc's front end; clang accepts none of its "
                "options but its diagnostic ones, which it ignores"))},
    {"compiler-bindir", "ccbin", Arity::Value, false,
     "the host compiler of C and C++ sources: a directory holding gcc, or "
     "a compiler (default: gcc); clang compiles CUDA sources",
     NVCC_HANDLER(if (V.empty()) fatal("-ccbin names no host compiler: give "
                                       "a compiler or a directory holding gcc");
                  T.HostCompiler = std::string(V))},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", Arity::Flag,
     false, "accepted and ignored", NVCC_HANDLER()},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler",
     Arity::Flag, false,
     "give options kosan-nvcc does not know to clang and the host compiler",
     NVCC_HANDLER(T.ForwardUnknownToHost = true)},
    {"forward-unknown-opts", "forward-unknown-opts", Arity::Flag, false,
     "the same", NVCC_HANDLER(T.ForwardUnknownToHost = true)},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker",
     Arity::Flag, false, "give options kosan-nvcc does not know to the linker",
     NVCC_HANDLER(T.ForwardUnknownToLinker = true)},

    // Language and code generation.
    {"std", "std", Arity::Value, false,
     "the C++ dialect (clang and the host compiler of C++ sources: -std=)",
     NVCC_HANDLER(addBoth(T, {"-std=" + std::string(V)}, HostUse::CxxOnly))},
    {"optimize", "O", Arity::Value, true, "host optimization level",
     NVCC_HANDLER(addBoth(T, {"-O" + std::string(V)}))},
    {"dopt", "dopt", Arity::Value, false,
     "device optimization, on (default: clang -Xarch_device -O3) or off",
     NVCC_HANDLER(if (V == "on") T.DeviceOptimize = true;
                  else if (V == "off") T.DeviceOptimize = false;
                  else fatal("-dopt takes on or off, not '" + std::string(V) +
                             "'"))},
    {"debug", "g", Arity::Flag, false, "host debug information (clang: -g)",
     NVCC_HANDLER(T.HostDebug = true; addBoth(T, {"-g"}))},
    {"device-debug", "G", Arity::Flag, false,
     "unoptimized device code with debug information (clang: "
     "--cuda-noopt-device-debug -Xarch_device -g)",
     NVCC_HANDLER(T.DeviceDebug = true)},
    {"generate-line-info", "lineinfo", Arity::Flag, false,
     "device line information (clang: -gline-tables-only)",
     NVCC_HANDLER(T.LineInfo = true)},
    {"use_fast_math", "use_fast_math", Arity::Flag, false,
     "-ftz=true -prec-div=false -prec-sqrt=false -fmad=true and fast "
     "intrinsics (clang: -fgpu-approx-transcendentals)",
     NVCC_HANDLER(T.FastMath = true)},
    {"ftz", "ftz", Arity::Value, false,
     "flush denormals to zero (clang: -fcuda-flush-denormals-to-zero)",
     NVCC_HANDLER(T.Ftz = parseBool("ftz", V))},
    {"prec-div", "prec-div", Arity::Value, false,
     "IEEE float division (false: -mllvm -nvptx-prec-divf32=1)",
     NVCC_HANDLER(T.PrecDiv = parseBool("prec-div", V))},
    {"prec-sqrt", "prec-sqrt", Arity::Value, false,
     "IEEE float square root (false: -mllvm -nvptx-prec-sqrtf32=0)",
     NVCC_HANDLER(T.PrecSqrt = parseBool("prec-sqrt", V))},
    {"fmad", "fmad", Arity::Value, false,
     "contract multiply and add (false: -Xarch_device -ffp-contract=off)",
     NVCC_HANDLER(T.Fmad = parseBool("fmad", V))},
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", Arity::Flag, false,
     "clang's default; defines __CUDACC_RELAXED_CONSTEXPR__ as nvcc does",
     NVCC_HANDLER(add(T.Options, {"-D__CUDACC_RELAXED_CONSTEXPR__"}))},
    {"extended-lambda", "extended-lambda", Arity::Flag, false,
     "clang's default; defines __CUDACC_EXTENDED_LAMBDA__ as nvcc does",
     NVCC_HANDLER(add(T.Options, {"-D__CUDACC_EXTENDED_LAMBDA__"}))},
    {"expt-extended-lambda", "expt-extended-lambda", Arity::Flag, false,
     "the same", NVCC_HANDLER(add(T.Options, {"-D__CUDACC_EXTENDED_LAMBDA__"}))},
    {"relocatable-device-code", "rdc", Arity::Value, false,
     "true: clang -fgpu-rdc",
     NVCC_HANDLER(add(T.Options, {parseBool("relocatable-device-code", V)
                                      ? "-fgpu-rdc"
                                      : "-fno-gpu-rdc"}))},
    {"device-c", "dc", Arity::Flag, false,
     "-c with relocatable device code (clang: -c -fgpu-rdc)",
     NVCC_HANDLER(T.StopsBeforeLink = true; addHost(T, {"-c"});
                  add(T.Options, {"-c", "-fgpu-rdc"}))},
    {"device-w", "dw", Arity::Flag, false,
     "-c without relocatable device code",
     NVCC_HANDLER(T.StopsBeforeLink = true; addHost(T, {"-c"});
                  add(T.Options, {"-c", "-fno-gpu-rdc"}))},
    {"device-link", "dlink", Arity::Flag, false,
     "link the objects' relocatable device code into one host object "
     "(kosan-clang++ --kosan-dlink: nvlink, fatbinary, crt/link.stub)",
     NVCC_HANDLER(T.DeviceLink = true;
                  T.KosanOptions.push_back("--kosan-dlink"))},
    {"cudadevrt", "cudadevrt", Arity::Value, false,
     "accepted and ignored (the device runtime of relocatable device code)",
     NVCC_HANDLER()},
    {"default-stream", "default-stream", Arity::Value, false,
     "legacy, null or per-thread (clang: -fgpu-default-stream=)",
     NVCC_HANDLER(
         if (V == "per-thread")
             add(T.Options, {"-fgpu-default-stream=per-thread"});
         else if (V == "legacy" || V == "null")
             add(T.Options, {"-fgpu-default-stream=legacy"});
         else fatal("--default-stream takes legacy, null or per-thread, not '" +
                    std::string(V) + "'"))},
    {"maxrregcount", "maxrregcount", Arity::Value, false,
     "registers per thread (clang: -Xcuda-ptxas --maxrregcount=N)",
     NVCC_HANDLER(add(T.Options,
                      {"-Xcuda-ptxas", "--maxrregcount=" + std::string(V)}))},
    {"resource-usage", "res-usage", Arity::Flag, false,
     "print each kernel's resources (clang: -Xcuda-ptxas -v)",
     NVCC_HANDLER(add(T.Options, {"-Xcuda-ptxas", "-v"}))},
    {"extra-device-vectorization", "extra-device-vectorization", Arity::Flag,
     false, "accepted and ignored (an optimization hint)", NVCC_HANDLER()},
    {"restrict", "restrict", Arity::Flag, false,
     "accepted and ignored (an optimization hint)", NVCC_HANDLER()},
    {"machine", "machine", Arity::Value, false, "64 only",
     NVCC_HANDLER(if (V != "64") refuse("--machine " + std::string(V),
                                        "kosan builds 64-bit code only"))},
    {"m64", "m64", Arity::Flag, false, "accepted (the default)",
     NVCC_HANDLER()},
    {"cudart", "cudart", Arity::Value, false,
     "static (default), shared (clang: -lcudart); none is refused when linking",
     NVCC_HANDLER(if (V != "static" && V != "shared" && V != "none")
                      fatal("-cudart takes static, shared or none, not '" +
                            std::string(V) + "'");
                  T.Cudart = std::string(V))},
    {"threads", "t", Arity::Value, false,
     "accepted and ignored (clang compiles the architectures in turn)",
     NVCC_HANDLER()},
    {"keep", "keep", Arity::Flag, false,
     "keep intermediate files (clang: -save-temps=obj)",
     NVCC_HANDLER(addBoth(T, {"-save-temps=obj"}))},
    {"save-temps", "save-temps", Arity::Flag, false, "the same",
     NVCC_HANDLER(addBoth(T, {"-save-temps=obj"}))},
    {"keep-dir", "keep-dir", Arity::Value, false,
     "accepted; clang keeps intermediate files beside the output",
     NVCC_HANDLER()},
    {"source-in-ptx", "src-in-ptx", Arity::Flag, false,
     "accepted and ignored", NVCC_HANDLER()},
    {"time", "time", Arity::Value, false, "accepted and ignored",
     NVCC_HANDLER()},
    {"verbose", "v", Arity::Flag, false,
     "print the commands (clang: -v; host compiler commands as #$ lines)",
     NVCC_HANDLER(T.Verbose = true; add(T.Options, {"-v"}))},
    {"###", "###", Arity::Flag, false,
     "print clang's and the host compiler's commands and run nothing (-###)",
     NVCC_HANDLER(addBoth(T, {"-###"}))},
    {"dryrun", "dryrun", Arity::Flag, false,
     "print the host compiler and kosan-clang++ commands and clang's "
     "commands, run nothing",
     NVCC_HANDLER(T.DryRun = true)},

    // Diagnostics.
    {"disable-warnings", "w", Arity::Flag, false, "no warnings (clang: -w)",
     NVCC_HANDLER(addBoth(T, {"-w"}))},
    {"Werror", "Werror", Arity::Value, false,
     "all-warnings (clang: -Werror), deprecated-declarations, reorder; "
     "nvcc-only kinds are accepted",
     NVCC_HANDLER(for (const std::string &Kind : split(V, ',')) {
       if (Kind == "all-warnings")
         addBoth(T, {"-Werror"});
       else if (Kind == "deprecated-declarations")
         addBoth(T, {"-Werror=" + Kind});
       else if (Kind == "reorder")
         addBoth(T, {"-Werror=" + Kind}, HostUse::CxxOnly);
       else if (Kind != "cross-execution-space-call" &&
                Kind != "default-stream-launch" &&
                Kind != "missing-launch-bounds" &&
                Kind != "ext-lambda-captures-this")
         fatal("unknown warning kind '" + Kind + "' in -Werror");
     })},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", Arity::Flag,
     false, "accepted (clang has no such warning)", NVCC_HANDLER()},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations",
     Arity::Flag, false, "clang: -Wno-deprecated-declarations",
     NVCC_HANDLER(addBoth(T, {"-Wno-deprecated-declarations"}))},
    {"Wreorder", "Wreorder", Arity::Flag, false, "clang: -Wreorder",
     NVCC_HANDLER(addBoth(T, {"-Wreorder"}, HostUse::CxxOnly))},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", Arity::Flag, false,
     "accepted (clang has no such warning)", NVCC_HANDLER()},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", Arity::Flag, false,
     "accepted (clang has no such warning)", NVCC_HANDLER()},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", Arity::Flag,
     false, "accepted (clang has no such warning)", NVCC_HANDLER()},
    {"diag-suppress", "diag-suppress", Arity::Value, false,
     "accepted; nvcc's warning numbers mean nothing to clang", NVCC_HANDLER()},
    {"diag-warn", "diag-warn", Arity::Value, false, "the same",
     NVCC_HANDLER()},
    {"diag-error", "diag-error", Arity::Value, false, "the same",
     NVCC_HANDLER()},
    {"display-error-number", "display-error-number", Arity::Flag, false,
     "accepted and ignored", NVCC_HANDLER()},
    {"no-display-error-number", "no-display-error-number", Arity::Flag, false,
     "accepted and ignored", NVCC_HANDLER()},

    // Preprocessor and linker inputs.
    {"define-macro", "D", Arity::Value, true, "clang: -D",
     NVCC_HANDLER(addBoth(T, {"-D" + std::string(V)}))},
    {"undefine-macro", "U", Arity::Value, true, "clang: -U",
     NVCC_HANDLER(addBoth(T, {"-U" + std::string(V)}))},
    {"include-path", "I", Arity::Value, true,
     "include directories, comma-separated (clang: -I)",
     NVCC_HANDLER(for (const std::string &P : split(V, ','))
                      addBoth(T, {"-I" + P}))},
    {"system-include", "isystem", Arity::Value, false,
     "system include directories, comma-separated (clang: -isystem)",
     NVCC_HANDLER(for (const std::string &P : split(V, ','))
                      addBoth(T, {"-isystem", P}))},
    {"pre-include", "include", Arity::Value, false, "clang: -include",
     NVCC_HANDLER(addBoth(T, {"-include", std::string(V)}))},
    {"library-path", "L", Arity::Value, true,
     "library directories, comma-separated (clang: -L)",
     NVCC_HANDLER(for (const std::string &P : split(V, ','))
                      add(T.Options, {"-L" + P}))},
    {"library", "l", Arity::Value, true,
     "libraries, comma-separated, linked after the inputs (clang: -l)",
     NVCC_HANDLER(for (const std::string &L : split(V, ','))
                      T.Libraries.push_back("-l" + L))},
    {"options-file", "optf", Arity::Value, false,
     "read further options from a file (also @file)", nullptr},

    // kosan's own.
    {"cuda-path", "cuda-path", Arity::Value, false,
     "the CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)",
     NVCC_HANDLER(T.CudaPath = std::string(V);
                  T.KosanOptions.push_back("--cuda-path=" + std::string(V)))},
    {"kosan-help", "kosan-help", Arity::Flag, false, "print this help",
     NVCC_HANDLER(T.PrintHelp = true)},
    {"kosan-", "kosan-", Arity::Prefix, false,
     "kosan-clang++'s options: --kosan-checks=, --kosan-plain, "
     "--kosan-mutate=, --kosan-print-command",
     NVCC_HANDLER(T.KosanOptions.push_back("--kosan-" + std::string(V)))},
    {"fplugin-arg-kosan-", "fplugin-arg-kosan-", Arity::Prefix, false,
     "arguments for the kosan plugin",
     NVCC_HANDLER(T.Options.push_back("-fplugin-arg-kosan-" + std::string(V)))},
    {"help", "h", Arity::Flag, false, "print this help",
     NVCC_HANDLER(T.PrintHelp = true)},
    {"version", "V", Arity::Flag, false,
     "print the CUDA toolkit's nvcc version banner",
     NVCC_HANDLER(T.PrintVersion = true)},
};

#undef NVCC_HANDLER

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

/// Expands @file and --options-file/-optf files in place, as nvcc does.
void expandOptionFiles(const std::vector<std::string> &Args, int Depth,
                       const Environment &Env, std::vector<std::string> &Expanded) {
  for (size_t I = 0; I < Args.size(); ++I) {
    std::string_view Arg = Args[I];
    std::optional<std::string> File;
    for (std::string_view Spelling :
         {"-optf", "--optf", "-options-file", "--options-file"}) {
      if (Arg == Spelling) {
        if (I + 1 == Args.size())
          fatal(std::string(Arg) + " needs a file name");
        File = Args[++I];
      } else if (startsWith(Arg, std::string(Spelling) + "=")) {
        File = std::string(Arg.substr(Spelling.size() + 1));
      }
    }
    if (!File && startsWith(Arg, "@") && Arg.size() > 1)
      File = std::string(Arg.substr(1));
    if (!File) {
      Expanded.push_back(Args[I]);
      continue;
    }
    if (Depth >= MaxResponseFileDepth)
      fatal("options files nested more than " +
            std::to_string(MaxResponseFileDepth) + " deep at '" + *File + "'");
    std::optional<std::string> Text = Env.ReadFile(*File);
    if (!Text)
      fatal("cannot read the options file '" + *File + "'");
    // A NUL would end the argument it is in when the command runs.
    if (Text->find('\0') != std::string::npos)
      fatal("the options file '" + *File + "' holds a NUL byte: it must be text");
    expandOptionFiles(kosan::cli::splitGnuArguments(*Text), Depth + 1, Env,
                      Expanded);
  }
}

/// Device code kosan cannot instrument, given as an input.
bool isDeviceCodeInput(std::string_view Extension) {
  return Extension == ".ptx" || Extension == ".cubin" ||
         Extension == ".fatbin" || Extension == ".gpu" ||
         Extension == ".ltoir";
}

/// Matches \p Args[I] against the table; advances \p I past a separate value.
/// Returns false for an argument that names no known option.
bool parseOption(Translation &T, const std::vector<std::string> &Args,
                 size_t &I) {
  std::string_view Arg = Args[I];
  std::string_view Name = Arg.substr(startsWith(Arg, "--") ? 2 : 1);
  auto Run = [&](const NvccOption &Option, std::string_view Value) {
    Option.Handle(T, Value);
    return true;
  };
  // Whole names first (-lineinfo is not -l ineinfo), then joined values and
  // prefixes.
  for (const NvccOption &Option : NvccOptions) {
    if (Option.Takes == Arity::Prefix || !Option.Handle)
      continue;
    for (std::string_view Spelling : {Option.Long, Option.Short}) {
      if (Name == Spelling) {
        if (Option.Takes == Arity::Flag)
          return Run(Option, "");
        if (I + 1 == Args.size())
          fatal(std::string(Arg) + " needs a value");
        return Run(Option, Args[++I]);
      }
      if (Option.Takes == Arity::Value && startsWith(Name, Spelling) &&
          Name.size() > Spelling.size() && Name[Spelling.size()] == '=')
        return Run(Option, Name.substr(Spelling.size() + 1));
    }
  }
  for (const NvccOption &Option : NvccOptions) {
    if (Option.Joined && !startsWith(Arg, "--") &&
        startsWith(Name, Option.Short) && Name.size() > Option.Short.size())
      return Run(Option, Name.substr(Option.Short.size()));
    if (Option.Takes == Arity::Prefix && startsWith(Name, Option.Long))
      return Run(Option, Name.substr(Option.Long.size()));
  }
  return false;
}

Translation parseCommandLine(const std::vector<std::string> &Args) {
  Translation T;
  // nvcc's options are not positional: this one applies to options before it.
  for (const std::string &Arg : Args) {
    for (std::string_view Spelling :
         {"forward-unknown-to-host-compiler", "forward-unknown-opts"})
      if (Arg == "-" + std::string(Spelling) ||
          Arg == "--" + std::string(Spelling))
        T.ForwardUnknownToHost = true;
    if (Arg == "-forward-unknown-to-host-linker" ||
        Arg == "--forward-unknown-to-host-linker")
      T.ForwardUnknownToLinker = true;
  }

  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &Arg = Args[I];
    if (Arg.size() < 2 || Arg[0] != '-') {
      std::string Extension = fs::path(Arg).extension().string();
      if (isDeviceCodeInput(Extension))
        fatal("'" + Arg +
              "': device code inputs (.ptx, .cubin, .fatbin) are not "
              "supported: kosan instruments device code while it compiles "
              "CUDA sources");
      T.Inputs.push_back(Arg);
      continue;
    }
    if (parseOption(T, Args, I))
      continue;
    if (T.ForwardUnknownToHost)
      addBoth(T, {Arg});
    else if (T.ForwardUnknownToLinker)
      add(T.LinkerOptions, {"-Xlinker", Arg});
    else
      fatal("unknown option '" + Arg +
            "' (kosan-nvcc --help lists the nvcc options it translates; "
            "-forward-unknown-to-host-compiler gives unknown options to "
            "clang and the host compiler)");
  }
  return T;
}

//===----------------------------------------------------------------------===//
// The kosan-clang++ command
//===----------------------------------------------------------------------===//

struct InputKind {
  bool Cuda = false;
  bool HostSource = false; // C or C++, which nvcc compiles as host code
  // A host source's -x for the host compiler: c (as nvcc gives .c), c++, or
  // empty for preprocessed sources (.i, .ii), which gcc tells by name.
  std::string HostLanguage;
  bool HostC = false; // C rather than C++ (.c, .i, -x c)
};

InputKind classifyInput(const Translation &T, const std::string &Input) {
  std::string Extension = fs::path(Input).extension().string();
  InputKind Kind;
  bool Source = Extension == ".cu" || Extension == ".c" ||
                Extension == ".cpp" || Extension == ".cc" ||
                Extension == ".cxx" || Extension == ".C" ||
                Extension == ".c++" || Extension == ".i" ||
                Extension == ".ii";
  if (!T.Language.empty()) {
    Kind.Cuda = Source && T.Language == "cuda";
    Kind.HostSource = Source && T.Language != "cuda";
    if (Kind.HostSource)
      Kind.HostLanguage = T.Language;
    Kind.HostC = Kind.HostSource && T.Language == "c";
    return Kind;
  }
  Kind.Cuda = Extension == ".cu";
  Kind.HostSource = Source && !Kind.Cuda;
  if (Kind.HostSource)
    Kind.HostLanguage = Extension == ".c"                          ? "c"
                        : Extension == ".i" || Extension == ".ii" ? ""
                                                                  : "c++";
  Kind.HostC = Extension == ".c" || Extension == ".i";
  return Kind;
}

/// sm_XX for one nvcc code or architecture name (sm_90, compute_90, sm_90a),
/// or nothing if \p Name is none of those.
std::optional<std::string> clangArch(const std::string &Name,
                                     std::vector<std::string> &Notes) {
  // Three digits at most: sm_1000 and beyond name no GPU (and would not
  // fit an int), and std::regex recurses once per character.
  static const std::regex ArchRe(R"((sm|compute|lto)_(\d{1,3})([a-z]?))");
  std::smatch Match;
  if (Name.size() > 16 || !std::regex_match(Name, Match, ArchRe))
    return std::nullopt;
  if (Match[1] == "lto")
    refuse("code " + Name, "device link-time optimization compiles device "
                           "code at link time, after the kosan pass has run");
  int Sm = std::stoi(Match[2]);
  if (Sm > NewestClangSm) {
    std::string Note = Name + " is newer than clang 19 knows: it gets sm_" +
                       std::to_string(NewestClangSm) + " code and compute_" +
                       std::to_string(NewestClangSm) +
                       " PTX, which the CUDA driver compiles for it";
    if (std::find(Notes.begin(), Notes.end(), Note) == Notes.end())
      Notes.push_back(Note);
    return "sm_" + std::to_string(NewestClangSm);
  }
  return "sm_" + Match[2].str() + Match[3].str();
}

/// The --cuda-gpu-arch= values for the -arch, -code and -gencode options, in
/// order and without repeats. Empty means "let kosan-clang++ choose" (the
/// GPUs of this machine), which is also what -arch=native asks for.
std::vector<std::string> clangArchs(const Translation &T,
                                    std::vector<std::string> &Notes) {
  std::vector<std::string> Archs;
  auto Add = [&Archs](std::string_view Arch) {
    if (std::find(Archs.begin(), Archs.end(), Arch) == Archs.end())
      Archs.emplace_back(Arch);
  };
  auto AddCode = [&](const std::string &Code, std::string_view Option) {
    std::optional<std::string> Arch = clangArch(Code, Notes);
    if (!Arch)
      fatal("unknown GPU architecture '" + Code + "' in " +
            std::string(Option));
    Add(*Arch);
  };

  for (const std::string &Code : T.GencodeCodes)
    AddCode(Code, "-gencode");
  // -code names what is compiled; -arch alone means -code=sm_XX,compute_XX.
  for (const std::string &Code : T.CodeValues)
    AddCode(Code, "-code");
  for (const std::string &Value : T.ArchValues) {
    if (Value == "native")
      continue;
    if (Value == "all" || Value == "all-major") {
      if (Value == "all")
        for (std::string_view Arch : AllArchs)
          Add(Arch);
      else
        for (std::string_view Arch : AllMajorArchs)
          Add(Arch);
      continue;
    }
    std::optional<std::string> Arch = clangArch(Value, Notes);
    if (!Arch)
      fatal("unknown GPU architecture '" + Value +
            "' in -arch (expected sm_XX, compute_XX, native, all or "
            "all-major)");
    if (T.CodeValues.empty())
      Add(*Arch);
  }
  return Archs;
}

std::optional<fs::path> findCudaRoot(const Translation &T, const Environment &Env) {
  std::string Root = T.CudaPath       ? *T.CudaPath
                     : Env.CudaPathVariable ? *Env.CudaPathVariable
                                            : "/usr/local/cuda";
  if (!Env.IsDirectory(Root))
    return std::nullopt;
  return fs::path(Root);
}

/// The kosan-clang++ command for \p Inputs: the CUDA sources, objects and
/// libraries of the command line, with the host sources' objects in their
/// places.
std::vector<std::string> buildCommand(const Translation &T,
                                      const std::vector<std::string> &Inputs,
                                      const Environment &Env,
                                      std::vector<std::string> &Notes) {
  bool CompilesCuda = false;
  for (const std::string &Input : Inputs)
    CompilesCuda |= classifyInput(T, Input).Cuda;
  bool Links = !T.StopsBeforeLink && !Inputs.empty();

  std::vector<std::string> Command = {Env.KosanClang};
  Command.insert(Command.end(), T.KosanOptions.begin(), T.KosanOptions.end());
  if (T.DryRun)
    Command.push_back("-###");
  // Host code in CUDA sources gets wrapping signed arithmetic: gcc, nvcc's
  // host compiler, mostly compiles signed overflow to the machine's
  // wrapping instructions, where clang's optimizer uses it as a fact
  // (i * i >= 0), so programs that check results computed on the GPU
  // against overflowing host arithmetic would fail under kosan only. Before
  // the user's options, so that -Xcompiler -fno-wrapv wins; device code is
  // left alone.
  if (CompilesCuda && !T.DeviceOnly)
    add(Command, {"-Xarch_host", "-fwrapv"});
  Command.insert(Command.end(), T.Options.begin(), T.Options.end());

  // Line tables are part of -g.
  if (T.LineInfo && !T.HostDebug)
    Command.push_back("-gline-tables-only");
  // A link device-links the objects' relocatable device code (as nvcc's
  // does) for the architectures named.
  if (!CompilesCuda && (T.DeviceLink || Links))
    for (const std::string &Arch : clangArchs(T, Notes))
      Command.push_back("--cuda-gpu-arch=" + Arch);
  if (CompilesCuda) {
    for (const std::string &Arch : clangArchs(T, Notes))
      Command.push_back("--cuda-gpu-arch=" + Arch);
    // nvcc optimizes device code whatever the host -O, unless -G or
    // -dopt=off; clang compiles device code at the host's -O level.
    if (T.DeviceDebug)
      add(Command, {"--cuda-noopt-device-debug", "-Xarch_device", "-g"});
    else if (T.DeviceOptimize)
      add(Command, {"-Xarch_device", "-O3"});
    // nvcc's --use_fast_math is -ftz=true -prec-div=false -prec-sqrt=false
    // -fmad=true plus fast intrinsics; an explicit option wins over it.
    if (T.Ftz.value_or(T.FastMath))
      Command.push_back("-fcuda-flush-denormals-to-zero");
    if (T.FastMath)
      Command.push_back("-fgpu-approx-transcendentals");
    // nvcc's -prec-div=false gives div.full.f32, --use_fast_math
    // div.approx.f32: NVPTX's levels 1 and 0.
    if (!T.PrecDiv.value_or(!T.FastMath))
      add(Command, {"-mllvm", T.PrecDiv ? "-nvptx-prec-divf32=1"
                                        : "-nvptx-prec-divf32=0"});
    if (!T.PrecSqrt.value_or(!T.FastMath))
      add(Command, {"-mllvm", "-nvptx-prec-sqrtf32=0"});
    // clang contracts device code like nvcc's default -fmad=true.
    if (!T.Fmad.value_or(true))
      add(Command, {"-Xarch_device", "-ffp-contract=off"});
  }

  // -x as clang reads it, positionally: set before the inputs it applies
  // to, and back to none for objects and libraries.
  std::string CurrentLanguage = "none";
  for (const std::string &Input : Inputs) {
    InputKind Kind = classifyInput(T, Input);
    std::string Language = "none";
    if (Kind.Cuda && !T.Language.empty())
      Language = T.Language;
    if (Language != CurrentLanguage)
      add(Command, {"-x", Language});
    CurrentLanguage = Language;
    Command.push_back(Input);
  }

  if (Links) {
    Command.insert(Command.end(), T.LinkerOptions.begin(),
                   T.LinkerOptions.end());
    Command.insert(Command.end(), T.Libraries.begin(), T.Libraries.end());
    if (T.Cudart == "shared")
      Command.push_back("-lcudart");
    else if (T.Cudart == "none")
      refuse("-cudart none",
             "the kosan runtime needs the CUDA runtime; link with -cudart "
             "static or shared");
  }
  return Command;
}

//===----------------------------------------------------------------------===//
// The host compiler's commands
//===----------------------------------------------------------------------===//

/// nvcc's host compiler: -ccbin's compiler, gcc in -ccbin's directory, or
/// gcc on PATH. nvcc compiles C and C++ with it alike (-x c, -x c++).
std::string hostCompiler(const Translation &T, const Environment &Env) {
  if (!T.HostCompiler)
    return "gcc";
  if (Env.IsDirectory(*T.HostCompiler))
    return (fs::path(*T.HostCompiler) / "gcc").string();
  return *T.HostCompiler;
}

/// The host compiler's command for one C or C++ source. \p Output is the
/// object to write, or empty for the compiler's default (name.o in the
/// current directory, standard output for -E and -M), as nvcc leaves it.
std::vector<std::string> hostCompileCommand(const Translation &T,
                                            const std::string &Input,
                                            const std::string &Output,
                                            bool TemporaryOutput,
                                            const Environment &Env) {
  InputKind Kind = classifyInput(T, Input);
  std::vector<std::string> Command = {hostCompiler(T, Env)};
  if (TemporaryOutput)
    Command.push_back("-c");
  for (const HostOption &Option : T.HostOptions) {
    if (Option.Use == HostUse::CxxOnly && Kind.HostC)
      continue;
    if (Option.Use == HostUse::OwnOutputOnly && TemporaryOutput)
      continue;
    Command.push_back(Option.Arg);
  }
  // nvcc puts the toolkit's headers on the path of host sources too.
  if (std::optional<fs::path> Cuda = findCudaRoot(T, Env))
    add(Command, {"-isystem", (*Cuda / "include").string()});
  if (!Kind.HostLanguage.empty())
    add(Command, {"-x", Kind.HostLanguage});
  Command.push_back(Input);
  if (!Output.empty())
    add(Command, {"-o", Output});
  return Command;
}

void makePlan(const Translation &T, const Environment &Env, Plan &P) {
  bool Links = !T.StopsBeforeLink;
  bool CompilesHostSources = false;
  for (const std::string &Input : T.Inputs) {
    if (!classifyInput(T, Input).HostSource)
      continue;
    CompilesHostSources = true;
    if (T.DeviceOnly)
      fatal("'" + Input +
            "' is not a CUDA source: -ptx and -cubin compile device code");
    if (T.StopsBeforeLink && T.Output && T.Inputs.size() > 1)
      fatal("-o names one output, but " + std::to_string(T.Inputs.size()) +
            " inputs are compiled without a link");
  }

  std::vector<std::string> KosanInputs;
  for (const std::string &Input : T.Inputs) {
    if (!classifyInput(T, Input).HostSource) {
      KosanInputs.push_back(Input);
      continue;
    }
    if (!Links) {
      P.HostCompiles.push_back(
          hostCompileCommand(T, Input, T.Output.value_or(""), false, Env));
      continue;
    }
    // At a link the object is a temporary, named after its source and
    // numbered so that a.c and dir/a.c do not collide; kosan-clang++ links
    // it where the source stood.
    std::string Object = (fs::path(Env.TemporaryDirectory()) /
                          (std::to_string(P.TemporaryObjects.size()) + "_" +
                           fs::path(Input).stem().string() + ".o"))
                             .string();
    P.TemporaryObjects.push_back(Object);
    P.HostCompiles.push_back(hostCompileCommand(T, Input, Object, true, Env));
    KosanInputs.push_back(Object);
  }
  // Host sources compiled without a link are all there is to do.
  if (!CompilesHostSources || Links || !KosanInputs.empty())
    P.KosanCommand = buildCommand(T, KosanInputs, Env, P.Notes);
  P.Output = T.Output;
  P.DryRun = T.DryRun;
  P.Verbose = T.Verbose;
  P.ClangDryRun =
      std::find(T.Options.begin(), T.Options.end(), "-###") != T.Options.end();
  P.PrintCommands = std::find(T.KosanOptions.begin(), T.KosanOptions.end(),
                              "--kosan-print-command") != T.KosanOptions.end();
}

} // namespace

PlanResult planCommand(const std::vector<std::string> &Args, const Environment &Env) {
  PlanResult R;
  try {
    std::vector<std::string> Expanded;
    expandOptionFiles(Args, 0, Env, Expanded);
    Translation T = parseCommandLine(Expanded);
    R.P.CudaRoot = findCudaRoot(T, Env);
    R.P.PrintHelp = T.PrintHelp;
    R.P.PrintVersion = !T.PrintHelp && T.PrintVersion;
    if (R.P.PrintHelp || R.P.PrintVersion)
      return R;
    makePlan(T, Env, R.P);
  } catch (const DriverError &Error) {
    R.P = Plan();
    R.Error = escapeControl(Error.what());
  }
  return R;
}

std::string optionsHelp() {
  std::string Help;
  for (const NvccOption &Option : NvccOptions) {
    std::string Names;
    if (Option.Takes == Arity::Prefix)
      Names = "--" + std::string(Option.Long) + "*";
    else if (Option.Short == Option.Long)
      Names = (Option.Long.size() == 1 ? "-" : "--") + std::string(Option.Long);
    else
      Names = "-" + std::string(Option.Short) + ", --" + std::string(Option.Long);
    if (Option.Takes == Arity::Value)
      Names += " <value>";
    char Line[512];
    std::snprintf(Line, sizeof(Line), "  %-46s %s\n", Names.c_str(),
                  std::string(Option.Help).c_str());
    Help += Line;
  }
  return Help;
}

} // namespace kosan::nvcc
