//===- passes/checks/order/OrderAnalysis.cpp - Where a kernel's reduction order can vary -===//
//
// The static half of the order check (checks=order): before anything runs,
// say which kernels combine floating-point values in an order that is not
// fixed by the source alone:
//   - float atomics (their order is the order in which they land);
//   - cross-thread reductions through warp shuffles or shared memory (their
//     tree is fixed, but it is one tree among many a rewrite may pick);
//   - loops that carry a floating-point value and whose trip count depends
//     on a kernel argument or a launch dimension (the split of a reduction
//     then changes with the batch, the tile size or the launch).
// The findings are remarks (-Rpass=kosan-order, OrderInstrumenter.cpp), one
// per kernel, listing each with its source line, and the kernel's entry in
// the site table. Nothing is instrumented here. The dominator tree and loop
// info come from the function analysis manager.
//
//===----------------------------------------------------------------------===//
#include "checks/order/OrderAnalysis.h"
#include "target/Target.h"

#include "kosan/abi.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace llvm;

namespace kosan {

namespace {

constexpr unsigned kSharedAS = addrspace::Shared;

std::string where(const Instruction &I) {
  const DILocation *L = I.getDebugLoc();
  if (!L)
    return "";
  // The outermost frame in the program's own code is where a user looks.
  while (L->getInlinedAt() && (L->getFilename().contains("/include/") ||
                               L->getFilename().contains("/lib/clang/")))
    L = L->getInlinedAt();
  return (L->getFilename() + ":" + Twine(L->getLine())).str();
}

bool isFPArith(const Instruction &I) {
  switch (I.getOpcode()) {
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
    return true;
  default:
    break;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(&I))
    switch (II->getIntrinsicID()) {
    case Intrinsic::fma:
    case Intrinsic::fmuladd:
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::minimum:
    case Intrinsic::maximum:
      return true;
    default:
      break;
    }
  return false;
}

// What the analysis of one kernel needs: its analyses and its target.
struct Env {
  FunctionAnalysisManager &FAM;
  const Target &T;
};

// A warp shuffle: the target's intrinsic, or (at -O0, where nothing is
// inlined) a call of one of the headers' __shfl*_sync wrappers.
bool isShuffle(const Value *V, const Env &E) { return E.T.isShuffle(*V); }

// V, looking through casts and bitcasts (a shuffle of a float is a shuffle
// of its i32 bits).
const Value *throughCasts(const Value *V) {
  while (auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  return V;
}

// A shuffle's result, or a choice between values of which one is (a tree
// picked at run time: a select, or a phi at -O0 and after branches).
bool fromShuffle(const Value *V, const Env &E) {
  V = throughCasts(V);
  if (isShuffle(V, E))
    return true;
  SmallVector<const Value *, 4> choices;
  if (auto *S = dyn_cast<SelectInst>(V))
    choices = {S->getTrueValue(), S->getFalseValue()};
  else if (auto *P = dyn_cast<PHINode>(V))
    choices.append(P->incoming_values().begin(), P->incoming_values().end());
  return any_of(choices, [&](const Value *C) { return isShuffle(throughCasts(C), E); });
}

bool fromSharedMemory(const Value *ptr) {
  const Value *obj = getUnderlyingObject(ptr, 12);
  if (auto *GV = dyn_cast<GlobalVariable>(obj))
    return GV->getAddressSpace() == kSharedAS;
  return ptr->getType()->getPointerAddressSpace() == kSharedAS;
}

// The sources V is computed from, as far as a walk over its operands goes:
// arguments and calls of intrinsics (the PTX special registers among them)
// end the walk; at -O0 a load from a stack slot continues with what was
// stored there. visit(source) returns true to stop the whole walk; so does
// walkSources.
template <typename Visit>
bool walkSources(const Value *V, SmallPtrSetImpl<const Value *> &seen, Visit &visit,
                 unsigned depth = 0) {
  if (depth > 24 || !seen.insert(V).second)
    return false;
  if (isa<Argument>(V) || isa<IntrinsicInst>(V))
    return visit(V);
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (auto *AI = dyn_cast<AllocaInst>(LI->getPointerOperand()->stripPointerCasts()))
      for (const User *U : AI->users())
        if (auto *SI = dyn_cast<StoreInst>(U))
          if (SI->getPointerOperand()->stripPointerCasts() == AI &&
              walkSources(SI->getValueOperand(), seen, visit, depth + 1))
            return true;
    return false;
  }
  if (auto *I = dyn_cast<Instruction>(V))
    for (const Value *Op : I->operands())
      if (walkSources(Op, seen, visit, depth + 1))
        return true;
  return false;
}

// What a value depends on among the kernel's scalar arguments and the
// launch dimensions (blockDim, gridDim).
void launchDependencies(const Value *V, std::vector<std::string> &out,
                        SmallPtrSetImpl<const Value *> &seen, const Env &E) {
  auto add = [&](std::string name) {
    if (std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(std::move(name));
  };
  auto visit = [&](const Value *src) {
    if (auto *A = dyn_cast<Argument>(src)) {
      if (!A->getType()->isPointerTy())
        add(A->hasName() ? "argument '" + A->getName().str() + "'"
                         : "argument " + std::to_string(A->getArgNo()));
    } else {
      GpuValue what = E.T.classify(*src);
      if (what == GpuValue::BlockDim)
        add("blockDim");
      else if (what == GpuValue::GridDim)
        add("gridDim");
    }
    return false;
  };
  walkSources(V, seen, visit);
}

// Whether V depends on which thread or block computes it: a condition on
// it guards an element (`if (i < n)`) rather than picking how a reduction
// goes.
bool dependsOnThread(const Value *V, const Env &E) {
  SmallPtrSet<const Value *, 32> seen;
  auto visit = [&](const Value *src) {
    GpuValue what = E.T.classify(*src);
    return what == GpuValue::ThreadId || what == GpuValue::BlockId ||
           what == GpuValue::LaneId;
  };
  return walkSources(V, seen, visit);
}

using Findings = OrderFindings;

Findings analyze(Function &F, const Env &E, unsigned depth = 0);

// What a call does that the caller's own code does not show (at -O0 every
// header function, atomicAdd included, is a call): the callee's atomics and
// cross-thread reductions, reported at the call.
void addCallee(Findings &f, const CallInst &CI, const Env &E, unsigned depth) {
  Function *callee = CI.getCalledFunction();
  if (!callee || callee->isDeclaration() || callee->isIntrinsic() || depth >= 4)
    return;
  Findings inner = analyze(*callee, E, depth + 1);
  std::string at = where(CI);
  if (at.empty())
    at = callee->getName().str();
  auto note = [&](std::vector<std::string> &to, const std::vector<std::string> &from) {
    if (!from.empty() && std::find(to.begin(), to.end(), at) == to.end())
      to.push_back(at);
  };
  note(f.atomics, inner.atomics);
  note(f.shuffles, inner.shuffles);
  note(f.shared, inner.shared);
}

Findings analyze(Function &F, const Env &E, unsigned depth) {
  Findings f;
  auto add = [](std::vector<std::string> &list, std::string item) {
    if (std::find(list.begin(), list.end(), item) == list.end())
      list.push_back(std::move(item));
  };
  for (Instruction &I : instructions(F)) {
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      if (RMW->isFloatingPointOperation())
        add(f.atomics, where(I).empty() ? "atomicrmw" : where(I));
      continue;
    }
    if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->isInlineAsm()) {
      // Half and bf16 atomics of cuda_fp16.h/cuda_bf16.h are inline PTX.
      StringRef text = cast<InlineAsm>(CI->getCalledOperand())->getAsmString();
      if (text.contains("atom.") && (text.contains(".f16") || text.contains(".bf16") ||
                                     text.contains(".f32") || text.contains(".f64")))
        add(f.atomics, where(I).empty() ? "atomic" : where(I));
      continue;
    }
    if (auto *CI = dyn_cast<CallInst>(&I); CI && !isShuffle(CI, E))
      addCallee(f, *CI, E, depth);
    if (!isFPArith(I))
      continue;
    for (const Value *Op : I.operands()) {
      const Value *src = throughCasts(Op);
      if (fromShuffle(src, E))
        add(f.shuffles, where(I).empty() ? "shuffle" : where(I));
      // A combination of values read from shared memory whose result goes
      // back to shared memory: one step of a block-wide tree.
      if (auto *LI = dyn_cast<LoadInst>(src); LI && fromSharedMemory(LI->getPointerOperand()))
        for (const User *U : I.users())
          if (auto *SI = dyn_cast<StoreInst>(U);
              SI && SI->getValueOperand() == &I && fromSharedMemory(SI->getPointerOperand()))
            add(f.shared, where(I).empty() ? "shared memory" : where(I));
    }
  }
  // Loops that carry a floating-point value and whose exit depends on the
  // launch: the reduction's split follows the launch.
  DominatorTree &DT = E.FAM.getResult<DominatorTreeAnalysis>(F);
  LoopInfo &LI = E.FAM.getResult<LoopAnalysis>(F);
  for (Loop *L : LI.getLoopsInPreorder()) {
    bool carriesFP = false;
    for (PHINode &P : L->getHeader()->phis())
      carriesFP |= P.getType()->isFloatingPointTy();
    // At -O0 the accumulator lives in a stack slot stored inside the loop.
    if (!carriesFP)
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
          if (auto *SI = dyn_cast<StoreInst>(&I))
            if (SI->getValueOperand()->getType()->isFloatingPointTy() &&
                isa<AllocaInst>(SI->getPointerOperand()->stripPointerCasts()))
              carriesFP = true;
    if (!carriesFP)
      continue;
    std::vector<std::string> deps;
    SmallPtrSet<const Value *, 32> seen;
    SmallVector<BasicBlock *, 4> exiting;
    L->getExitingBlocks(exiting);
    for (BasicBlock *BB : exiting)
      if (auto *Br = dyn_cast<BranchInst>(BB->getTerminator()); Br && Br->isConditional())
        launchDependencies(Br->getCondition(), deps, seen, E);
    // A branch on the launch that decides whether this loop runs at all
    // (`if (lanes == 4) { 4 partial sums } else { one }`) picks the
    // reduction's shape; one on the thread's index only guards an element.
    std::vector<std::string> chosen;
    SmallPtrSet<const Value *, 32> chosenSeen;
    for (DomTreeNode *N = DT.getNode(L->getHeader())->getIDom(); N; N = N->getIDom()) {
      BasicBlock *D = N->getBlock();
      auto *Br = dyn_cast<BranchInst>(D->getTerminator());
      if (!Br || !Br->isConditional())
        continue;
      bool decides = false;
      for (BasicBlock *S : Br->successors())
        decides |= DT.dominates(BasicBlockEdge(D, S), L->getHeader());
      if (decides && !dependsOnThread(Br->getCondition(), E))
        launchDependencies(Br->getCondition(), chosen, chosenSeen, E);
    }
    // A rotated loop's zero-trip guard tests its own trip count: said once.
    std::erase_if(chosen, [&](const std::string &c) {
      return std::find(deps.begin(), deps.end(), c) != deps.end();
    });
    if (deps.empty() && chosen.empty())
      continue;
    std::string text = where(*L->getHeader()->getFirstNonPHI());
    if (text.empty())
      text = "loop";
    auto list = [](const std::vector<std::string> &items) {
      std::string out;
      for (unsigned i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + items[i];
      return out;
    };
    if (!deps.empty())
      text += " (trip count from " + list(deps) + ")";
    if (!chosen.empty())
      text += " (chosen by a branch on " + list(chosen) + ")";
    add(f.loops, text);
  }
  return f;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &s : items)
    out += (out.empty() ? "" : ", ") + s;
  return out;
}

} // namespace

OrderFindings analyzeOrder(Function &F, FunctionAnalysisManager &FAM, const Target &T) {
  return analyze(F, Env{FAM, T});
}

uint32_t OrderFindings::flags() const {
  return (atomics.empty() ? 0u : uint32_t(KOSAN_KERNEL_FLOAT_ATOMICS)) |
         (shuffles.empty() ? 0u : uint32_t(KOSAN_KERNEL_SHUFFLE_REDUCTION)) |
         (shared.empty() ? 0u : uint32_t(KOSAN_KERNEL_SHARED_REDUCTION)) |
         (loops.empty() ? 0u : uint32_t(KOSAN_KERNEL_LAUNCH_DEPENDENT_LOOP));
}

std::string OrderFindings::describe() const {
  if (atomics.empty() && shuffles.empty() && shared.empty() && loops.empty())
    return "no float atomics, cross-thread reductions or launch-dependent "
           "reduction loops";
  std::vector<std::string> parts;
  if (!atomics.empty())
    parts.push_back("float atomics at " + join(atomics) +
                    " (order of arrival: may differ from run to run)");
  if (!shuffles.empty())
    parts.push_back("warp-shuffle reduction at " + join(shuffles));
  if (!shared.empty())
    parts.push_back("shared-memory reduction at " + join(shared));
  if (!loops.empty())
    parts.push_back("launch-dependent reduction loops at " + join(loops) +
                    " (the split changes with those values)");
  std::string text;
  for (const std::string &p : parts)
    text += (text.empty() ? "" : "; ") + p;
  return text;
}

} // namespace kosan
