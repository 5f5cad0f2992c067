//===- passes/core/Contraction.cpp - The backend's fused multiply-adds, in IR ===//
//
// See Contraction.h for the rules and why. Each rule below names the fold
// of LLVM 19's DAGCombiner it follows.
//
//===----------------------------------------------------------------------===//
#include "core/Contraction.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

#define DEBUG_TYPE "kosan"

STATISTIC(NumFormedFMAs, "Multiply-add pairs written as llvm.fma in clones, as the backend fuses them");

namespace kosan {

FPFusion resolveFPFusion(FPFusion mode, const Module &M) {
  if (mode != FPFusion::Infer)
    return mode;
  for (const Function &F : M)
    for (const Instruction &I : instructions(F))
      if (isa<FPMathOperator>(&I) && I.hasAllowContract())
        return FPFusion::Fast;
  return FPFusion::Standard;
}

namespace {

// One basic block, as instruction selection sees it: a DAG of its own
// values, where a value defined elsewhere (or flowing to a phi) is a
// register copy, not the instruction that computes it.
class BlockFuser {
public:
  BlockFuser(BasicBlock &BB, FPFusion mode) : BB(BB), fuseAll(mode == FPFusion::Fast) {}

  unsigned run() {
    // The combiner visits a block's nodes last to first, so an add sees
    // the uses a later add already fused away.
    SmallVector<WeakTrackingVH, 16> adds;
    for (Instruction &I : BB)
      if (I.getOpcode() == Instruction::FAdd || I.getOpcode() == Instruction::FSub)
        adds.push_back(&I);
    unsigned fused = 0;
    for (WeakTrackingVH &V : reverse(adds))
      if (auto *I = dyn_cast_or_null<BinaryOperator>(V))
        fused += fuse(*I);
    return fused;
  }

private:
  bool contractable(const Instruction &I) const { return fuseAll || I.hasAllowContract(); }

  // The node's uses in the block's DAG: each use here, and one for all uses
  // elsewhere (the copy to a virtual register).
  unsigned dagUses(const Value *V) const {
    unsigned here = 0;
    bool elsewhere = false;
    for (const Use &U : V->uses()) {
      const auto *user = cast<Instruction>(U.getUser());
      if (user->getParent() == &BB && !isa<PHINode>(user))
        ++here;
      else
        elsewhere = true;
    }
    return here + elsewhere;
  }

  // The operand of an fneg of this block, or nullptr.
  Value *negated(Value *V) const {
    auto *I = dyn_cast<Instruction>(V);
    if (I && I->getParent() == &BB && I->getOpcode() == Instruction::FNeg)
      return I->getOperand(0);
    return nullptr;
  }
  // The operand of an fneg the combiner folds into the add or subtract that
  // uses it (TargetLowering::getNegatedExpression: one use only).
  Value *foldableNegation(Value *V) const {
    Value *X = negated(V);
    return X && dagUses(V) == 1 ? X : nullptr;
  }

  // A multiply the combiner fuses (isContractableFMUL), or nullptr.
  BinaryOperator *fusibleMul(Value *V) const {
    auto *I = dyn_cast_or_null<BinaryOperator>(V);
    if (I && I->getParent() == &BB && I->getOpcode() == Instruction::FMul && contractable(*I))
      return I;
    return nullptr;
  }

  unsigned fuse(BinaryOperator &I) {
    if (!contractable(I))
      return 0;
    bool sub = I.getOpcode() == Instruction::FSub;
    Value *N0 = I.getOperand(0), *N1 = I.getOperand(1);
    // visitFADD: (fadd A, (fneg B)) -> (fsub A, B), (fadd (fneg A), B) ->
    // (fsub B, A); visitFSUB: (fsub A, (fneg B)) -> (fadd A, B). The node
    // made keeps the flags of the one it replaces.
    for (;;) {
      if (Value *B = foldableNegation(N1)) {
        sub = !sub;
        N1 = B;
      } else if (Value *A = !sub ? foldableNegation(N0) : nullptr) {
        sub = true;
        N0 = N1;
        N1 = A;
      } else {
        break;
      }
    }

    IRBuilder<> B(&I);
    B.setFastMathFlags(I.getFastMathFlags());
    auto neg = [&](Value *V) { return B.CreateFNeg(V); };
    auto fma = [&](Value *X, Value *Y, Value *Z) {
      return B.CreateIntrinsic(Intrinsic::fma, {I.getType()}, {X, Y, Z});
    };
    BinaryOperator *M0 = fusibleMul(N0), *M1 = fusibleMul(N1);
    bool preferSecond = M0 && M1 && dagUses(M0) > dagUses(M1);
    Value *fused = nullptr;
    if (!sub) {
      // visitFADDForFMACombine: (fadd (fmul x, y), z) -> (fma x, y, z) and
      // (fadd x, (fmul y, z)) -> (fma y, z, x); of two multiplies the one
      // with fewer uses; never (fadd m, m).
      if (N0 == N1)
        return 0;
      if (preferSecond) {
        std::swap(M0, M1);
        std::swap(N0, N1);
      }
      if (M0)
        fused = fma(M0->getOperand(0), M0->getOperand(1), N1);
      else if (M1)
        fused = fma(M1->getOperand(0), M1->getOperand(1), N0);
    } else {
      // visitFSUBForFMACombine: (fsub (fmul x, y), z) -> (fma x, y, (fneg z)),
      // (fsub x, (fmul y, z)) -> (fma (fneg y), z, x), the second first when
      // its multiply has fewer uses; (fsub (fneg (fmul x, y)), z) ->
      // (fma (fneg x), y, (fneg z)).
      auto xySubZ = [&]() -> Value * {
        return M0 ? fma(M0->getOperand(0), M0->getOperand(1), neg(N1)) : nullptr;
      };
      auto xSubYZ = [&]() -> Value * {
        return M1 ? fma(neg(M1->getOperand(0)), M1->getOperand(1), N0) : nullptr;
      };
      fused = preferSecond ? xSubYZ() : xySubZ();
      if (!fused)
        fused = xSubYZ();
      if (!fused)
        if (BinaryOperator *M = fusibleMul(negated(N0))) {
          Value *X = neg(M->getOperand(0));
          fused = fma(X, M->getOperand(1), neg(N1));
        }
    }
    if (!fused)
      return 0;
    cast<Instruction>(fused)->setDebugLoc(I.getDebugLoc());
    fused->takeName(&I);
    I.replaceAllUsesWith(fused);
    SmallVector<Value *, 2> operands(I.operands());
    I.eraseFromParent();
    // What the combiner deletes once unused: the fused multiply, the folded
    // negations. They no longer count as uses.
    for (Value *V : operands)
      eraseDeadNegationsAndMultiplies(V);
    ++NumFormedFMAs;
    return 1;
  }

  void eraseDeadNegationsAndMultiplies(Value *V) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !I->use_empty() || I->getParent() != &BB ||
        (I->getOpcode() != Instruction::FNeg && I->getOpcode() != Instruction::FMul))
      return;
    SmallVector<Value *, 2> operands(I->operands());
    salvageDebugInfo(*I);
    I->eraseFromParent();
    for (Value *Op : operands)
      eraseDeadNegationsAndMultiplies(Op);
  }

  BasicBlock &BB;
  bool fuseAll;
};

} // namespace

unsigned formBackendFMAs(Function &F, FPFusion mode) {
  unsigned fused = 0;
  for (BasicBlock &BB : F)
    fused += BlockFuser(BB, mode).run();
  return fused;
}

void findAssemblerFMAs(Function &F, FPFusion mode, SmallVectorImpl<AssemblerFMA> &found) {
  if (mode != FPFusion::Fast)
    return;
  // The multiply flushes subnormals as div.approx's variant does: the
  // function's own mode must be the same for the IR multiply to match.
  bool ftz = F.getDenormalMode(APFloat::IEEEsingle()).Output == DenormalMode::PreserveSign;
  for (Instruction &I : instructions(F)) {
    auto *CI = dyn_cast<CallInst>(&I);
    Function *callee = CI ? CI->getCalledFunction() : nullptr;
    if (!callee || !CI->hasOneUse())
      continue;
    Intrinsic::ID id = callee->getIntrinsicID();
    if (!(id == Intrinsic::nvvm_div_approx_f && !ftz) &&
        !(id == Intrinsic::nvvm_div_approx_ftz_f && ftz))
      continue;
    auto *U = dyn_cast<BinaryOperator>(CI->user_back());
    if (U && U->getParent() == CI->getParent() &&
        (U->getOpcode() == Instruction::FAdd || U->getOpcode() == Instruction::FSub))
      found.push_back({CI, U});
  }
}

unsigned formAssemblerFMAs(ArrayRef<AssemblerFMA> found) {
  unsigned formed = 0;
  for (const AssemblerFMA &f : found) {
    auto *CI = dyn_cast_or_null<CallInst>(f.quotient);
    auto *U = dyn_cast_or_null<BinaryOperator>(f.add);
    if (!CI || !U)
      continue;
    IRBuilder<> B(U);
    B.SetCurrentDebugLocation(U->getDebugLoc());
    Value *a = CI->getArgOperand(0), *b = CI->getArgOperand(1);
    Type *F32 = b->getType();
    if (CI->getCalledFunction()->getIntrinsicID() == Intrinsic::nvvm_div_approx_f) {
      Value *small = B.CreateFCmpOLT(B.CreateUnaryIntrinsic(Intrinsic::fabs, b),
                                     ConstantFP::get(F32, 0x1p-126));
      Constant *scale = ConstantFP::get(F32, 0x1p24);
      b = B.CreateSelect(small, B.CreateFMul(b, scale), b);
      a = B.CreateSelect(small, B.CreateFMul(a, scale), a);
    }
    Value *r = B.CreateIntrinsic(Intrinsic::nvvm_rcp_approx_ftz_f, {}, {b});
    Value *c = U->getOperand(U->getOperand(0) == CI ? 1 : 0);
    if (U->getOpcode() == Instruction::FSub) {
      if (U->getOperand(0) == CI)
        c = B.CreateFNeg(c); // p - c
      else
        a = B.CreateFNeg(a); // c - p
    }
    Value *fma = B.CreateIntrinsic(Intrinsic::fma, {F32}, {a, r, c}, nullptr,
                                   U->getName() + ".fused");
    U->replaceAllUsesWith(fma);
    U->eraseFromParent();
    ++formed;
  }
  return formed;
}

} // namespace kosan
