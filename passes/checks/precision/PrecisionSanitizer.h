//===- passes/checks/precision/PrecisionSanitizer.h - fp64 shadow execution -----*- C++ -*-===//
//
// checks=precision: every floating-point value an instrumented function
// computes (f32, f16, bf16, and f64 values derived from them) gets an fp64
// shadow computed by the same operations; where a value leaves the kernel
// (stores to global memory, atomics) and where it is narrowed, the device
// runtime records how far the real value strayed from its shadow, per site.
// An operation that turns finite operands into NaN or Inf reports its site.
//
// Half and bf16 arithmetic from cuda_fp16.h/cuda_bf16.h reaches the IR as
// inline PTX on i16/i32 registers (cvt.rn.f16.f32, add.f16, fma.rn.f16x2,
// ...): those templates are parsed and shadowed like IR arithmetic.
//
// Shadows start (are "seeded") from the real value wherever a value comes
// from outside what the function computes: loads from global memory,
// shuffles, parameters, results of calls that are not inlined, inline asm
// that is not understood. A static __shared__ array that a computed value
// is stored to gets a shadow array in shared memory (SharedValueShadows):
// its stores write the value's shadow and cause tag there, its loads read
// them back.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_PRECISIONSANITIZER_H
#define KOSAN_PASSES_PRECISIONSANITIZER_H

#include "core/SiteTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"

namespace kosan {

struct PrecisionCounts {
  unsigned shadowed = 0;   // operations given a shadow
  unsigned asmOps = 0;     // of which inline-asm half/bf16 operations
  unsigned sinks = 0;      // stores and atomics recorded
  unsigned tallied = 0;    // of which in loops, tallied per thread (kosan_prec_tally)
  unsigned narrowings = 0; // narrowing conversions recorded
  unsigned seeded = 0;     // values whose shadow starts from the real value
  unsigned copies = 0;     // stores of such values as they are: exact, not recorded
  unsigned sharedStores = 0; // stores to shared memory that write a shadow
  unsigned sharedLoads = 0;  // loads from shared memory that read one back
};

// fp64 shadows of a module's static __shared__ arrays of f32, f16 or bf16,
// made on first use: one {double shadow, i32 cause tag, i32 copy of the
// value's bits} per element, plus one that out-of-range indices land on.
// A load takes the shadow only where the copy still matches the value it
// read: whatever wrote the element without a shadow (an integer or vector
// store, cp.async, an atomic, another function) leaves a copy that does not
// match, and the shadow starts from the value, as without one. Arrays are
// shadowed as long as the module's static shared memory stays within the
// budget (ModuleState::sharedShadowBytesLeft, shared with the order check).
class SharedValueShadows {
public:
  SharedValueShadows(llvm::Module &M, uint64_t &budget) : M(M), budget(budget) {}
  // The shadow of G, whose elements are elemBytes (4 or 2) bytes, made now
  // if there is room; nullptr if not (nor for an extern __shared__ array).
  llvm::GlobalVariable *make(llvm::GlobalVariable *G, unsigned elemBytes);
  // The shadow made already, and its element size, or nullptr.
  llvm::GlobalVariable *find(llvm::GlobalVariable *G, unsigned &elemBytes) const;
  static llvm::StructType *elementType(llvm::LLVMContext &Ctx);

private:
  llvm::Module &M;
  uint64_t &budget;
  llvm::DenseMap<llvm::GlobalVariable *, std::pair<llvm::GlobalVariable *, unsigned>> shadows;
};

// Instruments one cloned function. state/launchId: the values the clone
// reads its launch context from (kosan_device_state address, launch id).
PrecisionCounts instrumentPrecision(llvm::Function &F, llvm::Value *state,
                                    llvm::Value *launchId, SiteTable &sites,
                                    SharedValueShadows &shared);

// The CUDA function a fast approximation (llvm.nvvm.ex2.approx.f, ...)
// stands for: the toolkit wrapper it was inlined from where debug
// information says so ("__expf", "rsqrtf"), else what the IR around it
// shows (ex2.approx of x * log2(e) is __expf, lg2.approx times ln(2) is
// __logf, div.approx is __fdividef, ...). Empty for other calls.
std::string fastIntrinsicName(const llvm::CallInst &CI);

} // namespace kosan

#endif
