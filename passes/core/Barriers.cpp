//===- core/Barriers.cpp - Block barriers of the clones -------------------===//
#include "core/Barriers.h"
#include "target/Target.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kosan {

namespace {

// Which values may differ between the threads of a warp, computed to a
// fixpoint. LLVM's UniformityAnalysis for NVPTX takes blockIdx and
// blockDim for divergent, which would leave every grid-stride loop's
// barriers as written; here the sources are the target's (threadIdx,
// lane id: Target::classify), loads, atomics and calls, and what depends
// on them: through operands, through a phi that joins paths of a divergent
// branch, and through a value of a loop read after a divergent exit from it.
class Divergence {
public:
  Divergence(Function &F, const Target &T, const LoopInfo &LI, const PostDominatorTree &PDT)
      : F(F), T(T), LI(LI), PDT(PDT) {
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock &BB : F)
        for (Instruction &I : BB)
          if (!divergent.count(&I) && isDivergentNow(I)) {
            divergent.insert(&I);
            changed = true;
          }
    }
  }

  bool terminatorDivergent(const BasicBlock &B) const {
    const Instruction *T = B.getTerminator();
    if (auto *Br = dyn_cast<BranchInst>(T))
      return Br->isConditional() && isDivergent(Br->getCondition());
    if (auto *Sw = dyn_cast<SwitchInst>(T))
      return isDivergent(Sw->getCondition());
    return T->getNumSuccessors() > 1; // indirectbr, callbr: not followed
  }

private:
  bool isDivergent(const Value *V) const {
    auto *I = dyn_cast<Instruction>(V);
    return I && divergent.count(I);
  }

  // A value of a loop used outside it after a divergent exit from it.
  bool leavesDivergentLoop(const Value *V, const BasicBlock *useBlock) const {
    auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return false;
    for (Loop *L = LI.getLoopFor(I->getParent()); L && !L->contains(useBlock);
         L = L->getParentLoop()) {
      SmallVector<BasicBlock *, 4> exiting;
      L->getExitingBlocks(exiting);
      if (any_of(exiting, [&](BasicBlock *B) { return terminatorDivergent(*B); }))
        return true;
    }
    return false;
  }

  // Whether paths from two successors of divergent branch B reach J
  // through different predecessors of J, within B's region (not through B
  // again, nor beyond B's immediate post-dominator, where its threads meet).
  bool joins(const BasicBlock &B, const BasicBlock &J) const {
    const DomTreeNode *N = PDT.getNode(&B);
    const BasicBlock *meet =
        N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
    SmallVector<SmallPtrSet<const BasicBlock *, 4>, 2> reached;
    for (const BasicBlock *S : successors(&B)) {
      SmallPtrSet<const BasicBlock *, 4> preds;
      if (S == &J) {
        preds.insert(&B);
      } else {
        SmallPtrSet<const BasicBlock *, 16> seen{&B, &J};
        if (meet)
          seen.insert(meet);
        SmallVector<const BasicBlock *, 8> work{S};
        while (!work.empty()) {
          const BasicBlock *X = work.pop_back_val();
          if (!seen.insert(X).second)
            continue;
          for (const BasicBlock *Y : successors(X)) {
            if (Y == &J)
              preds.insert(X);
            else
              work.push_back(Y);
          }
        }
      }
      reached.push_back(std::move(preds));
    }
    for (unsigned a = 0; a < reached.size(); ++a)
      for (unsigned b = a + 1; b < reached.size(); ++b)
        for (const BasicBlock *P : reached[a])
          if (any_of(reached[b], [&](const BasicBlock *Q) { return Q != P; }))
            return true;
    return false;
  }

  bool isDivergentNow(const Instruction &I) const {
    if (auto *Phi = dyn_cast<PHINode>(&I)) {
      for (unsigned k = 0; k < Phi->getNumIncomingValues(); ++k)
        if (isDivergent(Phi->getIncomingValue(k)) ||
            leavesDivergentLoop(Phi->getIncomingValue(k), Phi->getIncomingBlock(k)))
          return true;
      if (Phi->hasConstantOrUndefValue())
        return false;
      for (const BasicBlock &B : F)
        if (terminatorDivergent(B) && joins(B, *Phi->getParent()))
          return true;
      return false;
    }
    if (auto *CI = dyn_cast<CallBase>(&I)) {
      auto *II = dyn_cast<IntrinsicInst>(CI);
      if (!II)
        return true; // calls and inline assembly
      switch (T.classify(*II)) {
      case GpuValue::BlockId:
      case GpuValue::BlockDim:
      case GpuValue::GridDim:
        return false;
      case GpuValue::None:
        break;
      default:
        return true; // thread index, lane id
      }
      // Other special registers (clock, lane masks, ...) differ by thread.
      if (II->getCalledFunction()->getName().starts_with("llvm.nvvm.read.ptx.sreg."))
        return true;
      if (!CI->doesNotAccessMemory() || II->isConvergent())
        return true;
    } else if (I.mayReadOrWriteMemory() || isa<AllocaInst>(I)) {
      return true;
    }
    return any_of(I.operands(), [&](const Use &U) {
      return isDivergent(U.get()) || leavesDivergentLoop(U.get(), I.getParent());
    });
  }

  Function &F;
  const Target &T;
  const LoopInfo &LI;
  const PostDominatorTree &PDT;
  DenseSet<const Instruction *> divergent;
};

// Whether every thread of a warp that enters F reaches BB as the others do:
// no block BB is control dependent on, directly or through other such
// blocks, ends in a branch on a divergent condition. (BB is control
// dependent on B when BB post-dominates a successor of B but not B itself.)
bool reachedConverged(BasicBlock &BB, const Divergence &D, const PostDominatorTree &PDT) {
  SmallPtrSet<BasicBlock *, 16> seen;
  SmallVector<BasicBlock *, 8> work{&BB};
  while (!work.empty()) {
    BasicBlock *X = work.pop_back_val();
    if (!seen.insert(X).second)
      continue;
    for (BasicBlock &B : *X->getParent()) {
      if (B.getTerminator()->getNumSuccessors() < 2 || PDT.properlyDominates(X, &B))
        continue;
      if (none_of(successors(&B), [&](BasicBlock *S) { return PDT.dominates(X, S); }))
        continue;
      if (D.terminatorDivergent(B))
        return false;
      work.push_back(&B);
    }
  }
  return true;
}

} // namespace

unsigned alignConvergedBarriers(Function &F, const Target &T, FunctionAnalysisManager &FAM) {
  SmallVector<IntrinsicInst *, 4> barriers;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (T.isNonAlignedBarrier(*II))
          barriers.push_back(II);
  if (barriers.empty())
    return 0;
  const PostDominatorTree &PDT = FAM.getResult<PostDominatorTreeAnalysis>(F);
  Divergence D(F, T, FAM.getResult<LoopAnalysis>(F), PDT);
  unsigned aligned = 0;
  for (IntrinsicInst *II : barriers) {
    if (!reachedConverged(*II->getParent(), D, PDT))
      continue;
    T.alignBarrier(*II);
    ++aligned;
  }
  if (aligned) {
    PreservedAnalyses PA;
    PA.preserveSet<CFGAnalyses>();
    FAM.invalidate(F, PA);
  }
  return aligned;
}

} // namespace kosan
