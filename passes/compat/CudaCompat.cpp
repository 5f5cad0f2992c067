//===- passes/compat/CudaCompat.cpp - Device code that computes what nvcc's does --===//
//
// Square roots. libdevice chooses the rounding of sqrtf (and of hypotf,
// normf, norm3df, norm4df and jnf, which take a square root inside) with
// __nvvm_reflect("__CUDA_PREC_SQRT"): 1 selects llvm.nvvm.sqrt.rn[.ftz].f,
// 0 llvm.nvvm.sqrt.approx[.ftz].f. nvcc answers with its -prec-sqrt option:
// true by default, false under -prec-sqrt=false and --use_fast_math. LLVM
// 19's NVVMReflect knows only __CUDA_FTZ and __CUDA_ARCH and answers any
// other query 0, so clang compiles every sqrtf to sqrt.approx.f32 where nvcc
// gives sqrt.rn.f32, and results differ in the last bits.
//
// The query cannot be answered before NVVMReflect: the NVPTX target adds
// NVVMReflect at the pipeline start when the PassBuilder is made, before any
// plugin registers a pass, and again in code generation. So this pass runs
// after it (at PipelineStartEP, which the -O0 pipeline runs too) and gives
// nvcc's answer instead: in libdevice's functions (__nv_*, linked into the
// module before the pipeline and not yet inlined), each
// llvm.nvvm.sqrt.approx.f / .approx.ftz.f becomes llvm.nvvm.sqrt.rn.f /
// .rn.ftz.f, the other arm of the same query. The .ftz choice stays
// libdevice's (its __CUDA_FTZ answer, which clang gives as nvcc does). In
// libdevice (libdevice.10.bc of CUDA 13.0) the approximate square root occurs
// only as that arm; the explicitly rounded __fsqrt_rn/_rz/_rd/_ru use other
// intrinsics, and code outside libdevice that asks for sqrt.approx keeps it.
//
// The answer is 1 unless -nvptx-prec-sqrtf32=0 is given (kosan-nvcc's
// translation of -prec-sqrt=false and --use_fast_math), or, without that
// option, the function is compiled with
// "unsafe-fp-math" (clang's -ffast-math): the rule by which LLVM 19's NVPTX
// backend makes its own llvm.nvvm.sqrt.f approximate. Neither llvm.sqrt.f32
// nor llvm.nvvm.sqrt.f can carry the choice to the backend: LLVM 19 lowers
// llvm.sqrt.f32 to sqrt.rn.f32 whatever the options, and InstCombine turns
// llvm.nvvm.sqrt.f into llvm.sqrt.f32.
//
// Rewriting only the calls of __nv_sqrtf would leave hypotf and the norms
// approximate. The rewrite also holds whatever the pass order: run before
// NVVMReflect, both arms of the query are the same square root.
//
//===----------------------------------------------------------------------===//
#include "compat/CudaCompat.h"
#include "KosanPasses.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

using namespace llvm;

#define DEBUG_TYPE "kosan-compat"

STATISTIC(NumSqrtRounded,
          "libdevice square roots made sqrt.rn, as nvcc's -prec-sqrt=true");

namespace kosan {
namespace {

// -nvptx-prec-sqrtf32 where given: the NVPTX backend's option, a
// cl::opt<bool> in LLVM 19, read by name because it lives in the backend.
std::optional<bool> precSqrtOption() {
  StringMap<cl::Option *> &Options = cl::getRegisteredOptions();
  auto It = Options.find("nvptx-prec-sqrtf32");
  if (It == Options.end() || It->second->getNumOccurrences() == 0)
    return std::nullopt;
  return static_cast<cl::opt<bool> *>(It->second)->getValue();
}

// nvcc's answer to __CUDA_PREC_SQRT for libdevice's function F, whose
// attributes clang set from the compile's options.
bool preciseSqrt(const Function &F, std::optional<bool> Option) {
  if (Option)
    return *Option;
  return !F.getFnAttribute("unsafe-fp-math").getValueAsBool();
}

bool isLibdeviceFunction(const Function &F) {
  return !F.isDeclaration() && F.getName().starts_with("__nv_");
}

// The rounded square root in place of an approximate one, or none.
Intrinsic::ID roundedSqrt(const IntrinsicInst &II) {
  switch (II.getIntrinsicID()) {
  case Intrinsic::nvvm_sqrt_approx_f:
    return Intrinsic::nvvm_sqrt_rn_f;
  case Intrinsic::nvvm_sqrt_approx_ftz_f:
    return Intrinsic::nvvm_sqrt_rn_ftz_f;
  default:
    return Intrinsic::not_intrinsic;
  }
}

bool roundLibdeviceSqrt(Module &M) {
  std::optional<bool> Option = precSqrtOption();
  SmallVector<IntrinsicInst *, 8> Approx;
  for (Function &F : M)
    if (isLibdeviceFunction(F) && preciseSqrt(F, Option))
      for (Instruction &I : instructions(F))
        if (auto *II = dyn_cast<IntrinsicInst>(&I);
            II && roundedSqrt(*II) != Intrinsic::not_intrinsic)
          Approx.push_back(II);
  for (IntrinsicInst *II : Approx) {
    IRBuilder<> B(II);
    CallInst *Rounded = B.CreateIntrinsic(roundedSqrt(*II), {}, {II->getArgOperand(0)});
    Rounded->takeName(II);
    II->replaceAllUsesWith(Rounded);
    II->eraseFromParent();
    ++NumSqrtRounded;
  }
  return !Approx.empty();
}

} // namespace
PreservedAnalyses CudaCompatPass::run(Module &M, ModuleAnalysisManager &) {
  if (!Triple(M.getTargetTriple()).isNVPTX())
    return PreservedAnalyses::all();
  if (!roundLibdeviceSqrt(M))
    return PreservedAnalyses::all();
  // Plain builds change modules here only: they are verified too.
  if (!verifyKosanOutput(M))
    return PreservedAnalyses::none();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

void CudaCompatPass::printPipeline(
    raw_ostream &OS, function_ref<StringRef(StringRef)> /*MapClassName*/) {
  OS << "kosan-compat";
}

} // namespace kosan
