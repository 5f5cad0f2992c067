//===- passes/core/ClonePtx.cpp - The PTX of a deferred clone's module ----===//
//
// See ClonePtx.h. Compiled into the plugin and into libkosan_codegen.so.
//
//===----------------------------------------------------------------------===//
#include "core/ClonePtx.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace kosan {
namespace {

constexpr const char *CodegenMD = "kosan.codegen";

// What recordCodegen wrote: the fusion, then the options.
struct Recorded {
  FPFusion fusion = FPFusion::Standard;
  std::vector<std::string> args;
};

Recorded recorded(const Module &M) {
  Recorded r;
  const NamedMDNode *N = M.getNamedMetadata(CodegenMD);
  if (!N)
    return r;
  for (const MDNode *Op : N->operands())
    for (const MDOperand &S : Op->operands())
      if (auto *str = dyn_cast<MDString>(S.get())) {
        StringRef s = str->getString();
        if (s == "fusion=fast")
          r.fusion = FPFusion::Fast;
        else if (s.starts_with("-"))
          r.args.push_back(s.str());
      }
  return r;
}

// The build's -nvptx-* options, set for one compile.
class ScopedOptions {
public:
  bool set(const std::vector<std::string> &args, std::string &whyNot) {
    StringMap<cl::Option *> &registered = cl::getRegisteredOptions();
    for (const std::string &arg : args) {
      auto [name, value] = StringRef(arg).ltrim('-').split('=');
      auto it = registered.find(name);
      if (it == registered.end()) {
        whyNot = "the code generator has no option -" + name.str();
        return false;
      }
      cl::Option *O = it->second;
      if (O->addOccurrence(1, name, value)) {
        whyNot = "the code generator refuses " + arg;
        return false;
      }
      set_.push_back(O);
    }
    return true;
  }
  ~ScopedOptions() {
    for (cl::Option *O : set_)
      O->reset();
  }

private:
  std::vector<cl::Option *> set_;
};

} // namespace

void recordCodegen(Module &M, FPFusion fusion, const std::vector<std::string> &args) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 4> ops = {
      MDString::get(Ctx, fusion == FPFusion::Fast ? "fusion=fast" : "fusion=standard")};
  for (const std::string &arg : args)
    ops.push_back(MDString::get(Ctx, arg));
  NamedMDNode *N = M.getOrInsertNamedMetadata(CodegenMD);
  N->clearOperands();
  N->addOperand(MDNode::get(Ctx, ops));
}

PtxEmitter::PtxEmitter() = default;
PtxEmitter::~PtxEmitter() = default;

std::string PtxEmitter::emit(Module &M, std::string &whyNot, bool applyOptions) {
  const Function *K = nullptr;
  for (const Function &F : M)
    if (!F.isDeclaration() && F.getCallingConv() == CallingConv::PTX_Kernel)
      K = &F;
  if (!K) {
    whyNot = "the module holds no kernel";
    return {};
  }
  Recorded r = recorded(M);
  ScopedOptions options;
  if (applyOptions && !options.set(r.args, whyNot))
    return {};
  StringRef cpu = K->getFnAttribute("target-cpu").getValueAsString();
  StringRef features = K->getFnAttribute("target-features").getValueAsString();
  CodeGenOptLevel level = K->hasOptNone() ? CodeGenOptLevel::None : CodeGenOptLevel::Aggressive;
  std::string key = M.getTargetTriple() + "|" + cpu.str() + "|" + features.str() + "|" +
                    std::to_string(int(r.fusion)) + "|" + std::to_string(int(level));
  if (!TM || key != tmKey) {
    std::string err;
    const Target *T = TargetRegistry::lookupTarget(M.getTargetTriple(), err);
    if (!T) {
      whyNot = "no code generator for " + M.getTargetTriple() + " (" + err + ")";
      return {};
    }
    TargetOptions TO;
    TO.AllowFPOpFusion = r.fusion == FPFusion::Fast ? FPOpFusion::Fast : FPOpFusion::Standard;
    TM.reset(T->createTargetMachine(M.getTargetTriple(), cpu, features, TO, std::nullopt,
                                    std::nullopt, level));
    if (!TM) {
      whyNot = "no target machine for " + M.getTargetTriple();
      return {};
    }
    tmKey = key;
  }
  SmallString<0> ptx;
  raw_svector_ostream os(ptx);
  legacy::PassManager PM;
  PM.add(new TargetLibraryInfoWrapperPass(Triple(M.getTargetTriple())));
  if (TM->addPassesToEmitFile(PM, os, nullptr, CodeGenFileType::AssemblyFile)) {
    whyNot = "the code generator cannot emit PTX";
    return {};
  }
  PM.run(M);
  if (ptx.empty())
    whyNot = "its PTX is empty";
  return std::string(ptx.str());
}

} // namespace kosan
