//===- passes/checks/oob/OOBInstrumenter.cpp - checks=oob -----------------===//
//
// Every load, store, atomic and memory intrinsic of a clone is checked
// against the object its pointer derives from (see core/Provenance.h):
//
//   kernel pointer argument i : begin/end from launch_info.args[i]  (2 compares)
//   static shared, local, __device__ arrays, byval params : static bounds
//   extern __shared__ arrays  : launch_info.dyn_smem_bytes
//   anything else             : the runtime's table of every known buffer
//
// A failing compare records the event (emitReport: a call of the module's
// one report function, reportFunction) and, for pitched buffers, says
// whether the access may go ahead; otherwise a store is dropped and a load
// yields zero. Copies of 1-16 bytes are checked as the load and the store
// they are (splitSmallCopies). The clones and their launch context are
// core/KernelCloner.h's and core/LaunchContext.h's.
//
// Fewer checks than accesses, decided on the clone before it is changed:
//
//   proven    an access to a static object (shared, local, __device__
//             array, byval parameter) whose offset is within the object for
//             every value its indices can take (ScalarEvolution and
//             LazyValueInfo ranges: loop bounds, dominating conditions,
//             masks, the thread index under the kernel's launch bounds) and
//             that is known aligned is not checked at all;
//   grouped   accesses of one object in one stretch of straight-line code
//             (one block, cut after anything that may not hand execution on)
//             whose addresses differ by constants (ScalarEvolution: an
//             unrolled loop's in[i], in[i+1], ...) are checked once, on the
//             range they span, at the first of them. A bad range drops every
//             member; a cold loop over the group's table then finds the first
//             member in program order that is out of bounds (or misaligned, or
//             outside its row of a pitched buffer) and reports it with its
//             own site and address, as its own check would have. Members
//             at multiples k of one run-time distance D (transpose's
//             in[(y + j) * n + x]: Poly expands the offsets) group too,
//             tested at their lowest and highest address;
//   hoisted   a loop's access to a kernel argument at addresses
//             {start,+,step} (ScalarEvolution: a constant stride, a bound on
//             the loop's trips) is checked once in the loop's preheader, on
//             the range [start, start + trips * step] it may span: every
//             iteration that reaches it is within those trips, whatever
//             branch or early exit it sits behind. A grid-stride loop (a
//             loop-invariant step, i < n) is bounded by its own test of i
//             instead (boundedIv). The loop's accesses share one test
//             (kosan.loop.ok); in the loop one branch on it per stretch of
//             straight-line code holding them goes to the stretch as it
//             was, or, when the range is not in bounds (or the argument
//             pitched), to a copy of the stretch whose accesses are checked
//             as any other access, which reports the first bad access of
//             the thread exactly. Also hoisted so: an access at a
//             loop-invariant address (a kernel argument's, a static
//             object's: a tile indexed by the thread alone), a bounded
//             loop's {start,+,stride} with a loop-invariant stride that is
//             not a constant (first and last address, the product's
//             overflow tested), and a grid-stride index zext((i + c) * m +
//             d) whose 32-bit arithmetic is tested not to wrap. A loop
//             whose every access is hoisted (or needs no check) and that
//             holds nothing convergent is copied whole instead: the loop
//             as it was, or a copy checked access by access
//             (versionable, versionLoop).
//
// Grouping never reaches out of a block: an access that is conditional, or
// after a loop's early exit, is never checked on another's behalf.
//
//===----------------------------------------------------------------------===//
#include "DeviceRuntime.h"
#include "KosanPasses.h"
#include "core/EntryProgram.h"
#include "core/Instrumenter.h"
#include "core/Provenance.h"
#include "core/SiteTable.h"
#include "target/Target.h"

#include "kosan/abi.h"
#include "kosan/bounds.h"

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PointerIntPair.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LazyValueInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;
using namespace llvm::PatternMatch;

#define DEBUG_TYPE "kosan-oob"

STATISTIC(NumChecked, "Accesses checked");
STATISTIC(NumCheckedArg, "Accesses checked against a kernel argument's bounds");
STATISTIC(NumCheckedStatic, "Accesses checked against a static object's bounds");
STATISTIC(NumCheckedTable, "Accesses of unresolved provenance checked against the table");
STATISTIC(NumProvenSafe, "Accesses proven in bounds at compile time");
STATISTIC(NumGrouped, "Accesses checked as part of a constant-offset group");
STATISTIC(NumGroups, "Checks of constant-offset groups");
STATISTIC(NumSymbolicGroups, "Checks of groups at a symbolic distance");
STATISTIC(NumHoisted, "Accesses checked once before their loop");
STATISTIC(NumHoistLoops, "Loops whose accesses are checked once before them");
STATISTIC(NumEntryTested, "Accesses tested at the entry of a kernel copied whole");
STATISTIC(NumConstant, "Accesses to constant or parameter memory, not checked");
STATISTIC(NumUninitChecked, "Global loads checked for the uninit fill");

namespace kosan {
namespace {

constexpr unsigned kSharedAS = addrspace::Shared, kLocalAS = addrspace::Local;

struct Access {
  Instruction *inst;
  Value *ptr;           // refreshed from operand `ptrOperand` before use
  Value *size;          // bytes, i64
  uint32_t constSize;   // 0 if not constant
  kosan_access_kind kind;
  unsigned ptrOperand = 0;
};


struct Poly;

// Accesses of one object in one stretch of straight-line code whose
// addresses differ by constants (an unrolled loop: in[i + 0..511], as[ty][0..31])
// are checked once, on the range they span. If the range is out of bounds
// every member is suppressed, and the report names the first member in
// program order that is bad on its own.
struct Group {
  int leader = -1;               // first member in program order
  SmallVector<int, 8> members;   // program order, the leader first
  // Offsets from the leader's address: the lowest, and the highest end.
  int64_t minOffset = INT64_MAX, maxEnd = INT64_MIN;
  bool allLoads = true;
  Value *bad = nullptr;          // set when the leader is instrumented
  // Loads only: all members address off one base; when the range is bad the
  // base moves to the start of the object itself (the values are discarded),
  // so the loads keep immediate offsets from one register.
  Value *safeBase = nullptr;
  // The safe base is the zero sink (kernel arguments): what members read
  // there is zero already, so their values need no select.
  bool readsZeroSink = false;
  // Set by the leader: its address (every member's is this plus its
  // offset) and the table {offset, size, site} of the members.
  Value *common = nullptr;
  GlobalVariable *table = nullptr;
  // The alignment every member needs (all need the same, at offsets that
  // keep it, so one test of the common address serves them all); 0: none.
  uint64_t alignment = 0;
  // A group at a symbolic distance (transpose's in[(y + j) * n + x], j =
  // 0, 8, 16, 24): every member's address is the leader's plus k * D, D a
  // run-time value (unit, a polynomial in values that dominate the leader)
  // and k the member's constant (its entry in offsets and in the table's
  // offset column); every member has the leader's size. kMin <= 0 <= kMax.
  // The lowest and the highest address are members' own, whatever D's
  // sign, so one test of both ends says whether any member is bad.
  std::shared_ptr<Poly> unit;
  int64_t kMin = 0, kMax = 0;
  Value *unitValue = nullptr; // D, made by the leader
  // Every member so far at the leader's address plus a multiple of the
  // unit (none yet: at the leader's address) and of the leader's size:
  // a symbolic member may join.
  bool symbolicOk = true;
};

// An integer expression as a polynomial in IR values with 64-bit wrapping
// coefficients: each term a product of atoms (a value, sign- or
// zero-extended to 64 bits, or a 64-bit value), the empty product being
// the constant. Offsets of addresses (GEP indices times their scales)
// written so, an unrolled loop's (y + 8) * n and y * n differ by 8 * n,
// which ScalarEvolution keeps as two unrelated products.
//
// Atoms, and so terms, are ordered by where their values stand in the
// function being instrumented (AtomOrdinals: its arguments, then its
// instructions in order, then anything else as first compared), never by
// address: the first term, which gives a symbolic group's unit its sign,
// and the order in which a polynomial is emitted are then the same from
// run to run, and so is the instrumented module.
static DenseMap<const Value *, unsigned> *AtomOrdinals = nullptr;

struct MonomialLess {
  static bool atomLess(void *a, void *b);
  bool operator()(const SmallVector<void *, 2> &a, const SmallVector<void *, 2> &b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), atomLess);
  }
};

// Numbers a function's values for MonomialLess while it lives.
struct AtomOrderScope {
  DenseMap<const Value *, unsigned> ordinals;
  explicit AtomOrderScope(const Function &F) {
    for (const Argument &A : F.args())
      ordinals.try_emplace(&A, ordinals.size());
    for (const Instruction &I : instructions(F))
      ordinals.try_emplace(&I, ordinals.size());
    AtomOrdinals = &ordinals;
  }
  ~AtomOrderScope() { AtomOrdinals = nullptr; }
};

struct Poly {
  using Atom = PointerIntPair<Value *, 2, unsigned>; // 0: i64 itself, 1: sext, 2: zext
  std::map<SmallVector<void *, 2>, uint64_t, MonomialLess> terms;
  static constexpr unsigned kMaxTerms = 16;
  bool addScaled(const Poly &o, uint64_t factor) {
    for (auto &[m, c] : o.terms) {
      uint64_t &t = terms[m];
      t += c * factor;
      if (t == 0)
        terms.erase(m);
    }
    return terms.size() <= kMaxTerms;
  }
  void addConstant(uint64_t c) {
    Poly k;
    k.terms[{}] = c;
    addScaled(k, 1);
  }
  uint64_t constant() const {
    auto it = terms.find({});
    return it == terms.end() ? 0 : it->second;
  }
};

bool MonomialLess::atomLess(void *a, void *b) {
  Poly::Atom A = Poly::Atom::getFromOpaqueValue(a), B = Poly::Atom::getFromOpaqueValue(b);
  if (A.getPointer() == B.getPointer())
    return A.getInt() < B.getInt();
  assert(AtomOrdinals && "polynomials are compared inside an AtomOrderScope");
  unsigned oa = AtomOrdinals->try_emplace(A.getPointer(), AtomOrdinals->size()).first->second;
  unsigned ob = AtomOrdinals->try_emplace(B.getPointer(), AtomOrdinals->size()).first->second;
  return oa < ob;
}

static std::optional<Poly> polyOf(Value *V, unsigned ext, unsigned depth);

// The product of two polynomials, or none past Poly::kMaxTerms terms.
static std::optional<Poly> polyMul(const Poly &a, const Poly &b) {
  Poly r;
  for (auto &[ma, ca] : a.terms)
    for (auto &[mb, cb] : b.terms) {
      SmallVector<void *, 2> m(ma);
      m.append(mb.begin(), mb.end());
      llvm::sort(m, MonomialLess::atomLess);
      Poly t;
      t.terms[m] = ca * cb;
      if (!r.addScaled(t, 1))
        return std::nullopt;
    }
  return r;
}

// V (an integer) extended to 64 bits as `ext` says (0: V is 64 bits wide,
// 1: sign, 2: zero extension): sums, differences, products and constant
// shifts are expanded where the extension distributes over them (nsw for
// a sign extension, nuw for a zero extension; any 64-bit arithmetic,
// which wraps as the address does); anything else is an atom. As
// ScalarEvolution does, a flag is taken at its word: an operation whose
// result would wrap is poison, and an address made of it undefined.
static std::optional<Poly> polyOf(Value *V, unsigned ext, unsigned depth) {
  unsigned bits = V->getType()->getIntegerBitWidth();
  if (bits > 64)
    return std::nullopt;
  if (bits == 64)
    ext = 0;
  Poly r;
  if (auto *C = dyn_cast<ConstantInt>(V)) {
    r.addConstant(ext == 2 ? C->getZExtValue() : uint64_t(C->getSExtValue()));
    return r;
  }
  auto atom = [&]() {
    r.terms[{Poly::Atom(V, ext).getOpaqueValue()}] = 1;
    return r;
  };
  if (depth == 0)
    return atom();
  if (auto *SX = dyn_cast<SExtInst>(V); SX && ext != 2)
    return polyOf(SX->getOperand(0), 1, depth - 1);
  if (auto *ZX = dyn_cast<ZExtInst>(V); ZX && ext != 1)
    return polyOf(ZX->getOperand(0), ZX->hasNonNeg() ? 1 : 2, depth - 1);
  auto *BO = dyn_cast<OverflowingBinaryOperator>(V);
  if (!BO)
    return atom();
  bool exact = ext == 0 || (ext == 1 ? BO->hasNoSignedWrap() : BO->hasNoUnsignedWrap());
  unsigned op = cast<Instruction>(V)->getOpcode();
  if (!exact || (op != Instruction::Add && op != Instruction::Sub && op != Instruction::Mul &&
                 op != Instruction::Shl))
    return atom();
  if (op == Instruction::Shl) {
    auto *C = dyn_cast<ConstantInt>(BO->getOperand(1));
    if (!C || C->getZExtValue() >= bits - 1)
      return atom();
    std::optional<Poly> a = polyOf(BO->getOperand(0), ext, depth - 1);
    if (!a)
      return atom();
    Poly s;
    s.addScaled(*a, uint64_t(1) << C->getZExtValue());
    return s;
  }
  std::optional<Poly> a = polyOf(BO->getOperand(0), ext, depth - 1);
  std::optional<Poly> b = polyOf(BO->getOperand(1), ext, depth - 1);
  if (!a || !b)
    return atom();
  if (op == Instruction::Mul) {
    std::optional<Poly> m = polyMul(*a, *b);
    return m ? *m : atom();
  }
  if (!a->addScaled(*b, op == Instruction::Add ? 1 : ~uint64_t(0)))
    return atom();
  return a;
}

// A pointer's offset from its base as a polynomial (through GEPs,
// bitcasts and address-space casts); the base, or null.
static Value *addressPoly(const DataLayout &DL, Value *ptr, Poly &out);

// A member's offset from its group's leader, from its row of the table:
// the row's offset, or k * D in a group at a symbolic distance.
static Value *memberOffset(IRBuilder<> &B, const Group &G, Value *rowOffset) {
  return G.unit ? B.CreateMul(rowOffset, G.unitValue) : rowOffset;
}

// What a load promised about the memory it read does not hold for a sink
// or a stand-in address.
void dropLoadPromises(Instruction &I) {
  for (unsigned kind : {LLVMContext::MD_range, LLVMContext::MD_noundef,
                        LLVMContext::MD_nonnull, LLVMContext::MD_invariant_load,
                        LLVMContext::MD_align, LLVMContext::MD_dereferenceable,
                        LLVMContext::MD_dereferenceable_or_null})
    I.setMetadata(kind, nullptr);
}

// ptr = base + sum(index * scale) + constant, through GEPs and bitcasts
// (and address-space casts where asked); null when a GEP's offset cannot be
// collected.
Value *decomposeAddress(const DataLayout &DL, Value *ptr, MapVector<Value *, APInt> &variable,
                        APInt &constant, bool throughAddrSpaceCasts) {
  unsigned bits = DL.getIndexTypeSizeInBits(ptr->getType());
  constant = APInt(bits, 0);
  Value *base = ptr;
  while (true) {
    if (auto *GEP = dyn_cast<GEPOperator>(base)) {
      if (!GEP->collectOffset(DL, bits, variable, constant))
        return nullptr;
      base = GEP->getPointerOperand();
    } else if (auto *Cast = dyn_cast<BitCastOperator>(base)) {
      base = Cast->getOperand(0);
    } else if (auto *ASC = dyn_cast<AddrSpaceCastOperator>(base); ASC && throughAddrSpaceCasts) {
      base = ASC->getOperand(0);
    } else {
      return base;
    }
  }
}

static Value *addressPoly(const DataLayout &DL, Value *ptr, Poly &out) {
  MapVector<Value *, APInt> variable;
  APInt constant;
  Value *base = decomposeAddress(DL, ptr, variable, constant, /*throughAddrSpaceCasts=*/true);
  if (!base || constant.getBitWidth() != 64)
    return nullptr;
  out = Poly();
  out.addConstant(constant.getZExtValue());
  for (auto &[index, scale] : variable) {
    std::optional<Poly> p = polyOf(index, 1, 8);
    if (!p || !out.addScaled(*p, scale.getZExtValue()))
      return nullptr;
  }
  return base;
}

// The range of a polynomial's values (128 bits), from ScalarEvolution's
// ranges of its atoms.
static ConstantRange polyRange(const Poly &P, ScalarEvolution &SE) {
  constexpr unsigned wide = 128;
  ConstantRange sum(APInt(wide, 0));
  for (auto &[m, c] : P.terms) {
    ConstantRange term(APInt(64, c).sext(wide));
    for (void *a : m) {
      Poly::Atom atom = Poly::Atom::getFromOpaqueValue(a);
      Value *V = atom.getPointer();
      if (!SE.isSCEVable(V->getType()))
        return ConstantRange::getFull(wide);
      const SCEV *X = SE.getSCEV(V);
      ConstantRange r = atom.getInt() == 2 ? SE.getUnsignedRange(X).zextOrTrunc(wide)
                                           : SE.getSignedRange(X).sextOrTrunc(wide);
      term = term.multiply(r);
    }
    sum = sum.add(term);
  }
  return sum;
}

struct Counts {
  unsigned arg = 0, stat = 0, table = 0, safe = 0, constant = 0;
  unsigned grouped = 0, groups = 0; // members of groups (in arg/stat too), and their checks
  unsigned hoisted = 0, loops = 0;   // accesses checked before their loop (in arg), and loops
  unsigned symbolicGroups = 0;       // groups at a symbolic distance (in groups)
  unsigned invariant = 0, invariantGroups = 0; // hoisted at a loop-invariant address (in hoisted)
  unsigned symbolicStride = 0;       // hoisted at a loop-invariant, not constant, stride
  unsigned versioned = 0;            // loops whose checks are all hoisted: copied whole (in loops)
  unsigned atEntry = 0, entryTests = 0; // accesses tested at a kernel copied whole, and its tests
};

static unsigned fillBits(Type *T);

// Most recent groups of one object and stretch an access is tried against.
constexpr unsigned kGroupCandidates = 8;
class OOBInstrumenter final : public Instrumenter {
public:
  explicit OOBInstrumenter(ModuleState &S)
      : Instrumenter(S), M(S.M), DL(M.getDataLayout()), Ctx(M.getContext()),
        I64(Type::getInt64Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        I1(Type::getInt1Ty(Ctx)), Ptr(PointerType::get(Ctx, 0)) {}
  StringRef name() const override { return "oob"; }
  bool fewRegisters() const override { return true; }
  bool begin(ArrayRef<Function *>, ArrayRef<Function *>) override {
    initializeCallbacks();
    return true;
  }
  void instrument(Function &clone, const Function &original, const LaunchContext &ctx,
                  FunctionAnalysisManager &FAM) override {
    instrumentFunction(clone, original, ctx, FAM);
  }
  const EntryProgram *entryProgram(const Function &original) const override {
    auto it = entryPrograms.find(&original);
    return it == entryPrograms.end() ? nullptr : &it->second;
  }
  // Link no runtime function the instrumentation did not need.
  void end() override {
    for (FunctionCallee fn : {tableFn, recordFn})
      if (auto *F = dyn_cast<Function>(fn.getCallee()); F && F->use_empty())
        F->eraseFromParent();
  }

private:
  struct Check;
  void initializeCallbacks();
  Function *reportFunction();
  // Whether failing checks call the report function (every route of
  // emitReport and uninitOnReportPath asks here) or carry the record inline.
  bool callsReportFunction() const {
    return S.opts.sharedReport && S.target.callsReportCheaply();
  }
  void emitRecord(Instruction *recordTerm, Value *stateAddr, Value *launchId, Value *flags,
                  Value *site, Value *addr, Value *size32, Value *begin, Value *end,
                  Value *pitch);
  Value *emitReport(Instruction *before, const LaunchContext &ctx, Value *site,
                    Value *addr, Value *size32, Value *begin, Value *end,
                    Value *pitch, Value *shape, Value *badOverride = nullptr,
                    Value *misaligned = nullptr, Value *testedBad = nullptr,
                    LoadInst *fillLoad = nullptr);
  uint64_t requiredAlignment(const Access &A) const;
  Value *misalignment(Check &c, Value *addr, uint64_t alignment, const LaunchContext &ctx);
  Value *outsideRow(IRBuilder<> &B, Value *addr, Value *size32, Value *begin, Value *pitch,
                    Value *shape);
  Value *holdsFill(IRBuilder<> &B, LoadInst &L);
  Value *uninitOn(const LaunchContext &ctx, Function &F);
  void checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site, bool kernel);
  void checkUninitGroup(const Group &G, ArrayRef<std::pair<LoadInst *, unsigned>> loads,
                        const LaunchContext &ctx, bool kernel);
  void instrumentFunction(Function &clone, const Function &original, const LaunchContext &ctx,
                          FunctionAnalysisManager &FAM);
  bool provenInBounds(const Access &A, const Provenance &p, ScalarEvolution &SE,
                      LazyValueInfo &LVI) const;
  // What a hoisted access's test covers: addresses start + k * step of
  // loop, k <= trips; or, for a loop stepped by a loop-invariant amount (a
  // grid-stride loop), the addresses base + scale * ext(i) for the values
  // its induction variable i can take (BoundedIv).
  struct BoundedIv {
    PHINode *iv;          // the loop's induction variable, at most 32 bits
    Value *start, *step;  // i's first value, and what each trip adds
    Value *bound;         // the loop goes on while i + step < bound
    bool isSigned;        // slt (sext of i in the address) or ult (zext)
    bool zextOfSigned;    // a signed loop whose address zero-extends i
    Value *offset;        // the address extends i + offset (loop-invariant), or i
    // Or, zero-extended, (i [+ offset]) * mult [+ addend] (loop-invariant;
    // matmul's b[(t + ty) * n + col]): its 32-bit arithmetic tested not to
    // wrap up to i's last value.
    Value *mult = nullptr, *addend = nullptr;
    Value *base;          // the address less scale * ext(i): loop-invariant
    MapVector<Value *, APInt> invariant; // base's loop-invariant terms
    APInt constant;       // and its constant
    int64_t scale;        // bytes per unit of i, > 0
  };
  struct HoistRange {
    Loop *loop;
    const SCEV *start, *trips;
    int64_t step;
    std::shared_ptr<BoundedIv> iv; // set for the bounded-IV form
    // A loop-invariant stride that is not a constant (matmul's
    // b[(t + ty) * n + col], t += 32: 128 * n bytes), in place of step.
    const SCEV *symbolicStep = nullptr;
    // A loop-invariant address (start; trips and step unused), of one
    // access or of a group, whose range is [start + low, start + high).
    bool invariant = false;
    int64_t low = 0, high = 0;
    // With an invariant start: the range reaches span (i64, >= 0) bytes
    // further, [start + low, start + high + span) (the addresses of a
    // block's threads, start the lowest).
    const SCEV *span = nullptr;
    // Where the test goes when there is no loop: a kernel's entry.
    Instruction *at = nullptr;
    Instruction *atPoint() const {
      return loop ? loop->getLoopPreheader()->getTerminator() : at;
    }
  };
  std::optional<HoistRange> hoistRange(const Access &A, const Provenance &p, ScalarEvolution &SE,
                                       LoopInfo &LI, SCEVExpander &X,
                                       const LaunchContext &ctx) const;
  Value *hoistedRangeOk(const Access &A, const Provenance &p, const HoistRange &R,
                        ScalarEvolution &SE, SCEVExpander &X, const LaunchContext &ctx);
  std::shared_ptr<BoundedIv> boundedIv(const Access &A, Loop *L) const;
  std::optional<HoistRange> invariantRange(Value *ptr, int64_t high, Loop *L,
                                           ScalarEvolution &SE, SCEVExpander &X,
                                           int64_t low = 0) const;
  Value *objectOffsetOk(const Access &A, const Provenance &p, const HoistRange &R,
                        ScalarEvolution &SE, SCEVExpander &X, const LaunchContext &ctx);
  std::pair<Value *, Value *> hoistedBounds(const Provenance &p, Type *ptrTy, IRBuilder<> &B,
                                            const LaunchContext &ctx);
  Value *boundedIvRangeOk(const Access &A, const Provenance &p, const HoistRange &R,
                          const LaunchContext &ctx);
  SmallVector<unsigned, 8>
  hoistedStretch(unsigned first, ArrayRef<Access> accesses, ArrayRef<Loop *> hoistLoop,
                 const DenseMap<const Instruction *, unsigned> &accessAt) const;
  struct HoistedGroups {
    ArrayRef<int> groupOf;
    ArrayRef<Group> groups;
    ArrayRef<int64_t> offsets;
    std::deque<Group> &copies; // the groups of the checked copies
  };
  void checkHoisted(ArrayRef<unsigned> members, MutableArrayRef<Access> accesses,
                    ArrayRef<Provenance> provenance, ArrayRef<uint32_t> sites, Value *loopOk,
                    bool uninitInLoopOk, const LaunchContext &ctx,
                    SmallVectorImpl<std::pair<LoadInst *, uint32_t>> &uninitLoads,
                    HoistedGroups &hg);
  void checkCopies(ArrayRef<unsigned> members, MutableArrayRef<Access> accesses,
                   ArrayRef<Provenance> provenance, ArrayRef<uint32_t> sites,
                   ValueToValueMapTy &copies, bool uninitInLoopOk, const LaunchContext &ctx,
                   SmallVectorImpl<std::pair<LoadInst *, uint32_t>> &uninitLoads,
                   HoistedGroups &hg);
  enum class Agree { Thread, Warp, Block, Never };
  // Asked per group, per loop and per test: each loop's answer, made once
  // per function (instrumentFunction clears it).
  Agree loopAgreement(Loop *L) const;
  Agree scanAgreement(Loop *L) const;
  mutable DenseMap<const Loop *, Agree> agreement;
  bool versionable(Loop *L, ArrayRef<Access> accesses, ArrayRef<Loop *> hoistLoop,
                   ArrayRef<bool> unchecked) const;
  Value *agreedTest(Loop *L, Value *ok);
  // An address as the threads of a block compute it: uniform plus the sum
  // of c * tid over the thread-index reads it uses (coeffs), uniform the
  // same for every thread of the block (kernel arguments, block indices and
  // sizes, constants) and each c a constant. A narrower sum extended on the
  // way (sext of an i32 index) is linear only where it does not wrap: each
  // goes to `narrow`, its bits and extension set, to be tested.
  struct ThreadLinear {
    const SCEV *uniform;
    SmallVector<std::pair<Value *, int64_t>, 3> coeffs;
    bool isSigned = false;
    unsigned bits = 0;
  };
  std::optional<ThreadLinear> threadLinear(const SCEV *E, ScalarEvolution &SE,
                                           SmallVectorImpl<ThreadLinear> &narrow) const;
  bool blockUniform(const SCEV *E) const;
  bool versionKernel(Function &F, ArrayRef<Access> accesses, ArrayRef<Provenance> provenance,
                     ArrayRef<bool> unchecked, ArrayRef<int> groupOf, ArrayRef<Group> groups,
                     ScalarEvolution &SE, LoopInfo &LI, LazyValueInfo &LVI,
                     const LaunchContext &ctx,
                     ValueToValueMapTy &VMap, SmallVectorImpl<unsigned> &members,
                     bool &uninitOk, unsigned &tests, std::optional<EntryProgram> &program);
  void versionLoop(Loop *L, Value *ok, LoopInfo &LI, DominatorTree &DT,
                   ValueToValueMapTy &VMap);
  void checkGroupMember(Check &c, Group &G, int64_t offset);
  void checkGroupLeader(Check &c, Group &G, ArrayRef<Access> accesses, ArrayRef<int64_t> offsets,
                        const LaunchContext &ctx);
  void fillGroupTable(const Group &G, ArrayRef<Access> accesses, ArrayRef<int64_t> offsets,
                      ArrayRef<uint32_t> sites);
  void reportFirstBadMember(Instruction *before, Check &c, const Group &G, Value *begin,
                            Value *end, Value *misaligned, const LaunchContext &ctx);
  void branchToReport(Instruction *I, Instruction *after, Value *report,
                      function_ref<void(Instruction *)> slowPath);
  Value *zeroSinkFor(PointerType *T);
  void checkAccess(Check &c, Counts &counts, const LaunchContext &ctx,
                   LoadInst *uninitLoad = nullptr);
  bool uninitOnReportPath(const Access &A, const Provenance &p) const;
  void collectAccesses(Function &F, SmallVectorImpl<Access> &out);
  Value *argBound(const LaunchContext &ctx, unsigned arg, unsigned field, IRBuilder<> &B);
  Value *outOfBounds(Check &c, Value *addr, Value *begin, Value *end, const LaunchContext &ctx);
  void reloadAfterReport(Instruction *I, Value *value, BasicBlock *head, Value *bad,
                         ArrayRef<Use *> uses);
  void guard(Access &A, Value *bad,
             function_ref<Value *(Instruction *)> slowPath);
  bool canRedirect(const Access &A) const;
  SmallVector<int, 32> groupAccesses(Function &F, ArrayRef<Access> accesses,
                                     ArrayRef<Provenance> provenance, ArrayRef<bool> proven,
                                     ScalarEvolution &SE, DominatorTree &DT,
                                     SmallVectorImpl<Group> &groups,
                                     SmallVectorImpl<int64_t> &offsets);
  std::optional<int64_t> symbolicDistance(Group &C, const Access &L, const Poly &poly,
                                          Value *base, ScalarEvolution &SE,
                                          DominatorTree &DT) const;
  Value *unitValue(IRBuilder<> &B, const Poly &unit);
  void redirect(Access &A, unsigned space, Value *bad, Value *report,
                function_ref<void(Instruction *)> slowPath);
  Value *sinkFor(PointerType *T, unsigned space, IRBuilder<> &B);

  Module &M;
  const DataLayout &DL;
  LLVMContext &Ctx;
  Type *I64, *I32, *I1;
  PointerType *Ptr;
  FunctionCallee tableFn, recordFn;
  // Kernels copied whole whose entry test the host decides, by original.
  DenseMap<const Function *, EntryProgram> entryPrograms;
  // What goes once the function is instrumented (versionKernel).
  SmallVector<WeakTrackingVH, 2> deadAtEnd;
  Function *reportFn = nullptr; // the module's report function, made on first use
  DenseMap<std::pair<unsigned, unsigned>, Value *> argBoundCache;
  // Misalignment tests of kernel arguments, made once at entry.
  DenseMap<std::pair<Value *, uint64_t>, Value *> argMisalignedCache;
  // The launch's uninit flag, tested once at the function's entry.
  Value *uninitOnCache = nullptr;
  // Loops whose test (kosan.loop.ok) fails when the launch has uninit=1.
  SmallPtrSet<Loop *, 4> uninitInLoopOk;
  // A load of a kernel argument that the uninit check tests.
  bool uninitTested(const Access &A) const {
    auto *L = dyn_cast<LoadInst>(A.inst);
    return L && S.opts.uninit && A.kind == KOSAN_ACCESS_LOAD && fillBits(L->getType());
  }
  // Set while the copy of a hoisted access is checked: its bounds are read
  // where it needs them, so that the loop does not keep them in registers.
  bool boundsInPlace = false;
  GlobalVariable *globalSink = nullptr, *sharedSink = nullptr, *zeroSink = nullptr;
};

// Bytes of the sinks that redirected accesses go to: the widest access the
// fast path redirects.
constexpr uint64_t kSinkBytes = 64;
// Bytes of the sink that bad groups of loads of a kernel argument read
// instead (never written, so it reads zero): the widest span such a group
// may have.
constexpr uint64_t kZeroSinkBytes = 8192;

void OOBInstrumenter::initializeCallbacks() {
  // bool __kosan_oob_check_table(state, launch, flags, site, addr, size)
  FunctionType *tableTy =
      FunctionType::get(I1, {I64, I32, I32, I32, I64, I32}, false);
  tableFn = M.getOrInsertFunction(rt::OobCheckTable, tableTy);
  auto *F = cast<Function>(tableFn.getCallee());
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::Cold);
  F->addRetAttr(Attribute::ZExt);
  // void __kosan_oob_record(state, launch, flags, site, addr, size)
  recordFn = M.getOrInsertFunction(
      rt::OobRecord, FunctionType::get(Type::getVoidTy(Ctx), {I64, I32, I32, I32, I64, I32}, false));
  auto *RF = cast<Function>(recordFn.getCallee());
  RF->addFnAttr(Attribute::NoUnwind);
  RF->addFnAttr(Attribute::Cold);
}

// The cold path of a failed compare. Returns whether the access may go
// ahead (only a pitched access inside its row may); when not, records the
// event: a call of the module's report function (reportFunction), or, with
// -kosan-shared-report=0 and on AMD GPUs, the record inline (emitRecord).
// testedBad, where the caller has it, is its own test of the bounds and the
// alignment (no row test): the report function then takes it and tests the
// row itself, so that the cold path is the call alone.
Value *OOBInstrumenter::emitReport(Instruction *before, const LaunchContext &ctx,
                                Value *site, Value *addr, Value *size32,
                                Value *begin, Value *end, Value *pitch,
                                Value *shape, Value *badOverride,
                                Value *misaligned, Value *testedBad,
                                LoadInst *fillLoad) {
  IRBuilder<> B(before);
  bool mayBePitched = pitch && !(isa<ConstantInt>(pitch) && cast<ConstantInt>(pitch)->isZero());
  bool shared = callsReportFunction();
  if (shared && !badOverride && testedBad) {
    // The cold path is the call alone: the row test is the report
    // function's, and its answer says whether the access may go ahead.
    // With fillLoad (a load whose uninit test shares this path), the
    // call is made only when there is something to test or report.
    Value *zero = B.getInt64(0);
    Value *what = B.CreateZExt(testedBad, I32);
    if (fillLoad) {
      Value *fill = B.CreateAnd(uninitOn(ctx, *before->getFunction()), holdsFill(B, *fillLoad),
                                "kosan.uninit");
      what = B.CreateOr(what, B.CreateShl(B.CreateZExt(fill, I32), 1));
    }
    what->setName("kosan.what");
    auto call = [&](IRBuilder<> &C) {
      return C.CreateCall(reportFunction(),
                          {ctx.state, ctx.launchId, ctx.flags, site, addr, size32, begin, end,
                           mayBePitched ? pitch : zero, mayBePitched ? shape : zero, what},
                          "kosan.ok");
    };
    if (!fillLoad)
      return call(B);
    Value *needed = B.CreateICmpNE(what, B.getInt32(0));
    if (mayBePitched)
      needed = B.CreateOr(needed, B.CreateICmpNE(pitch, zero));
    Instruction *callTerm =
        SplitBlockAndInsertIfThen(needed, before, false,
                                  MDBuilder(Ctx).createUnlikelyBranchWeights());
    callTerm->getParent()->setName("kosan.record");
    IRBuilder<> C(callTerm);
    call(C);
    return nullptr; // a redirected load: its answer is not needed
  }
  Value *size64 = B.CreateZExt(size32, I64);
  Value *bad = badOverride ? badOverride
                           : B.CreateOr(B.CreateICmpULT(addr, begin),
                                        B.CreateICmpUGT(B.CreateAdd(addr, size64), end));
  if (!badOverride) {
    if (mayBePitched)
      bad = B.CreateOr(bad, outsideRow(B, addr, size32, begin, pitch, shape));
    if (misaligned)
      bad = B.CreateOr(bad, misaligned);
  }
  Value *ok = B.CreateNot(bad, "kosan.ok");

  MDBuilder MDB(Ctx);
  Instruction *recordTerm =
      SplitBlockAndInsertIfThen(bad, before, false, MDB.createLikelyBranchWeights());
  recordTerm->getParent()->setName("kosan.record");
  recordTerm->setDebugLoc(before->getDebugLoc());
  IRBuilder<> R(recordTerm);
  Value *pitch64 = pitch ? pitch : R.getInt64(0);
  if (!shared) {
    emitRecord(recordTerm, ctx.state, ctx.launchId, ctx.flags, site, addr, size32, begin, end,
               pitch64);
    return ok;
  }
  R.CreateCall(reportFunction(), {ctx.state, ctx.launchId, ctx.flags, site, addr, size32, begin,
                                  end, pitch64, R.getInt64(0), R.getInt32(1)});
  return ok;
}

// The module's one report function, made on first use: every failing
// check of every clone calls it instead of carrying the record inline.
// A kernel's report paths were most of its instrumented code (about 50 PTX
// instructions each, thousands in a module of many template instances),
// and ptxas's time grows faster than the code; a call costs the caller
// its arguments. Its registers are few (it holds the event's fields and
// the index), so the callers' register counts stay what the inline record
// gave them (bench/results/compile-time.md: ptxas -v, before and after).
//
//   bool __kosan_oob_report(state, launch, flags, site, addr, size, begin, end,
//                           pitch, shape, what)
//
// records the event when what & 1 (the caller's test of the bounds and the
// alignment failed) or when the access lies outside its row of a pitched
// buffer (pitch and shape nonzero), and returns whether the access may go
// ahead: the row test of a check against a kernel argument is made here,
// once, instead of inline on each check's cold path. Otherwise, when
// what & 2 (the load read the uninit fill), it records that at the site
// (KOSAN_SITE_UNINIT_BIT): a checked load's uninit test shares its bounds
// check's cold path and call.
Function *OOBInstrumenter::reportFunction() {
  if (reportFn)
    return reportFn;
  FunctionType *T = FunctionType::get(I1, {I64, I32, I32, I32, I64, I32, I64, I64, I64, I64, I32},
                                      false);
  reportFn = Function::Create(T, GlobalValue::InternalLinkage, "__kosan_oob_report", M);
  reportFn->addFnAttr(Attribute::NoInline);
  reportFn->addFnAttr(Attribute::Cold);
  reportFn->addFnAttr(Attribute::NoUnwind);
  reportFn->addFnAttr(Attribute::NoRecurse);
  reportFn->addRetAttr(Attribute::ZExt);
  static const char *names[] = {"state", "launch", "flags", "site",  "addr", "size",
                                "begin", "end",    "pitch", "shape", "what"};
  for (Argument &A : reportFn->args())
    A.setName(names[A.getArgNo()]);
  auto arg = [&](unsigned i) { return reportFn->getArg(i); };
  BasicBlock *entry = BasicBlock::Create(Ctx, "entry", reportFn);
  BasicBlock *row = BasicBlock::Create(Ctx, "row", reportFn);
  BasicBlock *fill = BasicBlock::Create(Ctx, "fill", reportFn);
  BasicBlock *pass = BasicBlock::Create(Ctx, "pass", reportFn);
  BasicBlock *record = BasicBlock::Create(Ctx, "record", reportFn);
  BasicBlock *recordFill = BasicBlock::Create(Ctx, "record.uninit", reportFn);
  IRBuilder<> B(entry);
  auto bit = [&](unsigned b) {
    return B.CreateICmpNE(B.CreateAnd(arg(10), B.getInt32(b)), B.getInt32(0));
  };
  B.CreateCondBr(bit(1), record, row);
  B.SetInsertPoint(row);
  B.CreateCondBr(outsideRow(B, arg(4), arg(5), arg(6), arg(8), arg(9)), record, fill);
  B.SetInsertPoint(fill);
  B.CreateCondBr(bit(2), recordFill, pass);
  B.SetInsertPoint(pass);
  B.CreateRet(B.getTrue());
  B.SetInsertPoint(record);
  Instruction *ret = B.CreateRet(B.getFalse());
  emitRecord(ret, arg(0), arg(1), arg(2), arg(3), arg(4), arg(5), arg(6), arg(7), arg(8));
  B.SetInsertPoint(recordFill);
  Instruction *retFill = B.CreateRet(B.getTrue());
  Value *zero = B.getInt64(0);
  B.SetInsertPoint(retFill);
  Value *uninitSite = B.CreateOr(arg(3), B.getInt32(KOSAN_SITE_UNINIT_BIT));
  emitRecord(retFill, arg(0), arg(1), arg(2), uninitSite, arg(4), arg(5), zero, zero, zero);
  return reportFn;
}

// The record of one bad access, before recordTerm:
//
//   idx = atomicrmw add state->event_count, 1
//   if (idx < state->event_capacity) { events[idx] = {...}; fence; key }
//   host_flag->dirty = 1
//   if (flags & HALT || over the event budget) { fence; host_flag->halted = 1; trap }
void OOBInstrumenter::emitRecord(Instruction *recordTerm, Value *stateAddr, Value *launchId,
                                 Value *flags, Value *site, Value *addr, Value *size32,
                                 Value *begin, Value *end, Value *pitch) {
  MDBuilder MDB(Ctx);
  DebugLoc loc = recordTerm->getDebugLoc();
  IRBuilder<> R(recordTerm);
  Value *state = R.CreateIntToPtr(stateAddr, Ptr);
  auto field = [&](uint64_t offset) {
    return R.CreateConstInBoundsGEP1_64(R.getInt8Ty(), state, offset);
  };
  Value *index = R.CreateAtomicRMW(AtomicRMWInst::Add,
                                   field(offsetof(kosan_device_state, event_count)),
                                   R.getInt32(1), MaybeAlign(4), AtomicOrdering::Monotonic);
  Value *capacity = R.CreateAlignedLoad(
      I32, field(offsetof(kosan_device_state, event_capacity)), Align(4));
  Value *hostFlag = R.CreateIntToPtr(
      R.CreateAlignedLoad(I64, field(offsetof(kosan_device_state, host_flag)), Align(8)), Ptr);
  Instruction *writeTerm = SplitBlockAndInsertIfThen(
      R.CreateICmpULT(index, capacity), recordTerm, false, MDB.createLikelyBranchWeights());
  writeTerm->getParent()->setName("kosan.record.write");
  {
    IRBuilder<> W(writeTerm);
    W.SetCurrentDebugLocation(loc);
    Value *events = W.CreateIntToPtr(
        W.CreateAlignedLoad(I64, W.CreateConstInBoundsGEP1_64(
                                     W.getInt8Ty(), state,
                                     offsetof(kosan_device_state, events)),
                            Align(8)),
        Ptr);
    Value *event = W.CreateInBoundsGEP(
        W.getInt8Ty(), events,
        W.CreateMul(W.CreateZExt(index, I64), W.getInt64(sizeof(kosan_oob_event))));
    // Naturally aligned, so that the 8-byte key is one store: the host must
    // never see half of it.
    auto put = [&](uint64_t offset, Value *v) {
      W.CreateAlignedStore(v, W.CreateConstInBoundsGEP1_64(W.getInt8Ty(), event, offset),
                           Align(DL.getTypeStoreSize(v->getType())));
    };
    put(offsetof(kosan_oob_event, addr), addr);
    put(offsetof(kosan_oob_event, begin), begin);
    put(offsetof(kosan_oob_event, end), end);
    put(offsetof(kosan_oob_event, pitch), pitch);
    put(offsetof(kosan_oob_event, size), size32);
    // block[3] then thread[3].
    for (unsigned i = 0; i < 6; ++i)
      put(offsetof(kosan_oob_event, block) + 4 * i,
          i < 3 ? S.target.blockId(W, i) : S.target.threadId(W, i - 3));
    S.target.systemFence(W);
    if (S.siteBase)
      site = W.CreateAdd(markNoSanitize(W.CreateAlignedLoad(I32, S.siteBase, Align(4))), site);
    Value *key = W.CreateAdd(
        W.CreateOr(W.CreateShl(W.CreateZExt(launchId, I64), 32),
                   W.CreateZExt(site, I64)),
        W.getInt64(1));
    put(offsetof(kosan_oob_event, key), key);
  }
  R.SetInsertPoint(recordTerm);
  R.CreateAlignedStore(R.getInt32(1), hostFlag, Align(4), /*isVolatile=*/true);
  // halt_on_error, or a kernel that keeps failing (stop_after): the
  // budget is the device state's, 0 for none.
  Value *budget = R.CreateAlignedLoad(
      I32, field(offsetof(kosan_device_state, event_budget)), Align(4));
  Value *overBudget = R.CreateAnd(R.CreateICmpNE(budget, R.getInt32(0)),
                                  R.CreateICmpUGE(index, budget));
  Value *halt = R.CreateOr(
      R.CreateICmpNE(R.CreateAnd(flags, R.getInt32(KOSAN_LAUNCH_HALT_ON_ERROR)),
                     R.getInt32(0)),
      overBudget);
  Instruction *haltTerm =
      SplitBlockAndInsertIfThen(halt, recordTerm, /*Unreachable=*/true,
                                MDB.createUnlikelyBranchWeights());
  haltTerm->getParent()->setName("kosan.halt");
  IRBuilder<> H(haltTerm);
  H.SetCurrentDebugLocation(loc);
  S.target.systemFence(H);
  H.CreateAlignedStore(H.getInt32(1),
                       H.CreateConstInBoundsGEP1_64(H.getInt8Ty(), hostFlag,
                                                    offsetof(kosan_host_flag, halted)),
                       Align(4), /*isVolatile=*/true);
  H.CreateIntrinsic(Intrinsic::trap, {}, {});
}

// A pitched buffer's access outside its row: the offset modulo the pitch,
// plus the size, does not fit in the row. 32-bit division (a 64-bit one is
// a long routine); offsets past 4 GiB get the allocation test only. False
// when pitch is 0 (not pitched).
Value *OOBInstrumenter::outsideRow(IRBuilder<> &B, Value *addr, Value *size32, Value *begin,
                                   Value *pitch, Value *shape) {
  Value *offset = B.CreateSub(addr, begin);
  Value *small = B.CreateAnd(B.CreateICmpULE(offset, B.getInt64(0xffffffffu)),
                             B.CreateICmpULE(pitch, B.getInt64(0xffffffffu)));
  Value *isPitched = B.CreateICmpNE(pitch, B.getInt64(0));
  small = B.CreateAnd(small, isPitched);
  Value *pitch32 = B.CreateTrunc(B.CreateSelect(small, pitch, B.getInt64(1)), I32);
  Value *rem = B.CreateURem(B.CreateTrunc(offset, I32), pitch32);
  Value *rowBytes = B.CreateTrunc(shape, I32);
  Value *outside = B.CreateICmpUGT(B.CreateAdd(rem, size32), rowBytes);
  return B.CreateAnd(small, outside);
}

// uninit=1 (KOSAN_LAUNCH_UNINIT): a global load whose value holds the fill
// of a fresh allocation (KOSAN_UNINIT_PATTERN, in any of its 2-, 4- or
// 8-byte elements) read what nobody wrote; it is recorded at its site with
// KOSAN_SITE_UNINIT_BIT. Without the flag it costs a compare per element.
// One-byte loads, pointers and aggregates are not checked.
// Whether L read the fill (in any element); null for loads not checked
// (one byte, pointers, aggregates).
// The bits of each element of a load of type T that the uninit check
// tests, or 0 for a load it leaves alone.
static unsigned fillBits(Type *T) {
  auto *VT = dyn_cast<FixedVectorType>(T);
  Type *E = VT ? VT->getElementType() : T;
  unsigned bits = E->isFloatingPointTy() || E->isIntegerTy() ? E->getPrimitiveSizeInBits() : 0;
  return bits == 16 || bits == 32 || bits == 64 ? bits : 0;
}

Value *OOBInstrumenter::holdsFill(IRBuilder<> &B, LoadInst &L) {
  Type *T = L.getType();
  auto *VT = dyn_cast<FixedVectorType>(T);
  Type *E = VT ? VT->getElementType() : T;
  unsigned bits = fillBits(T);
  if (!bits)
    return nullptr;
  Type *IntE = B.getIntNTy(bits);
  Type *IntT = VT ? cast<Type>(FixedVectorType::get(IntE, VT->getNumElements())) : IntE;
  Value *word = E->isIntegerTy() ? cast<Value>(&L) : B.CreateBitCast(&L, IntT);
  uint64_t pattern = uint64_t(KOSAN_UNINIT_PATTERN) << 32 | KOSAN_UNINIT_PATTERN;
  Constant *fill = ConstantInt::get(IntE, pattern & (bits == 64 ? ~0ull : (1ull << bits) - 1));
  Value *eq = B.CreateICmpEQ(word, VT ? ConstantVector::getSplat(VT->getElementCount(), fill)
                                      : fill);
  if (VT)
    eq = B.CreateOrReduce(eq);
  return eq;
}

// Whether the launch has KOSAN_LAUNCH_UNINIT: computed once at F's entry
// (the flags are the launch's), so that a loop pays only the branch.
Value *OOBInstrumenter::uninitOn(const LaunchContext &ctx, Function &F) {
  if (uninitOnCache)
    return uninitOnCache;
  auto *flagsInst = dyn_cast<Instruction>(ctx.flags);
  IRBuilder<> B(flagsInst ? flagsInst->getNextNode()
                          : &*F.getEntryBlock().getFirstInsertionPt());
  uninitOnCache = B.CreateICmpNE(B.CreateAnd(ctx.flags, B.getInt32(KOSAN_LAUNCH_UNINIT)),
                                 B.getInt32(0), "kosan.uninit.on");
  return uninitOnCache;
}

// One branch on the launch's uninit flag right after the load, which does
// not wait for the loaded value; behind it, the compare and the report. A
// branch on the value itself would hold every later load of the thread
// until this one's data arrives.
void OOBInstrumenter::checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site,
                                  bool kernel) {
  if (!L.getNextNode() || !fillBits(L.getType()))
    return;
  ++NumUninitChecked;
  Value *on = uninitOn(ctx, *L.getFunction());
  MDBuilder MDB(Ctx);
  Instruction *then = SplitBlockAndInsertIfThen(on, L.getNextNode(), false,
                                                MDB.createUnlikelyBranchWeights());
  then->getParent()->setName("kosan.uninit.test");
  IRBuilder<> R(then);
  R.SetCurrentDebugLocation(L.getDebugLoc());
  Value *bad = holdsFill(R, L);
  bad->setName("kosan.uninit");
  Value *addr = R.CreatePtrToInt(L.getPointerOperand(), I64);
  Value *size32 = R.getInt32(uint32_t(DL.getTypeStoreSize(L.getType())));
  Value *zero = R.getInt64(0);
  Value *siteV = R.getInt32(site | KOSAN_SITE_UNINIT_BIT);
  if (kernel) {
    emitReport(then, ctx, siteV, addr, size32, zero, zero, nullptr, nullptr, bad);
    return;
  }
  Instruction *record = SplitBlockAndInsertIfThen(bad, then, false,
                                                  MDB.createUnlikelyBranchWeights());
  record->getParent()->setName("kosan.record");
  IRBuilder<> RR(record);
  RR.SetCurrentDebugLocation(L.getDebugLoc());
  RR.CreateCall(recordFn, {ctx.state, ctx.launchId, ctx.flags, siteV, addr, size32});
}

// The loads of one group (program order, with their rows of its table):
// one branch on the launch's uninit flag after the last of them; behind it,
// the first load that read the fill is found (a compare and a select each)
// and reported from the table, as its own check would have.
void OOBInstrumenter::checkUninitGroup(const Group &G,
                                       ArrayRef<std::pair<LoadInst *, unsigned>> loads,
                                       const LaunchContext &ctx, bool kernel) {
  LoadInst *last = loads.back().first;
  if (!last->getNextNode())
    return;
  Value *on = uninitOn(ctx, *last->getFunction());
  MDBuilder MDB(Ctx);
  Instruction *then = SplitBlockAndInsertIfThen(on, last->getNextNode(), false,
                                                MDB.createUnlikelyBranchWeights());
  then->getParent()->setName("kosan.uninit.scan");
  IRBuilder<> R(then);
  R.SetCurrentDebugLocation(loads.front().first->getDebugLoc());
  // Backwards, so that the first load in program order wins.
  Value *none = R.getInt32(G.members.size());
  Value *row = none;
  for (auto [L, r] : reverse(loads))
    if (Value *eq = holdsFill(R, *L)) {
      ++NumUninitChecked;
      row = R.CreateSelect(eq, R.getInt32(r), row);
    }
  if (row == none)
    return;
  Value *found = R.CreateICmpNE(row, none, "kosan.uninit");
  // Row 0 stands in when none is found (the report is not taken then).
  row = R.CreateSelect(found, row, R.getInt32(0));
  Type *tableTy = G.table->getValueType();
  auto field = [&](unsigned i, Type *T) {
    Value *at = R.CreateInBoundsGEP(tableTy, G.table, {R.getInt32(0), row, R.getInt32(i)});
    return markNoSanitize(R.CreateAlignedLoad(T, at, Align(T == I64 ? 8 : 4)));
  };
  Value *addr = R.CreateAdd(G.common, memberOffset(R, G, field(0, I64)));
  Value *size32 = field(1, I32);
  Value *site = R.CreateOr(field(2, I32), R.getInt32(KOSAN_SITE_UNINIT_BIT));
  if (kernel) {
    Value *zero = R.getInt64(0);
    emitReport(then, ctx, site, addr, size32, zero, zero, nullptr, nullptr, found);
    return;
  }
  Instruction *record = SplitBlockAndInsertIfThen(found, then, false,
                                                  MDB.createUnlikelyBranchWeights());
  record->getParent()->setName("kosan.record");
  IRBuilder<> RR(record);
  RR.SetCurrentDebugLocation(loads.front().first->getDebugLoc());
  RR.CreateCall(recordFn, {ctx.state, ctx.launchId, ctx.flags, site, addr, size32});
}

Value *OOBInstrumenter::argBound(const LaunchContext &ctx, unsigned arg, unsigned field,
                                 IRBuilder<> &B) {
  // begin, end and pitch are read once at entry; shape only on the slow path.
  uint64_t offset = LaunchInfoLayout::bound(arg, field);
  if (field < 3 && !boundsInPlace) {
    Value *&cached = argBoundCache[{arg, field}];
    if (!cached) {
      IRBuilder<> EB(cast<Instruction>(ctx.dynSmem)->getNextNode());
      Value *p = EB.CreateConstInBoundsGEP1_64(EB.getInt8Ty(), ctx.info, offset);
      cached = markNoSanitize(EB.CreateAlignedLoad(
          I64, p, Align(8),
          "kosan.arg" + Twine(arg) +
              (field == 0 ? ".begin" : field == 1 ? ".end" : ".pitch")));
    }
    return cached;
  }
  Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), ctx.info, offset);
  return markNoSanitize(B.CreateAlignedLoad(I64, p, Align(8)));
}

// The alignment the GPU needs for A's address: its instruction faults
// ("misaligned address") below it. The backend emits the widest access the
// IR's alignment allows, up to 16 bytes (ld.v4.f32, ld.v2.f64), so that is
// the access size capped at 16, lowered to what the IR promises; memcpy
// and memset are copied in pieces of at most their operands' alignment.
// 0: nothing to check (one byte, or a size that is not constant).
uint64_t OOBInstrumenter::requiredAlignment(const Access &A) const {
  if (!A.constSize || !S.opts.misaligned)
    return 0;
  uint64_t need = kosan::accessAlignment(A.constSize);
  MaybeAlign promised;
  if (auto *L = dyn_cast<LoadInst>(A.inst))
    promised = L->getAlign();
  else if (auto *St = dyn_cast<StoreInst>(A.inst))
    promised = St->getAlign();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(A.inst))
    promised = RMW->getAlign();
  else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(A.inst))
    promised = CX->getAlign();
  else if (auto *MT = dyn_cast<MemTransferInst>(A.inst))
    promised = A.kind == KOSAN_ACCESS_MEMCPY_SRC ? MT->getSourceAlign() : MT->getDestAlign();
  else if (auto *MI = dyn_cast<MemIntrinsic>(A.inst))
    promised = MI->getDestAlign();
  else
    return 0; // ldg/ldu intrinsics: the load they replace was checked
  need = std::min<uint64_t>(need, promised ? promised->value() : 1);
  if (need < 2)
    return 0;
  // Proven aligned (a static object's base and a constant offset, a
  // scaled index from an aligned base): nothing to check.
  if (getKnownAlignment(A.ptr, DL).value() >= need)
    return 0;
  return need;
}

// A copy of 1, 2, 4, 8 or 16 bytes (a struct or int4 assignment, an
// asynchronous copy as kosan's compatibility header lowers it) is a load
// and a store as the backend emits it: written so in the clone, the two are
// checked as loads and stores are (grouped with their neighbours, proven,
// hoisted, redirected to a sink) instead of each side guarding the whole
// copy. Both are marked kosan.copy, so that they keep the copy's access
// kinds in reports and the uninit check (a copy does not use what it
// copies) leaves the load alone. Loading everything before storing keeps
// memmove's meaning when the two overlap.
static void splitSmallCopies(Function &F) {
  LLVMContext &Ctx = F.getContext();
  unsigned kindID = Ctx.getMDKindID("kosan.copy");
  SmallVector<MemTransferInst *, 16> copies;
  for (Instruction &I : instructions(F))
    if (auto *MT = dyn_cast<MemTransferInst>(&I);
        MT && !MT->isVolatile() && !I.hasMetadata(LLVMContext::MD_nosanitize))
      if (auto *len = dyn_cast<ConstantInt>(MT->getLength());
          len && is_contained({1u, 2u, 4u, 8u, 16u}, len->getZExtValue()))
        copies.push_back(MT);
  for (MemTransferInst *MT : copies) {
    unsigned bytes = unsigned(cast<ConstantInt>(MT->getLength())->getZExtValue());
    Type *T = bytes == 16 ? cast<Type>(FixedVectorType::get(Type::getInt32Ty(Ctx), 4))
                          : cast<Type>(Type::getIntNTy(Ctx, 8 * bytes));
    IRBuilder<> B(MT);
    LoadInst *L = B.CreateAlignedLoad(T, MT->getRawSource(),
                                      MT->getSourceAlign().valueOrOne(), "kosan.copy");
    StoreInst *St = B.CreateAlignedStore(L, MT->getRawDest(), MT->getDestAlign().valueOrOne());
    for (Instruction *I : {cast<Instruction>(L), cast<Instruction>(St)}) {
      I->setDebugLoc(MT->getDebugLoc());
      I->setMetadata(kindID, MDNode::get(Ctx, {}));
    }
    MT->eraseFromParent();
  }
}

void OOBInstrumenter::collectAccesses(Function &F, SmallVectorImpl<Access> &out) {
  auto sizeOf = [&](Type *T) -> uint32_t {
    return DL.getTypeStoreSize(T).getFixedValue();
  };
  for (Instruction &I : instructions(F)) {
    if (I.hasMetadata(LLVMContext::MD_nosanitize))
      continue;
    bool copy = I.getMetadata("kosan.copy") != nullptr; // splitSmallCopies
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      uint32_t s = sizeOf(LI->getType());
      out.push_back({LI, LI->getPointerOperand(), ConstantInt::get(I64, s), s,
                     copy ? KOSAN_ACCESS_MEMCPY_SRC : KOSAN_ACCESS_LOAD});
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      uint32_t s = sizeOf(SI->getValueOperand()->getType());
      out.push_back({SI, SI->getPointerOperand(), ConstantInt::get(I64, s), s,
                     copy ? KOSAN_ACCESS_MEMCPY_DST : KOSAN_ACCESS_STORE,
                     StoreInst::getPointerOperandIndex()});
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      uint32_t s = sizeOf(RMW->getValOperand()->getType());
      out.push_back({RMW, RMW->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_ATOMIC});
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      uint32_t s = sizeOf(CX->getNewValOperand()->getType());
      out.push_back({CX, CX->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_ATOMIC});
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      Value *len = MI->getLength();
      uint32_t s = 0;
      if (auto *C = dyn_cast<ConstantInt>(len))
        s = C->getLimitedValue(UINT32_MAX);
      IRBuilder<> B(MI);
      Value *len64 = B.CreateZExtOrTrunc(len, I64);
      out.push_back({MI, MI->getRawDest(), len64, s, KOSAN_ACCESS_MEMCPY_DST});
      if (auto *MT = dyn_cast<MemTransferInst>(MI))
        out.push_back(
            {MI, MT->getRawSource(), len64, s, KOSAN_ACCESS_MEMCPY_SRC, 1});
    } else if (auto *II = dyn_cast<IntrinsicInst>(&I);
               II && S.target.isGlobalLoadIntrinsic(II->getIntrinsicID())) {
      uint32_t s = sizeOf(II->getType());
      out.push_back({II, II->getArgOperand(0), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_LOAD});
    }
  }
}

// Splits the block around A.inst:
//   head:   br bad, slow, access
//   slow:   ok = <slowPath>; br ok, access, skip
//   access: <inst>; br cont
//   skip:   br cont
//   cont:   phi [inst, access], [zero, skip]
void OOBInstrumenter::guard(Access &A, Value *bad,
                         function_ref<Value *(Instruction *)> slowPath) {
  Instruction *I = A.inst;
  BasicBlock *head = I->getParent();
  BasicBlock *access = head->splitBasicBlock(I, "kosan.access");
  BasicBlock *cont = access->splitBasicBlock(I->getNextNode(), "kosan.cont");
  Function *F = head->getParent();
  BasicBlock *slow = BasicBlock::Create(Ctx, "kosan.slow", F, cont);
  BasicBlock *skip = BasicBlock::Create(Ctx, "kosan.skip", F, cont);
  MDBuilder MDB(Ctx);

  head->getTerminator()->eraseFromParent();
  IRBuilder<> HB(head);
  HB.SetCurrentDebugLocation(I->getDebugLoc());
  if (bad)
    HB.CreateCondBr(bad, slow, access, MDB.createUnlikelyBranchWeights());
  else
    HB.CreateBr(slow);

  IRBuilder<> SB(slow);
  SB.SetCurrentDebugLocation(I->getDebugLoc());
  // The slow path may split its block; the placeholder ends up last.
  Instruction *placeholder = SB.CreateBr(access);
  Value *ok = slowPath(placeholder);
  IRBuilder<> EB(placeholder);
  EB.SetCurrentDebugLocation(I->getDebugLoc());
  EB.CreateCondBr(ok, access, skip, MDB.createLikelyBranchWeights());
  placeholder->eraseFromParent();

  IRBuilder<> KB(skip);
  KB.CreateBr(cont);

  if (!I->getType()->isVoidTy() && !I->use_empty()) {
    IRBuilder<> CB(&cont->front());
    PHINode *phi = CB.CreatePHI(I->getType(), 2, I->getName() + ".kosan");
    I->replaceAllUsesWith(phi);
    phi->addIncoming(I, access);
    phi->addIncoming(Constant::getNullValue(I->getType()), skip);
  }
}

// k such that an address whose offset from `base` is `poly` is group C's
// leader's address plus k * D, D the group's unit (set here when C has
// none yet); none when it is not, or when the span of the group's
// addresses could reach 2^62 bytes for some value of D (|k| <= 2^20, |D|
// <= 2^40), or D's values are not all known at the leader.
std::optional<int64_t> OOBInstrumenter::symbolicDistance(Group &C, const Access &L,
                                                         const Poly &poly, Value *base,
                                                         ScalarEvolution &SE,
                                                         DominatorTree &DT) const {
  if (!base)
    return std::nullopt;
  Poly leader;
  if (addressPoly(DL, L.ptr, leader) != base)
    return std::nullopt;
  Poly d = poly;
  if (!d.addScaled(leader, ~uint64_t(0)) || d.constant() != 0 || d.terms.empty())
    return std::nullopt;
  auto asSigned = [](uint64_t c) { return int64_t(c); };
  Instruction *at = L.inst;
  if (!C.unit) {
    // The unit: d divided by the gcd of its coefficients, the first one
    // positive.
    uint64_t g = 0;
    for (auto &[m, c] : d.terms) {
      if (c == uint64_t(1) << 63)
        return std::nullopt;
      g = std::gcd(g, uint64_t(std::abs(asSigned(c))));
    }
    int64_t k = asSigned(d.terms.begin()->second) < 0 ? -int64_t(g) : int64_t(g);
    if (g == 0 || g > (uint64_t(1) << 20))
      return std::nullopt;
    auto unit = std::make_shared<Poly>();
    for (auto &[m, c] : d.terms) {
      unit->terms[m] = uint64_t(asSigned(c) / k);
      for (void *a : m)
        if (auto *I = dyn_cast<Instruction>(Poly::Atom::getFromOpaqueValue(a).getPointer());
            I && !DT.dominates(I, at))
          return std::nullopt;
    }
    ConstantRange r = polyRange(*unit, SE);
    APInt limit = APInt::getOneBitSet(128, 40);
    if (r.isFullSet() || r.getSignedMin().slt(-limit) || r.getSignedMax().sgt(limit))
      return std::nullopt;
    C.unit = std::move(unit);
    return k;
  }
  // d = k * unit, term by term.
  if (d.terms.size() != C.unit->terms.size())
    return std::nullopt;
  auto first = C.unit->terms.begin();
  auto dFirst = d.terms.find(first->first);
  if (dFirst == d.terms.end() || asSigned(dFirst->second) % asSigned(first->second) != 0)
    return std::nullopt;
  int64_t k = asSigned(dFirst->second) / asSigned(first->second);
  if (k == 0 || k > (int64_t(1) << 20) || k < -(int64_t(1) << 20))
    return std::nullopt;
  for (auto &[m, c] : C.unit->terms) {
    auto it = d.terms.find(m);
    if (it == d.terms.end() || it->second != c * uint64_t(k))
      return std::nullopt;
  }
  return k;
}

// Accesses whose checks one check of their group replaces (Group); -1 for
// an access on its own. offsets[i]: i's address less its group leader's
// (in units of the group's D for a group at a symbolic distance).
SmallVector<int, 32>
OOBInstrumenter::groupAccesses(Function &F, ArrayRef<Access> accesses,
                               ArrayRef<Provenance> provenance, ArrayRef<bool> proven,
                               ScalarEvolution &SE, DominatorTree &DT,
                               SmallVectorImpl<Group> &groups,
                               SmallVectorImpl<int64_t> &offsets) {
  SmallVector<int, 32> groupOf(accesses.size(), -1);
  offsets.assign(accesses.size(), 0);
  // Stretches of straight-line code: a member runs whenever its leader
  // does. A call that may not return (exit, a trap) ends one.
  DenseMap<const Instruction *, unsigned> stretchOf;
  for (const Access &A : accesses)
    stretchOf[A.inst] = 0;
  unsigned stretch = 0;
  for (BasicBlock &BB : F) {
    ++stretch;
    for (Instruction &I : BB) {
      if (auto it = stretchOf.find(&I); it != stretchOf.end())
        it->second = stretch;
      if (!isGuaranteedToTransferExecutionToSuccessor(&I))
        ++stretch;
    }
  }
  DenseMap<std::pair<unsigned, const Value *>, SmallVector<int, 4>> open;
  for (unsigned i = 0; i < accesses.size(); ++i) {
    const Access &A = accesses[i];
    const Provenance &p = provenance[i];
    if (!S.opts.groupChecks || proven[i] || !p.base || !canRedirect(A) || !SE.isSCEVable(A.ptr->getType()) ||
        (p.kind != Provenance::KernelArg && p.kind != Provenance::StaticObject &&
         p.kind != Provenance::DynamicShared))
      continue;
    const SCEV *address = SE.getSCEV(A.ptr);
    uint64_t need = requiredAlignment(A);
    SmallVector<int, 4> &candidates = open[{stretchOf.lookup(A.inst), p.base}];
    int joined = -1;
    int64_t off = 0;
    unsigned tried = 0;
    std::optional<Poly> poly; // A's offset from its base, made when first needed
    Value *polyBase = nullptr;
    for (auto it = candidates.rbegin(); it != candidates.rend() && tried < kGroupCandidates;
         ++it, ++tried) {
      Group &C = groups[*it];
      const Access &L = accesses[C.leader];
      if (L.ptr->getType() != A.ptr->getType() || C.alignment != need)
        continue;
      auto *d = dyn_cast<SCEVConstant>(SE.getMinusSCEV(address, SE.getSCEV(L.ptr)));
      if (d && C.unit) {
        // A group at a symbolic distance takes another member at its
        // leader's address only (k = 0).
        if (!d->getAPInt().isZero() || A.constSize != L.constSize)
          continue;
        joined = *it;
        off = 0;
        break;
      }
      // Within 2^40 bytes, so that no offset arithmetic below overflows.
      if (d && d->getAPInt().getSignificantBits() <= 40 &&
          (!need || d->getAPInt().getSExtValue() % int64_t(need) == 0)) {
        joined = *it;
        off = d->getAPInt().getSExtValue();
        break;
      }
      if (d || !C.symbolicOk || A.constSize != L.constSize)
        continue;
      if (!poly) {
        poly.emplace();
        polyBase = addressPoly(DL, A.ptr, *poly);
      }
      if (std::optional<int64_t> k = symbolicDistance(C, L, *poly, polyBase, SE, DT);
          k && (!need || *k % int64_t(need) == 0)) {
        joined = *it;
        off = *k;
        break;
      }
    }
    if (joined < 0) {
      joined = int(groups.size());
      groups.emplace_back();
      groups.back().leader = int(i);
      groups.back().alignment = need;
      candidates.push_back(joined);
    }
    Group &G = groups[joined];
    groupOf[i] = joined;
    offsets[i] = off;
    G.members.push_back(int(i));
    if (!isa<LoadInst>(A.inst))
      G.allLoads = false;
    if (G.unit) {
      G.kMin = std::min(G.kMin, off);
      G.kMax = std::max(G.kMax, off);
      continue;
    }
    G.symbolicOk &= off == 0 && A.constSize == accesses[G.leader].constSize;
    G.minOffset = std::min(G.minOffset, off);
    G.maxEnd = std::max(G.maxEnd, off + int64_t(A.constSize));
  }
  // A group of one is an ordinary check.
  for (unsigned i = 0; i < accesses.size(); ++i)
    if (groupOf[i] >= 0 && groups[groupOf[i]].members.size() < 2)
      groupOf[i] = -1;
  return groupOf;
}

// An access to a static object within it for every value its indices can
// take, and aligned as the GPU needs: ranges from ScalarEvolution (loop
// bounds, masks, the !range of thread indices) and LazyValueInfo
// (conditions that dominate the access), offsets summed in 128 bits so
// that nothing wraps.
bool OOBInstrumenter::provenInBounds(const Access &A, const Provenance &p, ScalarEvolution &SE,
                                     LazyValueInfo &LVI) const {
  if (p.kind != Provenance::StaticObject || !p.base || !A.constSize)
    return false;
  uint64_t need = requiredAlignment(A);
  if (p.constOffset && !need)
    return *p.constOffset >= 0 && uint64_t(*p.constOffset) + A.constSize <= p.size;
  MapVector<Value *, APInt> variable;
  APInt constant;
  if (decomposeAddress(DL, A.ptr, variable, constant, /*throughAddrSpaceCasts=*/true) != p.base)
    return false;
  // Aligned: the object is, and every term of the offset keeps it.
  if (need) {
    unsigned bits = Log2_64(need);
    if (p.base->getPointerAlignment(DL).value() < need ||
        (constant.getZExtValue() & (need - 1)) != 0)
      return false;
    for (auto &[index, scale] : variable)
      if (scale.countr_zero() + computeKnownBits(index, DL).countMinTrailingZeros() < bits)
        return false;
  }
  constexpr unsigned wide = 128;
  ConstantRange offset(constant.sext(wide));
  for (auto &[index, scale] : variable) {
    if (!index->getType()->isIntegerTy() || !SE.isSCEVable(index->getType()))
      return false;
    ConstantRange range = SE.getSignedRange(SE.getSCEV(index));
    range = range.intersectWith(LVI.getConstantRange(index, A.inst, /*UndefAllowed=*/false),
                                ConstantRange::Signed);
    offset = offset.add(range.signExtend(wide).multiply(ConstantRange(scale.sext(wide))));
  }
  if (offset.isEmptySet() || offset.isFullSet())
    return false;
  APInt size(wide, p.size);
  return offset.getSignedMin().sge(0) &&
         (offset.getSignedMax() + APInt(wide, A.constSize)).sle(size);
}

// A loop's access to a kernel argument at addresses {start,+,step} of that
// loop, step a constant, and the loop's trips bounded (ScalarEvolution's
// symbolic maximum of its backedges, M): every address the access takes is
// start + k * step for some k <= M. Its range, or none for an access that
// keeps its check in every iteration.
std::optional<OOBInstrumenter::HoistRange>
OOBInstrumenter::hoistRange(const Access &A, const Provenance &p, ScalarEvolution &SE,
                            LoopInfo &LI, SCEVExpander &X, const LaunchContext &ctx) const {
  if (!S.opts.hoistChecks || !ctx.kernel || !canRedirect(A) || !SE.isSCEVable(A.ptr->getType()))
    return std::nullopt;
  if (p.kind != Provenance::KernelArg && p.kind != Provenance::StaticObject &&
      p.kind != Provenance::DynamicShared)
    return std::nullopt;
  Loop *L = LI.getLoopFor(A.inst->getParent());
  BasicBlock *preheader = L ? L->getLoopPreheader() : nullptr;
  if (!preheader)
    return std::nullopt;
  if (std::optional<HoistRange> R = invariantRange(A.ptr, A.constSize, L, SE, X))
    return R;
  if (p.kind != Provenance::KernelArg)
    return std::nullopt;
  // Without a constant stride and a bound on the trips: the values the
  // loop's induction variable can take, when the loop's own test bounds it.
  auto viaInductionVariable = [&]() -> std::optional<HoistRange> {
    if (std::shared_ptr<BoundedIv> iv = boundedIv(A, L))
      return HoistRange{L, nullptr, nullptr, 0, std::move(iv)};
    return std::nullopt;
  };
  auto *rec = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(A.ptr));
  if (!rec || rec->getLoop() != L || !rec->isAffine())
    return viaInductionVariable();
  auto *stepC = dyn_cast<SCEVConstant>(rec->getStepRecurrence(SE));
  if (!stepC) {
    // The loop's own test, where it bounds the index, needs no division
    // for the trips.
    if (std::optional<HoistRange> R = viaInductionVariable())
      return R;
    // A stride that is loop-invariant but not a constant: where the trips
    // are bounded, the first and the last address are tested in the
    // preheader, with the test that trips * stride does not overflow and
    // that the addresses do not wrap (hoistedRangeOk); or else each
    // iteration is checked. ScalarEvolution writes a 64-bit address as
    // {start,+,stride} only where it proved that a narrower index does not
    // wrap (nsw/nuw: zext i32 {x,+,s} without them stays as it is).
    const SCEV *step = rec->getStepRecurrence(SE);
    const SCEV *trips = SE.getSymbolicMaxBackedgeTakenCount(L);
    Instruction *at = preheader->getTerminator();
    if (isa<SCEVCouldNotCompute>(trips) || !trips->getType()->isIntegerTy() ||
        trips->getType()->getIntegerBitWidth() > 64 || !SE.isLoopInvariant(step, L) ||
        !X.isSafeToExpandAt(trips, at) || !X.isSafeToExpandAt(rec->getStart(), at) ||
        !X.isSafeToExpandAt(step, at))
      return std::nullopt;
    HoistRange R{L, rec->getStart(), trips, 0, nullptr};
    R.symbolicStep = step;
    return R;
  }
  if (stepC->getAPInt().getSignificantBits() > 24 || stepC->getAPInt().isZero())
    return viaInductionVariable();
  int64_t step = stepC->getAPInt().getSExtValue();
  uint64_t need = requiredAlignment(A);
  if (need && step % int64_t(need) != 0)
    return std::nullopt;
  const SCEV *trips = SE.getSymbolicMaxBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(trips) || !trips->getType()->isIntegerTy() ||
      trips->getType()->getIntegerBitWidth() > 64)
    return viaInductionVariable();
  Instruction *at = preheader->getTerminator();
  const SCEV *start = rec->getStart();
  if (!X.isSafeToExpandAt(trips, at) || !X.isSafeToExpandAt(start, at))
    return viaInductionVariable();
  return HoistRange{L, start, trips, step, nullptr};
}

// An address that is the same in every iteration of L (matmul's tiles,
// as[ty][tx], indexed by the thread alone): [address + low, address +
// high) is tested once, in the preheader. The loop's accesses there keep
// their checked copies for a thread whose test fails, and a loop that runs
// no iteration reports nothing.
std::optional<OOBInstrumenter::HoistRange>
OOBInstrumenter::invariantRange(Value *ptr, int64_t high, Loop *L, ScalarEvolution &SE,
                                SCEVExpander &X, int64_t low) const {
  BasicBlock *preheader = L->getLoopPreheader();
  if (!preheader || !SE.isSCEVable(ptr->getType()))
    return std::nullopt;
  const SCEV *address = SE.getSCEV(ptr);
  if (!SE.isLoopInvariant(address, L) || !X.isSafeToExpandAt(address, preheader->getTerminator()))
    return std::nullopt;
  HoistRange R{L, address, nullptr, 0, nullptr};
  R.invariant = true;
  R.low = low;
  R.high = high;
  return R;
}

// A loop whose only way round is its latch's test `i + step < bound`
// (signed or unsigned; step and bound loop-invariant, step any value: a
// grid-stride loop's blockDim.x * gridDim.x), and an access at
// base + scale * ext(i) + (loop-invariant terms), i of at most 32 bits.
// Every value i takes is its first, start, or one that passed the test:
// when step > 0 and high + step does not wrap (high = max(start, bound -
// 1)), i stays in [start, high] (each trip adds step to a value at most
// high, and goes on only below bound), so the access stays in
// [address(start), address(high)]. Those conditions are tested at run
// time with the range (boundedIvRangeOk): a negative or zero step, or one
// that may wrap, fails the test, and the loop's accesses are checked one
// by one. Null when the loop or the address has another form.
std::shared_ptr<OOBInstrumenter::BoundedIv> OOBInstrumenter::boundedIv(const Access &A,
                                                                        Loop *L) const {
  BasicBlock *latch = L->getLoopLatch(), *preheader = L->getLoopPreheader();
  BasicBlock *header = L->getHeader();
  auto *br = latch ? dyn_cast<BranchInst>(latch->getTerminator()) : nullptr;
  if (!preheader || !br || !br->isConditional())
    return nullptr;
  auto *cmp = dyn_cast<ICmpInst>(br->getCondition());
  if (!cmp)
    return nullptr;
  // The predicate under which the loop goes round again, next first.
  ICmpInst::Predicate pred = cmp->getPredicate();
  if (br->getSuccessor(0) != header) {
    if (br->getSuccessor(1) != header)
      return nullptr;
    pred = ICmpInst::getInversePredicate(pred);
  }
  Value *next = cmp->getOperand(0), *bound = cmp->getOperand(1);
  if (!L->isLoopInvariant(bound)) {
    std::swap(next, bound);
    pred = ICmpInst::getSwappedPredicate(pred);
  }
  if ((pred != ICmpInst::ICMP_SLT && pred != ICmpInst::ICMP_ULT) || !L->isLoopInvariant(bound))
    return nullptr;
  auto *add = dyn_cast<BinaryOperator>(next);
  if (!add || add->getOpcode() != Instruction::Add)
    return nullptr;
  auto d = std::make_shared<BoundedIv>();
  for (unsigned k = 0; k < 2; ++k)
    if (auto *phi = dyn_cast<PHINode>(add->getOperand(k));
        phi && phi->getParent() == header && L->isLoopInvariant(add->getOperand(1 - k))) {
      d->iv = phi;
      d->step = add->getOperand(1 - k);
    }
  if (!d->iv || d->iv->getNumIncomingValues() != 2 || !d->iv->getType()->isIntegerTy() ||
      d->iv->getType()->getIntegerBitWidth() > 32 ||
      d->iv->getIncomingValueForBlock(latch) != add || d->iv->getBasicBlockIndex(preheader) < 0)
    return nullptr;
  d->start = d->iv->getIncomingValueForBlock(preheader);
  d->bound = bound;
  d->isSigned = pred == ICmpInst::ICMP_SLT;

  // The address: one term in i (i itself, sign-extended by the GEP, or an
  // extension of it, or of i + a loop-invariant offset: matmul's
  // a[row * n + t + tx]), the others loop-invariant.
  d->offset = nullptr;
  MapVector<Value *, APInt> variable;
  d->base = decomposeAddress(DL, A.ptr, variable, d->constant, /*throughAddrSpaceCasts=*/false);
  if (!d->base || !L->isLoopInvariant(d->base))
    return nullptr;
  std::optional<bool> sext;
  std::optional<APInt> scale;
  for (auto &[V, sc] : variable) {
    Value *inner = V;
    bool isSext = true;
    if (auto *SE = dyn_cast<SExtInst>(V))
      inner = SE->getOperand(0);
    else if (auto *ZE = dyn_cast<ZExtInst>(V))
      inner = ZE->getOperand(0), isSext = false;
    Value *offset = nullptr, *mult = nullptr, *addend = nullptr;
    if (!isSext) {
      Value *x = inner;
      if (auto *sum = dyn_cast<BinaryOperator>(x); sum && sum->getOpcode() == Instruction::Add)
        for (unsigned k = 0; k < 2; ++k)
          if (auto *m = dyn_cast<BinaryOperator>(sum->getOperand(k));
              m && m->getOpcode() == Instruction::Mul &&
              L->isLoopInvariant(sum->getOperand(1 - k))) {
            addend = sum->getOperand(1 - k);
            x = m;
            break;
          }
      if (auto *m = dyn_cast<BinaryOperator>(x); m && m->getOpcode() == Instruction::Mul)
        for (unsigned k = 0; k < 2; ++k)
          if (L->isLoopInvariant(m->getOperand(1 - k)) && !L->isLoopInvariant(m->getOperand(k))) {
            mult = m->getOperand(1 - k);
            x = m->getOperand(k);
            break;
          }
      if (mult)
        inner = x;
      else
        addend = nullptr;
    }
    if (auto *sum = dyn_cast<BinaryOperator>(inner);
        sum && sum->getOpcode() == Instruction::Add) {
      for (unsigned k = 0; k < 2; ++k)
        if (sum->getOperand(k) == d->iv && L->isLoopInvariant(sum->getOperand(1 - k))) {
          offset = sum->getOperand(1 - k);
          inner = d->iv;
        }
    }
    if (inner == d->iv) {
      if (scale)
        return nullptr;
      scale = sc;
      sext = isSext;
      d->offset = offset;
      d->mult = mult;
      d->addend = addend;
    } else if (mult) {
      return nullptr;
    } else if (L->isLoopInvariant(V)) {
      d->invariant.insert({V, sc});
    } else {
      return nullptr;
    }
  }
  if (!scale || !scale->isStrictlyPositive() || scale->getSignificantBits() > 24)
    return nullptr;
  d->scale = scale->getSExtValue();
  // A signed loop's values are ordered as the sign extension orders them;
  // its zero extension keeps their order when start >= 0 (tested).
  // An unsigned loop with a sign-extended index is left checked.
  if (!d->isSigned && *sext)
    return nullptr;
  d->zextOfSigned = d->isSigned && !*sext;
  uint64_t need = requiredAlignment(A);
  if (need && d->scale % int64_t(need) != 0)
    return nullptr;
  return d;
}

// The bounded-IV form's test, at the end of the loop's preheader: the step
// goes forward, high + step does not wrap, and [address(start),
// address(high) + size) lies in the argument, which is not pitched (and
// the first address aligned: every other differs by multiples of scale).
// The span is below 2^56 bytes (32-bit i, scale below 2^24), so
// address(start) <= address(high) says that no address in between wraps.
Value *OOBInstrumenter::boundedIvRangeOk(const Access &A, const Provenance &p,
                                         const HoistRange &R, const LaunchContext &ctx) {
  const BoundedIv &V = *R.iv;
  Instruction *at = R.loop->getLoopPreheader()->getTerminator();
  IRBuilder<> B(at);
  B.SetCurrentDebugLocation(A.inst->getDebugLoc());
  Type *T = V.iv->getType();
  Value *zero = ConstantInt::get(T, 0);
  Value *last = B.CreateSub(V.bound, ConstantInt::get(T, 1));
  Value *high = B.CreateBinaryIntrinsic(V.isSigned ? Intrinsic::smax : Intrinsic::umax, V.start,
                                        last, nullptr, "kosan.iv.high");
  Value *wraps = B.CreateExtractValue(
      B.CreateBinaryIntrinsic(V.isSigned ? Intrinsic::sadd_with_overflow
                                         : Intrinsic::uadd_with_overflow,
                              high, V.step),
      1, "kosan.iv.wraps");
  Value *forward = V.isSigned ? B.CreateICmpSGT(V.step, zero) : B.CreateICmpNE(V.step, zero);
  bool sext = V.isSigned && !V.zextOfSigned;
  SmallVector<Value *, 4> offsetWraps;
  Value *firstIndex = V.start, *lastIndex = high;
  Value *firstValue = nullptr, *lastValue = nullptr; // the product form's, 64 bits
  if (V.mult) {
    // (i + offset) * mult + addend at i's first and last value, in 64
    // bits: with i + offset and the result below 2^32 at the last, no
    // 32-bit operation wraps for any i in between (all are unsigned), and
    // the index grows with i.
    Value *divisor = B.CreateSelect(forward, V.step, ConstantInt::get(T, 1));
    Value *trips = B.CreateUDiv(B.CreateSub(high, V.start), divisor);
    Value *top = B.CreateAdd(V.start, B.CreateMul(trips, V.step), "kosan.iv.top");
    Value *max32 = B.getInt64(0xffffffffu);
    auto valueAt = [&](Value *i) {
      Value *x = B.CreateZExt(i, I64);
      if (V.offset)
        x = B.CreateAdd(x, B.CreateZExt(V.offset, I64));
      Value *sum = x;
      x = B.CreateMul(x, B.CreateZExt(V.mult, I64));
      if (V.addend)
        x = B.CreateAdd(x, B.CreateZExt(V.addend, I64));
      return std::make_pair(sum, x);
    };
    auto [topSum, topValue] = valueAt(top);
    offsetWraps.push_back(B.CreateICmpUGT(topSum, max32));
    offsetWraps.push_back(B.CreateICmpUGT(topValue, max32));
    firstValue = valueAt(V.start).second;
    lastValue = topValue;
  } else if (V.offset) {
    // i + offset over [start, high] neither wraps nor changes sign where
    // that would reorder it: the ends tested (a sign-extended sum at both
    // ends, a zero-extended one at its top: i >= 0 there). The top is the
    // last value i takes, start + step * ((high - start) / step), not high:
    // the offset may carry the loop's last index past the bound.
    // (A step the test rejects divides by one: no division by zero.)
    Value *divisor = B.CreateSelect(forward, V.step, ConstantInt::get(T, 1));
    Value *trips = B.CreateUDiv(B.CreateSub(high, V.start), divisor);
    Value *top = B.CreateAdd(V.start, B.CreateMul(trips, V.step), "kosan.iv.top");
    auto wrapsAt = [&](Value *i) {
      return B.CreateExtractValue(
          B.CreateBinaryIntrinsic(sext ? Intrinsic::sadd_with_overflow
                                       : Intrinsic::uadd_with_overflow,
                                  i, V.offset),
          1);
    };
    offsetWraps.push_back(wrapsAt(top));
    if (sext)
      offsetWraps.push_back(wrapsAt(V.start));
    firstIndex = B.CreateAdd(V.start, V.offset);
    lastIndex = B.CreateAdd(top, V.offset);
  }
  Value *base = B.CreatePtrToInt(V.base, I64);
  for (auto &[val, sc] : V.invariant)
    base = B.CreateAdd(base, B.CreateMul(B.CreateSExtOrTrunc(val, I64),
                                         B.getInt64(sc.getSExtValue())));
  if (!V.constant.isZero())
    base = B.CreateAdd(base, B.getInt64(V.constant.getSExtValue()));
  auto addressAt = [&](Value *i, Value *wide, const Twine &name) {
    if (!wide)
      wide = sext ? B.CreateSExt(i, I64) : B.CreateZExt(i, I64);
    return B.CreateAdd(base, B.CreateMul(wide, B.getInt64(V.scale)), name);
  };
  Value *first = addressAt(firstIndex, firstValue, "kosan.hoist.first");
  Value *lastAddr = addressAt(lastIndex, lastValue, "kosan.hoist.last");
  Value *endAddr = B.CreateAdd(lastAddr, B.getInt64(A.constSize));
  SmallVector<Value *, 8> conds = {
      forward, B.CreateNot(wraps), B.CreateICmpULE(first, lastAddr),
      B.CreateICmpULT(lastAddr, endAddr),
      B.CreateICmpUGE(first, argBound(ctx, p.argIndex, 0, B)),
      B.CreateICmpULE(endAddr, argBound(ctx, p.argIndex, 1, B)),
      B.CreateICmpEQ(argBound(ctx, p.argIndex, 2, B), B.getInt64(0))};
  if (V.zextOfSigned)
    conds.push_back(B.CreateICmpSGE(V.start, zero));
  for (Value *w : offsetWraps)
    conds.push_back(B.CreateNot(w));
  if (uint64_t need = requiredAlignment(A))
    conds.push_back(
        B.CreateICmpEQ(B.CreateAnd(first, B.getInt64(need - 1)), B.getInt64(0)));
  Value *ok = B.CreateAnd(conds);
  ok->setName("kosan.hoist.ok");
  return ok;
}

// Emits, at the end of the loop's preheader, whether every address of R is
// in bounds, aligned, and the argument not pitched (false whenever the
// range cannot be trusted: M past 2^40 bytes of stride).
Value *OOBInstrumenter::hoistedRangeOk(const Access &A, const Provenance &p, const HoistRange &R,
                                       ScalarEvolution &SE, SCEVExpander &X,
                                       const LaunchContext &ctx) {
  Instruction *at = R.atPoint();
  const int64_t step = R.step;
  const uint64_t need = requiredAlignment(A);
  IRBuilder<> B(at);
  B.SetCurrentDebugLocation(A.inst->getDebugLoc());
  if (Value *ok = R.invariant ? objectOffsetOk(A, p, R, SE, X, ctx) : nullptr)
    return ok;
  if (R.invariant || R.symbolicStep) {
    auto [begin, end] = hoistedBounds(p, A.ptr->getType(), B, ctx);
    Value *first = B.CreatePtrToInt(X.expandCodeFor(R.start, A.ptr->getType(), at), I64,
                                    "kosan.hoist.first");
    SmallVector<Value *, 8> conds;
    Value *lo = first, *hi = first, *stride = nullptr;
    if (R.invariant) {
      lo = B.CreateAdd(first, B.getInt64(R.low));
      hi = B.CreateAdd(first, B.getInt64(R.high));
      if (R.span)
        hi = B.CreateAdd(hi, X.expandCodeFor(R.span, I64, at));
    } else {
      // first + k * stride for k <= trips: between first and the last,
      // when trips * stride does not overflow and the last does not wrap.
      Value *m = X.expandCodeFor(SE.getTruncateOrZeroExtend(R.trips, I64), I64, at);
      stride = X.expandCodeFor(SE.getTruncateOrSignExtend(R.symbolicStep, I64), I64, at);
      Value *product = B.CreateBinaryIntrinsic(Intrinsic::smul_with_overflow, m, stride);
      Value *last = B.CreateAdd(first, B.CreateExtractValue(product, 0), "kosan.hoist.last");
      Value *down = B.CreateICmpSLT(stride, B.getInt64(0));
      lo = B.CreateSelect(down, last, first);
      hi = B.CreateAdd(B.CreateSelect(down, first, last), B.getInt64(A.constSize));
      conds = {B.CreateICmpSGE(m, B.getInt64(0)),
               B.CreateNot(B.CreateExtractValue(product, 1)), B.CreateICmpULT(lo, hi)};
    }
    conds.push_back(B.CreateICmpUGE(lo, begin));
    conds.push_back(B.CreateICmpULE(hi, end));
    if (p.kind == Provenance::KernelArg)
      conds.push_back(B.CreateICmpEQ(argBound(ctx, p.argIndex, 2, B), B.getInt64(0)));
    if (need) {
      Value *mask = B.getInt64(need - 1);
      // The object's own pointer where the rest of the address is a
      // multiple of the alignment (one test for all its accesses).
      Value *aligned = first;
      const SCEV *base = SE.getPointerBase(R.start);
      if (auto *U = dyn_cast<SCEVUnknown>(base);
          U && isa<Argument>(U->getValue()) &&
          (uint64_t(1) << std::min(SE.getMinTrailingZeros(SE.getMinusSCEV(R.start, base)),
                                   63u)) % need == 0)
        aligned = B.CreatePtrToInt(U->getValue(), I64);
      conds.push_back(B.CreateICmpEQ(B.CreateAnd(aligned, mask), B.getInt64(0)));
      if (stride)
        conds.push_back(B.CreateICmpEQ(B.CreateAnd(stride, mask), B.getInt64(0)));
    }
    Value *ok = B.CreateAnd(conds);
    ok->setName("kosan.hoist.ok");
    return ok;
  }
  Value *m = X.expandCodeFor(SE.getTruncateOrZeroExtend(R.trips, I64), I64, at);
  Value *first = B.CreatePtrToInt(X.expandCodeFor(R.start, A.ptr->getType(), at), I64,
                                  "kosan.hoist.first");
  Value *last = B.CreateAdd(first, B.CreateMul(m, B.getInt64(step)), "kosan.hoist.last");
  Value *lo = step > 0 ? first : last, *hi = step > 0 ? last : first;
  uint64_t maxTrips = (uint64_t(1) << 40) / uint64_t(step > 0 ? step : -step);
  Value *ok = B.CreateAnd(
      {B.CreateICmpULE(m, B.getInt64(maxTrips)),
       B.CreateICmpUGE(lo, argBound(ctx, p.argIndex, 0, B)),
       B.CreateICmpULE(B.CreateAdd(hi, B.getInt64(A.constSize)), argBound(ctx, p.argIndex, 1, B)),
       B.CreateICmpEQ(argBound(ctx, p.argIndex, 2, B), B.getInt64(0))});
  if (need)
    ok = B.CreateAnd(ok, B.CreateICmpEQ(B.CreateAnd(first, B.getInt64(need - 1)), B.getInt64(0)));
  ok->setName("kosan.hoist.ok");
  return ok;
}

// A static object's or the dynamic shared memory's range test at an
// invariant address, in the object's own terms: the address less the
// object's (ScalarEvolution cancels the object: tile[ty][tx] is 4 * tx +
// 132 * ty), [off + low, off + high) within [0, size), and the alignment
// tested on off where the object's own alignment covers it. No address of
// the generic window is formed (a shared object's would need the window's
// base). Null when the address is not the object's plus such an offset.
// Without a loop (versionKernel), the caller has made sure that the range
// can be computed where it is tested.
Value *OOBInstrumenter::objectOffsetOk(const Access &A, const Provenance &p, const HoistRange &R,
                                       ScalarEvolution &SE, SCEVExpander &X,
                                       const LaunchContext &ctx) {
  if (p.kind != Provenance::StaticObject && p.kind != Provenance::DynamicShared)
    return nullptr;
  auto *G = dyn_cast_or_null<GlobalVariable>(p.base);
  uint64_t need = requiredAlignment(A);
  if (!G || (need && G->getAlign().valueOrOne().value() < need))
    return nullptr;
  Type *ptrTy = A.ptr->getType();
  Constant *base = G->getType() == ptrTy ? cast<Constant>(G)
                                         : ConstantExpr::getPointerCast(G, ptrTy);
  const SCEV *baseS = SE.getSCEV(base);
  if (SE.getPointerBase(R.start) != SE.getPointerBase(baseS))
    return nullptr;
  const SCEV *off = SE.getMinusSCEV(R.start, baseS);
  if (isa<SCEVCouldNotCompute>(off) || !off->getType()->isIntegerTy() ||
      off->getType()->getIntegerBitWidth() > 64 ||
      (R.loop && !X.isSafeToExpandAt(off, R.atPoint())))
    return nullptr;
  Instruction *at = R.atPoint();
  IRBuilder<> B(at);
  B.SetCurrentDebugLocation(A.inst->getDebugLoc());
  Value *first = X.expandCodeFor(SE.getTruncateOrSignExtend(off, I64), I64, at);
  Value *size = p.kind == Provenance::DynamicShared ? ctx.dynSmem : B.getInt64(p.size);
  SmallVector<Value *, 3> conds = {
      B.CreateICmpSGE(B.CreateAdd(first, B.getInt64(R.low)), B.getInt64(0))};
  Value *hi = B.CreateAdd(first, B.getInt64(R.high));
  if (R.span)
    hi = B.CreateAdd(hi, X.expandCodeFor(R.span, I64, at));
  conds.push_back(B.CreateICmpSLE(hi, size));
  if (need)
    conds.push_back(
        B.CreateICmpEQ(B.CreateAnd(first, B.getInt64(need - 1)), B.getInt64(0)));
  Value *ok = B.CreateAnd(conds);
  ok->setName("kosan.hoist.ok");
  return ok;
}

// The bounds of p's object for a hoisted test, as integers in the terms
// of a pointer of type ptrTy: a kernel argument's from the launch, a static
// object's or the dynamic shared memory's from its address.
std::pair<Value *, Value *> OOBInstrumenter::hoistedBounds(const Provenance &p, Type *ptrTy,
                                                           IRBuilder<> &B,
                                                           const LaunchContext &ctx) {
  if (p.kind == Provenance::KernelArg)
    return {argBound(ctx, p.argIndex, 0, B), argBound(ctx, p.argIndex, 1, B)};
  Value *base = p.base;
  if (base->getType() != ptrTy)
    base = B.CreateAddrSpaceCast(base, ptrTy);
  Value *begin = B.CreatePtrToInt(base, I64, "kosan.begin");
  Value *size = p.kind == Provenance::DynamicShared ? ctx.dynSmem : B.getInt64(p.size);
  return {begin, B.CreateAdd(begin, size, "kosan.end")};
}

bool OOBInstrumenter::canRedirect(const Access &A) const {
  if (isa<MemIntrinsic>(A.inst))
    return false; // a copy from a sink would write its garbage into valid memory
  if (!isa<LoadInst>(A.inst) && !isa<StoreInst>(A.inst) &&
      !isa<AtomicRMWInst>(A.inst) && !isa<IntrinsicInst>(A.inst))
    return false;
  if (A.constSize == 0 || A.constSize > kSinkBytes)
    return false;
  MaybeAlign align;
  if (auto *LI = dyn_cast<LoadInst>(A.inst))
    align = LI->getAlign();
  else if (auto *SI = dyn_cast<StoreInst>(A.inst))
    align = SI->getAlign();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(A.inst))
    align = RMW->getAlign();
  if (auto *II = dyn_cast<IntrinsicInst>(A.inst))
    if (II->arg_size() > 1)
      if (auto *C = dyn_cast<ConstantInt>(II->getArgOperand(1)))
        align = MaybeAlign(C->getZExtValue());
  if (align && align->value() > kSinkBytes)
    return false;
  unsigned as = A.ptr->getType()->getPointerAddressSpace();
  if (as != addrspace::Generic && as != addrspace::Global && as != kSharedAS)
    return false;
  Type *T = A.inst->getType();
  return T->isVoidTy() || T->isIntOrIntVectorTy() || T->isFPOrFPVectorTy() ||
         T->isPtrOrPtrVectorTy();
}

Value *OOBInstrumenter::sinkFor(PointerType *T, unsigned space, IRBuilder<> & /*B*/) {
  unsigned as = T->getAddressSpace();
  Type *sinkTy = ArrayType::get(I64, kSinkBytes / 8);
  // A generic pointer into shared memory gets the shared sink, so that the
  // backend can still prove the access shared (ld.shared, not generic ld).
  if (as == kSharedAS || space == KOSAN_SPACE_SHARED) {
    if (!sharedSink) {
      sharedSink = new GlobalVariable(M, sinkTy, false, GlobalValue::InternalLinkage,
                                      UndefValue::get(sinkTy), "__kosan_shared_sink",
                                      nullptr, GlobalValue::NotThreadLocal, kSharedAS);
      sharedSink->setAlignment(Align(kSinkBytes));
    }
    if (as == kSharedAS)
      return sharedSink;
    return ConstantExpr::getAddrSpaceCast(sharedSink, T);
  }
  if (!globalSink) {
    globalSink = new GlobalVariable(M, sinkTy, false, GlobalValue::InternalLinkage,
                                    Constant::getNullValue(sinkTy), "__kosan_sink",
                                    nullptr, GlobalValue::NotThreadLocal, addrspace::Global);
    globalSink->setAlignment(Align(kSinkBytes));
  }
  if (as == addrspace::Global)
    return globalSink;
  return ConstantExpr::getAddrSpaceCast(globalSink, T);
}

// The sink that bad loads of a kernel argument read instead (a group's, or
// a load's on its own outside shared memory): never written, so it reads
// zero.
Value *OOBInstrumenter::zeroSinkFor(PointerType *T) {
  if (!zeroSink) {
    Type *sinkTy = ArrayType::get(I64, kZeroSinkBytes / 8);
    zeroSink = new GlobalVariable(M, sinkTy, /*isConstant=*/false, GlobalValue::InternalLinkage,
                                  Constant::getNullValue(sinkTy), "__kosan_zero_sink", nullptr,
                                  GlobalValue::NotThreadLocal, addrspace::Global);
    zeroSink->setAlignment(Align(kSinkBytes));
  }
  if (T->getAddressSpace() == addrspace::Global)
    return zeroSink;
  return ConstantExpr::getAddrSpaceCast(zeroSink, T);
}

// The fast path for loads, stores and atomics: no control flow around the
// access, so the backend schedules it as it would the plain one. A bad
// access is redirected to a sink with a select; a load outside shared
// memory reads the zero sink, any other bad load's value is replaced by
// zero with a second select; only the report is behind a branch:
//   safe = select bad, sink, p ; v = load safe [; v' = select bad, 0, v]
//   br report, kosan.report, kosan.cont
// and a load whose report calls the report function reads v again after
// the call (reloadAfterReport).
void OOBInstrumenter::redirect(Access &A, unsigned space, Value *bad, Value *report,
                            function_ref<void(Instruction *)> slowPath) {
  Instruction *I = A.inst;
  IRBuilder<> B(I);
  B.SetCurrentDebugLocation(I->getDebugLoc());
  auto *PT = cast<PointerType>(A.ptr->getType());
  // A load outside shared memory reads the zero sink, which nothing writes:
  // a bad load yields zero with no select of its value.
  bool readsZero = (isa<LoadInst>(I) || isa<IntrinsicInst>(I)) && space != KOSAN_SPACE_SHARED &&
                   PT->getAddressSpace() != kSharedAS;
  Value *sink = readsZero ? zeroSinkFor(PT) : sinkFor(PT, space, B);
  Value *safe = B.CreateSelect(bad, sink, A.ptr, "kosan.safe");
  I->setOperand(A.ptrOperand, safe);
  dropLoadPromises(*I);
  Instruction *after = I->getNextNode();
  SmallVector<Use *, 4> uses;
  Value *value = I;
  if (!I->getType()->isVoidTy() && !I->use_empty()) {
    for (Use &U : I->uses())
      uses.push_back(&U);
    if (!readsZero) {
      IRBuilder<> VB(after);
      VB.SetCurrentDebugLocation(I->getDebugLoc());
      value = VB.CreateSelect(bad, Constant::getNullValue(I->getType()), I,
                              I->getName() + ".kosan");
      for (Use *U : uses)
        U->set(value);
      after = cast<Instruction>(value)->getNextNode();
    }
  }
  if (!report)
    return; // a member of a group: its leader reports
  BasicBlock *head = I->getParent();
  branchToReport(I, after, report, slowPath);
  if (!uses.empty() && !boundsInPlace && S.opts.reloadAfterReport)
    reloadAfterReport(I, value, head, readsZero ? nullptr : bad, uses);
}

// A load whose report path calls the report function reads its value again
// after the call, so that the value it loaded is not live across the call:
// under a light clone's register limit, ptxas spilled such a value right
// after its load (a local store waiting for the load's data on the path
// that finds nothing). The call path is cold; atomic and volatile loads,
// which must not be repeated, keep their value across it. head: I's block,
// which branches to the report; value: what I's uses see there (I, or its
// select of zero when bad is given).
void OOBInstrumenter::reloadAfterReport(Instruction *I, Value *value, BasicBlock *head,
                                        Value *bad, ArrayRef<Use *> uses) {
  if (auto *L = dyn_cast<LoadInst>(I); L && !L->isSimple())
    return;
  if (auto *II = dyn_cast<IntrinsicInst>(I); II && !II->onlyReadsMemory())
    return;
  if (!reportFn)
    return;
  // The call on the report path: the blocks between head and its join.
  auto *br = cast<BranchInst>(head->getTerminator());
  BasicBlock *join = br->getSuccessor(1);
  CallInst *call = nullptr;
  SmallVector<BasicBlock *, 4> work = {br->getSuccessor(0)};
  SmallPtrSet<BasicBlock *, 4> seen;
  while (!work.empty() && !call) {
    BasicBlock *BB = work.pop_back_val();
    if (BB == join || !seen.insert(BB).second)
      continue;
    for (Instruction &X : *BB)
      if (auto *CI = dyn_cast<CallInst>(&X); CI && CI->getCalledFunction() == reportFn)
        call = CI;
    append_range(work, successors(BB));
  }
  if (!call)
    return;
  Instruction *again = I->clone();
  again->setName(I->getName() + ".kosan.reload");
  again->insertAfter(call);
  markNoSanitize(again);
  Value *reloaded = again;
  if (bad) {
    IRBuilder<> RB(again->getNextNode());
    reloaded = RB.CreateSelect(bad, Constant::getNullValue(I->getType()), again);
  }
  SSAUpdater SSA;
  SSA.Initialize(I->getType(), (I->getName() + ".kosan").str());
  SSA.AddAvailableValue(head, value);
  SSA.AddAvailableValue(call->getParent(), reloaded);
  for (Use *U : uses)
    SSA.RewriteUse(*U);
}

// br report, kosan.report (slowPath), continuing at `after`; the branch and
// the report at I's location.
void OOBInstrumenter::branchToReport(Instruction *I, Instruction *after, Value *report,
                                     function_ref<void(Instruction *)> slowPath) {
  MDBuilder MDB(Ctx);
  Instruction *then = SplitBlockAndInsertIfThen(
      report, after, /*Unreachable=*/false, MDB.createUnlikelyBranchWeights());
  then->getParent()->setName("kosan.report");
  // The split takes the next instruction's location; the report is the access's.
  then->setDebugLoc(I->getDebugLoc());
  if (BasicBlock *head = then->getParent()->getSinglePredecessor())
    head->getTerminator()->setDebugLoc(I->getDebugLoc());
  slowPath(then);
}

static std::string objectName(const Provenance &p) {
  if (!p.base)
    return "";
  if (auto *A = dyn_cast<Argument>(p.base))
    return A->hasName() ? A->getName().str()
                        : ("argument #" + Twine(A->getArgNo())).str();
  if (p.base->hasName())
    return p.base->getName().str();
  return "";
}

// One access being checked: its provenance, its site, and the builder
// that puts the check right before it.
struct OOBInstrumenter::Check {
  Check(Access &A, const Provenance &p, uint32_t site)
      : A(A), p(p), site(site), B(A.inst), ptrAS(A.ptr->getType()->getPointerAddressSpace()) {
    B.SetCurrentDebugLocation(A.inst->getDebugLoc());
    // Shared objects are compared in the shared window (offsets), so the
    // backend keeps the accesses ld.shared/st.shared instead of converting
    // addresses to generic ones.
    inShared = p.space == KOSAN_SPACE_SHARED && p.base &&
               p.base->getType()->getPointerAddressSpace() == kSharedAS;
  }
  // ptr as an integer, in the shared window for shared objects.
  Value *addressOf(Value *ptr) {
    if (inShared && ptr->getType()->getPointerAddressSpace() != kSharedAS)
      ptr = B.CreateAddrSpaceCast(ptr, PointerType::get(B.getContext(), kSharedAS));
    return B.CreatePtrToInt(ptr, B.getInt64Ty());
  }
  // The object's first byte, in the same terms.
  Value *objectBegin() {
    Value *base = p.base;
    unsigned as = base->getType()->getPointerAddressSpace();
    if (!inShared && as != ptrAS)
      base = B.CreateAddrSpaceCast(base, A.ptr->getType());
    return B.CreatePtrToInt(base, B.getInt64Ty(), "kosan.begin");
  }
  // Its end: static size, or the launch's dynamic shared memory.
  Value *objectEnd(Value *begin, const LaunchContext &ctx) {
    Value *objSize = p.kind == Provenance::DynamicShared
                         ? ctx.dynSmem
                         : ConstantInt::get(B.getInt64Ty(), p.size);
    return B.CreateAdd(begin, objSize, "kosan.end");
  }

  Access &A;
  const Provenance &p;
  uint32_t site;
  IRBuilder<> B;
  unsigned ptrAS;
  bool inShared;
};

// addr (as an integer, the address of c's access or of its group) not a
// multiple of `alignment`, or null for none. When what the access adds to a
// kernel argument keeps the alignment (x + 4*i for a float load), the
// argument itself decides: tested once at entry, so a loop pays an `or`.
Value *OOBInstrumenter::misalignment(Check &c, Value *addr, uint64_t alignment,
                                     const LaunchContext &ctx) {
  if (alignment < 2)
    return nullptr;
  unsigned need = Log2_64(alignment);
  MapVector<Value *, APInt> variable;
  APInt constant;
  Value *base = decomposeAddress(DL, c.A.ptr, variable, constant,
                                 /*throughAddrSpaceCasts=*/true);
  bool offsetKeepsAlignment =
      base && (constant.getZExtValue() & (alignment - 1)) == 0 &&
      all_of(variable, [&](auto &entry) {
        unsigned zeros = entry.second.countr_zero() +
                         computeKnownBits(entry.first, DL).countMinTrailingZeros();
        return zeros >= need;
      });
  if (offsetKeepsAlignment && isa<Argument>(base) && ctx.kernel) {
    Value *&cached = argMisalignedCache[{base, alignment}];
    if (!cached) {
      IRBuilder<> EB(cast<Instruction>(ctx.dynSmem)->getNextNode());
      cached = EB.CreateICmpNE(
          EB.CreateAnd(EB.CreatePtrToInt(base, I64), EB.getInt64(alignment - 1)),
          EB.getInt64(0), "kosan.arg.misaligned");
    }
    return cached;
  }
  return c.B.CreateICmpNE(c.B.CreateAnd(addr, c.B.getInt64(alignment - 1)), c.B.getInt64(0),
                          "kosan.misaligned");
}

// A stretch of a block from one hoisted access to the last hoisted access
// of the same loop that follows it with nothing between them that may not
// run twice in two versions (another checked access, a call other than an
// intrinsic, anything convergent): one branch on the loop's test goes to
// the stretch as it was, or to a copy of it whose accesses are checked (and
// reported) as any other access is. The copies read their argument's
// bounds where they need them. Returns the hoisted accesses of the stretch
// (indices, program order), `first` the first of them.
SmallVector<unsigned, 8>
OOBInstrumenter::hoistedStretch(unsigned first, ArrayRef<Access> accesses,
                                ArrayRef<Loop *> hoistLoop,
                                const DenseMap<const Instruction *, unsigned> &accessAt) const {
  SmallVector<unsigned, 8> members = {first};
  Loop *L = hoistLoop[first];
  for (Instruction *I = accesses[first].inst->getNextNode(); I && !I->isTerminator();
       I = I->getNextNode()) {
    if (auto it = accessAt.find(I); it != accessAt.end()) {
      if (hoistLoop[it->second] != L)
        break;
      members.push_back(it->second);
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(I);
        CB && (!isa<IntrinsicInst>(CB) || CB->isConvergent() || CB->isInlineAsm()))
      break;
    if (I->isEHPad() || I->getType()->isTokenTy() || isa<AllocaInst>(I))
      break;
  }
  return members;
}

void OOBInstrumenter::checkHoisted(ArrayRef<unsigned> members, MutableArrayRef<Access> accesses,
                                   ArrayRef<Provenance> provenance, ArrayRef<uint32_t> sites,
                                   Value *loopOk, bool uninitInLoopOk, const LaunchContext &ctx,
                                   SmallVectorImpl<std::pair<LoadInst *, uint32_t>> &uninitLoads,
                                   HoistedGroups &hg) {
  Instruction *first = accesses[members.front()].inst, *last = accesses[members.back()].inst;
  SmallVector<Instruction *, 16> stretch;
  for (Instruction *I = first;; I = I->getNextNode()) {
    stretch.push_back(I);
    if (I == last)
      break;
  }
  Instruction *fastTerm = nullptr, *slowTerm = nullptr;
  MDBuilder MDB(Ctx);
  SplitBlockAndInsertIfThenElse(loopOk, first, &fastTerm, &slowTerm,
                                MDB.createLikelyBranchWeights());
  BasicBlock *fast = fastTerm->getParent(), *slow = slowTerm->getParent();
  fast->setName("kosan.hoisted");
  slow->setName("kosan.unhoisted");
  if (BasicBlock *head = fast->getSinglePredecessor())
    head->getTerminator()->setDebugLoc(first->getDebugLoc());
  BasicBlock *tail = first->getParent();
  ValueToValueMapTy copies;
  for (Instruction *I : stretch)
    I->moveBefore(fastTerm);
  for (Instruction *I : stretch) {
    Instruction *copy = I->clone();
    copy->insertBefore(slowTerm);
    if (I->hasName())
      copy->setName(I->getName());
    copies[I] = copy;
  }
  for (Instruction *I : stretch)
    RemapInstruction(cast<Instruction>(copies[I]), copies,
                     RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  // What the stretch computes for the code after it: from either version.
  for (Instruction *I : stretch) {
    if (I->getType()->isVoidTy())
      continue;
    SmallVector<Use *, 4> outside;
    for (Use &U : I->uses())
      if (cast<Instruction>(U.getUser())->getParent() != fast)
        outside.push_back(&U);
    if (outside.empty())
      continue;
    PHINode *phi = PHINode::Create(I->getType(), 2, I->getName() + ".kosan");
    phi->insertBefore(tail->begin());
    phi->addIncoming(I, fast);
    phi->addIncoming(copies[I], slow);
    for (Use *U : outside)
      U->set(phi);
  }
  checkCopies(members, accesses, provenance, sites, copies, uninitInLoopOk, ctx, uninitLoads,
              hg);
}

// The checks of the copies of hoisted accesses (members, program order):
// each is checked as any other access is, a group whose members all have
// copies as a group.
void OOBInstrumenter::checkCopies(ArrayRef<unsigned> members, MutableArrayRef<Access> accesses,
                                  ArrayRef<Provenance> provenance, ArrayRef<uint32_t> sites,
                                  ValueToValueMapTy &copies, bool uninitInLoopOk,
                                  const LaunchContext &ctx,
                                  SmallVectorImpl<std::pair<LoadInst *, uint32_t>> &uninitLoads,
                                  HoistedGroups &hg) {
  // A group whose members all lie in the stretch is checked as a group in
  // the copy too (a copy of it, with the same offsets and table rows).
  DenseMap<int, Group *> groupCopy;
  for (unsigned m : members)
    if (int g = hg.groupOf[m]; g >= 0 && !groupCopy.count(g)) {
      const Group &G = hg.groups[g];
      bool whole = all_of(G.members, [&](int x) { return is_contained(members, unsigned(x)); });
      Group *C = nullptr;
      if (whole) {
        Group fresh;
        fresh.leader = G.leader;
        fresh.members = G.members;
        fresh.minOffset = G.minOffset;
        fresh.maxEnd = G.maxEnd;
        fresh.allLoads = G.allLoads;
        fresh.alignment = G.alignment;
        fresh.unit = G.unit;
        fresh.kMin = G.kMin;
        fresh.kMax = G.kMax;
        hg.copies.push_back(std::move(fresh));
        C = &hg.copies.back();
      }
      groupCopy[g] = C;
    }
  for (unsigned m : members) {
    Access &A = accesses[m];
    auto *copy = cast<Instruction>(copies[A.inst]);
    if (uninitTested(A) && provenance[m].kind == Provenance::KernelArg) {
      if (!uninitInLoopOk)
        uninitLoads.push_back({cast<LoadInst>(A.inst), sites[m]});
      uninitLoads.push_back({cast<LoadInst>(copy), sites[m]});
    }
    Access checked = A;
    checked.inst = copy;
    checked.ptr = copy->getOperand(A.ptrOperand);
    Check c(checked, provenance[m], sites[m]);
    Counts ignored;
    boundsInPlace = true;
    if (Group *C = hg.groupOf[m] >= 0 ? groupCopy.lookup(hg.groupOf[m]) : nullptr) {
      if (C->leader == int(m))
        checkGroupLeader(c, *C, accesses, hg.offsets, ctx);
      else
        checkGroupMember(c, *C, hg.offsets[m]);
    } else {
      checkAccess(c, ignored, ctx);
    }
    boundsInPlace = false;
  }
}

// Who must take the same copy of a loop copied whole: its convergent
// operations must each be one instruction for all the threads that meet
// there. Thread: nothing convergent, each thread its own test. Warp: warp
// operations on the full mask (shuffles, votes, __syncwarp): all 32 lanes
// meet in the loop, so all reach its preheader, where one vote makes the
// test the warp's. Block: __syncthreads (bar.sync 0): the whole block meets
// in the loop, so the whole block reaches the preheader, where one
// barrier's and-reduction makes the test the block's (not in a build with
// the race check, where a barrier kosan adds would order accesses the
// program does not). Never: anything else convergent (a partial mask, a
// named barrier with a count, a call of a device function), or not NVPTX.
OOBInstrumenter::Agree OOBInstrumenter::loopAgreement(Loop *L) const {
  auto [known, fresh] = agreement.try_emplace(L, Agree::Never);
  if (fresh)
    known->second = scanAgreement(L);
  return known->second;
}

OOBInstrumenter::Agree OOBInstrumenter::scanAgreement(Loop *L) const {
  Agree need = Agree::Thread;
  bool nvptx = Triple(M.getTargetTriple()).isNVPTX();
  for (BasicBlock *BB : L->blocks())
    for (Instruction &I : *BB) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (CB->isInlineAsm() || CB->cannotDuplicate())
        return Agree::Never;
      if (!CB->isConvergent())
        continue;
      Function *F = CB->getCalledFunction();
      if (!nvptx || !F || !F->isIntrinsic())
        return Agree::Never;
      StringRef name = F->getName();
      auto fullMask = [&] {
        auto *C = dyn_cast<ConstantInt>(CB->getArgOperand(0));
        return C && C->isAllOnesValue();
      };
      if (name.starts_with("llvm.nvvm.barrier0") ||
          (name == "llvm.nvvm.barrier.sync" && isa<ConstantInt>(CB->getArgOperand(0)) &&
           cast<ConstantInt>(CB->getArgOperand(0))->isZero())) {
        if (S.opts.checks & KOSAN_CHECK_RACE)
          return Agree::Never;
        need = Agree::Block;
      } else if ((name.starts_with("llvm.nvvm.shfl.sync.") ||
                  (name.starts_with("llvm.nvvm.vote.") && name.ends_with(".sync")) ||
                  name == "llvm.nvvm.bar.warp.sync" || name.starts_with("llvm.nvvm.match.")) &&
                 CB->arg_size() > 0 && fullMask()) {
        if (need == Agree::Thread)
          need = Agree::Warp;
      } else {
        return Agree::Never;
      }
    }
  return need;
}

// A loop whose every access is checked before it (hoisted to the loop
// itself) or needs no check (proven in bounds, constant memory), and whose
// convergent operations allow it (loopAgreement), is copied whole instead
// of stretch by stretch: the loop's test picks the loop as it was, the
// program's own code, or a copy whose accesses are checked one by one.
bool OOBInstrumenter::versionable(Loop *L, ArrayRef<Access> accesses, ArrayRef<Loop *> hoistLoop,
                                  ArrayRef<bool> unchecked) const {
  if (!S.opts.versionLoops || !L->getLoopPreheader() || loopAgreement(L) == Agree::Never)
    return false;
  for (unsigned i = 0; i < accesses.size(); ++i)
    if (L->contains(accesses[i].inst) && hoistLoop[i] != L && !unchecked[i])
      return false;
  for (BasicBlock *BB : L->blocks())
    for (Instruction &I : *BB)
      if (I.isEHPad() || I.getType()->isTokenTy() || isa<AllocaInst>(I))
        return false;
  return true;
}

// The loop's test as the threads that must agree on it see it (at the end
// of its preheader): the thread's own, all of its warp's, all of its
// block's.
Value *OOBInstrumenter::agreedTest(Loop *L, Value *ok) {
  Agree need = loopAgreement(L);
  if (need == Agree::Thread)
    return ok;
  IRBuilder<> B(L->getLoopPreheader()->getTerminator());
  if (need == Agree::Warp)
    return B.CreateIntrinsic(Intrinsic::nvvm_vote_all_sync, {},
                             {B.getInt32(~0u), ok}, nullptr, "kosan.loop.ok.warp");
  Value *all = B.CreateIntrinsic(Intrinsic::nvvm_barrier0_and, {},
                                 {B.CreateZExt(ok, I32)}, nullptr, "kosan.loop.ok.all");
  return B.CreateICmpNE(all, B.getInt32(0), "kosan.loop.ok.block");
}

// Copies L whole: its preheader branches on `ok` to the loop as it was or
// to the copy (VMap: original to copy), which leaves by the same exits.
// Values of the loop used after it come from whichever copy ran.
void OOBInstrumenter::versionLoop(Loop *L, Value *ok, LoopInfo &LI, DominatorTree &DT,
                                  ValueToValueMapTy &VMap) {
  Function &F = *L->getHeader()->getParent();
  BasicBlock *P = L->getLoopPreheader();
  SmallVector<BasicBlock *, 16> loopBlocks(L->blocks());
  SmallPtrSet<BasicBlock *, 16> inLoop(loopBlocks.begin(), loopBlocks.end());
  SmallVector<BasicBlock *, 4> exits;
  L->getUniqueExitBlocks(exits);
  DebugLoc loc = P->getTerminator()->getDebugLoc();
  BasicBlock *fastPH = SplitBlock(P, P->getTerminator(), &DT, &LI, nullptr, "kosan.loop.fast");
  SmallVector<BasicBlock *, 16> cloned;
  cloneLoopWithPreheader(fastPH, P, L, VMap, ".kosan", &LI, &DT, cloned);
  remapInstructionsInBlocks(cloned, VMap);
  auto *slowPH = cast<BasicBlock>(VMap[fastPH]);
  slowPH->setName("kosan.loop.checked");
  Instruction *term = P->getTerminator();
  MDBuilder MDB(Ctx);
  BranchInst::Create(fastPH, slowPH, ok, P)
      ->setMetadata(LLVMContext::MD_prof, MDB.createLikelyBranchWeights());
  P->getTerminator()->setDebugLoc(loc);
  term->eraseFromParent();
  // The exits' phis take the copy's values on the copy's edges.
  for (BasicBlock *X : exits)
    for (PHINode &PN : X->phis()) {
      SmallVector<std::pair<Value *, BasicBlock *>, 4> add;
      for (unsigned k = 0; k < PN.getNumIncomingValues(); ++k)
        if (BasicBlock *In = PN.getIncomingBlock(k); inLoop.contains(In)) {
          Value *V = PN.getIncomingValue(k);
          Value *mapped = VMap.lookup(V);
          add.push_back({mapped ? mapped : V, cast<BasicBlock>(VMap[In])});
        }
      for (auto [V, In] : add)
        PN.addIncoming(V, In);
    }
  SmallPtrSet<BasicBlock *, 16> inCopy(cloned.begin(), cloned.end());
  for (BasicBlock *BB : loopBlocks)
    for (Instruction &I : *BB) {
      SmallVector<Use *, 4> outside;
      for (Use &U : I.uses()) {
        auto *User = cast<Instruction>(U.getUser());
        BasicBlock *At = User->getParent();
        if (auto *PN = dyn_cast<PHINode>(User))
          At = PN->getIncomingBlock(U);
        if (!inLoop.contains(At) && !inCopy.contains(At))
          outside.push_back(&U);
      }
      if (outside.empty())
        continue;
      SSAUpdater SSA;
      SSA.Initialize(I.getType(), I.getName());
      SSA.AddAvailableValue(BB, &I);
      auto *copy = cast<Instruction>(VMap[&I]);
      SSA.AddAvailableValue(copy->getParent(), copy);
      for (Use *U : outside)
        SSA.RewriteUse(*U);
    }
  DT.recalculate(F);
}

// Whether every thread of a block computes E alike: E reads nothing but
// kernel arguments, block indices and sizes, and constants.
bool OOBInstrumenter::blockUniform(const SCEV *E) const {
  return !SCEVExprContains(E, [&](const SCEV *X) {
    auto *U = dyn_cast<SCEVUnknown>(X);
    if (!U || isa<Argument>(U->getValue()) || isa<Constant>(U->getValue()))
      return false;
    GpuValue g = S.target.classify(*U->getValue());
    return g != GpuValue::BlockId && g != GpuValue::BlockDim && g != GpuValue::GridDim;
  });
}

std::optional<OOBInstrumenter::ThreadLinear>
OOBInstrumenter::threadLinear(const SCEV *E, ScalarEvolution &SE,
                              SmallVectorImpl<ThreadLinear> &narrow) const {
  if (blockUniform(E))
    return ThreadLinear{E, {}};
  if (auto *U = dyn_cast<SCEVUnknown>(E)) {
    if (S.target.classify(*U->getValue()) != GpuValue::ThreadId)
      return std::nullopt;
    return ThreadLinear{SE.getZero(E->getType()), {{U->getValue(), 1}}};
  }
  // Coefficients stay within 32 bits, so that c * tid and their sums are
  // exact in 64.
  auto fits = [](int64_t c) { return c >= INT32_MIN && c <= INT32_MAX; };
  if (auto *Add = dyn_cast<SCEVAddExpr>(E)) {
    ThreadLinear sum{nullptr, {}};
    SmallVector<const SCEV *, 4> uniform;
    for (const SCEV *Op : Add->operands()) {
      std::optional<ThreadLinear> L = threadLinear(Op, SE, narrow);
      if (!L)
        return std::nullopt;
      uniform.push_back(L->uniform);
      for (auto [T, c] : L->coeffs) {
        auto *it = llvm::find_if(sum.coeffs, [&](auto &tc) { return tc.first == T; });
        if (it == sum.coeffs.end())
          sum.coeffs.push_back({T, c});
        else if (AddOverflow(it->second, c, it->second) || !fits(it->second))
          return std::nullopt;
      }
    }
    sum.uniform = SE.getAddExpr(uniform);
    return sum;
  }
  if (auto *Mul = dyn_cast<SCEVMulExpr>(E)) {
    auto *C = Mul->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(Mul->getOperand(0)) : nullptr;
    if (!C || C->getAPInt().getSignificantBits() > 32)
      return std::nullopt;
    std::optional<ThreadLinear> L = threadLinear(Mul->getOperand(1), SE, narrow);
    if (!L)
      return std::nullopt;
    for (auto &[T, c] : L->coeffs)
      if (MulOverflow(c, C->getAPInt().getSExtValue(), c) || !fits(c))
        return std::nullopt;
    L->uniform = SE.getMulExpr(C, L->uniform);
    return L;
  }
  auto *Cast = dyn_cast<SCEVCastExpr>(E);
  if (!Cast)
    return std::nullopt;
  std::optional<ThreadLinear> L = threadLinear(Cast->getOperand(), SE, narrow);
  if (!L)
    return std::nullopt;
  Type *Ty = E->getType();
  if (isa<SCEVTruncateExpr>(E)) {
    L->uniform = SE.getTruncateExpr(L->uniform, Ty);
    return L;
  }
  if (isa<SCEVPtrToIntExpr>(E)) {
    L->uniform = SE.getPtrToIntExpr(L->uniform, Ty);
    return isa<SCEVCouldNotCompute>(L->uniform) ? std::nullopt : L;
  }
  bool isSigned = isa<SCEVSignExtendExpr>(E);
  if (!isSigned && !isa<SCEVZeroExtendExpr>(E))
    return std::nullopt;
  ThreadLinear inner = *L;
  inner.isSigned = isSigned;
  inner.bits = Cast->getOperand()->getType()->getIntegerBitWidth();
  if (inner.bits > 32)
    return std::nullopt;
  narrow.push_back(std::move(inner));
  L->uniform = isSigned ? SE.getSignExtendExpr(L->uniform, Ty)
                        : SE.getZeroExtendExpr(L->uniform, Ty);
  return L;
}

// A kernel whose every checked access lies outside loops, in an object
// whose bounds are known at its entry (a kernel argument, a static object,
// the dynamic shared memory), at an address linear in the thread's index
// and otherwise the same for the whole block (threadLinear), and whose
// convergent operations allow it to be copied: the range of each access
// over the block's threads is tested once at the entry, a group at
// constant distances as one range, and the kernel is copied whole, its
// code as compiled when the test passes and a copy checked access by
// access when not (VMap: original to copy; members: the accesses tested,
// in program order, partial when it returns false). Straight-line code
// checked in place branches to a report after each access, and the
// backend neither hoists a guarded load above such a branch nor sinks a
// store below it: stencil's halo loads, which the plain kernel has in
// flight at once, ran one after the other.
// The test reads nothing that differs between the block's threads, so the
// whole block takes one copy, as barriers in both need, without a barrier
// of its own: each thread's index ranges over [lo, hi], lo and hi what
// the guards dominating the access allow (LazyValueInfo: stencil's halo
// writes under threadIdx.x < RADIUS), hi also below the block's size.
// An access under a guard on anything else (if (i < n) y[i]) is tested
// whether its thread gets there or not: a block whose guard skips an
// address outside its object takes the checked copy, which reports only
// what runs. uninitOk: the test also fails for a launch with uninit=1
// (the copy tests the loaded values); tests: the ranges tested.
bool OOBInstrumenter::versionKernel(Function &F, ArrayRef<Access> accesses,
                                    ArrayRef<Provenance> provenance, ArrayRef<bool> unchecked,
                                    ArrayRef<int> groupOf, ArrayRef<Group> groups,
                                    ScalarEvolution &SE, LoopInfo &LI, LazyValueInfo &LVI,
                                    const LaunchContext &ctx, ValueToValueMapTy &VMap,
                                    SmallVectorImpl<unsigned> &members, bool &uninitOk,
                                    unsigned &tests, std::optional<EntryProgram> &program) {
  if (!S.opts.versionKernelMax || F.getInstructionCount() > S.opts.versionKernelMax)
    return false;
  SmallPtrSet<const Instruction *, 16> tested;
  for (unsigned i = 0; i < accesses.size(); ++i) {
    if (unchecked[i])
      continue;
    const Access &A = accesses[i];
    Provenance::Kind kind = provenance[i].kind;
    if (LI.getLoopFor(A.inst->getParent()) || !canRedirect(A) ||
        !SE.isSCEVable(A.ptr->getType()) ||
        (kind != Provenance::KernelArg && kind != Provenance::StaticObject &&
         kind != Provenance::DynamicShared))
      return false;
    members.push_back(i);
    tested.insert(A.inst);
  }
  if (members.empty())
    return false;
  // The whole block takes one copy, so barriers and warp operations of any
  // mask meet as in the program; what cannot be copied (inline assembly,
  // noduplicate, a convergent call of a device function, an alloca or EH
  // pad outside the entry) keeps the checks in place.
  BasicBlock &entry = F.getEntryBlock();
  bool nvptx = Triple(M.getTargetTriple()).isNVPTX();
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (&BB != &entry &&
          (I.isEHPad() || I.getType()->isTokenTy() || isa<AllocaInst>(I)))
        return false;
      auto *CB = dyn_cast<CallBase>(&I);
      if (CB && (CB->isInlineAsm() || CB->cannotDuplicate() ||
                 (CB->isConvergent() &&
                  (!nvptx || !CB->getCalledFunction() ||
                   !CB->getCalledFunction()->isIntrinsic()))))
        return false;
    }
  // One range per access, or per group at constant distances (its leader's
  // address, over every member's thread indices).
  struct Range {
    unsigned who;
    int64_t low, high;
    SmallVector<unsigned, 4> of;
    ThreadLinear linear{nullptr, {}};
    SmallVector<ThreadLinear, 2> narrow = {};
    HoistRange hoist{nullptr, nullptr, nullptr, 0, nullptr};
  };
  SmallVector<Range, 16> ranges;
  DenseMap<int, unsigned> rangeOfGroup;
  for (unsigned m : members) {
    int g = groupOf[m];
    if (g >= 0 && !groups[g].unit) {
      auto [it, fresh] = rangeOfGroup.try_emplace(g, ranges.size());
      if (!fresh) {
        ranges[it->second].of.push_back(m);
        continue;
      }
      unsigned leader = unsigned(groups[g].leader);
      ranges.push_back({leader, groups[g].minOffset, groups[g].maxEnd, {m}});
    } else {
      ranges.push_back({m, 0, int64_t(accesses[m].constSize), {m}});
    }
  }
  for (Range &R : ranges) {
    std::optional<ThreadLinear> L =
        threadLinear(SE.getSCEV(accesses[R.who].ptr), SE, R.narrow);
    uint64_t need = requiredAlignment(accesses[R.who]);
    if (!L || llvm::any_of(L->coeffs, [&](auto &tc) {
          return need && uint64_t(tc.second < 0 ? -tc.second : tc.second) % need;
        }))
      return false;
    R.linear = std::move(*L);
  }
  // Each thread index's range where the accesses stand: [lo, hi] with lo a
  // constant and hi the guards' bound, below the block's size when they
  // bound it less.
  const Target::IndexIntrinsics index = S.target.indexIntrinsics();
  auto dimOf = [&](Value *T) {
    auto *II = cast<IntrinsicInst>(T);
    for (unsigned d = 0; d < 3; ++d)
      if (II->getIntrinsicID() == index.thread[d])
        return d;
    return 3u;
  };
  Value *blockDims[3] = {nullptr, nullptr, nullptr};
  SmallVector<Instruction *, 3> made;
  IRBuilder<> head(&*entry.getFirstInsertionPt());
  auto threadRange = [&](Value *T, ArrayRef<unsigned> of)
      -> std::optional<std::pair<const SCEV *, const SCEV *>> {
    unsigned d = dimOf(T);
    if (d == 3)
      return std::nullopt;
    auto *def = cast<Instruction>(T);
    ConstantRange all = LVI.getConstantRange(T, def->getNextNode(), /*UndefAllowed=*/false);
    APInt lo = all.getUnsignedMax(), hi = all.getUnsignedMin();
    for (unsigned m : of) {
      ConstantRange at = LVI.getConstantRange(T, accesses[m].inst, /*UndefAllowed=*/false);
      if (at.isEmptySet())
        continue;
      lo = APIntOps::umin(lo, at.getUnsignedMin());
      hi = APIntOps::umax(hi, at.getUnsignedMax());
    }
    if (lo.ugt(hi))
      return std::nullopt;
    if (!blockDims[d]) {
      blockDims[d] = S.target.blockDim(head, d);
      if (!blockDims[d])
        return std::nullopt;
      made.push_back(cast<Instruction>(blockDims[d]));
    }
    const SCEV *last = SE.getMinusSCEV(SE.getZeroExtendExpr(SE.getSCEV(blockDims[d]), I64),
                                       SE.getOne(I64));
    if (hi.ult(all.getUnsignedMax()))
      last = SE.getUMinExpr(last, SE.getConstant(I64, hi.getZExtValue()));
    return std::make_pair(SE.getConstant(I64, lo.getZExtValue()), last);
  };
  // The lowest and the highest of uniform + sum c * tid over the ranges.
  auto extremes = [&](const ThreadLinear &L, const SCEV *base,
                      ArrayRef<unsigned> of) -> std::optional<std::pair<const SCEV *, const SCEV *>> {
    SmallVector<const SCEV *, 4> low{base}, high{base};
    for (auto [T, c] : L.coeffs) {
      auto bounds = threadRange(T, of);
      if (!bounds)
        return std::nullopt;
      const SCEV *k = SE.getConstant(I64, uint64_t(c), /*isSigned=*/true);
      low.push_back(SE.getMulExpr(k, c > 0 ? bounds->first : bounds->second));
      high.push_back(SE.getMulExpr(k, c > 0 ? bounds->second : bounds->first));
    }
    return std::make_pair(SE.getAddExpr(low), SE.getAddExpr(high));
  };
  auto undo = [&] {
    for (Instruction *I : made)
      if (I->use_empty())
        I->eraseFromParent();
    return false;
  };
  // The test goes before the entry's first checked access, or its branch;
  // what follows it is copied (an alloca there would be copied out of the
  // entry).
  Instruction *at = entry.getTerminator();
  for (Instruction &I : entry)
    if (tested.contains(&I)) {
      at = &I;
      break;
    }
  for (Instruction *I = at; I; I = I->getNextNode())
    if (isa<AllocaInst>(I))
      return undo();
  SCEVExpander X(SE, DL, "kosan.entry");
  // What the tests read stands before `at` (the block sizes read above),
  // where SCEVExpander::isSafeToExpandAt would take only the terminator.
  auto safeAt = [&](const SCEV *E) {
    return X.isSafeToExpand(E) && !SCEVExprContains(E, [&](const SCEV *Y) {
      auto *U = dyn_cast<SCEVUnknown>(Y);
      auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
      return I && !(I->getParent() == &entry && I->comesBefore(at));
    });
  };
  // A narrow sum's extremes, each tested within its type (once).
  SmallVector<std::tuple<const SCEV *, const SCEV *, bool, unsigned>, 8> wraps;
  for (Range &R : ranges) {
    HoistRange &H = R.hoist;
    H.invariant = true;
    H.at = at;
    H.low = R.low;
    H.high = R.high;
    auto ends = extremes(R.linear, R.linear.uniform, R.of);
    if (!ends)
      return undo();
    H.start = ends->first;
    H.span = SE.getMinusSCEV(SE.getPtrToIntExpr(ends->second, I64),
                             SE.getPtrToIntExpr(ends->first, I64));
    if (isa<SCEVCouldNotCompute>(H.span) || !safeAt(H.start) || !safeAt(H.span))
      return undo();
    for (const ThreadLinear &N : R.narrow) {
      const SCEV *wide = N.isSigned ? SE.getSignExtendExpr(N.uniform, I64)
                                    : SE.getZeroExtendExpr(N.uniform, I64);
      auto range = extremes(N, wide, R.of);
      if (!range || !safeAt(range->first) || !safeAt(range->second))
        return undo();
      auto key = std::make_tuple(range->first, range->second, N.isSigned, N.bits);
      if (!llvm::is_contained(wraps, key))
        wraps.push_back(key);
    }
  }
  SmallVector<Value *, 16> ok;
  // One test per range (a load and a store of the same element share it).
  std::set<std::tuple<const SCEV *, const SCEV *, int64_t, int64_t, const Value *, uint64_t>>
      done;
  for (Range &R : ranges) {
    const HoistRange &H = R.hoist;
    if (done.insert({H.start, H.span, H.low, H.high, provenance[R.who].base,
                     requiredAlignment(accesses[R.who])})
            .second)
      ok.push_back(hoistedRangeOk(accesses[R.who], provenance[R.who], H, SE, X, ctx));
    for (unsigned m : R.of)
      uninitOk |= uninitTested(accesses[m]) && provenance[m].kind == Provenance::KernelArg;
  }
  tests = ok.size();
  IRBuilder<> B(at);
  B.SetCurrentDebugLocation(at->getDebugLoc());
  for (auto [low, high, isSigned, bits] : wraps) {
    const SCEV *min = SE.getConstant(I64, isSigned ? -(int64_t(1) << (bits - 1)) : 0, true);
    const SCEV *max = SE.getConstant(I64, ((int64_t(1) << (bits - (isSigned ? 1 : 0))) - 1));
    if (!SE.isKnownPredicate(CmpInst::ICMP_SGE, low, min))
      ok.push_back(B.CreateICmpSGE(X.expandCodeFor(low, I64, at), X.expandCodeFor(min, I64, at)));
    if (!SE.isKnownPredicate(CmpInst::ICMP_SLE, high, max))
      ok.push_back(B.CreateICmpSLE(X.expandCodeFor(high, I64, at), X.expandCodeFor(max, I64, at)));
  }
  if (uninitOk)
    ok.push_back(B.CreateNot(uninitOn(ctx, F), "kosan.uninit.off"));
  // The tests' terms, each once (the tests of one argument share its pitch
  // and alignment terms), and-ed as a balanced tree.
  SmallVector<Value *, 32> terms, work(ok.rbegin(), ok.rend());
  SmallVector<WeakTrackingVH, 32> roots(ok.begin(), ok.end());
  std::map<std::tuple<unsigned, Value *, Value *>, Value *> seen;
  while (!work.empty()) {
    Value *V = work.pop_back_val();
    if (auto *And = dyn_cast<BinaryOperator>(V);
        And && And->getOpcode() == Instruction::And && And->getType()->isIntegerTy(1) &&
        !And->hasNUsesOrMore(2)) {
      work.push_back(And->getOperand(1));
      work.push_back(And->getOperand(0));
      continue;
    }
    if (auto *C = dyn_cast<ConstantInt>(V); C && C->isOne())
      continue;
    if (auto *Cmp = dyn_cast<ICmpInst>(V)) {
      auto [it, fresh] = seen.try_emplace(
          std::make_tuple(unsigned(Cmp->getPredicate()), Cmp->getOperand(0), Cmp->getOperand(1)),
          Cmp);
      if (!fresh)
        continue;
    }
    if (!llvm::is_contained(terms, V))
      terms.push_back(V);
  }
  while (terms.size() > 1) {
    SmallVector<Value *, 32> next;
    for (unsigned k = 0; k + 1 < terms.size(); k += 2)
      next.push_back(B.CreateAnd(terms[k], terms[k + 1]));
    if (terms.size() % 2)
      next.push_back(terms.back());
    terms = std::move(next);
  }
  Value *pass = terms.empty() ? B.getTrue() : terms.front();
  // The host decides the test at each launch where it can (it reads only
  // the launch); the block then compares its index with what the host
  // proved.
  Value *computed = nullptr;
  if (S.opts.entryOnHost)
    if ((program = serializeEntryTest(pass, ctx.info, S.target, DL))) {
      if (S.opts.printEntryTests)
        errs() << "kosan: entry test of " << F.getName() << ":\n" << printEntryProgram(*program);
      computed = pass;
      pass = blockInBox(B, S.target, ctx.info, program->dims);
    }
  if (auto *I = dyn_cast<Instruction>(pass))
    I->setName("kosan.entry.ok");
  BasicBlock *fast = SplitBlock(&entry, at, static_cast<DominatorTree *>(nullptr), nullptr,
                                nullptr, "kosan.entry.fast");
  SmallVector<BasicBlock *, 16> original, copies;
  for (BasicBlock &BB : F)
    if (&BB != &entry)
      original.push_back(&BB);
  for (BasicBlock *BB : original) {
    BasicBlock *copy = CloneBasicBlock(BB, VMap, ".kosan", &F);
    VMap[BB] = copy;
    copies.push_back(copy);
  }
  remapInstructionsInBlocks(copies, VMap);
  cast<BasicBlock>(VMap[fast])->setName("kosan.entry.checked");
  Instruction *term = entry.getTerminator();
  MDBuilder MDB(Ctx);
  BranchInst *br = BranchInst::Create(fast, cast<BasicBlock>(VMap[fast]), pass, &entry);
  br->setMetadata(LLVMContext::MD_prof, MDB.createLikelyBranchWeights());
  br->setDebugLoc(term->getDebugLoc());
  term->eraseFromParent();
  // The tests as hoistedRangeOk and-ed them, now unused. Where the host
  // decides the test, they and what and-ed them go once the function is
  // instrumented: the checked copy's checks will use some of what they read
  // (the uninit flag).
  if (computed) {
    deadAtEnd.push_back(computed);
    deadAtEnd.append(roots.begin(), roots.end());
  } else {
    for (WeakTrackingVH &V : roots)
      if (V)
        RecursivelyDeleteTriviallyDeadInstructions(V);
  }
  return true;
}

void OOBInstrumenter::instrumentFunction(Function &clone, const Function &original,
                                         const LaunchContext &ctx, FunctionAnalysisManager &FAM) {
  AtomOrderScope atomOrder(clone);
  bool kernel = ctx.kernel;
  if (kernel)
    S.target.boundThreadIds(clone, original);
  if (kernel && S.opts.hoistChecks) {
    // A preheader for each loop, where its accesses' range tests go (a
    // rotated loop's guard often branches straight to its header).
    FAM.invalidate(clone, PreservedAnalyses::none());
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(clone);
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(clone);
    for (Loop *L : LI.getLoopsInPreorder())
      if (!L->getLoopPreheader())
        InsertPreheaderForLoop(L, &DT, &LI, nullptr, /*PreserveLCSSA=*/false);
  }
  if (S.opts.groupChecks)
    splitSmallCopies(clone);
  SmallVector<Access, 32> accesses;
  collectAccesses(clone, accesses);
  ProvenanceAnalysis PA(DL, kernel ? &clone : nullptr);
  agreement.clear();
  argBoundCache.clear();
  argMisalignedCache.clear();
  uninitOnCache = nullptr;
  uninitInLoopOk.clear();
  Counts counts;

  // Resolve, prove and group every access before any block is split; the
  // analyses of the clone are not used once it changes.
  SmallVector<Provenance, 32> provenance;
  for (Access &A : accesses)
    provenance.push_back(PA.resolve(A.ptr));
  FAM.invalidate(clone, PreservedAnalyses::none());
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(clone);
  LazyValueInfo &LVI = FAM.getResult<LazyValueAnalysis>(clone);
  SmallVector<bool, 32> proven;
  for (unsigned i = 0; i < accesses.size(); ++i)
    proven.push_back(S.opts.proveBounds && provenInBounds(accesses[i], provenance[i], SE, LVI));
  // Accesses checked once before their loop: each one's test of its range,
  // and-ed into one test per loop, at the end of the loop's preheader.
  SmallVector<Loop *, 32> hoistLoop(accesses.size(), nullptr);
  MapVector<Loop *, SmallVector<Value *, 4>> loopTests;
  SmallVector<Group, 8> groups;
  SmallVector<int64_t, 32> offsets;
  SmallVector<int, 32> groupOf;
  DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(clone);
  auto group = [&](ArrayRef<Loop *> hoisted) {
    SmallVector<bool, 32> notGrouped(proven.begin(), proven.end());
    for (unsigned i = 0; i < accesses.size(); ++i)
      notGrouped[i] = notGrouped[i] || hoisted[i];
    groupOf = groupAccesses(clone, accesses, provenance, notGrouped, SE, DT, groups, offsets);
  };
  if (S.opts.hoistChecks && kernel) {
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(clone);
    SCEVExpander X(SE, DL, "kosan.hoist");
    // Which accesses have a range of their own to test; one test per
    // range: a load and a store of the same element share it.
    SmallVector<std::optional<HoistRange>, 32> ranges(accesses.size());
    DenseMap<std::tuple<const SCEV *, uint32_t, uint64_t>, Loop *> tested;
    DenseMap<Loop *, unsigned> perLoop;
    // Kernel arguments first: their accesses are hoisted one by one, in
    // preference to grouping.
    for (unsigned i = 0; i < accesses.size(); ++i) {
      const Access &A = accesses[i];
      if (proven[i] || !SE.isSCEVable(A.ptr->getType()) ||
          provenance[i].kind != Provenance::KernelArg)
        continue;
      auto key = std::make_tuple(SE.getSCEV(A.ptr), A.constSize, requiredAlignment(A));
      if (Loop *L = tested.lookup(key); L && L->contains(A.inst) && canRedirect(A)) {
        hoistLoop[i] = L;
      } else if ((ranges[i] = hoistRange(A, provenance[i], SE, LI, X, ctx))) {
        hoistLoop[i] = ranges[i]->loop;
        tested[key] = hoistLoop[i];
      }
      if (hoistLoop[i])
        ++perLoop[hoistLoop[i]];
    }
    // A loop with many hoistable accesses (an unrolled one) keeps them
    // checked in place, where they group: hoisted, each would keep a
    // checked copy of its own, and the clone would grow with the unroll
    // factor.
    for (Loop *&L : hoistLoop)
      if (L && perLoop.lookup(L) > S.opts.hoistMaxPerLoop)
        L = nullptr;
    for (unsigned i = 0; i < accesses.size(); ++i)
      if (!hoistLoop[i])
        ranges[i].reset();
    perLoop.clear();
    for (unsigned i = 0; i < accesses.size(); ++i)
      if (ranges[i])
        ++perLoop[hoistLoop[i]];
    group(hoistLoop);
    // Shared and other static objects at loop-invariant addresses (tiles
    // indexed by the thread alone): a lone access's range tested once
    // before the loop, and with -kosan-hoist-groups a group's; each counts
    // as one test against the cap. The checked copies check groups as
    // groups.
    auto room = [&](Loop *L) { return perLoop.lookup(L) < S.opts.hoistMaxPerLoop; };
    auto isStatic = [&](unsigned i) {
      return provenance[i].kind == Provenance::StaticObject ||
             provenance[i].kind == Provenance::DynamicShared;
    };
    SmallVector<std::optional<HoistRange>, 8> groupRange(groups.size());
    for (unsigned g = 0; g < groups.size(); ++g) {
      Group &G = groups[g];
      unsigned leader = unsigned(G.leader);
      if (G.members.size() < 2 || G.unit || !isStatic(leader))
        continue;
      Loop *L = LI.getLoopFor(accesses[leader].inst->getParent());
      // A loop that may be copied whole hoists its groups too: its fast
      // copy is then the loop as compiled (versionable).
      if (!L || !room(L) ||
          !(S.opts.hoistGroups || (S.opts.versionLoops && loopAgreement(L) != Agree::Never)))
        continue;
      if ((groupRange[g] = invariantRange(accesses[leader].ptr, G.maxEnd, L, SE, X,
                                          G.minOffset))) {
        ++perLoop[L];
        for (int m : G.members)
          hoistLoop[m] = L;
        counts.invariant += G.members.size();
        ++counts.invariantGroups;
      }
    }
    for (unsigned i = 0; i < accesses.size(); ++i) {
      if (proven[i] || hoistLoop[i] || groupOf[i] >= 0 || !isStatic(i))
        continue;
      std::optional<HoistRange> R = hoistRange(accesses[i], provenance[i], SE, LI, X, ctx);
      if (R && room(R->loop)) {
        ranges[i] = R;
        hoistLoop[i] = R->loop;
        ++perLoop[R->loop];
      }
    }
    for (unsigned i = 0; i < accesses.size(); ++i) {
      if (ranges[i] && hoistLoop[i]) {
        counts.invariant += ranges[i]->invariant;
        counts.symbolicStride += ranges[i]->symbolicStep != nullptr;
        loopTests[hoistLoop[i]].push_back(
            ranges[i]->iv ? boundedIvRangeOk(accesses[i], provenance[i], *ranges[i], ctx)
                          : hoistedRangeOk(accesses[i], provenance[i], *ranges[i], SE, X, ctx));
      }
      if (groupOf[i] >= 0 && groups[groupOf[i]].leader == int(i) && groupRange[groupOf[i]])
        loopTests[hoistLoop[i]].push_back(hoistedRangeOk(accesses[i], provenance[i],
                                                         *groupRange[groupOf[i]], SE, X, ctx));
    }
  } else {
    group(hoistLoop);
  }
  // A loop with hoisted loads the uninit check would test takes their
  // checked copies when the launch has uninit=1: the copies test the
  // values, the accesses as they were need no branch on the launch's flag.
  for (unsigned i = 0; i < accesses.size(); ++i)
    if (Loop *L = hoistLoop[i]; L && loopTests.count(L) && uninitTested(accesses[i]) &&
                                provenance[i].kind == Provenance::KernelArg)
      uninitInLoopOk.insert(L);
  DenseMap<Loop *, Value *> loopOk;
  for (auto &[L, tests] : loopTests) {
    IRBuilder<> B(L->getLoopPreheader()->getTerminator());
    if (uninitInLoopOk.contains(L))
      tests.push_back(B.CreateNot(uninitOn(ctx, clone), "kosan.uninit.off"));
    Value *ok = B.CreateAnd(tests);
    ok->setName("kosan.loop.ok");
    loopOk[L] = ok;
  }
  counts.loops = loopOk.size();
  NumHoistLoops += counts.loops;
  // Loops copied whole (versionable): the copy's accesses are checked below,
  // with the rest of the loop's hoisted ones.
  std::map<Loop *, std::unique_ptr<ValueToValueMapTy>> versioned;
  // The accesses that need no check of their own in a copy's test.
  SmallVector<bool, 32> unchecked(accesses.size(), false);
  for (unsigned i = 0; i < accesses.size(); ++i) {
    unsigned as = accesses[i].ptr->getType()->getPointerAddressSpace();
    unchecked[i] = proven[i] || provenance[i].kind == Provenance::Constant ||
                   (provenance[i].kind == Provenance::Unknown &&
                    (as == kSharedAS || as == kLocalAS));
  }
  if (!loopOk.empty()) {
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(clone);
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(clone);
    SmallVector<Loop *, 4> toVersion;
    // In the loops' order (loopTests, a MapVector), not loopOk's: the
    // blocks' names and the order of the copies do not depend on where the
    // loops lie in memory.
    for (auto &[L, tests] : loopTests)
      if (versionable(L, accesses, hoistLoop, unchecked))
        toVersion.push_back(L);
    for (Loop *L : toVersion) {
      auto VMap = std::make_unique<ValueToValueMapTy>();
      versionLoop(L, agreedTest(L, loopOk[L]), LI, DT, *VMap);
      versioned[L] = std::move(VMap);
    }
    counts.versioned = versioned.size();
  }
  // A kernel with no loop test whose checked accesses all lie outside loops:
  // tested at its entry and copied whole (versionKernel).
  SmallVector<unsigned, 16> entryMembers;
  ValueToValueMapTy entryCopies;
  bool entryUninitOk = false;
  if (kernel && S.opts.hoistChecks && loopTests.empty()) {
    std::optional<EntryProgram> program;
    if (!versionKernel(clone, accesses, provenance, unchecked, groupOf, groups, SE,
                       FAM.getResult<LoopAnalysis>(clone), FAM.getResult<LazyValueAnalysis>(clone),
                       ctx, entryCopies, entryMembers, entryUninitOk, counts.entryTests, program))
      entryMembers.clear();
    else if (program)
      entryPrograms[&original] = std::move(*program);
  }
  // Every loop with a checked access runs as compiled when its test passes:
  // the target may then fit the clone's registers to its original's loops.
  if (kernel && !versioned.empty()) {
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(clone);
    bool asCompiled = true;
    for (unsigned i = 0; i < accesses.size() && asCompiled; ++i) {
      if (proven[i] || provenance[i].kind == Provenance::Constant)
        continue;
      Loop *L = LI.getLoopFor(accesses[i].inst->getParent());
      asCompiled = !L || (hoistLoop[i] && versioned.count(hoistLoop[i]));
    }
    if (asCompiled)
      clone.addFnAttr(kLoopsAsCompiled);
  }
  FAM.invalidate(clone, PreservedAnalyses::none());
  // Sites of the checked accesses, made in program order (the tables of
  // groups are filled in from them at the end).
  SmallVector<uint32_t, 32> sites(accesses.size(), 0);
  // Global loads to check for the uninit fill once the bounds checks are in:
  // on their own, or by group.
  SmallVector<std::pair<LoadInst *, uint32_t>, 16> uninitLoads;
  MapVector<int, SmallVector<std::pair<LoadInst *, unsigned>, 8>> uninitByGroup;

  // Each access's index, for the stretches of hoisted accesses (an
  // instruction with two, a copy, is never hoisted).
  DenseMap<const Instruction *, unsigned> accessAt;
  for (unsigned i = 0; i < accesses.size(); ++i)
    accessAt.try_emplace(accesses[i].inst, i);
  SmallVector<bool, 32> inStretch(accesses.size(), false);
  std::deque<Group> copyGroups;
  HoistedGroups hoistedGroups{groupOf, groups, offsets, copyGroups};
  for (unsigned index = 0; index < accesses.size(); ++index) {
    if (inStretch[index])
      continue; // checked with the first of its stretch
    Access &A = accesses[index];
    Provenance &p = provenance[index];
    // An earlier redirected load may have replaced this pointer's value.
    A.ptr = A.inst->getOperand(A.ptrOperand);
    unsigned ptrAS = A.ptr->getType()->getPointerAddressSpace();
    if (p.kind == Provenance::Constant) {
      ++counts.constant;
      ++NumConstant;
      continue;
    }
    if (proven[index]) {
      ++counts.safe;
      ++NumProvenSafe;
      continue;
    }
    if (p.kind == Provenance::Unknown &&
        (ptrAS == kSharedAS || ptrAS == kLocalAS)) {
      // A shared or local pointer of unknown origin cannot leave its window
      // into a global buffer; the table holds only global buffers.
      ++counts.constant;
      continue;
    }
    auto addSite = [&](unsigned i) {
      const Access &X = accesses[i];
      const Provenance &q = provenance[i];
      return sites[i] = S.sites.add(*X.inst, X.kind, q.space, X.constSize, objectName(q),
                                    q.kind == Provenance::KernelArg ? int(q.argIndex) : -1);
    };
    if (!entryMembers.empty() && entryMembers.front() == index) {
      for (unsigned m : entryMembers) {
        addSite(m);
        inStretch[m] = true;
        ++(provenance[m].kind == Provenance::KernelArg ? counts.arg : counts.stat);
        ++(provenance[m].kind == Provenance::KernelArg ? NumCheckedArg : NumCheckedStatic);
        ++NumChecked;
        ++counts.atEntry;
        ++NumEntryTested;
      }
      checkCopies(entryMembers, accesses, provenance, sites, entryCopies, entryUninitOk, ctx,
                  uninitLoads, hoistedGroups);
      continue;
    }
    if (Loop *L = hoistLoop[index]) {
      auto whole = versioned.find(L);
      SmallVector<unsigned, 8> members;
      if (whole != versioned.end()) {
        for (unsigned m = index; m < accesses.size(); ++m)
          if (hoistLoop[m] == L)
            members.push_back(m);
      } else {
        members = hoistedStretch(index, accesses, hoistLoop, accessAt);
      }
      for (unsigned m : members) {
        addSite(m);
        inStretch[m] = true;
        if (provenance[m].kind == Provenance::KernelArg) {
          ++counts.arg;
          ++NumCheckedArg;
        } else {
          ++counts.stat;
          ++NumCheckedStatic;
        }
        ++NumChecked;
        ++counts.hoisted;
        ++NumHoisted;
      }
      if (whole != versioned.end())
        checkCopies(members, accesses, provenance, sites, *whole->second,
                    uninitInLoopOk.contains(L), ctx, uninitLoads, hoistedGroups);
      else
        checkHoisted(members, accesses, provenance, sites, loopOk.lookup(L),
                     uninitInLoopOk.contains(L), ctx, uninitLoads, hoistedGroups);
      continue;
    }
    uint32_t site = addSite(index);
    LoadInst *uninitLoad = nullptr; // tested on its bounds check's cold path
    if (auto *L = dyn_cast<LoadInst>(A.inst);
        L && S.opts.uninit && A.kind == KOSAN_ACCESS_LOAD &&
        (p.kind == Provenance::KernelArg || p.kind == Provenance::Unknown)) {
      if (groupOf[index] >= 0) {
        const Group &G = groups[groupOf[index]];
        unsigned row = unsigned(find(G.members, int(index)) - G.members.begin());
        uninitByGroup[groupOf[index]].push_back({L, row});
      } else if (uninitOnReportPath(A, p)) {
        uninitLoad = L;
      } else
        uninitLoads.push_back({L, site});
    }

    Check c(A, p, site);
    ++NumChecked;
    if (groupOf[index] >= 0) {
      Group &G = groups[groupOf[index]];
      ++(p.kind == Provenance::KernelArg ? counts.arg : counts.stat);
      ++(p.kind == Provenance::KernelArg ? NumCheckedArg : NumCheckedStatic);
      ++counts.grouped;
      ++NumGrouped;
      if (G.leader != int(index)) {
        checkGroupMember(c, G, offsets[index]);
      } else {
        ++counts.groups;
        ++NumGroups;
        if (G.unit) {
          ++counts.symbolicGroups;
          ++NumSymbolicGroups;
        }
        checkGroupLeader(c, G, accesses, offsets, ctx);
      }
      continue;
    }
    checkAccess(c, counts, ctx, uninitLoad);
  }
  for (auto [L, site] : uninitLoads)
    checkUninit(*L, ctx, site, kernel);
  for (auto &[group, loads] : uninitByGroup)
    checkUninitGroup(groups[group], loads, ctx, kernel);
  for (const Group &G : groups)
    if (G.table)
      fillGroupTable(G, accesses, offsets, sites);
  for (const Group &G : copyGroups)
    if (G.table)
      fillGroupTable(G, accesses, offsets, sites);

  unsigned checked = counts.arg + counts.stat + counts.table;
  for (WeakTrackingVH &V : deadAtEnd)
    if (V)
      RecursivelyDeleteTriviallyDeadInstructions(V);
  deadAtEnd.clear();
  OptimizationRemarkEmitter ORE(&clone);
  ORE.emit([&] {
    OptimizationRemark R(DEBUG_TYPE, "Instrumented", &clone);
    R << (kernel ? "kernel '" : "device function '")
      << ore::NV("Function", demangle(original.getName())) << "': "
      << ore::NV("Checked", checked)
      << " accesses checked (" << ore::NV("ViaArguments", counts.arg)
      << " against kernel arguments, " << ore::NV("Static", counts.stat)
      << " against shared/local/global objects, "
      << ore::NV("Unresolved", counts.table)
      << " against the table of all buffers) by "
      << ore::NV("Checks", checked - counts.grouped + counts.groups - counts.hoisted +
                               counts.loops - counts.atEntry + counts.entryTests)
      << " checks, " << ore::NV("Grouped", counts.grouped) << " of them in "
      << ore::NV("Groups", counts.groups) << " groups at constant distances, "
      << ore::NV("Hoisted", counts.hoisted) << " hoisted out of "
      << ore::NV("Loops", counts.loops) << " loops, "
      << ore::NV("OneByOne", checked - counts.grouped - counts.hoisted - counts.atEntry)
      << " checked one by one, "
      << ore::NV("ProvenSafe", counts.safe) << " proven in bounds, "
      << ore::NV("Unchecked", counts.constant)
      << " to constant/parameter memory; "
      << ore::NV("SymbolicGroups", counts.symbolicGroups)
      << " of the groups at symbolic distances; of the hoisted, "
      << ore::NV("Invariant", counts.invariant) << " at loop-invariant addresses (in "
      << ore::NV("InvariantGroups", counts.invariantGroups) << " groups), "
      << ore::NV("SymbolicStride", counts.symbolicStride) << " at symbolic strides; "
      << ore::NV("Versioned", counts.versioned) << " of the loops copied whole";
    if (counts.atEntry)
      R << "; " << ore::NV("AtEntry", counts.atEntry) << " outside loops tested at the entry by "
        << ore::NV("EntryTests", counts.entryTests) << " tests (the kernel copied whole"
        << (entryPrograms.count(&original) ? "; the host decides them per launch)" : ")");
    return R;
  });
}

// A polynomial's value (i64) at B.
Value *OOBInstrumenter::unitValue(IRBuilder<> &B, const Poly &unit) {
  Value *sum = nullptr;
  for (auto &[m, c] : unit.terms) {
    Value *term = B.getInt64(c);
    for (void *a : m) {
      Poly::Atom atom = Poly::Atom::getFromOpaqueValue(a);
      Value *V = atom.getPointer();
      V = atom.getInt() == 2 ? B.CreateZExt(V, I64) : B.CreateSExt(V, I64);
      term = isa<ConstantInt>(term) && cast<ConstantInt>(term)->isOne() ? V
                                                                        : B.CreateMul(term, V);
    }
    sum = sum ? B.CreateAdd(sum, term) : term;
  }
  sum->setName("kosan.group.unit");
  return sum;
}

// A member of a group other than its leader: goes to the leader's safe
// base, or to the sink, when the leader found the group's range bad.
void OOBInstrumenter::checkGroupMember(Check &c, Group &G, int64_t offset) {
  Access &A = c.A;
  if (!G.safeBase) {
    redirect(A, c.p.space, G.bad, nullptr, [](Instruction *) {});
    return;
  }
  if (G.unit) {
    // At a symbolic distance: its own select of the zero sink.
    A.inst->setOperand(A.ptrOperand,
                       c.B.CreateSelect(G.bad, zeroSinkFor(cast<PointerType>(A.ptr->getType())),
                                        A.ptr, "kosan.safe"));
    dropLoadPromises(*A.inst);
    return;
  }
  A.inst->setOperand(A.ptrOperand,
                     c.B.CreateConstGEP1_64(c.B.getInt8Ty(), G.safeBase, offset, "kosan.safe"));
  dropLoadPromises(*A.inst);
  if (G.readsZeroSink)
    return;
  IRBuilder<> VB(A.inst->getNextNode());
  VB.SetCurrentDebugLocation(A.inst->getDebugLoc());
  SmallVector<Use *, 4> uses;
  for (Use &U : A.inst->uses())
    uses.push_back(&U);
  Value *value = VB.CreateSelect(G.bad, Constant::getNullValue(A.inst->getType()), A.inst,
                                 A.inst->getName() + ".kosan");
  for (Use *U : uses)
    U->set(value);
}

// The leader checks the whole range the group touches, once: from the
// lowest offset to the highest end, against the object's bounds or the
// kernel argument's. A pitched argument takes the report branch too (the
// branch is uniform), where every member's row is tested.
void OOBInstrumenter::checkGroupLeader(Check &c, Group &G, ArrayRef<Access> accesses,
                                       ArrayRef<int64_t> offsets, const LaunchContext &ctx) {
  Access &A = c.A;
  const Provenance &p = c.p;
  IRBuilder<> &B = c.B;
  bool fromArg = p.kind == Provenance::KernelArg;
  Value *begin, *end;
  if (fromArg) {
    begin = argBound(ctx, p.argIndex, 0, B);
    end = argBound(ctx, p.argIndex, 1, B);
  } else {
    begin = c.objectBegin();
    end = c.objectEnd(begin, ctx);
  }
  // The members' table, read by the cold paths alone; filled in once every
  // member has its site (fillGroupTable).
  ArrayType *tableTy = ArrayType::get(StructType::get(I64, I32, I32), G.members.size());
  G.table = new GlobalVariable(M, tableTy, /*isConstant=*/true, GlobalValue::InternalLinkage,
                               Constant::getNullValue(tableTy), "__kosan_group", nullptr,
                               GlobalValue::NotThreadLocal, addrspace::Global);
  // Every member's address is the leader's plus its offset.
  G.common = c.addressOf(A.ptr);
  G.common->setName("kosan.group");
  Value *lo, *hi;
  if (G.unit) {
    // The members lie between the leader's address plus kMin * D and plus
    // kMax * D, the lower of the two being the first when D >= 0; each
    // end is a member's own address (no product reaches 2^62: the
    // ranges of k and D).
    G.unitValue = unitValue(B, *G.unit);
    Value *atMin = G.kMin ? B.CreateMul(G.unitValue, B.getInt64(G.kMin)) : B.getInt64(0);
    Value *atMax = B.CreateMul(G.unitValue, B.getInt64(G.kMax));
    Value *down = B.CreateICmpSLT(G.unitValue, B.getInt64(0));
    lo = B.CreateAdd(G.common, B.CreateSelect(down, atMax, atMin), "kosan.group.lo");
    hi = B.CreateAdd(B.CreateAdd(G.common, B.CreateSelect(down, atMin, atMax)),
                     B.getInt64(A.constSize), "kosan.group.hi");
  } else {
    lo = B.CreateAdd(G.common, B.getInt64(G.minOffset));
    hi = B.CreateAdd(G.common, B.getInt64(G.maxEnd));
  }
  G.bad = B.CreateOr(B.CreateICmpULT(lo, begin), B.CreateICmpUGT(hi, end), "kosan.bad");
  // Members that need the same alignment at offsets that keep it fault
  // together, when the common address is off it: one test for the group.
  Value *misaligned = nullptr;
  if (G.alignment >= 2) {
    misaligned = misalignment(c, G.common, G.alignment, ctx);
    G.bad = B.CreateOr(G.bad, misaligned, "kosan.bad.or.misaligned");
  }
  uint64_t span = uint64_t(G.maxEnd - G.minOffset);
  // A safe base puts member i at (start) + offset_i - min: each load must
  // keep the alignment its instruction promises there (the object's and the
  // sink's start are aligned to at least 16 bytes or to what the leader
  // promises).
  uint64_t maxAlign = 1;
  bool keepsAlignment = all_of(G.members, [&](int member) {
    auto *L = dyn_cast<LoadInst>(accesses[member].inst);
    if (!L)
      return false;
    maxAlign = std::max<uint64_t>(maxAlign, L->getAlign().value());
    return (offsets[member] - G.minOffset) % int64_t(L->getAlign().value()) == 0;
  });
  keepsAlignment &= maxAlign <= kSinkBytes;
  if (G.unit) {
    // Loads of a kernel argument select the zero sink each (no offsets to
    // share a base), which reads zero: no select of their values.
    if (G.allLoads && fromArg) {
      G.safeBase = B.CreateSelect(G.bad, zeroSinkFor(cast<PointerType>(A.ptr->getType())),
                                  A.ptr, "kosan.safe.base");
      G.readsZeroSink = true;
    }
  } else if (!keepsAlignment) {
    // Each member selects the sink on its own (checkGroupMember).
  } else if (G.allLoads && p.kind == Provenance::StaticObject && span <= p.size &&
             p.base->getPointerAlignment(DL).value() >= maxAlign) {
    // base + offset_i stays inside the object for every member.
    Value *base = p.base;
    if (base->getType()->getPointerAddressSpace() != c.ptrAS)
      base = B.CreateAddrSpaceCast(base, A.ptr->getType());
    Value *objStart = B.CreateConstGEP1_64(B.getInt8Ty(), base, -G.minOffset);
    G.safeBase = B.CreateSelect(G.bad, objStart, A.ptr, "kosan.safe.base");
  } else if (G.allLoads && fromArg && span <= kZeroSinkBytes) {
    // A bad group reads the zero sink: a load of zero each, no selects.
    Value *sinkStart = B.CreateConstGEP1_64(
        B.getInt8Ty(), zeroSinkFor(cast<PointerType>(A.ptr->getType())), -G.minOffset);
    G.safeBase = B.CreateSelect(G.bad, sinkStart, A.ptr, "kosan.safe.base");
    G.readsZeroSink = true;
  }
  Value *report = G.bad;
  if (fromArg)
    report = B.CreateOr(G.bad, B.CreateICmpNE(argBound(ctx, p.argIndex, 2, B), B.getInt64(0),
                                              "kosan.pitched"));
  auto slowPath = [&](Instruction *before) {
    reportFirstBadMember(before, c, G, begin, end, misaligned, ctx);
  };
  if (!G.readsZeroSink) {
    redirect(A, p.space, G.bad, report, slowPath);
    return;
  }
  A.inst->setOperand(A.ptrOperand, G.safeBase);
  dropLoadPromises(*A.inst);
  branchToReport(A.inst, A.inst->getNextNode(), report, slowPath);
}

// The group's table: each member's offset from the leader, size and site,
// in program order.
void OOBInstrumenter::fillGroupTable(const Group &G, ArrayRef<Access> accesses,
                                     ArrayRef<int64_t> offsets, ArrayRef<uint32_t> sites) {
  auto *tableTy = cast<ArrayType>(G.table->getValueType());
  auto *rowTy = cast<StructType>(tableTy->getElementType());
  SmallVector<Constant *, 16> rows;
  for (int member : G.members)
    rows.push_back(ConstantStruct::get(
        rowTy, {ConstantInt::get(I64, offsets[member]),
                ConstantInt::get(I32, accesses[member].constSize),
                ConstantInt::get(I32, sites[member])}));
  G.table->setInitializer(ConstantArray::get(tableTy, rows));
}

// The cold path of a group: a loop over the group's table of its members
// in program order finds the first that is bad on its own (out of bounds,
// the group misaligned, outside its row of a pitched buffer) and reports it.
void OOBInstrumenter::reportFirstBadMember(Instruction *before, Check &c, const Group &G,
                                           Value *begin, Value *end, Value *misaligned,
                                           const LaunchContext &ctx) {
  const Provenance &p = c.p;
  bool fromArg = p.kind == Provenance::KernelArg;
  Type *tableTy = G.table->getValueType();
  DebugLoc loc = c.A.inst->getDebugLoc();

  BasicBlock *head = before->getParent();
  Function *F = head->getParent();
  BasicBlock *found = head->splitBasicBlock(before->getIterator(), "kosan.group.found");
  BasicBlock *scan = BasicBlock::Create(Ctx, "kosan.group.scan", F, found);
  BasicBlock *next = BasicBlock::Create(Ctx, "kosan.group.next", F, found);
  IRBuilder<> H(head->getTerminator());
  H.SetCurrentDebugLocation(loc);
  Value *pitch = fromArg ? argBound(ctx, p.argIndex, 2, H) : nullptr;
  Value *shape = fromArg ? argBound(ctx, p.argIndex, 3, H) : nullptr;
  head->getTerminator()->setSuccessor(0, scan);

  IRBuilder<> L(scan);
  L.SetCurrentDebugLocation(loc);
  PHINode *k = L.CreatePHI(I32, 2, "kosan.member");
  k->addIncoming(L.getInt32(0), head);
  auto field = [&](unsigned i, Type *T) {
    Value *at = L.CreateInBoundsGEP(tableTy, G.table, {L.getInt32(0), k, L.getInt32(i)});
    return markNoSanitize(L.CreateAlignedLoad(T, at, Align(T == I64 ? 8 : 4)));
  };
  Value *addr = L.CreateAdd(G.common, memberOffset(L, G, field(0, I64)));
  Value *size32 = field(1, I32);
  Value *site = field(2, I32);
  Value *bad = L.CreateOr(L.CreateICmpULT(addr, begin),
                          L.CreateICmpUGT(L.CreateAdd(addr, L.CreateZExt(size32, I64)), end));
  if (misaligned)
    bad = L.CreateOr(bad, misaligned);
  if (fromArg)
    bad = L.CreateOr(bad, outsideRow(L, addr, size32, begin, pitch, shape));
  L.CreateCondBr(bad, found, next);

  IRBuilder<> N(next);
  N.SetCurrentDebugLocation(loc);
  Value *k1 = N.CreateAdd(k, N.getInt32(1));
  k->addIncoming(k1, next);
  N.CreateCondBr(N.CreateICmpULT(k1, N.getInt32(G.members.size())), scan, found);

  IRBuilder<> R(&found->front());
  R.SetCurrentDebugLocation(loc);
  auto incoming = [&](Type *T, Value *v, const Twine &name) {
    PHINode *phi = R.CreatePHI(T, 2, name);
    phi->addIncoming(v, scan);
    phi->addIncoming(Constant::getNullValue(T), next);
    return phi;
  };
  Value *isBad = incoming(I1, ConstantInt::getTrue(Ctx), "kosan.member.bad");
  Value *siteV = incoming(I32, site, "kosan.member.site");
  Value *addrV = incoming(I64, addr, "kosan.member.addr");
  Value *sizeV = incoming(I32, size32, "kosan.member.size");
  emitReport(before, ctx, siteV, addrV, sizeV, begin, end, pitch, shape, isBad);
}

// Whether c's access at addr (an integer, in the object's terms) leaves
// [begin, end). A static object's access of constant size: one unsigned
// compare, addr - begin >u size - bytes (an address below begin wraps to a
// large offset; the limit is a constant, or the launch's dynamic shared
// size less the access). A kernel argument's: addr < begin or addr + size >
// end, whose bounds the compares read from the constant bank where they
// stand; its limit (end - begin - size) would be a value of its own, which
// a light clone's calls of the report function made ptxas spill
// (bench/results/registers.md).
Value *OOBInstrumenter::outOfBounds(Check &c, Value *addr, Value *begin, Value *end,
                                    const LaunchContext &ctx) {
  IRBuilder<> &B = c.B;
  const Provenance &p = c.p;
  uint64_t bytes = c.A.constSize;
  if (bytes && p.kind != Provenance::KernelArg) {
    Value *limit, *small;
    if (p.kind == Provenance::DynamicShared) {
      limit = B.CreateSub(ctx.dynSmem, B.getInt64(bytes));
      small = B.CreateICmpULT(ctx.dynSmem, B.getInt64(bytes));
    } else {
      limit = B.getInt64(p.size - bytes);
      small = B.getInt1(p.size < bytes);
    }
    Value *offset = B.CreateSub(addr, begin, "kosan.offset");
    Value *bad = B.CreateICmpUGT(offset, limit);
    if (!match(small, m_Zero()))
      bad = B.CreateOr(bad, small);
    if (isa<Instruction>(bad))
      bad->setName("kosan.bad");
    return bad;
  }
  Value *last = B.CreateAdd(addr, c.A.size);
  return B.CreateOr(B.CreateICmpULT(addr, begin), B.CreateICmpUGT(last, end), "kosan.bad");
}

// An access on its own: against its kernel argument's bounds (pitched
// rows included), its static object's, or the runtime's table.
// Whether a load's uninit test can share its bounds check's cold path and
// call (checkAccess): a load on its own against a kernel argument, through
// the shared report function.
bool OOBInstrumenter::uninitOnReportPath(const Access &A, const Provenance &p) const {
  return callsReportFunction() && p.kind == Provenance::KernelArg &&
         canRedirect(A) && A.inst->getNextNode() && fillBits(A.inst->getType());
}

void OOBInstrumenter::checkAccess(Check &c, Counts &counts, const LaunchContext &ctx,
                                  LoadInst *uninitLoad) {
  Access &A = c.A;
  const Provenance &p = c.p;
  IRBuilder<> &B = c.B;
  Value *addr = c.addressOf(A.ptr);
  addr->setName("kosan.addr");
  Value *size32 = B.CreateTrunc(A.size, I32);

  if (p.kind == Provenance::Unknown) {
    ++counts.table;
    ++NumCheckedTable;
    guard(A, nullptr, [&](Instruction *before) -> Value * {
      IRBuilder<> SB(before);
      return SB.CreateCall(tableFn, {ctx.state, ctx.launchId, ctx.flags,
                                     SB.getInt32(c.site), addr, size32});
    });
    return;
  }

  Value *begin, *end;
  bool fromArg = p.kind == Provenance::KernelArg;
  if (fromArg) {
    ++counts.arg;
    ++NumCheckedArg;
    begin = argBound(ctx, p.argIndex, 0, B);
    end = argBound(ctx, p.argIndex, 1, B);
  } else {
    ++counts.stat;
    ++NumCheckedStatic;
    begin = c.objectBegin();
    end = c.objectEnd(begin, ctx);
  }
  Value *bad = outOfBounds(c, addr, begin, end, ctx);
  Value *misaligned = misalignment(c, addr, requiredAlignment(A), ctx);
  if (misaligned)
    bad = B.CreateOr(bad, misaligned, "kosan.bad.or.misaligned");
  Value *testedBad = bad; // before the pitch joins it below
  // Pitched buffers need the runtime's row check even inside the
  // allocation; pitch is a kernel parameter, so the branch is uniform.
  Value *pitched =
      fromArg ? B.CreateICmpNE(argBound(ctx, p.argIndex, 2, B), B.getInt64(0), "kosan.pitched")
              : nullptr;
  auto callReport = [&](Instruction *before) -> Value * {
    IRBuilder<> SB(before);
    Value *pitch = fromArg ? argBound(ctx, p.argIndex, 2, SB) : nullptr;
    Value *shape = fromArg ? argBound(ctx, p.argIndex, 3, SB) : nullptr;
    return emitReport(before, ctx, SB.getInt32(c.site), addr, size32, begin, end, pitch, shape,
                      nullptr, misaligned, testedBad, uninitLoad);
  };
  if (canRedirect(A)) {
    // A pitched access inside the allocation goes ahead; the runtime only
    // reports it when it falls outside its row. With uninit=1 a load takes
    // the cold path too, where its value is compared with the fill.
    Value *report = pitched ? B.CreateOr(bad, pitched) : bad;
    if (uninitLoad) {
      ++NumUninitChecked;
      report = B.CreateOr(report, uninitOn(ctx, *A.inst->getFunction()));
    }
    redirect(A, p.space, bad, report, [&](Instruction *before) { callReport(before); });
    return;
  }
  if (pitched)
    bad = B.CreateOr(bad, pitched);
  guard(A, bad, callReport);
}

} // namespace

std::unique_ptr<Instrumenter> makeOobInstrumenter(ModuleState &S) {
  return std::make_unique<OOBInstrumenter>(S);
}

} // namespace kosan
