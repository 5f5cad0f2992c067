//===- passes/Provenance.cpp - What object a device pointer derives from ---===//
#include "Provenance.h"

#include "kosan/abi.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace kosan {

namespace {
// NVPTX address spaces.
constexpr unsigned kShared = 3, kConst = 4, kLocal = 5, kParam = 101;
constexpr unsigned kMaxDepth = 32;

bool sameObject(const Provenance &a, const Provenance &b) {
  return a.kind == b.kind && a.base == b.base;
}

// At -O0 clang spills every pointer to a stack slot stored once and loaded
// everywhere; a load from such a slot has the stored value's provenance.
Value *singleStoredValue(AllocaInst *slot) {
  Value *stored = nullptr;
  for (User *U : slot->users()) {
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getPointerOperand() != slot || stored)
        return nullptr;
      stored = SI->getValueOperand();
    } else if (!isa<LoadInst>(U)) {
      return nullptr; // address escapes: another store may hide behind it
    }
  }
  return stored;
}
} // namespace

Provenance ProvenanceAnalysis::resolve(Value *ptr) {
  Provenance p = resolveBase(ptr, 0);
  if (p.kind == Provenance::Unknown || !p.base)
    return p;
  // Constant offset from the base, for statically proving accesses safe.
  APInt offset(DL.getIndexTypeSizeInBits(ptr->getType()), 0);
  Value *stripped = ptr->stripAndAccumulateConstantOffsets(
      DL, offset, /*AllowNonInbounds=*/true);
  if (stripped->stripPointerCasts() == p.base->stripPointerCasts())
    p.constOffset = offset.getSExtValue();
  return p;
}

Provenance ProvenanceAnalysis::resolveBase(Value *v, unsigned depth) {
  if (depth > kMaxDepth)
    return {};
  while (true) {
    if (auto *GEP = dyn_cast<GEPOperator>(v)) {
      v = GEP->getPointerOperand();
      continue;
    }
    if (auto *Cast = dyn_cast<BitCastOperator>(v)) {
      v = Cast->getOperand(0);
      continue;
    }
    if (auto *Cast = dyn_cast<AddrSpaceCastOperator>(v)) {
      v = Cast->getOperand(0);
      continue;
    }
    break;
  }
  auto cached = cache.find(v);
  if (cached != cache.end())
    return cached->second;

  Provenance result;
  if (auto *LI = dyn_cast<LoadInst>(v)) {
    if (auto *slot = dyn_cast<AllocaInst>(LI->getPointerOperand()->stripPointerCasts()))
      if (Value *stored = singleStoredValue(slot))
        result = resolveBase(stored, depth + 1);
  } else if (isa<PHINode>(v) || isa<SelectInst>(v)) {
    if (!inProgress.insert(v).second)
      return Provenance{Provenance::Constant}; // a cycle adds no new object
    SmallVector<Value *, 4> incoming;
    if (auto *Phi = dyn_cast<PHINode>(v))
      incoming.append(Phi->incoming_values().begin(), Phi->incoming_values().end());
    else
      incoming = {cast<SelectInst>(v)->getTrueValue(),
                  cast<SelectInst>(v)->getFalseValue()};
    std::optional<Provenance> common;
    bool agree = true;
    for (Value *in : incoming) {
      Provenance p = resolveBase(in, depth + 1);
      if (p.kind == Provenance::Constant && !p.base)
        continue; // the back edge of a loop
      if (!common)
        common = p;
      else if (!sameObject(*common, p))
        agree = false;
    }
    inProgress.erase(v);
    if (agree && common)
      result = *common;
  } else {
    result = classify(v);
  }
  // A result reached while some phi is still open may have skipped that
  // phi's other incoming objects; only closed results are final.
  if (inProgress.empty())
    cache[v] = result;
  return result;
}

Provenance ProvenanceAnalysis::classify(Value *base) {
  Provenance p;
  p.base = base;
  unsigned as = base->getType()->isPointerTy()
                    ? base->getType()->getPointerAddressSpace()
                    : 0;
  if (as == kConst || as == kParam) {
    p.kind = Provenance::Constant;
    p.space = KOSAN_SPACE_PARAM;
    return p;
  }
  if (auto *A = dyn_cast<Argument>(base)) {
    if (A->hasByValAttr()) {
      p.kind = Provenance::StaticObject;
      p.size = DL.getTypeAllocSize(A->getParamByValType());
      p.space = KOSAN_SPACE_PARAM;
      return p;
    }
    if (kernel && A->getParent() == kernel && A->getType()->isPointerTy()) {
      p.kind = Provenance::KernelArg;
      p.argIndex = A->getArgNo();
      p.space = as == kShared ? KOSAN_SPACE_SHARED : KOSAN_SPACE_GLOBAL;
      return p;
    }
    p.kind = Provenance::Unknown;
    p.space = KOSAN_SPACE_UNKNOWN;
    return p;
  }
  if (auto *GV = dyn_cast<GlobalVariable>(base)) {
    Type *T = GV->getValueType();
    uint64_t size = T->isSized() ? DL.getTypeAllocSize(T).getFixedValue() : 0;
    if (GV->getAddressSpace() == kShared) {
      p.space = KOSAN_SPACE_SHARED;
      // extern __shared__ T buf[]: a zero-sized external declaration whose
      // real size is the launch's dynamic shared memory.
      if (size == 0 || GV->isDeclaration()) {
        p.kind = Provenance::DynamicShared;
        return p;
      }
      p.kind = Provenance::StaticObject;
      p.size = size;
      return p;
    }
    if (GV->isConstant()) {
      p.kind = Provenance::Constant;
      return p;
    }
    if (GV->isDeclaration() || size == 0 || GV->isInterposable()) {
      p.kind = Provenance::Unknown;
      p.space = KOSAN_SPACE_UNKNOWN;
      return p;
    }
    p.kind = Provenance::StaticObject;
    p.size = size;
    p.space = KOSAN_SPACE_GLOBAL;
    return p;
  }
  if (auto *AI = dyn_cast<AllocaInst>(base)) {
    if (auto size = AI->getAllocationSize(DL); size && !size->isScalable()) {
      p.kind = Provenance::StaticObject;
      p.size = size->getFixedValue();
      p.space = KOSAN_SPACE_LOCAL;
      return p;
    }
  }
  (void)kLocal;
  p.kind = Provenance::Unknown;
  p.space = KOSAN_SPACE_UNKNOWN;
  return p;
}

} // namespace kosan
