//===- passes/mutate/Mutator.cpp - Mutants of device code ------------------===//
//
// One walk over the device functions of a module, in module order, finds
// every candidate of every operator of kosan/mutate.h; the same walk lists
// them or applies one. A mutant's id is FNV-1a 64 (kosan/fnv.h) of the
// source file's name, the function's mangled name, the operator and the
// mutant's ordinal among that operator's mutants in that function: stable
// across rebuilds of the same source with the same flags, and unchanged by
// edits to other functions.
//
// The code seen here is the frontend's (the pass runs at the pipeline
// start): locals live in allocas, so "x = x + 1" is a load, an add and a
// store to one slot. The operators are written for that form, and the
// ones that look for accumulators and loop counters also know the phis of
// optimized IR (opt tests).
//
// What is left out on purpose:
//  - functions without debug information (libdevice) and those defined in
//    system or toolkit headers (MutateOptions::skipPrefixes): the threadIdx
//    and shuffle wrappers are mutated at their call in user code instead;
//  - an arithmetic mutant of a loop counter's integer step (i += stride made
//    i -= stride): it turns the loop around and the program hangs, which
//    says nothing about an oracle; the constant operator still changes the
//    step's size;
//  - a removed guard on a loop's exit branch, for the same reason.
//
//===----------------------------------------------------------------------===//
#include "Mutator.h"

#include "KosanPasses.h"

#include "kosan/fnv.h"
#include "kosan/mutate.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <functional>
#include <map>
#include <optional>

using namespace llvm;

#define DEBUG_TYPE "kosan-mutate"

STATISTIC(NumMutantsListed, "mutants found in device code");
STATISTIC(NumMutantsApplied, "mutants applied");

static cl::opt<std::string> ClMutate("kosan-mutate",
                                     cl::desc("kosan: apply the mutant with this id"),
                                     cl::Hidden);
static cl::opt<std::string>
    ClMutateList("kosan-mutate-list",
                 cl::desc("kosan: append the module's mutants to this file as JSON lines "
                          "('-': standard output)"),
                 cl::Hidden);
static cl::list<std::string> ClMutateSkip(
    "kosan-mutate-skip",
    cl::desc("kosan: do not mutate functions defined under this path prefix "
             "(default /usr/)"),
    cl::Hidden, cl::CommaSeparated);

namespace kosan {

MutateOptions MutateOptions::fromCommandLine() {
  MutateOptions o;
  o.apply = ClMutate;
  o.listFile = ClMutateList;
  if (ClMutateSkip.empty())
    o.skipPrefixes.push_back("/usr/");
  else
    o.skipPrefixes.assign(ClMutateSkip.begin(), ClMutateSkip.end());
  return o;
}

namespace {

using Op = MutationOperatorId;

struct Candidate {
  Instruction *at;
  Op op;
  std::string description;
  std::function<void()> apply;
};

std::string hexId(StringRef file, StringRef function, Op op, unsigned ordinal) {
  SmallString<128> key;
  key += sys::path::filename(file);
  key.push_back('\0');
  key += function;
  key.push_back('\0');
  key += mutationOperatorName(op);
  key.push_back('\0');
  key += utostr(ordinal);
  uint64_t h = kosan_fnv1a(key.data(), key.size());
  // 48 bits: short enough to type, and a collision among a build's few
  // thousand mutants is a one-in-10^8 event.
  return utohexstr(h & 0xffffffffffffull, /*LowerCase=*/true, /*Width=*/12);
}

std::string fullPath(const DIFile *file) {
  if (!file)
    return "";
  StringRef name = file->getFilename();
  if (sys::path::is_absolute(name))
    return name.str();
  SmallString<256> p(file->getDirectory());
  sys::path::append(p, name);
  return std::string(p);
}

bool mutable_(const Function &F, const MutateOptions &opts) {
  if (F.isDeclaration() || F.getName().starts_with("__kosan") ||
      F.getName().starts_with("__nv_") || F.getName().contains(".kosan.mutant"))
    return false;
  const DISubprogram *SP = F.getSubprogram();
  if (!SP)
    return false;
  std::string path = fullPath(SP->getFile());
  for (const std::string &prefix : opts.skipPrefixes)
    if (!prefix.empty() && StringRef(path).starts_with(prefix))
      return false;
  return true;
}

// The intrinsic a call amounts to: the callee itself, or, for a small
// wrapper of a header (threadIdx.x's __fetch_builtin_x, __shfl_down_sync,
// __syncwarp), the one intrinsic call inside it.
Intrinsic::ID wrappedIntrinsic(const CallBase &call) {
  const Function *callee = call.getCalledFunction();
  if (!callee)
    return Intrinsic::not_intrinsic;
  if (callee->isIntrinsic())
    return callee->getIntrinsicID();
  if (callee->isDeclaration() || callee->size() > 2 || callee->getInstructionCount() > 40)
    return Intrinsic::not_intrinsic;
  Intrinsic::ID found = Intrinsic::not_intrinsic;
  for (const Instruction &I : instructions(callee)) {
    const auto *inner = dyn_cast<CallBase>(&I);
    if (!inner || isa<DbgInfoIntrinsic>(inner) || inner->isLifetimeStartOrEnd())
      continue;
    const Function *f = inner->getCalledFunction();
    if (!f || !f->isIntrinsic() || found != Intrinsic::not_intrinsic)
      return Intrinsic::not_intrinsic;
    found = f->getIntrinsicID();
  }
  return found;
}

// The special registers, as [kind][dimension].
const Intrinsic::ID kSregs[4][3] = {
    {Intrinsic::nvvm_read_ptx_sreg_tid_x, Intrinsic::nvvm_read_ptx_sreg_tid_y,
     Intrinsic::nvvm_read_ptx_sreg_tid_z},
    {Intrinsic::nvvm_read_ptx_sreg_ctaid_x, Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
     Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
    {Intrinsic::nvvm_read_ptx_sreg_ntid_x, Intrinsic::nvvm_read_ptx_sreg_ntid_y,
     Intrinsic::nvvm_read_ptx_sreg_ntid_z},
    {Intrinsic::nvvm_read_ptx_sreg_nctaid_x, Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
     Intrinsic::nvvm_read_ptx_sreg_nctaid_z},
};
const char *const kSregNames[4] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
const char kDims[3] = {'x', 'y', 'z'};

std::optional<std::pair<int, int>> sregOf(Intrinsic::ID id) {
  for (int k = 0; k < 4; ++k)
    for (int d = 0; d < 3; ++d)
      if (kSregs[k][d] == id)
        return std::make_pair(k, d);
  return std::nullopt;
}

std::string predicateText(CmpInst::Predicate p) {
  switch (p) {
  case CmpInst::ICMP_SLT: case CmpInst::ICMP_ULT: case CmpInst::FCMP_OLT: case CmpInst::FCMP_ULT:
    return "<";
  case CmpInst::ICMP_SLE: case CmpInst::ICMP_ULE: case CmpInst::FCMP_OLE: case CmpInst::FCMP_ULE:
    return "<=";
  case CmpInst::ICMP_SGT: case CmpInst::ICMP_UGT: case CmpInst::FCMP_OGT: case CmpInst::FCMP_UGT:
    return ">";
  case CmpInst::ICMP_SGE: case CmpInst::ICMP_UGE: case CmpInst::FCMP_OGE: case CmpInst::FCMP_UGE:
    return ">=";
  default:
    return CmpInst::getPredicateName(p).str();
  }
}

std::optional<CmpInst::Predicate> boundarySwap(CmpInst::Predicate p) {
  switch (p) {
  case CmpInst::ICMP_SLT: return CmpInst::ICMP_SLE;
  case CmpInst::ICMP_SLE: return CmpInst::ICMP_SLT;
  case CmpInst::ICMP_SGT: return CmpInst::ICMP_SGE;
  case CmpInst::ICMP_SGE: return CmpInst::ICMP_SGT;
  case CmpInst::ICMP_ULT: return CmpInst::ICMP_ULE;
  case CmpInst::ICMP_ULE: return CmpInst::ICMP_ULT;
  case CmpInst::ICMP_UGT: return CmpInst::ICMP_UGE;
  case CmpInst::ICMP_UGE: return CmpInst::ICMP_UGT;
  case CmpInst::FCMP_OLT: return CmpInst::FCMP_OLE;
  case CmpInst::FCMP_OLE: return CmpInst::FCMP_OLT;
  case CmpInst::FCMP_OGT: return CmpInst::FCMP_OGE;
  case CmpInst::FCMP_OGE: return CmpInst::FCMP_OGT;
  case CmpInst::FCMP_ULT: return CmpInst::FCMP_ULE;
  case CmpInst::FCMP_ULE: return CmpInst::FCMP_ULT;
  case CmpInst::FCMP_UGT: return CmpInst::FCMP_UGE;
  case CmpInst::FCMP_UGE: return CmpInst::FCMP_UGT;
  default: return std::nullopt;
  }
}

const char *opcodeText(unsigned opcode) {
  switch (opcode) {
  case Instruction::Add: case Instruction::FAdd: return "+";
  case Instruction::Sub: case Instruction::FSub: return "-";
  case Instruction::Mul: case Instruction::FMul: return "*";
  case Instruction::SDiv: case Instruction::UDiv: case Instruction::FDiv: return "/";
  default: return "?";
  }
}

std::optional<Instruction::BinaryOps> arithSwap(unsigned opcode) {
  switch (opcode) {
  case Instruction::Add: return Instruction::Sub;
  case Instruction::Sub: return Instruction::Add;
  case Instruction::FAdd: return Instruction::FSub;
  case Instruction::FSub: return Instruction::FAdd;
  case Instruction::Mul: return Instruction::SDiv;
  case Instruction::SDiv: return Instruction::Mul;
  case Instruction::UDiv: return Instruction::Mul;
  case Instruction::FMul: return Instruction::FDiv;
  case Instruction::FDiv: return Instruction::FMul;
  default: return std::nullopt;
  }
}

// The slot a value was loaded from (frontend IR: a local variable).
const Value *loadedSlot(const Value *v) {
  if (const auto *load = dyn_cast<LoadInst>(v))
    return load->getPointerOperand()->stripPointerCasts();
  return nullptr;
}

// x = x OP y: the result is stored to the slot one operand was loaded
// from, or (optimized IR) feeds a phi that is one of its operands.
bool updatesItsOperand(const Instruction &I) {
  for (const User *u : I.users()) {
    if (const auto *store = dyn_cast<StoreInst>(u)) {
      if (store->getValueOperand() != &I)
        continue;
      const Value *slot = store->getPointerOperand()->stripPointerCasts();
      for (const Value *operand : I.operands())
        if (loadedSlot(operand) == slot)
          return true;
    }
    if (const auto *phi = dyn_cast<PHINode>(u))
      for (const Value *operand : I.operands())
        if (operand == phi)
          return true;
  }
  return false;
}

const AllocaInst *localSlot(const Value *ptr) {
  return dyn_cast<AllocaInst>(getUnderlyingObject(ptr));
}

// A local that accumulates: some store to it stores a value computed from
// a load of it (sum += x, m = fmaxf(m, x), i++).
bool isAccumulator(const AllocaInst &slot) {
  SmallVector<const Value *, 8> ptrs = {&slot};
  for (const User *u : slot.users())
    if (isa<AddrSpaceCastInst, BitCastInst>(u))
      ptrs.push_back(u);
  for (const Value *p : ptrs)
    for (const User *u : p->users()) {
      const auto *store = dyn_cast<StoreInst>(u);
      if (!store || store->getPointerOperand() != p)
        continue;
      const auto *value = dyn_cast<Instruction>(store->getValueOperand());
      if (!value)
        continue;
      for (const Value *operand : value->operands())
        if (loadedSlot(operand) == &slot)
          return true;
    }
  return false;
}

std::string constantText(const Constant *c) {
  if (const auto *ci = dyn_cast<ConstantInt>(c))
    return itostr(ci->getSExtValue());
  if (const auto *cf = dyn_cast<ConstantFP>(c)) {
    SmallString<32> s;
    cf->getValueAPF().toString(s, 8);
    return std::string(s);
  }
  return "?";
}

// The perturbed value of a constant operand: integers +1, floats by 2^-7
// of their value (0 becomes 2^-10).
Constant *perturbed(Constant *c) {
  if (auto *ci = dyn_cast<ConstantInt>(c))
    return ConstantInt::get(ci->getType(), ci->getValue() + 1);
  auto *cf = cast<ConstantFP>(c);
  double v = cf->getValueAPF().convertToDouble();
  return ConstantFP::get(cf->getType(), v == 0 ? 0x1p-10 : v * (1 + 0x1p-7));
}

bool perturbable(const Value *v) {
  if (const auto *ci = dyn_cast<ConstantInt>(v))
    return ci->getBitWidth() > 1;
  if (const auto *cf = dyn_cast<ConstantFP>(v))
    return (cf->getType()->isFloatTy() || cf->getType()->isDoubleTy()) &&
           cf->getValueAPF().isFinite();
  return false;
}

// An accumulator's new start: integers +1; floats 0 becomes 1, an infinity
// (a running max or min) 0, anything else doubles.
Constant *changedStart(Constant *c) {
  if (auto *ci = dyn_cast<ConstantInt>(c))
    return ConstantInt::get(ci->getType(), ci->getValue() + 1);
  auto *cf = cast<ConstantFP>(c);
  double v = cf->getValueAPF().convertToDouble();
  double to = v == 0 ? 1.0 : !cf->getValueAPF().isFinite() ? 0.0 : 2 * v;
  return ConstantFP::get(cf->getType(), to);
}

bool isStartConstant(const Value *v) {
  if (const auto *ci = dyn_cast<ConstantInt>(v))
    return ci->getBitWidth() > 1;
  if (const auto *cf = dyn_cast<ConstantFP>(v))
    return cf->getType()->isFloatTy() || cf->getType()->isDoubleTy();
  return false;
}

// The operand index of the last variable index of a GEP, or 0.
unsigned lastVariableIndex(const GetElementPtrInst &gep) {
  for (unsigned i = gep.getNumOperands() - 1; i >= 1; --i)
    if (!isa<Constant>(gep.getOperand(i)))
      return i;
  return 0;
}

// The number of elements of the array that GEP operand \p operand indexes.
uint64_t indexedExtent(const GetElementPtrInst &gep, unsigned operand, const GlobalVariable &g) {
  if (operand == 1) {
    // Pointer arithmetic on the array's start: the array's elements, counted
    // in the GEP's element type.
    const DataLayout &DL = gep.getModule()->getDataLayout();
    uint64_t elem = DL.getTypeAllocSize(gep.getSourceElementType());
    uint64_t total = DL.getTypeAllocSize(g.getValueType());
    return elem ? total / elem : 0;
  }
  SmallVector<Value *, 4> prefix(gep.idx_begin(), gep.idx_begin() + (operand - 1));
  Type *t = GetElementPtrInst::getIndexedType(gep.getSourceElementType(), prefix);
  if (auto *array = dyn_cast_or_null<ArrayType>(t))
    return array->getNumElements();
  return 0;
}

const char *fastName(StringRef base) {
  static const char *const names[] = {"expf", "logf", "sinf", "cosf", "sqrtf"};
  for (const char *n : names)
    if (base == n)
      return n;
  return nullptr;
}

// "expf" for expf's wrapper _ZL4expff, for expf and for __nv_expf.
std::string baseName(const Function &f) {
  std::string d = demangle(f.getName().str());
  StringRef s(d);
  s = s.take_until([](char c) { return c == '('; });
  s.consume_front("__nv_");
  return s.str();
}

class Enumerator {
public:
  Enumerator(Module &M, const MutateOptions &opts) : M(M), opts(opts) {}

  std::vector<MutantInfo> run(StringRef apply, bool *applied) {
    std::vector<MutantInfo> out;
    std::string file = M.getSourceFileName();
    SmallVector<Function *, 16> functions;
    for (Function &F : M)
      if (mutable_(F, opts))
        functions.push_back(&F);
    // Everything is listed before anything changes: applying a mutant may
    // erase an instruction that other candidates name.
    std::function<void()> chosen;
    for (Function *F : functions) {
      std::vector<Candidate> cands;
      collect(*F, cands);
      std::map<Op, unsigned> ordinal;
      for (Candidate &c : cands) {
        MutantInfo info;
        info.id = hexId(file, F->getName(), c.op, ordinal[c.op]++);
        info.op = std::string(mutationOperatorName(c.op));
        info.function = demangle(F->getName().str());
        if (const DebugLoc &loc = c.at->getDebugLoc()) {
          info.file = loc->getFilename().str();
          info.line = loc.getLine();
          info.column = loc.getCol();
        } else if (const DISubprogram *SP = F->getSubprogram()) {
          info.file = SP->getFilename().str();
          info.line = SP->getLine();
        }
        info.description = c.description;
        if (!apply.empty() && info.id == apply && !chosen)
          chosen = std::move(c.apply);
        out.push_back(std::move(info));
      }
    }
    if (chosen) {
      chosen();
      if (applied)
        *applied = true;
    }
    return out;
  }

private:
  void add(std::vector<Candidate> &out, Instruction *at, Op op, std::string what,
           std::function<void()> apply) {
    out.push_back({at, op, std::move(what), std::move(apply)});
  }

  void collect(Function &F, std::vector<Candidate> &out) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallVector<Instruction *, 64> insts;
    for (Instruction &I : instructions(F))
      insts.push_back(&I);
    for (Instruction *I : insts) {
      relational(I, out);
      index(I, out);
      guard(I, LI, out);
      threadIndex(I, out);
      arith(I, out);
      constant(I, out);
      precision(I, out);
      fastMath(I, out);
      barrier(I, out);
      reductionOrder(I, out);
      reversedLoop(I, LI, out);
      init(I, out);
      store(I, out);
      sharedExtent(I, out);
    }
  }

  void relational(Instruction *I, std::vector<Candidate> &out) {
    auto *cmp = dyn_cast<CmpInst>(I);
    if (!cmp)
      return;
    std::optional<CmpInst::Predicate> to = boundarySwap(cmp->getPredicate());
    if (!to)
      return;
    CmpInst::Predicate p = *to;
    add(out, I, Op::Relational,
        "'" + predicateText(cmp->getPredicate()) + "' becomes '" + predicateText(p) + "'",
        [cmp, p] { cmp->setPredicate(p); });
  }

  void index(Instruction *I, std::vector<Candidate> &out) {
    auto *gep = dyn_cast<GetElementPtrInst>(I);
    if (!gep)
      return;
    unsigned k = lastVariableIndex(*gep);
    if (!k)
      return;
    for (int delta : {+1, -1}) {
      add(out, I, Op::Index, std::string("index ") + (delta > 0 ? "+ 1" : "- 1"),
          [gep, k, delta] {
            IRBuilder<> B(gep);
            Value *idx = gep->getOperand(k);
            gep->setOperand(k, B.CreateAdd(idx, ConstantInt::get(idx->getType(), delta, true),
                                           "kosan.mutant"));
            gep->setNoWrapFlags(GEPNoWrapFlags::none());
          });
    }
  }

  static bool exitsAtOnce(const BasicBlock *B) {
    const Instruction *term = B->getTerminator();
    if (isa<ReturnInst, UnreachableInst>(term))
      return true;
    const BasicBlock *next = B->getSingleSuccessor();
    return next && B->size() <= 2 && isa<ReturnInst>(next->getTerminator());
  }

  void guard(Instruction *I, LoopInfo &LI, std::vector<Candidate> &out) {
    auto *br = dyn_cast<BranchInst>(I);
    if (!br || !br->isConditional() || isa<Constant>(br->getCondition()))
      return;
    if (Loop *L = LI.getLoopFor(br->getParent()))
      if (L->isLoopExiting(br->getParent()))
        return;
    BasicBlock *t = br->getSuccessor(0), *f = br->getSuccessor(1);
    auto leadsTo = [](BasicBlock *from, BasicBlock *to) {
      return is_contained(successors(from), to);
    };
    bool takeTrue;
    if (exitsAtOnce(t) != exitsAtOnce(f))
      takeTrue = !exitsAtOnce(t); // "if (i >= n) return;" loses its return
    else if (leadsTo(t, f))
      takeTrue = true;            // if (c) { then } ... join
    else if (leadsTo(f, t))
      takeTrue = false;
    else
      takeTrue = true;
    add(out, I, Op::Guard,
        std::string("branch always taken to its ") + (takeTrue ? "true" : "false") + " side",
        [br, takeTrue] { br->setCondition(ConstantInt::getBool(br->getContext(), takeTrue)); });
  }

  void threadIndex(Instruction *I, std::vector<Candidate> &out) {
    auto *call = dyn_cast<CallInst>(I);
    if (!call)
      return;
    std::optional<std::pair<int, int>> reg = sregOf(wrappedIntrinsic(*call));
    if (!reg)
      return;
    auto [kind, dim] = *reg;
    // threadIdx <-> blockIdx, blockDim <-> gridDim; x <-> y (y, z <-> x).
    std::pair<int, int> swaps[2] = {{kind ^ 1, dim}, {kind, dim == 0 ? 1 : 0}};
    for (auto [k, d] : swaps) {
      Intrinsic::ID id = kSregs[k][d];
      add(out, I, Op::ThreadIndex,
          std::string(kSregNames[kind]) + "." + kDims[dim] + " becomes " + kSregNames[k] +
              "." + kDims[d],
          [call, id] {
            IRBuilder<> B(call);
            Value *v = B.CreateIntrinsic(id, {}, {});
            Value *r = B.CreateZExtOrTrunc(v, call->getType());
            call->replaceAllUsesWith(r);
            call->eraseFromParent();
          });
    }
  }

  void arith(Instruction *I, std::vector<Candidate> &out) {
    auto *bin = dyn_cast<BinaryOperator>(I);
    if (!bin)
      return;
    std::optional<Instruction::BinaryOps> to = arithSwap(bin->getOpcode());
    if (!to)
      return;
    if (bin->getType()->isIntOrIntVectorTy() && updatesItsOperand(*bin))
      return; // a loop counter's step: see the file comment
    Instruction::BinaryOps op = *to;
    add(out, I, Op::Arith,
        std::string("'") + opcodeText(bin->getOpcode()) + "' becomes '" + opcodeText(op) + "'",
        [bin, op] {
          auto *n = BinaryOperator::Create(op, bin->getOperand(0), bin->getOperand(1), "", bin);
          if (isa<FPMathOperator>(n))
            n->copyFastMathFlags(bin);
          n->setDebugLoc(bin->getDebugLoc());
          n->takeName(bin);
          bin->replaceAllUsesWith(n);
          bin->eraseFromParent();
        });
  }

  void constant(Instruction *I, std::vector<Candidate> &out) {
    SmallVector<unsigned, 2> operands;
    if (isa<BinaryOperator, CmpInst>(I)) {
      for (unsigned i = 0; i < I->getNumOperands(); ++i)
        operands.push_back(i);
    } else if (isa<SelectInst>(I)) {
      operands = {1, 2};
    } else if (auto *st = dyn_cast<StoreInst>(I)) {
      if (!localSlot(st->getPointerOperand()))
        operands = {0}; // stores of constants to locals are the init operator's
    }
    for (unsigned i : operands) {
      auto *c = dyn_cast<Constant>(I->getOperand(i));
      if (!c || !perturbable(c))
        continue;
      Constant *to = perturbed(c);
      add(out, I, Op::Constant, "constant " + constantText(c) + " becomes " + constantText(to),
          [I, i, to] { I->setOperand(i, to); });
    }
  }

  // The operation in a narrower type and back: what accumulating in f16 or
  // bf16 computes.
  void precision(Instruction *I, std::vector<Candidate> &out) {
    bool binary = isa<BinaryOperator>(I) && I->getType()->isFloatTy() &&
                  (I->getOpcode() == Instruction::FAdd || I->getOpcode() == Instruction::FSub ||
                   I->getOpcode() == Instruction::FMul || I->getOpcode() == Instruction::FDiv);
    // fmaf(a, b, c): the intrinsic, or the call of the header's fmaf.
    auto *call = dyn_cast<CallInst>(I);
    const Function *callee = call ? call->getCalledFunction() : nullptr;
    bool fma = callee && call->getType()->isFloatTy() && call->arg_size() == 3 &&
               (callee->getIntrinsicID() == Intrinsic::fma ||
                callee->getIntrinsicID() == Intrinsic::fmuladd ||
                (!callee->isIntrinsic() && baseName(*callee) == "fmaf"));
    if (!binary && !fma)
      return;
    std::string what = binary ? std::string("f32 '") + opcodeText(I->getOpcode()) + "'"
                              : std::string("f32 fma");
    for (bool bf16 : {false, true}) {
      add(out, I, Op::Precision, what + " computed in " + (bf16 ? "bf16" : "f16"),
          [I, bf16] {
            Type *narrow = bf16 ? Type::getBFloatTy(I->getContext())
                                : Type::getHalfTy(I->getContext());
            IRBuilder<> B(I);
            unsigned n = isa<CallInst>(I) ? 3 : 2;
            for (unsigned k = 0; k < n; ++k)
              I->setOperand(k, B.CreateFPExt(B.CreateFPTrunc(I->getOperand(k), narrow),
                                             I->getType()));
            B.SetInsertPoint(I->getNextNode());
            B.SetCurrentDebugLocation(I->getDebugLoc());
            Value *rounded = B.CreateFPExt(B.CreateFPTrunc(I, narrow), I->getType());
            I->replaceUsesWithIf(rounded, [&](Use &u) {
              return u.getUser() != cast<Instruction>(rounded)->getOperand(0);
            });
          });
    }
  }

  void fastMath(Instruction *I, std::vector<Candidate> &out) {
    if (I->getOpcode() == Instruction::FDiv && I->getType()->isFloatTy()) {
      add(out, I, Op::FastMath, "f32 '/' becomes __fdividef (div.approx)", [I] {
        IRBuilder<> B(I);
        Value *r = B.CreateIntrinsic(Intrinsic::nvvm_div_approx_f, {},
                                     {I->getOperand(0), I->getOperand(1)});
        I->replaceAllUsesWith(r);
        I->eraseFromParent();
      });
      return;
    }
    auto *call = dyn_cast<CallInst>(I);
    if (!call || !call->getType()->isFloatTy() || call->arg_size() != 1)
      return;
    const Function *callee = call->getCalledFunction();
    if (!callee)
      return;
    const char *name = nullptr;
    if (callee->getIntrinsicID() == Intrinsic::sqrt)
      name = "sqrtf";
    else if (!callee->isIntrinsic())
      name = fastName(baseName(*callee));
    if (!name)
      return;
    std::string fn = name;
    add(out, I, Op::FastMath, fn + " becomes __" + fn + " (approximate)", [call, fn] {
      IRBuilder<> B(call);
      Value *x = call->getArgOperand(0);
      Value *r;
      if (fn == "expf")
        r = B.CreateIntrinsic(Intrinsic::nvvm_ex2_approx_f, {},
                              {B.CreateFMul(x, ConstantFP::get(x->getType(), 1.4426950408889634))});
      else if (fn == "logf")
        r = B.CreateFMul(B.CreateIntrinsic(Intrinsic::nvvm_lg2_approx_f, {}, {x}),
                         ConstantFP::get(x->getType(), 0.6931471805599453));
      else if (fn == "sinf")
        r = B.CreateIntrinsic(Intrinsic::nvvm_sin_approx_f, {}, {x});
      else if (fn == "cosf")
        r = B.CreateIntrinsic(Intrinsic::nvvm_cos_approx_f, {}, {x});
      else
        r = B.CreateIntrinsic(Intrinsic::nvvm_sqrt_approx_f, {}, {x});
      call->replaceAllUsesWith(r);
      call->eraseFromParent();
    });
  }

  void barrier(Instruction *I, std::vector<Candidate> &out) {
    auto *call = dyn_cast<CallInst>(I);
    if (!call || !call->getType()->isVoidTy())
      return;
    Intrinsic::ID id = wrappedIntrinsic(*call);
    const char *what = id == Intrinsic::nvvm_barrier0 || id == Intrinsic::nvvm_barrier_sync
                           ? "__syncthreads() removed"
                       : id == Intrinsic::nvvm_bar_warp_sync ? "__syncwarp() removed"
                                                             : nullptr;
    if (!what)
      return;
    add(out, I, Op::Barrier, what, [call] { call->eraseFromParent(); });
  }

  void reductionOrder(Instruction *I, std::vector<Candidate> &out) {
    if (auto *call = dyn_cast<CallInst>(I)) {
      Intrinsic::ID id = wrappedIntrinsic(*call);
      Intrinsic::ID other = id == Intrinsic::nvvm_shfl_sync_down_f32   ? Intrinsic::nvvm_shfl_sync_bfly_f32
                            : id == Intrinsic::nvvm_shfl_sync_bfly_f32 ? Intrinsic::nvvm_shfl_sync_down_f32
                            : id == Intrinsic::nvvm_shfl_sync_down_i32 ? Intrinsic::nvvm_shfl_sync_bfly_i32
                            : id == Intrinsic::nvvm_shfl_sync_bfly_i32 ? Intrinsic::nvvm_shfl_sync_down_i32
                                                                       : Intrinsic::ID(Intrinsic::not_intrinsic);
      if (other == Intrinsic::not_intrinsic || call->arg_size() < 3)
        return;
      bool down = id == Intrinsic::nvvm_shfl_sync_down_f32 || id == Intrinsic::nvvm_shfl_sync_down_i32;
      if (auto *c = dyn_cast<ConstantInt>(call->getArgOperand(2))) {
        uint64_t s = c->getZExtValue();
        uint64_t to = s > 1 ? s / 2 : 2;
        add(out, I, Op::ReductionOrder,
            "shuffle stride " + utostr(s) + " becomes " + utostr(to),
            [call, to] {
              call->setArgOperand(2, ConstantInt::get(call->getArgOperand(2)->getType(), to));
            });
      }
      add(out, I, Op::ReductionOrder,
          std::string(down ? "__shfl_down_sync becomes __shfl_xor_sync"
                           : "__shfl_xor_sync becomes __shfl_down_sync"),
          [this, call, id, other] { retargetShuffle(call, id, other); });
      return;
    }
    // out[i] += x to global or shared memory: an atomic add instead.
    auto *st = dyn_cast<StoreInst>(I);
    if (!st || localSlot(st->getPointerOperand()))
      return;
    auto *sum = dyn_cast<BinaryOperator>(st->getValueOperand());
    if (!sum || sum->getOpcode() != Instruction::FAdd || !sum->getType()->isFloatTy())
      return;
    Value *ptr = st->getPointerOperand();
    int other = -1;
    for (int k = 0; k < 2; ++k)
      if (auto *ld = dyn_cast<LoadInst>(sum->getOperand(k)))
        if (ld->getPointerOperand() == ptr)
          other = 1 - k;
    if (other < 0)
      return;
    add(out, I, Op::ReductionOrder, "'+=' store becomes atomicAdd", [st, sum, ptr, other] {
      IRBuilder<> B(st);
      B.CreateAtomicRMW(AtomicRMWInst::FAdd, ptr, sum->getOperand(other), MaybeAlign(4),
                        AtomicOrdering::Monotonic);
      st->eraseFromParent();
    });
  }

  // for (k = lo; k < hi; ++k) (or k <= hi) in the frontend's form, run
  // from its last iteration down to lo: a sum over k is then added in the
  // reverse order. Only where that is sure to be the same iterations: the
  // counter a local slot stored once before the loop and once in it (k + 1),
  // the bound a constant, an argument or a load of a slot or argument.
  void reversedLoop(Instruction *I, LoopInfo &LI, std::vector<Candidate> &out) {
    auto *br = dyn_cast<BranchInst>(I);
    Loop *L = br ? LI.getLoopFor(br->getParent()) : nullptr;
    if (!L || !br->isConditional() || br->getParent() != L->getHeader() ||
        !L->contains(br->getSuccessor(0)) || L->contains(br->getSuccessor(1)))
      return;
    auto *cmp = dyn_cast<ICmpInst>(br->getCondition());
    if (!cmp || (cmp->getPredicate() != CmpInst::ICMP_SLT && cmp->getPredicate() != CmpInst::ICMP_SLE))
      return;
    auto *counterLoad = dyn_cast<LoadInst>(cmp->getOperand(0));
    auto *slot = counterLoad ? dyn_cast<AllocaInst>(counterLoad->getPointerOperand()) : nullptr;
    if (!slot)
      return;
    Value *bound = cmp->getOperand(1);
    Value *boundPtr = nullptr;
    if (auto *ld = dyn_cast<LoadInst>(bound)) {
      boundPtr = ld->getPointerOperand();
      if (!isa<AllocaInst, Argument>(boundPtr))
        return;
    } else if (!isa<ConstantInt, Argument>(bound)) {
      return;
    }
    StoreInst *init = nullptr, *step = nullptr;
    for (User *u : slot->users()) {
      auto *st = dyn_cast<StoreInst>(u);
      if (!st) {
        if (!isa<LoadInst>(u) && !(isa<IntrinsicInst>(u) && cast<IntrinsicInst>(u)->isLifetimeStartOrEnd()))
          return; // the slot escapes
        continue;
      }
      if (st->getPointerOperand() != slot)
        return;
      StoreInst *&which = L->contains(st) ? step : init;
      if (which)
        return;
      which = st;
    }
    auto *inc = step ? dyn_cast<BinaryOperator>(step->getValueOperand()) : nullptr;
    if (!init || !inc || inc->getOpcode() != Instruction::Add || !isa<LoadInst>(inc->getOperand(0)) ||
        cast<LoadInst>(inc->getOperand(0))->getPointerOperand() != slot ||
        !match1(inc->getOperand(1)))
      return;
    if (boundPtr && isa<AllocaInst>(boundPtr))
      for (User *u : boundPtr->users())
        if (auto *st = dyn_cast<StoreInst>(u); st && L->contains(st))
          return; // the bound changes in the loop
    bool inclusive = cmp->getPredicate() == CmpInst::ICMP_SLE;
    add(out, I, Op::ReductionOrder, "loop runs in reverse order", [=] {
      Function *F = init->getFunction();
      Type *T = init->getValueOperand()->getType();
      IRBuilder<> entry(&*F->getEntryBlock().getFirstInsertionPt());
      AllocaInst *lo = entry.CreateAlloca(T, nullptr, "kosan.mutant.lo");
      IRBuilder<> B(init);
      B.CreateStore(init->getValueOperand(), lo);
      Value *hi = boundPtr ? B.CreateLoad(T, boundPtr) : bound;
      init->setOperand(0, inclusive ? hi : B.CreateSub(hi, ConstantInt::get(T, 1)));
      IRBuilder<> H(cmp);
      cmp->setPredicate(CmpInst::ICMP_SGE);
      cmp->setOperand(1, H.CreateLoad(T, lo));
      auto *dec = BinaryOperator::CreateSub(inc->getOperand(0), ConstantInt::get(T, 1), "", inc);
      dec->setDebugLoc(inc->getDebugLoc());
      inc->replaceAllUsesWith(dec);
      inc->eraseFromParent();
    });
  }

  static bool match1(const Value *v) {
    const auto *c = dyn_cast<ConstantInt>(v);
    return c && c->isOne();
  }

  void retargetShuffle(CallInst *call, Intrinsic::ID from, Intrinsic::ID to) {
    Function *callee = call->getCalledFunction();
    Function *intrinsic = Intrinsic::getDeclaration(&M, to);
    if (callee->isIntrinsic()) {
      call->setCalledFunction(intrinsic);
      return;
    }
    // A header's wrapper: a copy of it with the other shuffle.
    ValueToValueMapTy map;
    Function *copy = CloneFunction(callee, map);
    copy->setName(callee->getName() + ".kosan.mutant");
    copy->setLinkage(GlobalValue::InternalLinkage);
    for (Instruction &inner : instructions(copy))
      if (auto *c = dyn_cast<CallInst>(&inner))
        if (c->getCalledFunction() && c->getCalledFunction()->getIntrinsicID() == from)
          c->setCalledFunction(intrinsic);
    call->setCalledFunction(copy);
  }

  void init(Instruction *I, std::vector<Candidate> &out) {
    if (auto *st = dyn_cast<StoreInst>(I)) {
      auto *c = dyn_cast<Constant>(st->getValueOperand());
      const AllocaInst *slot = localSlot(st->getPointerOperand());
      if (!c || !slot || !isStartConstant(c) || !isAccumulator(*slot))
        return;
      Constant *to = changedStart(c);
      std::string name = slot->hasName() ? "'" + slot->getName().str() + "'" : "a local";
      add(out, I, Op::Init,
          "initial value of " + name + " " + constantText(c) + " becomes " + constantText(to),
          [st, to] { st->setOperand(0, to); });
      return;
    }
    // Optimized IR: a phi whose constant start meets a value computed from it.
    auto *phi = dyn_cast<PHINode>(I);
    if (!phi)
      return;
    bool updated = false;
    for (Value *v : phi->incoming_values())
      if (auto *in = dyn_cast<Instruction>(v))
        updated |= is_contained(in->operands(), phi);
    if (!updated)
      return;
    for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
      auto *c = dyn_cast<Constant>(phi->getIncomingValue(k));
      if (!c || !isStartConstant(c))
        continue;
      Constant *to = changedStart(c);
      add(out, I, Op::Init, "initial value " + constantText(c) + " becomes " + constantText(to),
          [phi, k, to] { phi->setIncomingValue(k, to); });
    }
  }

  void store(Instruction *I, std::vector<Candidate> &out) {
    auto *st = dyn_cast<StoreInst>(I);
    if (!st || localSlot(st->getPointerOperand()))
      return;
    add(out, I, Op::Store, "store removed", [st] { st->eraseFromParent(); });
  }

  void sharedExtent(Instruction *I, std::vector<Candidate> &out) {
    auto *gep = dyn_cast<GetElementPtrInst>(I);
    if (!gep)
      return;
    auto *g = dyn_cast<GlobalVariable>(gep->getPointerOperand()->stripPointerCasts());
    if (!g || g->getAddressSpace() != 3)
      return;
    unsigned k = lastVariableIndex(*gep);
    if (!k)
      return;
    uint64_t extent = indexedExtent(*gep, k, *g);
    // extern __shared__ arrays have no static size: a warp's worth.
    uint64_t wrap = extent >= 2 ? extent / 2 : 32;
    std::string what = "index into shared '" + demangle(g->getName().str()) + "' wrapped into " +
                       utostr(wrap) + (extent >= 2 ? " of " + utostr(extent) : std::string()) +
                       " elements";
    add(out, I, Op::SharedExtent, what, [gep, k, wrap] {
      IRBuilder<> B(gep);
      Value *idx = gep->getOperand(k);
      gep->setOperand(k, B.CreateURem(idx, ConstantInt::get(idx->getType(), wrap), "kosan.mutant"));
    });
  }

  Module &M;
  const MutateOptions &opts;
};

void writeList(const std::vector<MutantInfo> &mutants, raw_ostream &os) {
  for (const MutantInfo &m : mutants) {
    json::Object o{{"id", m.id},           {"operator", m.op},   {"function", m.function},
                   {"file", m.file},       {"line", m.line},     {"column", m.column},
                   {"description", m.description}};
    os << json::Value(std::move(o)) << "\n";
  }
}

bool appendTo(const std::string &path, function_ref<void(raw_ostream &)> write) {
  if (path == "-") {
    write(outs());
    outs().flush();
    return true;
  }
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_Append | sys::fs::OF_Text);
  if (ec)
    return false;
  write(os);
  return true;
}

} // namespace

std::vector<MutantInfo> enumerateMutants(Module &M, const MutateOptions &opts, StringRef apply,
                                         bool *applied) {
  return Enumerator(M, opts).run(apply, applied);
}

PreservedAnalyses MutatorPass::run(Module &M, ModuleAnalysisManager &) {
  if (!isDeviceModule(M) || !opts.active())
    return PreservedAnalyses::all();
  LLVMContext &Ctx = M.getContext();
  bool applied = false;
  std::vector<MutantInfo> mutants = enumerateMutants(M, opts, opts.apply, &applied);
  NumMutantsListed += mutants.size();
  NumMutantsApplied += applied;
  if (!opts.listFile.empty() &&
      !appendTo(opts.listFile, [&](raw_ostream &os) { writeList(mutants, os); }))
    Ctx.emitError("kosan: cannot write the list of mutants to '" + opts.listFile + "'");
  if (opts.apply.empty())
    return PreservedAnalyses::all();
  if (applied) {
    if (!opts.reportFile.empty() &&
        !appendTo(opts.reportFile, [&](raw_ostream &os) { os << opts.apply << "\n"; }))
      Ctx.emitError("kosan: cannot write to '" + opts.reportFile + "'");
    return PreservedAnalyses::none();
  }
  if (opts.reportFile.empty())
    Ctx.emitError("kosan: no mutant '" + opts.apply + "' in " + M.getSourceFileName() +
                  " (`kosan-mutate list` lists the mutants of a build)");
  return PreservedAnalyses::all();
}

void MutatorPass::printPipeline(raw_ostream &OS, function_ref<StringRef(StringRef)>) {
  OS << "kosan-mutate";
  if (!opts.apply.empty())
    OS << "<id=" << opts.apply << ">";
  else if (!opts.listFile.empty())
    OS << "<list>";
}

} // namespace kosan
