//===- passes/core/KernelSummary.cpp - What a kernel does with its parameters ---===//
#include "core/KernelSummary.h"
#include "core/Provenance.h"
#include "target/Target.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <cstdlib>

using namespace llvm;

namespace kosan {

namespace {
constexpr unsigned kSharedAS = addrspace::Shared, kLocalAS = addrspace::Local;

uint32_t dtypeOfValueType(Type *T) {
  if (auto *V = dyn_cast<VectorType>(T))
    T = V->getElementType();
  if (uint32_t f = floatDtypeOf(T))
    return f;
  if (T->isIntegerTy(64))
    return KOSAN_DTYPE_I64;
  if (T->isIntegerTy(32))
    return KOSAN_DTYPE_I32;
  if (T->isIntegerTy(16))
    return KOSAN_DTYPE_I16;
  if (T->isIntegerTy(8))
    return KOSAN_DTYPE_I8;
  return KOSAN_DTYPE_UNKNOWN;
}

// A global-memory pointer: not shared, not local, and not a kosan object.
bool mayBeGlobal(Value *ptr) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  return as != kSharedAS && as != kLocalAS;
}
// An alloca whose address is only loaded from and stored to.
bool isPrivateSlot(Value *ptr) {
  auto *AI = dyn_cast<AllocaInst>(ptr->stripPointerCasts());
  if (!AI)
    return false;
  for (User *U : AI->users()) {
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getPointerOperand()->stripPointerCasts() != AI)
        return false;
    } else if (auto *C = dyn_cast<AddrSpaceCastInst>(U)) {
      for (User *CU : C->users())
        if (!isa<LoadInst>(CU) &&
            !(isa<StoreInst>(CU) && cast<StoreInst>(CU)->getPointerOperand() == C))
          return false;
    } else if (!isa<LoadInst>(U)) {
      return false;
    }
  }
  return true;
}
} // namespace

uint32_t floatDtypeOf(const Type *T) {
  if (T->isDoubleTy())
    return KOSAN_DTYPE_F64;
  if (T->isFloatTy())
    return KOSAN_DTYPE_F32;
  if (T->isHalfTy())
    return KOSAN_DTYPE_F16;
  if (T->isBFloatTy())
    return KOSAN_DTYPE_BF16;
  return KOSAN_DTYPE_UNKNOWN;
}

const char *dtypeShortName(uint32_t dtype) {
  // Indexed by kosan_dtype (abi.h); an unknown type is "?" in remarks.
  static const char *const kNames[] = {
#define KOSAN_DTYPE_NAME(suffix, cpp, name, bytes, isFloat) name,
      KOSAN_DTYPES(KOSAN_DTYPE_NAME)
#undef KOSAN_DTYPE_NAME
  };
  return dtype != KOSAN_DTYPE_UNKNOWN && dtype < std::size(kNames) ? kNames[dtype] : "?";
}

std::vector<std::string> demangledParameterTypes(StringRef mangled) {
  std::vector<std::string> out;
  ItaniumPartialDemangler D;
  // The demangler keeps pointers into its input: the string must outlive it.
  std::string name = mangled.str();
  if (!mangled.starts_with("_Z") || D.partialDemangle(name.c_str()))
    return out;
  size_t n = 0;
  char *buf = D.getFunctionParameters(nullptr, &n);
  if (!buf)
    return out;
  std::string text(buf);
  std::free(buf);
  // "(float const*, int)": split at commas outside <>, () and [].
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return out;
  text = text.substr(1, text.size() - 2);
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    if (c == '>' || c == ')' || c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(StringRef(current).trim().str());
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!StringRef(current).trim().empty())
    out.push_back(StringRef(current).trim().str());
  return out;
}

uint32_t dtypeOfPointerParameter(StringRef type) {
  type = type.trim();
  if (!type.consume_back("*"))
    return KOSAN_DTYPE_UNKNOWN;
  type = type.trim();
  // Qualifiers anywhere: "float const", "const float", "float const __restrict".
  std::string base;
  SmallVector<StringRef, 4> words;
  type.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef w : words) {
    if (w == "const" || w == "volatile" || w == "__restrict__" || w == "__restrict" ||
        w == "restrict")
      continue;
    if (!base.empty())
      base += ' ';
    base += w.str();
  }
  if (StringRef(base).contains('*'))
    return KOSAN_DTYPE_UNKNOWN; // a pointer to pointers
  static const struct {
    const char *name;
    uint32_t dtype;
  } kTypes[] = {
      {"double", KOSAN_DTYPE_F64},
      {"float", KOSAN_DTYPE_F32},
      {"__half", KOSAN_DTYPE_F16},
      {"half", KOSAN_DTYPE_F16},
      {"__half_raw", KOSAN_DTYPE_F16},
      {"__nv_bfloat16", KOSAN_DTYPE_BF16},
      {"__nv_bfloat16_raw", KOSAN_DTYPE_BF16},
      {"__nv_fp8_e4m3", KOSAN_DTYPE_F8E4M3},
      {"__nv_fp8_e5m2", KOSAN_DTYPE_F8E5M2},
      {"long", KOSAN_DTYPE_I64},
      {"long long", KOSAN_DTYPE_I64},
      {"int", KOSAN_DTYPE_I32},
      {"short", KOSAN_DTYPE_I16},
      {"signed char", KOSAN_DTYPE_I8},
      {"char", KOSAN_DTYPE_I8},
      {"unsigned long", KOSAN_DTYPE_U64},
      {"unsigned long long", KOSAN_DTYPE_U64},
      {"unsigned int", KOSAN_DTYPE_U32},
      {"unsigned", KOSAN_DTYPE_U32},
      {"unsigned short", KOSAN_DTYPE_U16},
      {"unsigned char", KOSAN_DTYPE_U8},
      {"bool", KOSAN_DTYPE_BOOL},
  };
  for (const auto &t : kTypes)
    if (base == t.name)
      return t.dtype;
  return KOSAN_DTYPE_UNKNOWN;
}

KernelSummary summarizeKernel(Function &F, const DataLayout &DL) {
  KernelSummary S;
  S.params.resize(F.arg_size());
  for (Argument &A : F.args()) {
    ParamSummary &P = S.params[A.getArgNo()];
    if (A.getType()->isPointerTy() && !A.hasByValAttr())
      P.flags |= KOSAN_PARAM_POINTER;
    if (A.hasName())
      P.name = A.getName().str();
  }
  // Names from debug information (clang drops IR value names by default).
  if (DISubprogram *SP = F.getSubprogram())
    for (DINode *N : SP->getRetainedNodes())
      if (auto *V = dyn_cast<DILocalVariable>(N))
        if (V->getArg() >= 1 && V->getArg() <= S.params.size())
          S.params[V->getArg() - 1].name = V->getName().str();

  ProvenanceAnalysis PA(DL, &F);
  std::vector<uint32_t> storedType(F.arg_size(), KOSAN_DTYPE_UNKNOWN);
  std::vector<bool> mixed(F.arg_size(), false);
  auto noteStoreType = [&](unsigned arg, Type *T) {
    uint32_t t = dtypeOfValueType(T);
    if (storedType[arg] == KOSAN_DTYPE_UNKNOWN && !mixed[arg])
      storedType[arg] = t;
    else if (storedType[arg] != t) {
      mixed[arg] = true;
      storedType[arg] = KOSAN_DTYPE_UNKNOWN;
    }
  };
  // Marks the parameter ptr derives from; an unresolved write taints all.
  auto access = [&](Value *ptr, uint32_t flags, Type *stored) {
    Provenance p = PA.resolve(ptr);
    if (p.kind == Provenance::KernelArg) {
      S.params[p.argIndex].flags |= flags;
      if (stored)
        noteStoreType(p.argIndex, stored);
    } else if (p.kind == Provenance::Unknown && (flags & KOSAN_PARAM_WRITTEN) &&
               mayBeGlobal(ptr)) {
      S.flags |= KOSAN_KERNEL_UNRESOLVED_WRITES;
    }
  };
  const uint32_t RW = KOSAN_PARAM_READ | KOSAN_PARAM_WRITTEN;
  for (Instruction &I : instructions(F)) {
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      access(LI->getPointerOperand(), KOSAN_PARAM_READ, nullptr);
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      access(SI->getPointerOperand(), KOSAN_PARAM_WRITTEN, SI->getValueOperand()->getType());
      // A pointer stored to memory escapes, unless to a stack slot that
      // provenance sees through (-O0 keeps every variable in one).
      if (SI->getValueOperand()->getType()->isPointerTy() &&
          !isPrivateSlot(SI->getPointerOperand()))
        access(SI->getValueOperand(), RW | KOSAN_PARAM_ESCAPES, nullptr);
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      access(RMW->getPointerOperand(), RW | KOSAN_PARAM_ATOMIC, RMW->getValOperand()->getType());
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      access(CX->getPointerOperand(), RW | KOSAN_PARAM_ATOMIC, CX->getNewValOperand()->getType());
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      access(MI->getRawDest(), KOSAN_PARAM_WRITTEN, nullptr);
      if (auto *MT = dyn_cast<MemTransferInst>(MI))
        access(MT->getRawSource(), KOSAN_PARAM_READ, nullptr);
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (isa<DbgInfoIntrinsic>(CB) || isa<LifetimeIntrinsic>(CB))
        continue;
      bool readOnly = CB->onlyReadsMemory();
      // ld.global.nc and friends only read.
      if (auto *II = dyn_cast<IntrinsicInst>(CB))
        readOnly = readOnly || II->getIntrinsicID() == Intrinsic::nvvm_ldg_global_f ||
                   II->getIntrinsicID() == Intrinsic::nvvm_ldg_global_i ||
                   II->getIntrinsicID() == Intrinsic::nvvm_ldg_global_p;
      for (Value *Arg : CB->args())
        if (Arg->getType()->isPointerTy())
          access(Arg, readOnly ? KOSAN_PARAM_READ : (RW | KOSAN_PARAM_ESCAPES), nullptr);
      // A call that writes memory through pointers it was not given (inline
      // asm with a memory clobber, an opaque function) may write anything.
      if (!readOnly && CB->getCalledFunction() == nullptr && CB->isInlineAsm()) {
        const auto *IA = cast<InlineAsm>(CB->getCalledOperand());
        if (StringRef(IA->getConstraintString()).contains("~{memory}"))
          for (ParamSummary &P : S.params)
            if (P.flags & KOSAN_PARAM_POINTER)
              P.flags |= RW | KOSAN_PARAM_ESCAPES;
      }
    }
  }

  // The element type: the parameter's declared type where the name is
  // mangled (it tells __half from short), else what the stores store.
  std::vector<std::string> types = demangledParameterTypes(F.getName());
  for (unsigned i = 0; i < S.params.size(); ++i) {
    uint32_t declared = i < types.size() && types.size() == S.params.size()
                            ? dtypeOfPointerParameter(types[i])
                            : uint32_t(KOSAN_DTYPE_UNKNOWN);
    S.params[i].dtype = declared != KOSAN_DTYPE_UNKNOWN ? declared : storedType[i];
  }
  return S;
}

} // namespace kosan
