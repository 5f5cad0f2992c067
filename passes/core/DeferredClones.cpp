//===- passes/core/DeferredClones.cpp - Clones compiled at their first launch ===//
//
// For each clone kernel K__kosan of an NVPTX module (DeferredClones.h):
//
//   1. its closure: the functions it calls, directly or through the
//      initializers of the globals it copies, and the globals they use;
//   2. each global, by what the clone's module must do with it:
//        shared (addrspace 3), or constant with an initializer: a copy;
//        __constant__ (addrspace 4), written by the host: a copy, which
//          the runtime refreshes from the plain module's before each launch;
//        any other (__device__ variables, the device runtime's state): its
//          address, loaded from the clone module's KOSAN_DEFERRED_GTAB_SYMBOL
//          at the entry of each function that uses it;
//      textures, surfaces and managed variables keep the clone in M;
//   3. the clone's module, verified, with what its code generation needs
//      (ClonePtx.h: M's floating-point fusion and the build's -nvptx-*
//      options), kept as bitcode (the default; libkosan_codegen.so makes
//      it PTX at the first checked launch) or compiled to PTX here
//      (DeferClones::Ptx);
//   4. the clones' code, compressed, into M's KOSAN_DEFERRED_SYMBOL, and the
//      clones and what only they used out of M. The globals they reach by
//      address get external linkage, so that the runtime finds them by name.
//
//===----------------------------------------------------------------------===//
#include "core/DeferredClones.h"
#include "core/ClonePtx.h"

#include "kosan/abi.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <cstring>
#include <map>

using namespace llvm;

namespace kosan {
namespace {

constexpr unsigned SharedAS = 3, ConstAS = 4;

enum class Kind { Copy, Mirror, Address };

// What the clone's module needs of one kernel's clone.
struct Closure {
  SetVector<Function *> functions; // definitions and declarations
  SetVector<GlobalVariable *> globals;
  std::string whyNot; // set when the clone stays in M
};

// Globals the NVPTX backend treats as handles, not memory.
DenseSet<const GlobalValue *> handleGlobals(Module &M) {
  DenseSet<const GlobalValue *> out;
  if (NamedMDNode *A = M.getNamedMetadata("nvvm.annotations"))
    for (MDNode *N : A->operands())
      for (unsigned i = 1; i + 1 < N->getNumOperands(); i += 2)
        if (auto *key = dyn_cast_or_null<MDString>(N->getOperand(i)))
          if (key->getString() == "texture" || key->getString() == "surface" ||
              key->getString() == "sampler" || key->getString() == "managed")
            if (auto *V = mdconst::dyn_extract_or_null<GlobalValue>(N->getOperand(0)))
              out.insert(V);
  return out;
}

Kind kindOf(const GlobalVariable &G) {
  if (G.getAddressSpace() == SharedAS || (G.isConstant() && G.hasInitializer()))
    return Kind::Copy;
  if (G.getAddressSpace() == ConstAS)
    return Kind::Mirror;
  return Kind::Address;
}

Closure closureOf(Function &K, const DenseSet<const GlobalValue *> &handles) {
  Closure C;
  SmallVector<const Constant *, 16> constants;
  DenseSet<const Constant *> seenConstants;
  auto visitConstant = [&](const Constant *V) {
    if (seenConstants.insert(V).second)
      constants.push_back(V);
  };
  C.functions.insert(&K);
  for (size_t f = 0; f < C.functions.size() || !constants.empty();) {
    if (!constants.empty()) {
      const Constant *V = constants.pop_back_val();
      if (auto *F = dyn_cast<Function>(V)) {
        C.functions.insert(const_cast<Function *>(F));
      } else if (auto *G = dyn_cast<GlobalVariable>(V)) {
        if (handles.contains(G)) {
          C.whyNot = "it uses the texture, surface or managed variable '" + G->getName().str() + "'";
          return C;
        }
        if (G->isDeclaration() && G->getAddressSpace() != SharedAS) {
          C.whyNot = "it uses '" + G->getName().str() + "', defined in another module";
          return C;
        }
        C.globals.insert(const_cast<GlobalVariable *>(G));
        if (kindOf(*G) != Kind::Address && G->hasInitializer())
          visitConstant(G->getInitializer());
      } else if (isa<GlobalValue>(V)) {
        C.whyNot = "it uses the alias or ifunc '" + V->getName().str() + "'";
        return C;
      } else {
        for (const Use &U : V->operands())
          if (auto *Op = dyn_cast<Constant>(U.get()))
            visitConstant(Op);
      }
      continue;
    }
    Function *F = C.functions[f++];
    if (F->isDeclaration())
      continue;
    for (Instruction &I : instructions(*F))
      for (Use &U : I.operands())
        if (auto *Op = dyn_cast<Constant>(U.get()))
          visitConstant(Op);
  }
  return C;
}

// Whether an initializer of a copied global refers to a global reached by
// address (its address is the plain module's, unknown when compiling).
bool initializerNeedsAddress(const Constant *C) {
  if (auto *G = dyn_cast<GlobalVariable>(C))
    return kindOf(*G) == Kind::Address;
  for (const Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      if (!isa<GlobalValue>(Op) || isa<GlobalVariable>(Op))
        if (initializerNeedsAddress(Op))
          return true;
  return false;
}

struct Deferred {
  struct Ref {
    std::string name;
    Kind kind;
    uint64_t bytes;
  };
  std::string name;
  std::vector<Ref> refs; // Address refs in gtab order, then Mirror refs
  std::string code;      // its module's PTX or bitcode
};

class Deferrer {
public:
  explicit Deferrer(Module &M) : M(M), Ctx(M.getContext()) {}

  // The clone's module for K, or null (whyNot says why).
  std::unique_ptr<Module> extract(Function &K, const Closure &C, Deferred &D, std::string &whyNot) {
    auto MK = std::make_unique<Module>(K.getName(), Ctx);
    MK->setTargetTriple(M.getTargetTriple());
    MK->setDataLayout(M.getDataLayout());
    MK->setSourceFileName(M.getSourceFileName());
    SmallVector<Module::ModuleFlagEntry, 8> flags;
    M.getModuleFlagsMetadata(flags);
    for (const Module::ModuleFlagEntry &E : flags)
      MK->addModuleFlag(E.Behavior, E.Key->getString(), E.Val);

    ValueToValueMapTy VMap;
    std::vector<GlobalVariable *> addressed;
    for (GlobalVariable *G : C.globals) {
      Kind kind = kindOf(*G);
      if (kind != Kind::Address && G->hasInitializer() &&
          initializerNeedsAddress(G->getInitializer())) {
        whyNot = "the initializer of '" + G->getName().str() +
                 "' holds the address of a global of the plain module";
        return nullptr;
      }
      auto *NG = new GlobalVariable(
          *MK, G->getValueType(), kind == Kind::Copy && G->isConstant(),
          kind == Kind::Address ? GlobalValue::ExternalLinkage : G->getLinkage(), nullptr,
          G->getName(), nullptr, G->getThreadLocalMode(), G->getAddressSpace(),
          G->isExternallyInitialized());
      NG->copyAttributesFrom(G);
      if (kind == Kind::Mirror) {
        NG->setLinkage(GlobalValue::ExternalLinkage);
        NG->setVisibility(GlobalValue::DefaultVisibility);
        NG->setExternallyInitialized(true);
      }
      VMap[G] = NG;
      if (kind == Kind::Address) {
        addressed.push_back(NG);
        D.refs.push_back({G->getName().str(), kind,
                          M.getDataLayout().getTypeAllocSize(G->getValueType())});
      }
    }
    for (GlobalVariable *G : C.globals)
      if (kindOf(*G) == Kind::Mirror) {
        D.refs.push_back({G->getName().str(), Kind::Mirror,
                          M.getDataLayout().getTypeAllocSize(G->getValueType())});
      }
    for (Function *F : C.functions) {
      Function *NF = Function::Create(F->getFunctionType(), F->getLinkage(),
                                      F->getAddressSpace(), F->getName(), MK.get());
      NF->copyAttributesFrom(F);
      VMap[F] = NF;
    }
    for (Function *F : C.functions) {
      if (F->isDeclaration())
        continue;
      auto *NF = cast<Function>(VMap[F]);
      auto A = NF->arg_begin();
      for (Argument &Arg : F->args()) {
        A->setName(Arg.getName());
        VMap[&Arg] = &*A++;
      }
      SmallVector<ReturnInst *, 4> returns;
      CloneFunctionInto(NF, F, VMap, CloneFunctionChangeType::DifferentModule, returns);
    }
    for (GlobalVariable *G : C.globals)
      if (kindOf(*G) != Kind::Address && G->hasInitializer())
        cast<GlobalVariable>(VMap[G])->setInitializer(MapValue(G->getInitializer(), VMap));
    // The kernel's annotations (kernel, launch bounds, register limit).
    if (NamedMDNode *A = M.getNamedMetadata("nvvm.annotations")) {
      NamedMDNode *NA = MK->getOrInsertNamedMetadata("nvvm.annotations");
      for (MDNode *N : A->operands()) {
        auto *F = N->getNumOperands() ? mdconst::dyn_extract_or_null<Function>(N->getOperand(0))
                                      : nullptr;
        if (!F || !C.functions.contains(F))
          continue;
        SmallVector<Metadata *, 4> ops = {ValueAsMetadata::get(VMap[F])};
        for (unsigned i = 1; i < N->getNumOperands(); ++i)
          ops.push_back(N->getOperand(i));
        NA->addOperand(MDNode::get(Ctx, ops));
      }
    }
    if (!addressed.empty() && !reachByAddress(*MK, addressed, whyNot))
      return nullptr;
    std::string broken;
    raw_string_ostream os(broken);
    if (verifyModule(*MK, &os)) {
      whyNot = "its module is not valid IR (" + StringRef(broken).split('\n').first.str() + ")";
      return nullptr;
    }
    return MK;
  }

  Module &M;
  LLVMContext &Ctx;

private:
  // Every use of each declaration in `addressed` (the plain module's global)
  // becomes a load of its address from the gtab, once per function.
  bool reachByAddress(Module &MK, ArrayRef<GlobalVariable *> addressed, std::string &whyNot) {
    Type *I64 = Type::getInt64Ty(Ctx);
    auto *TabTy = ArrayType::get(I64, addressed.size());
    auto *gtab = new GlobalVariable(MK, TabTy, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                    ConstantAggregateZero::get(TabTy), KOSAN_DEFERRED_GTAB_SYMBOL,
                                    nullptr, GlobalValue::NotThreadLocal, ConstAS,
                                    /*isExternallyInitialized=*/true);
    gtab->setAlignment(Align(8));
    for (size_t j = 0; j < addressed.size(); ++j) {
      GlobalVariable *G = addressed[j];
      convertUsersOfConstantsToInstructions({G});
      DenseMap<Function *, Value *> at;
      for (Use &U : make_early_inc_range(G->uses())) {
        auto *I = dyn_cast<Instruction>(U.getUser());
        if (!I) {
          whyNot = "'" + G->getName().str() + "' is used outside code";
          return false;
        }
        Function *F = I->getFunction();
        Value *&addr = at[F];
        if (!addr) {
          IRBuilder<> B(&*F->getEntryBlock().getFirstInsertionPt());
          LoadInst *L = B.CreateAlignedLoad(I64, B.CreateConstInBoundsGEP2_64(TabTy, gtab, 0, j),
                                            Align(8), G->getName() + ".addr");
          L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
          addr = B.CreateIntToPtr(L, G->getType());
        }
        U.set(addr);
      }
      G->eraseFromParent();
    }
    return true;
  }
};

// Drops the annotations of functions about to be erased.
void dropAnnotations(Module &M, const DenseSet<Function *> &gone) {
  NamedMDNode *A = M.getNamedMetadata("nvvm.annotations");
  if (!A)
    return;
  SmallVector<MDNode *, 16> keep;
  for (MDNode *N : A->operands()) {
    auto *F = N->getNumOperands() ? mdconst::dyn_extract_or_null<Function>(N->getOperand(0))
                                  : nullptr;
    if (!F || !gone.contains(F))
      keep.push_back(N);
  }
  A->clearOperands();
  for (MDNode *N : keep)
    A->addOperand(N);
}

void emitTable(Module &M, const std::vector<Deferred> &deferred, DeferClones code) {
  std::string strings(1, '\0');
  auto str = [&](const std::string &s) {
    uint32_t at = strings.size();
    strings += s;
    strings += '\0';
    return at;
  };
  std::vector<kosan_deferred_kernel> kernels;
  std::vector<kosan_deferred_ref> refs;
  std::string payload;
  for (const Deferred &D : deferred) {
    kosan_deferred_kernel k{};
    k.name_str = str(D.name);
    k.first_ref = refs.size();
    k.nrefs = D.refs.size();
    k.code_offset = payload.size();
    k.code_bytes = D.code.size();
    payload += D.code;
    for (const Deferred::Ref &ref : D.refs) {
      kosan_deferred_ref r{};
      r.name_str = str(ref.name);
      r.kind = ref.kind == Kind::Mirror ? KOSAN_DEFERRED_MIRROR : KOSAN_DEFERRED_ADDRESS;
      r.bytes = ref.bytes;
      refs.push_back(r);
    }
    kernels.push_back(k);
  }
  kosan_deferred_header h{};
  h.magic = KOSAN_DEFERRED_MAGIC;
  h.abi_version = KOSAN_ABI_VERSION;
  h.nkernels = kernels.size();
  h.nrefs = refs.size();
  h.strings_size = strings.size();
  h.format = code == DeferClones::Ptx ? KOSAN_DEFERRED_PTX : KOSAN_DEFERRED_BITCODE;
  SmallVector<uint8_t, 0> zpayload;
  compression::zstd::compress(arrayRefFromStringRef(payload), zpayload, /*Level=*/3);
  h.payload_zbytes = zpayload.size();
  h.payload_bytes = payload.size();
  std::string blob(reinterpret_cast<const char *>(&h), sizeof h);
  blob.append(reinterpret_cast<const char *>(kernels.data()), kernels.size() * sizeof(kernels[0]));
  blob.append(reinterpret_cast<const char *>(refs.data()), refs.size() * sizeof(kosan_deferred_ref));
  blob += strings;
  blob.append(reinterpret_cast<const char *>(zpayload.data()), zpayload.size());
  Constant *Init = ConstantDataArray::getRaw(blob, blob.size(), Type::getInt8Ty(M.getContext()));
  auto *G = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                               GlobalValue::ExternalLinkage, Init, KOSAN_DEFERRED_SYMBOL, nullptr,
                               GlobalValue::NotThreadLocal, /*AddressSpace=*/1);
  G->setAlignment(Align(8));
  appendToUsed(M, {G});
}

} // namespace

bool deferClones(Module &M, DeferClones code, FPFusion fusion,
                 const std::vector<std::string> &codegenArgs) {
  if (code == DeferClones::Off || !Triple(M.getTargetTriple()).isNVPTX() ||
      !compression::zstd::isAvailable())
    return false;
  std::vector<Function *> clones;
  for (Function &F : M)
    if (!F.isDeclaration() && F.getCallingConv() == CallingConv::PTX_Kernel &&
        F.getName().ends_with(KOSAN_CLONE_SUFFIX))
      clones.push_back(&F);
  if (clones.empty())
    return false;
  DenseSet<const GlobalValue *> handles = handleGlobals(M);
  Deferrer DF(M);
  fusion = resolveFPFusion(fusion, M);
  PtxEmitter emitter;
  std::vector<Deferred> deferred;
  DenseSet<Function *> gone;
  SetVector<GlobalVariable *> addressedInM;
  std::map<std::string, unsigned> whyNots;
  for (Function *K : clones) {
    Closure C = closureOf(*K, handles);
    std::string whyNot = C.whyNot;
    if (whyNot.empty() && !K->use_empty())
      whyNot = "the module refers to it";
    Deferred D;
    D.name = K->getName().str();
    std::unique_ptr<Module> MK;
    if (whyNot.empty())
      MK = DF.extract(*K, C, D, whyNot);
    if (MK) {
      recordCodegen(*MK, fusion, codegenArgs);
      if (code == DeferClones::Ptx) {
        // This process already has the build's code generator options.
        D.code = emitter.emit(*MK, whyNot, /*applyOptions=*/false);
      } else {
        raw_string_ostream os(D.code);
        WriteBitcodeToFile(*MK, os);
      }
    }
    if (!D.code.empty()) {
      deferred.push_back(std::move(D));
      gone.insert(K);
      for (GlobalVariable *G : C.globals)
        if (kindOf(*G) != Kind::Copy)
          addressedInM.insert(G);
    } else {
      ++whyNots[whyNot.empty() ? std::string("its code is empty") : whyNot];
    }
  }
  if (!whyNots.empty()) {
    std::string text;
    for (auto &[why, n] : whyNots)
      text += (text.empty() ? "" : "; ") + std::to_string(n) + " because " + why;
    Function *F = clones.front();
    OptimizationRemarkEmitter ORE(F);
    ORE.emit([&] {
      return OptimizationRemarkMissed("kosan-defer", "KeptInModule", F)
             << std::to_string(clones.size() - deferred.size()) << " of "
             << std::to_string(clones.size())
             << " clones compiled with the module: " << text;
    });
  }
  if (deferred.empty())
    return false;
  {
    Function *F = clones.front();
    OptimizationRemarkEmitter ORE(F);
    ORE.emit([&] {
      return OptimizationRemark("kosan-defer", "Deferred", F)
             << std::to_string(deferred.size()) << " of " << std::to_string(clones.size())
             << " clones deferred to their first checked launch";
    });
  }
  // The plain module's globals the deferred clones reach by name.
  for (GlobalVariable *G : addressedInM) {
    if (G->hasLocalLinkage())
      G->setLinkage(GlobalValue::ExternalLinkage);
    G->setVisibility(GlobalValue::DefaultVisibility);
  }
  appendToCompilerUsed(M, SmallVector<GlobalValue *, 16>(addressedInM.begin(), addressedInM.end()));
  dropAnnotations(M, gone);
  for (Function *K : gone)
    K->dropAllReferences();
  for (Function *K : gone)
    K->eraseFromParent();
  // What only the deferred clones called.
  for (bool erased = true; erased;) {
    erased = false;
    for (Function &F : make_early_inc_range(M))
      if (F.use_empty() && !F.isDeclaration() &&
          (F.hasLocalLinkage() || F.getName().ends_with(KOSAN_CLONE_SUFFIX))) {
        F.eraseFromParent();
        erased = true;
      }
  }
  emitTable(M, deferred, code);
  return true;
}

} // namespace kosan
