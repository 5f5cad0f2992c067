//===- passes/KosanPasses.h - kosan's LLVM passes --------------------------===//
//
// One module pass per concern, all behind KosanPass, which looks at the
// module's target: device modules (nvptx64) are instrumented
// (InstrumentPass), host modules get their CUDA runtime calls redirected to
// the kosan host runtime (HostHooksPass).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_KOSANPASSES_H
#define KOSAN_PASSES_KOSANPASSES_H

#include "core/Contraction.h"
#include "mutate/Mutator.h"

#include "llvm/IR/PassManager.h"
#include <cstdint>
#include <string>
#include <vector>

namespace kosan {

// Where an NVPTX kernel's clone is compiled (core/DeferredClones.h): with
// its module (Off), or at its first checked launch from its module kept as
// bitcode (made PTX by libkosan_codegen.so) or as PTX made at build time.
enum class DeferClones { Off, Bitcode, Ptx };

struct PassOptions {
  uint32_t checks = 0;        // KOSAN_CHECK_* bits
  bool linkRuntime = true;    // link the device runtime bitcode after instrumenting
  std::string debugFunction;  // instrument only this function (bisection)
  // The compile options that decide floating-point results, as the frontend
  // saw them ("-O2 -ffp-contract=fast ..."); empty: inferred from the IR.
  std::string compileFlags;
  // What the backend fuses into fmas (clang: -ffp-contract=fast or
  // -ffast-math, Fast; otherwise Standard): the clones get the same fmas
  // written out before they are instrumented (core/Contraction.h).
  FPFusion fpFusion = FPFusion::Infer;
  bool formFMAs = true; // off: clones keep the multiplies and adds (bisection)
  bool alignBarriers = true; // off: clones keep non-aligned barriers as written (core/Barriers.h)
  // Relocatable device code (-fgpu-rdc): the device module is one of several
  // that nvlink links into one image, so kosan's per-module device globals
  // get names of their own (see docs/design.md, "Relocatable device code").
  bool rdc = false;
  // Global loads also check whether they read the fill of a fresh
  // allocation (KOSAN_OPTIONS=uninit=1 turns the check on at run time).
  bool uninit = true;
  // Checked accesses also test their address's alignment (what the GPU
  // needs for the instruction: misaligned-access).
  bool misaligned = true;
  // Leave unchecked the accesses to static objects proven in bounds at
  // compile time, and check accesses at constant distances once per group
  // (checks/oob); off: every access checked on its own (bisection, tests).
  bool proveBounds = true;
  bool groupChecks = true;
  // Check a loop's accesses at addresses {start,+,step} once before the
  // loop, on the whole range they may take (checks/oob); off: every
  // iteration checks them.
  bool hoistChecks = true;
  // Loops with more hoistable accesses than this are not hoisted: each
  // hoisted access keeps a checked copy (an unrolled loop's accesses are
  // grouped instead, one check per group).
  unsigned hoistMaxPerLoop = 8;
  // Also check a group of a static object at a loop-invariant address once
  // before its loop, its checked copy a group too (checks/oob); off by
  // default: the copy of a tile loop's unrolled loads costs ptxas spills
  // (matmul: 200 bytes at 64 registers).
  bool hoistGroups = false;
  // A loop whose accesses are all checked before it and that holds nothing
  // convergent is copied whole: the loop as compiled runs when its test
  // passes, a copy checked access by access when not (checks/oob); off:
  // a branch on the test per stretch of its hoisted accesses.
  bool versionLoops = true;
  // A kernel whose checked accesses all lie outside loops, at addresses
  // known at its entry, has them all tested there, once: the kernel as
  // compiled runs when the test passes, a copy checked access by access
  // when not (checks/oob); kernels of more instructions than this are not
  // copied (0: none is).
  unsigned versionKernelMax = 4000;
  // NVPTX, not relocatable: each kernel's clone is compiled at its first
  // checked launch instead of with its module (core/DeferredClones.h).
  // kosan-clang++ turns it on (Bitcode) for builds of objects.
  DeferClones deferClones = DeferClones::Off;
  // The build's -mllvm -nvptx-* options, as the frontend saw them: a clone
  // made PTX at run time is compiled with them (core/ClonePtx.h).
  std::vector<std::string> codegenArgs;
  // Such a kernel's entry test, when it reads nothing but the launch, is
  // decided by the host at each launch for boxes of blocks (core/
  // EntryProgram.h); each block compares its index with the box. Off: every
  // block computes the test. printEntryTests: the programs, on stderr.
  bool entryOnHost = true;
  bool printEntryTests = false;
  // The OOB check's reports (the event written to the log, halt_on_error)
  // are one function per module that every failing check calls, not a copy
  // inline at each check (checks/oob); off: inline (bisection, compile time
  // and register comparisons).
  bool sharedReport = true;
  // A load checked on its own whose report path calls the report function
  // reads its value again after the call (checks/oob), so that the value is
  // not live across the call; off: it is (register and spill comparisons).
  bool reloadAfterReport = true;
  // Mutation analysis (passes/mutate): list the device code's mutants or
  // apply one, at the pipeline start.
  MutateOptions mutate;

  // Parses "oob,precision,order", "all" or "none"; returns false and names
  // the offending word in *bad on an unknown check.
  static bool parseChecks(llvm::StringRef text, uint32_t &bits,
                          std::string *bad);
  // Defaults from the hidden -kosan-* command-line options.
  static PassOptions fromCommandLine();
};

// Instruments device code with the checks of opts.checks: every kernel
// and device function gets a clone (core/KernelCloner.h) that the
// instrumenters of the checks (checks/<name>/) instrument in turn. opt names
// it kosan-oob, kosan-precision, kosan-order and kosan-order-ops (one check
// each, plugin/Plugin.cpp); KosanPass runs it on device modules.
struct InstrumentPass : llvm::PassInfoMixin<InstrumentPass> {
  explicit InstrumentPass(PassOptions opts) : opts(std::move(opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  PassOptions opts;
};

// Redirects CUDA runtime calls in host code to the kosan host runtime; in
// HIP host code, also registers kosan's device globals of the module's code
// object (opts: which the device side has).
struct HostHooksPass : llvm::PassInfoMixin<HostHooksPass> {
  explicit HostHooksPass(PassOptions opts) : opts(std::move(opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  PassOptions opts;
};

// Dispatches on the module's triple; what the plugin adds to clang's pipeline.
struct KosanPass : llvm::PassInfoMixin<KosanPass> {
  explicit KosanPass(PassOptions opts) : opts(std::move(opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>);
  PassOptions opts;
};

bool isDeviceModule(const llvm::Module &M);
bool isKernel(const llvm::Function &F);

// Verifies M after kosan changed it; on invalid IR, reports one error per
// invalid function through M's context (clang: a compile error), empties
// every body so that code generation cannot trip over them, and returns
// false.
bool verifyKosanOutput(llvm::Module &M);

} // namespace kosan

#endif
