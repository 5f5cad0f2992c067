//===- passes/core/Instrumenter.h - One check's half of the device pass -*- C++ -*-===//
//
// Each check of KOSAN_CHECKS (include/kosan/abi.h) is an Instrumenter, in
// its folder checks/<name>/: InstrumentPass (core/InstrumentPass.cpp)
// clones the kernels and device functions once, builds each clone's launch
// context, and hands the clones to the instrumenters of the checks compiled
// in, by the rank the table gives them (order, precision, race, oob: the
// race and bounds checks see the shadow code's memory accesses as kosan's
// own, and the race check sees the program's shared accesses before the
// bounds checks redirect them). An instrumenter emits its own remarks
// (-Rpass=kosan-<check> / -Rpass-analysis=kosan-<check>) and keeps its own
// statistics (-stats, DEBUG_TYPE kosan-<check>).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_INSTRUMENTER_H
#define KOSAN_PASSES_CORE_INSTRUMENTER_H

#include "core/LaunchContext.h"
#include "core/SiteTable.h"

#include "kosan/abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/PassManager.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kosan {

class Target;
struct PassOptions;

// What every instrumenter of one module shares.
struct ModuleState {
  llvm::Module &M;
  const Target &target;
  const PassOptions &opts;
  SiteTable sites;
  // Relocatable device code: the unit's site base (KOSAN_SITE_BASE_PREFIX),
  // which site ids that reach the host include; nullptr otherwise.
  llvm::GlobalVariable *siteBase = nullptr;
  // Bytes of static shared memory left for the checks' shadows of shared
  // arrays (the order check's fingerprints, the precision check's values):
  // the 48 KiB every launch may use, less the module's own static shared
  // arrays and a reserve (the OOB check's sink, alignment). Each check takes
  // what it uses from it.
  uint64_t sharedShadowBytesLeft = 0;
};

// The sharedShadowBytesLeft of a module, before any check adds to it.
uint64_t staticSharedBytesLeft(const llvm::Module &M);

class Instrumenter {
public:
  explicit Instrumenter(ModuleState &S) : S(S) {}
  virtual ~Instrumenter() = default;

  // The check's name, as KOSAN_CHECKS spells it.
  virtual llvm::StringRef name() const = 0;

  // The module's kernels as written, before anything is decided or cloned
  // (the order check's static analysis and its remarks).
  virtual void analyzeModule(llvm::FunctionAnalysisManager &) {}
  // Once per module, before the functions are cloned. False: the check
  // cannot instrument this module (it said why) and is left out.
  virtual bool begin(llvm::ArrayRef<llvm::Function *> /*kernels*/,
                     llvm::ArrayRef<llvm::Function *> /*deviceFunctions*/) {
    return true;
  }
  // Instruments one clone of `original` (a kernel's if ctx.kernel).
  virtual void instrument(llvm::Function &clone, const llvm::Function &original,
                          const LaunchContext &ctx, llvm::FunctionAnalysisManager &FAM) = 0;
  // What the site table says of an instrumented kernel: KOSAN_KERNEL_*
  // bits, and a description for the trace.
  virtual uint32_t kernelFlags(const llvm::Function & /*original*/,
                               const llvm::Function & /*clone*/) const {
    return 0;
  }
  virtual std::string kernelNotes(const llvm::Function & /*original*/) const { return ""; }
  // The program of the kernel's entry test, when the host decides it
  // (core/EntryProgram.h); nullptr when the clone decides its own.
  virtual const EntryProgram *entryProgram(const llvm::Function & /*original*/) const {
    return nullptr;
  }
  // Whether what it adds needs few registers beyond the original's: a clone
  // holding only such checks gets the register limit of a light original
  // (Target::fitRegistersToOriginal), so that it keeps the original's
  // occupancy.
  virtual bool fewRegisters() const { return false; }
  // After every function is instrumented and the site table emitted.
  virtual void end() {}

protected:
  ModuleState &S;
};

// The instrumenters of the checks, one per folder of checks/:
// make<Name>Instrumenter for each row of KOSAN_CHECKS.
#define KOSAN_DECLARE_INSTRUMENTER(ID, Name, name, bit, all, rank, help) \
  std::unique_ptr<Instrumenter> make##Name##Instrumenter(ModuleState &S);
KOSAN_CHECKS(KOSAN_DECLARE_INSTRUMENTER, KOSAN_CHECK_ROW_NONE)
#undef KOSAN_DECLARE_INSTRUMENTER

// The instrumenters of the checks in `checks` (KOSAN_CHECK_* bits), in the
// order they instrument a clone.
llvm::SmallVector<std::unique_ptr<Instrumenter>, 4> makeInstrumenters(ModuleState &S,
                                                                      uint32_t checks);

} // namespace kosan

#endif
