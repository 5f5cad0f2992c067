//===- passes/core/Provenance.cpp - What object a device pointer derives from ---===//
#include "core/Provenance.h"
#include "target/Target.h"

#include "kosan/abi.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace kosan {

namespace {
// Address spaces (target/Target.h).
// 101: NVPTX's kernel parameter space (byval arguments before lowering).
constexpr unsigned kShared = addrspace::Shared, kConst = addrspace::Constant,
                   kLocal = addrspace::Local, kParam = 101;
constexpr unsigned kMaxDepth = 32;

bool sameObject(const Provenance &a, const Provenance &b) {
  return a.kind == b.kind && a.base == b.base;
}

// At -O0 clang keeps every pointer variable in a stack slot. When the slot's
// address does not escape (only loads from it and stores to it), a load from
// it holds one of the stored values: like a phi of them.
bool storedValues(AllocaInst *slot, SmallVectorImpl<Value *> &out) {
  for (User *U : slot->users()) {
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getPointerOperand() != slot)
        return false; // the slot's address is stored somewhere
      out.push_back(SI->getValueOperand());
    } else if (!isa<LoadInst>(U)) {
      return false; // address escapes: another store may hide behind it
    }
  }
  return !out.empty();
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
  SmallVector<Value *, 4> incoming;
  Value *node = nullptr; // the phi, select or stack slot being merged
  if (auto *LI = dyn_cast<LoadInst>(v)) {
    if (auto *slot = dyn_cast<AllocaInst>(LI->getPointerOperand()->stripPointerCasts()))
      if (storedValues(slot, incoming))
        node = slot;
  } else if (auto *Phi = dyn_cast<PHINode>(v)) {
    incoming.append(Phi->incoming_values().begin(), Phi->incoming_values().end());
    node = v;
  } else if (auto *Sel = dyn_cast<SelectInst>(v)) {
    incoming = {Sel->getTrueValue(), Sel->getFalseValue()};
    node = v;
  }
  if (node) {
    if (!inProgress.insert(node).second) {
      Provenance none; // a cycle adds no new object
      none.kind = Provenance::Constant;
      return none;
    }
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
    inProgress.erase(node);
    if (agree && common)
      result = *common;
  } else if (!isa<LoadInst>(v)) {
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
    if (GV->isDeclaration() && size == 0 && !GV->isInterposable()) {
      // extern __device__ T a[] of relocatable device code, defined in
      // another translation unit with a size this one does not know. It is
      // a __device__ object, never in the table of buffers: checking it
      // there would report every access, so it is not checked.
      p.kind = Provenance::Constant;
      return p;
    }
    // An extern __device__ declaration of a complete type (relocatable
    // device code) has its definition's size: C++ requires the types to
    // match.
    if (size == 0 || GV->isInterposable()) {
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
