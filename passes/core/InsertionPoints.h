//===- passes/core/InsertionPoints.h - Where instrumentation goes ---*- C++ -*-===//
//
// Shared by the shadow passes (precision, order): a shadow is computed
// right after the value it shadows, and anything that needs no operand goes
// at the function's entry, after the allocas (which the backend wants
// first) and after the loads of the launch context. Their calls go to
// device runtime entries declared here.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_INSERTIONPOINTS_H
#define KOSAN_PASSES_INSERTIONPOINTS_H

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace kosan {

// After the first of `context` that is an instruction (list them latest
// first), else after the entry block's allocas.
inline llvm::BasicBlock::iterator
afterContext(llvm::Function &F, std::initializer_list<llvm::Value *> context) {
  for (llvm::Value *V : context)
    if (auto *I = llvm::dyn_cast_or_null<llvm::Instruction>(V))
      return std::next(I->getIterator());
  llvm::BasicBlock::iterator at = F.getEntryBlock().getFirstInsertionPt();
  while (llvm::isa<llvm::AllocaInst>(*at))
    ++at;
  return at;
}

// Right after V's definition (after the block's phis for a phi); `entry`
// for arguments and constants.
inline llvm::BasicBlock::iterator afterDefinition(llvm::Value *V,
                                                  llvm::BasicBlock::iterator entry) {
  if (auto *I = llvm::dyn_cast<llvm::Instruction>(V)) {
    if (llvm::isa<llvm::PHINode>(I))
      return I->getParent()->getFirstInsertionPt();
    return std::next(I->getIterator());
  }
  return entry;
}

// A device runtime entry point (linked in after instrumentation), declared
// in M with this signature; it never throws.
inline llvm::FunctionCallee runtimeEntry(llvm::Module &M, llvm::StringRef name,
                                         llvm::Type *ret, llvm::ArrayRef<llvm::Type *> params) {
  llvm::FunctionCallee c =
      M.getOrInsertFunction(name, llvm::FunctionType::get(ret, params, false));
  if (auto *Fn = llvm::dyn_cast<llvm::Function>(c.getCallee()))
    Fn->addFnAttr(llvm::Attribute::NoUnwind);
  return c;
}

} // namespace kosan

#endif
