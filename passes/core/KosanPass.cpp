//===- passes/core/KosanPass.cpp - Dispatch by module and the pass options ------===//
#include "KosanPasses.h"
#include "core/DeferredClones.h"

#include "kosan/abi.h"
#include "kosan/checks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

// Hidden options for opt and -mllvm; -fplugin-arg-kosan-* overrides them.
static const std::string ClChecksHelp = [] {
  std::string names;
  for (const kosan::CheckName &c : kosan::kCheckNames)
    names += (names.empty() ? "" : ",") + std::string(c.name);
  return "kosan: checks to instrument (" + names + "|all|none)";
}();
static cl::opt<std::string> ClChecks("kosan-checks", cl::desc(ClChecksHelp), cl::Hidden,
                                     cl::init("oob"));
static cl::opt<bool> ClLinkRuntime(
    "kosan-link-runtime",
    cl::desc("kosan: link the device runtime into instrumented device modules"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClRdc(
    "kosan-rdc",
    cl::desc("kosan: the device module is relocatable device code (-fgpu-rdc), linked "
             "with others by nvlink; set by the frontend plugin from clang's options"),
    cl::Hidden, cl::init(false));
static cl::opt<bool> ClUninit(
    "kosan-uninit",
    cl::desc("kosan: make global loads check for the fill of fresh allocations, "
             "reported at run time with KOSAN_OPTIONS=uninit=1"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClMisaligned(
    "kosan-misaligned",
    cl::desc("kosan: check that accesses are aligned as the GPU needs (reported as "
             "misaligned-access)"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClProveBounds(
    "kosan-prove-bounds",
    cl::desc("kosan: leave unchecked the accesses to static objects proven in bounds"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClGroupChecks(
    "kosan-group-checks",
    cl::desc("kosan: check accesses of one object at constant distances in straight-line "
             "code once per group"),
    cl::Hidden, cl::init(true));
static cl::opt<unsigned> ClHoistMaxPerLoop(
    "kosan-hoist-max-per-loop",
    cl::desc("kosan: hoist no access of a loop with more hoistable accesses than this (each "
             "keeps a checked copy; an unrolled loop's are grouped instead)"),
    cl::Hidden, cl::init(8));
static cl::opt<bool> ClVersionLoops(
    "kosan-version-loops",
    cl::desc("kosan: copy whole a loop whose accesses are all checked before it and that holds "
             "nothing convergent (the loop as compiled, or a copy checked access by access)"),
    cl::Hidden, cl::init(true));
static cl::opt<unsigned> ClVersionKernelMax(
    "kosan-version-kernel-max",
    cl::desc("kosan: test at a kernel's entry every checked access of its straight-line code "
             "(none in a loop, each address known at the entry) and copy the kernel whole, "
             "as compiled or checked access by access, when it has at most this many "
             "instructions (0: never)"),
    cl::Hidden, cl::init(4000));
static cl::opt<bool> ClEntryOnHost(
    "kosan-entry-test-on-host",
    cl::desc("kosan: let the host decide at each launch which blocks pass the entry test of "
             "a kernel copied whole, when the test reads nothing but the launch (each block "
             "then compares its index with the blocks the host proved)"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClPrintEntryTests(
    "kosan-print-entry-tests",
    cl::desc("kosan: print the programs of the entry tests the host decides"), cl::Hidden,
    cl::init(false));
static cl::opt<kosan::DeferClones> ClDeferClones(
    "kosan-defer-clones",
    cl::desc("kosan: compile each kernel's clone at its first checked launch instead of with "
             "the module (NVPTX, not relocatable device code)"),
    cl::values(clEnumValN(kosan::DeferClones::Off, "0", "with the module"),
               clEnumValN(kosan::DeferClones::Bitcode, "1",
                          "its module kept as bitcode, made PTX at the launch"),
               clEnumValN(kosan::DeferClones::Ptx, "ptx", "its module kept as PTX made now")),
    cl::Hidden, cl::init(kosan::DeferClones::Off));
static cl::opt<bool> ClHoistGroups(
    "kosan-hoist-groups",
    cl::desc("kosan: also check a group of a static object at a loop-invariant address once "
             "before its loop (its checked copy is a group too)"),
    cl::Hidden, cl::init(false));
static cl::opt<bool> ClHoistChecks(
    "kosan-hoist-checks",
    cl::desc("kosan: check a loop's accesses at a constant stride once before the loop, on "
             "the range they may take"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClSharedReport(
    "kosan-shared-report",
    cl::desc("kosan: the OOB check's failing checks call one report function per module "
             "(off: each check carries its report inline)"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClReloadAfterReport(
    "kosan-reload-after-report",
    cl::desc("kosan: a load checked on its own reads its value again after the OOB report "
             "call, so that the value is not live across the call (off: it is)"),
    cl::Hidden, cl::init(true));
static cl::opt<kosan::FPFusion> ClFPFusion(
    "kosan-fp-fusion",
    cl::desc("kosan: which multiply-add pairs the backend fuses into fma, written out in "
             "the clones before they are instrumented"),
    cl::values(clEnumValN(kosan::FPFusion::Infer, "infer",
                          "fast when any instruction is marked contract (default)"),
               clEnumValN(kosan::FPFusion::Standard, "standard",
                          "pairs both marked contract (-ffp-contract=on/off)"),
               clEnumValN(kosan::FPFusion::Fast, "fast",
                          "any multiply and add (-ffp-contract=fast, clang's default for CUDA)")),
    cl::Hidden, cl::init(kosan::FPFusion::Infer));
static cl::opt<bool> ClFormFMAs(
    "kosan-form-fmas",
    cl::desc("kosan: write the fmas the backend forms as llvm.fma in the clones before "
             "instrumenting them (off: for bisection; clones may then round differently)"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClAlignBarriers(
    "kosan-align-barriers",
    cl::desc("kosan: write the non-aligned block barriers (barrier.sync) that every warp "
             "reaches converged as bar.sync in the clones (off: for bisection; ptxas then "
             "gives them a path for diverged warps)"),
    cl::Hidden, cl::init(true));
static cl::opt<std::string>
    ClDebugFunction("kosan-debug-func",
                    cl::desc("kosan: instrument only this function (for bisection)"),
                    cl::Hidden);

// Only for the test of the verification step below: makes the named
// function's IR invalid after instrumentation, as a kosan bug would.
static cl::opt<std::string> ClBreakIRForTest(
    "kosan-break-ir-for-test",
    cl::desc("kosan: test only: make this function's IR invalid after kosan's passes"),
    cl::Hidden);

namespace kosan {

bool PassOptions::parseChecks(StringRef text, uint32_t &bits, std::string *bad) {
  bits = 0;
  SmallVector<StringRef, 4> words;
  text.split(words, ',', -1, /*KeepEmpty=*/false);
  for (StringRef w : words) {
    w = w.trim();
    const CheckName *known = nullptr;
    for (const CheckName &c : kCheckNames)
      if (std::string_view(w) == c.name)
        known = &c;
    if (known)
      bits |= known->bits;
    else if (w == "all")
      bits |= kAllChecks;
    else if (w == "none")
      bits = 0;
    else {
      if (bad)
        *bad = w.str();
      return false;
    }
  }
  return true;
}

PassOptions PassOptions::fromCommandLine() {
  PassOptions o;
  std::string bad;
  if (!parseChecks(ClChecks, o.checks, &bad))
    report_fatal_error("kosan: unknown check '" + Twine(bad) + "' in -kosan-checks (valid: " +
                           checkNameList(false) + ")",
                       false);
  o.linkRuntime = ClLinkRuntime;
  o.debugFunction = ClDebugFunction;
  o.fpFusion = ClFPFusion;
  o.formFMAs = ClFormFMAs;
  o.alignBarriers = ClAlignBarriers;
  o.rdc = ClRdc;
  o.uninit = ClUninit;
  o.misaligned = ClMisaligned;
  o.proveBounds = ClProveBounds;
  o.groupChecks = ClGroupChecks;
  o.hoistChecks = ClHoistChecks;
  o.hoistMaxPerLoop = ClHoistMaxPerLoop;
  o.hoistGroups = ClHoistGroups;
  o.versionLoops = ClVersionLoops;
  o.versionKernelMax = ClVersionKernelMax;
  o.deferClones = ClDeferClones;
  o.entryOnHost = ClEntryOnHost;
  o.printEntryTests = ClPrintEntryTests;
  o.sharedReport = ClSharedReport;
  o.reloadAfterReport = ClReloadAfterReport;
  o.mutate = MutateOptions::fromCommandLine();
  return o;
}

namespace {

// An instruction that uses itself: what the verifier calls invalid.
void breakForTest(Module &M) {
  Function *F = M.getFunction(ClBreakIRForTest);
  if (!F || F->isDeclaration())
    return;
  Instruction *term = F->getEntryBlock().getTerminator();
  Type *I32 = Type::getInt32Ty(M.getContext());
  auto *self = BinaryOperator::CreateAdd(PoisonValue::get(I32), ConstantInt::get(I32, 1),
                                         "kosan.broken", term);
  self->setOperand(0, self);
}

// "f(int)" for _Z1fi and for its clone _Z1fi__kosan.
std::string readableName(const Function &F) {
  StringRef name = F.getName();
  name.consume_back(KOSAN_CLONE_SUFFIX);
  return demangle(name);
}

} // namespace

// The module kosan changed must be valid IR: clang's release builds do not
// verify it, and code generation from invalid IR crashes or, worse, emits
// wrong code. A failure becomes one error naming the function (at its
// source line, where clang knows it) and the bodies are emptied, so that
// code generation, which runs before clang gives up on the error, does
// not trip over them.
bool verifyKosanOutput(Module &M) {
  if (!verifyModule(M, nullptr))
    return true;
  LLVMContext &Ctx = M.getContext();
  bool named = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::string why;
    raw_string_ostream os(why);
    if (!verifyFunction(F, &os))
      continue;
    StringRef first = StringRef(why).split('\n').first.trim();
    first.consume_back("!");
    Ctx.diagnose(DiagnosticInfoUnsupported(
        F,
        Twine("kosan produced invalid IR in ") +
            (isKernel(F) ? "kernel '" : "function '") + readableName(F) + "' (" + first +
            "), which is a bug in kosan: please report it with this source file; "
            "--kosan-plain builds without instrumentation",
        DiagnosticLocation(F.getSubprogram())));
    named = true;
  }
  if (!named) {
    std::string why;
    raw_string_ostream os(why);
    verifyModule(M, &os);
    Ctx.emitError(Twine("kosan produced an invalid module (") +
                  StringRef(why).split('\n').first.trim() +
                  "), which is a bug in kosan: please report it with this source "
                  "file; --kosan-plain builds without instrumentation");
  }
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.dropAllReferences();
    new UnreachableInst(Ctx, BasicBlock::Create(Ctx, "", &F));
  }
  return false;
}

PreservedAnalyses KosanPass::run(Module &M, ModuleAnalysisManager &MAM) {
  PreservedAnalyses PA = PreservedAnalyses::all();
  if (isDeviceModule(M)) {
    PA = InstrumentPass(opts).run(M, MAM);
  } else if (opts.checks != 0) {
    PA = HostHooksPass(opts).run(M, MAM);
  }
  if (!ClBreakIRForTest.empty()) {
    breakForTest(M);
    PA = PreservedAnalyses::none();
  }
  if (!PA.areAllPreserved() && !verifyKosanOutput(M))
    return PreservedAnalyses::none();
  if (isDeviceModule(M) && !opts.rdc &&
      deferClones(M, opts.deferClones, opts.fpFusion, opts.codegenArgs))
    PA = PreservedAnalyses::none();
  return PA;
}

void KosanPass::printPipeline(raw_ostream &OS,
                              function_ref<StringRef(StringRef)> /*MapClassName*/) {
  OS << "kosan";
}

} // namespace kosan
