//===- order_explain.cpp - Where two computations of one element part -----===//
//
// Both runs' fingerprints of an element are walked back through their
// operation logs (order_explain.h). The last common value is the largest
// value (by operations) that A's walk meets and B's walk holds too; each
// run's next step is the operation of its own walk that takes that value as
// an operand. Where the walks share no operation, each run's first
// operation (following the operand with more leaves, the accumulator of a
// chain) is named instead.
//
//===----------------------------------------------------------------------===//
#include "order_explain.h"

#include "kosan/diff.h"
#include "kosan/order.h"
#include "text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

namespace kosan::detail {

namespace {

// The inverse of an odd number modulo 2^64 (Newton's iteration: each step
// doubles the bits that are right, from 3).
constexpr uint64_t inverseOdd(uint64_t m) {
  uint64_t x = m;
  for (int i = 0; i < 6; ++i)
    x *= 2 - m * x;
  return x;
}
constexpr uint64_t kLeafMulInverse = inverseOdd(KOSAN_FP_LEAF_MUL);
static_assert(KOSAN_FP_LEAF_MUL * kLeafMulInverse == 1);

// Leaves are byte offsets from a parameter's value: a plausible one is
// below 2^40 (1 TiB); a random 64-bit value is, with a chance of 2^-24.
constexpr uint64_t kMaxLeafOffset = uint64_t(1) << 40;
// A parameter's leaves that are not a range are listed up to this many.
constexpr size_t kListedLeaves = 3;
// Parameters tried where the record does not describe the one a leaf names.
constexpr uint32_t kUndescribedArgs = 64;

uint64_t slotHash(uint64_t fp) {
  fp ^= fp >> 33;
  fp *= 0xff51afd7ed558ccdull;
  return fp ^ (fp >> 33);
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

const std::string kUnknownOp = "operation";
const std::string kNoLocation;

} // namespace

//===----------------------------------------------------------------------===//
// FingerprintTable
//===----------------------------------------------------------------------===//

FingerprintTable::FingerprintTable(size_t expected) {
  size_t capacity = 16;
  while (capacity < expected * 2)
    capacity <<= 1;
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
}

uint32_t FingerprintTable::find(uint64_t fp) const {
  for (uint64_t i = slotHash(fp) & mask_;; i = (i + 1) & mask_) {
    const Slot &slot = slots_[i];
    if (slot.value == kNone)
      return kNone;
    if (slot.key == fp)
      return slot.value;
  }
}

std::pair<uint32_t, bool> FingerprintTable::insert(uint64_t fp, uint32_t value) {
  if ((size_ + 1) * 2 > slots_.size())
    grow();
  for (uint64_t i = slotHash(fp) & mask_;; i = (i + 1) & mask_) {
    Slot &slot = slots_[i];
    if (slot.value == kNone) {
      slot = {fp, value};
      ++size_;
      return {value, true};
    }
    if (slot.key == fp)
      return {slot.value, false};
  }
}

void FingerprintTable::grow() {
  std::vector<Slot> slots(slots_.size() * 2);
  uint64_t mask = slots.size() - 1;
  for (const Slot &slot : slots_) {
    if (slot.value == kNone)
      continue;
    uint64_t i = slotHash(slot.key) & mask;
    while (slots[i].value != kNone)
      i = (i + 1) & mask;
    slots[i] = slot;
  }
  slots_ = std::move(slots);
  mask_ = mask;
}

//===----------------------------------------------------------------------===//
// OrderOpsIndex
//===----------------------------------------------------------------------===//

uint64_t unscrambleFingerprint(uint64_t y) {
  // y = t ^ (t >> 29) with t = x * M: undo the xorshift, then the multiply.
  uint64_t t = y ^ (y >> 29) ^ (y >> 58);
  return t * kLeafMulInverse;
}

OrderOpsIndex::OrderOpsIndex(const OrderOpsRecord &record, uint64_t dropped)
    : record_(&record), dropped_(dropped), byResult_(record.ops.size()) {
  size_t n = std::min<size_t>(record.ops.size(), FingerprintTable::kNone - 1);
  for (size_t i = 0; i < n; ++i) {
    const OrderOp &op = record.ops[i];
    byResult_.insert(kosan_fp_logged_result(op.op, op.a, op.b), uint32_t(i));
  }
}

const OrderOp *OrderOpsIndex::producer(uint64_t fp) const {
  uint32_t i = byResult_.find(fp);
  return i == FingerprintTable::kNone ? nullptr : &record_->ops[i];
}

const std::string &OrderOpsIndex::opName(const OrderOp &op) const {
  if (op.site < record_->sites.size() && !record_->sites[op.site].op.empty())
    return record_->sites[op.site].op;
  return kUnknownOp;
}

const std::string &OrderOpsIndex::location(const OrderOp &op) const {
  return op.site < record_->sites.size() ? record_->sites[op.site].location : kNoLocation;
}

bool OrderOpsIndex::unary(const OrderOp &op) const {
  return op.b == KOSAN_FP_UNARY_SALT && !producer(op.b);
}

FingerprintOrigin OrderOpsIndex::origin(uint64_t fp) const {
  if (producer(fp)) {
    FingerprintOrigin o;
    o.kind = FingerprintOrigin::Kind::Operation;
    return o;
  }
  return leafOrigin(fp);
}

FingerprintOrigin OrderOpsIndex::leafOrigin(uint64_t fp) const {
  FingerprintOrigin o;
  uint64_t x = unscrambleFingerprint(fp);
  // A leaf: x = byte offset ^ kosan_fp_arg_salt(arg).
  for (size_t i = 0; i < record_->params.size(); ++i) {
    const OrderParam &p = record_->params[i];
    uint64_t offset = x ^ kosan_fp_arg_salt(p.arg);
    uint32_t size = dtypeSize(p.dtype);
    if (offset < kMaxLeafOffset && offset % size == 0) {
      o.kind = FingerprintOrigin::Kind::Leaf;
      o.param = uint32_t(i);
      o.arg = p.arg;
      o.element = offset / size;
      o.dtype = p.dtype;
      return o;
    }
  }
  for (uint32_t arg = 0; arg < kUndescribedArgs; ++arg) {
    uint64_t offset = x ^ kosan_fp_arg_salt(arg);
    if (offset < kMaxLeafOffset) {
      o.kind = FingerprintOrigin::Kind::Leaf;
      o.arg = arg;
      o.element = offset;
      return o;
    }
  }
  // A content label: x = bits ^ salt ^ (dtype << 56). The narrow types
  // leave the dtype alone in the top byte; f64 bits reach into it, so any
  // fingerprint reads as some f64. One is taken only in a kernel with f64
  // parameters (or none described), and with an ordinary exponent.
  uint64_t v = x ^ KOSAN_FP_CONTENT_SALT;
  uint64_t low = v & ((uint64_t(1) << 56) - 1);
  DType top = DType(v >> 56);
  int width = top == DType::F32                              ? 32
              : top == DType::F16 || top == DType::BF16      ? 16
              : top == DType::F8E4M3 || top == DType::F8E5M2 ? 8
                                                             : 0;
  if (width > 0 && low >> width == 0) {
    o.kind = FingerprintOrigin::Kind::Content;
    o.dtype = top;
    o.bits = low;
    return o;
  }
  uint64_t bits = v ^ (uint64_t(DType::F64) << 56);
  uint64_t exponent = (bits >> 52) & 0x7ff;
  bool zero = (bits & ~(uint64_t(1) << 63)) == 0;
  bool infinite = exponent == 0x7ff && (bits & ((uint64_t(1) << 52) - 1)) == 0;
  bool f64Kernel = record_->params.empty() ||
                   std::any_of(record_->params.begin(), record_->params.end(),
                               [](const OrderParam &p) { return p.dtype == DType::F64; });
  if (f64Kernel && (zero || infinite || (exponent >= 1023 - 64 && exponent <= 1023 + 64))) {
    o.kind = FingerprintOrigin::Kind::Content;
    o.dtype = DType::F64;
    o.bits = bits;
    return o;
  }
  return o;
}

//===----------------------------------------------------------------------===//
// Walks
//===----------------------------------------------------------------------===//

namespace {

constexpr uint32_t kNone = FingerprintTable::kNone;

// The values one fingerprint is computed from, each once, as a graph of
// node ids: operations in post-order (operands first), with tree counts of
// their leaves and operations (saturating: a shared value counts once per
// use). Everything after the walk itself follows node ids, not hashes.
struct Walk {
  FingerprintTable ids;             // fingerprint -> node
  std::vector<uint64_t> fps;
  std::vector<const OrderOp *> ops; // nullptr: not a logged operation
  std::vector<std::array<uint32_t, 2>> operands; // nodes; kNone: none
  std::vector<uint64_t> leaves, opCount;
  std::vector<uint32_t> postorder;
  // Marks of the subtree walks (subtreeOf), one epoch each.
  std::vector<uint32_t> mark;
  uint32_t epoch = 0;

  uint32_t node(const OrderOpsIndex &index, uint64_t fp) {
    auto [id, inserted] = ids.insert(fp, uint32_t(fps.size()));
    if (inserted) {
      fps.push_back(fp);
      ops.push_back(index.producer(fp));
      operands.push_back({kNone, kNone});
      leaves.push_back(0);
      opCount.push_back(0);
    }
    return id;
  }
  uint32_t find(uint64_t fp) const { return ids.find(fp); }
  bool holds(uint64_t fp) const { return ids.contains(fp); }
};

Walk walkFrom(const OrderOpsIndex &index, uint64_t root) {
  Walk w;
  std::vector<uint8_t> state; // 0 new, 1 open (operands pending), 2 done
  std::vector<uint32_t> stack{w.node(index, root)};
  state.push_back(0);
  while (!stack.empty()) {
    uint32_t n = stack.back();
    if (state[n] == 2) {
      stack.pop_back(); // pushed twice, done the first time
      continue;
    }
    const OrderOp *op = w.ops[n];
    if (state[n] == 0) {
      state[n] = 1;
      if (!op)
        continue;
      uint64_t fps[2] = {op->a, op->b};
      for (int i = 0; i < (index.unary(*op) ? 1 : 2); ++i) {
        uint32_t c = w.node(index, fps[i]);
        state.resize(w.fps.size(), 0);
        w.operands[n][i] = c;
        // An open operand is an ancestor: a cycle, which a damaged log or a
        // collision could make. It is not followed.
        if (state[c] == 0)
          stack.push_back(c);
      }
      continue;
    }
    stack.pop_back();
    state[n] = 2;
    if (!op) {
      w.leaves[n] = 1;
    } else {
      w.opCount[n] = 1;
      for (uint32_t &c : w.operands[n]) {
        if (c == kNone)
          continue;
        if (state[c] != 2) {
          c = kNone; // the cycle's edge, left out
          continue;
        }
        w.leaves[n] = saturatingAdd(w.leaves[n], w.leaves[c]);
        w.opCount[n] = saturatingAdd(w.opCount[n], w.opCount[c]);
      }
    }
    w.postorder.push_back(n);
  }
  w.mark.assign(w.fps.size(), 0);
  return w;
}

// The distinct operations and leaves (nodes that are not logged
// operations) of the value of node n.
struct Subtree {
  uint64_t ops = 0;
  std::vector<uint64_t> leaves; // fingerprints
};

Subtree subtreeOf(Walk &w, uint32_t n) {
  Subtree s;
  uint32_t epoch = ++w.epoch;
  std::vector<uint32_t> stack{n};
  w.mark[n] = epoch;
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    if (!w.ops[x]) {
      s.leaves.push_back(w.fps[x]);
      continue;
    }
    ++s.ops;
    for (uint32_t c : w.operands[x])
      if (c != kNone && w.mark[c] != epoch) {
        w.mark[c] = epoch;
        stack.push_back(c);
      }
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Describing values
//===----------------------------------------------------------------------===//

std::string valueText(DType dtype, uint64_t bits) {
  double v = decodeElement(&bits, dtype);
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::to_chars_result r = dtype == DType::F64
                               ? std::to_chars(buf, buf + sizeof buf, v)
                               : std::to_chars(buf, buf + sizeof buf, float(v));
  return std::string(buf, r.ptr);
}

std::string paramName(const OrderOpsRecord &record, const FingerprintOrigin &o) {
  if (o.param != FingerprintOrigin::kNoParam && !record.params[o.param].name.empty())
    return record.params[o.param].name;
  return "arg" + std::to_string(o.arg);
}

// Where a leaf's element is a byte offset: its parameter's dtype is not known.
bool byBytes(const FingerprintOrigin &o) {
  return o.param == FingerprintOrigin::kNoParam || o.dtype == DType::Unknown;
}

std::string describeOrigin(const OrderOpsIndex &index, const FingerprintOrigin &o) {
  switch (o.kind) {
  case FingerprintOrigin::Kind::Leaf: {
    std::string name = paramName(index.record(), o);
    if (byBytes(o))
      return name + " at byte " + std::to_string(o.element);
    return name + "[" + std::to_string(o.element) + "]";
  }
  case FingerprintOrigin::Kind::Content:
    return std::string("the ") + dtypeName(o.dtype) + " value " + valueText(o.dtype, o.bits);
  case FingerprintOrigin::Kind::Operation:
  case FingerprintOrigin::Kind::Unknown:
    break;
  }
  return index.dropped() > 0
             ? "a value the operation log does not have (perhaps one of the " +
                   plural(index.dropped(), "operation", "operations") + " it dropped)"
             : "a value the operation log does not have";
}

// "x[0..511], w[0..3], 4 of y, the f32 value 1": leaves grouped by
// parameter, each group a range where its elements are contiguous.
std::vector<std::string> leafItems(const OrderOpsIndex &index,
                                   const std::vector<uint64_t> &leaves) {
  struct Group {
    FingerprintOrigin first;
    std::vector<uint64_t> elements;
  };
  std::map<std::pair<uint32_t, uint32_t>, Group> groups; // (param, arg)
  std::vector<FingerprintOrigin> contents;
  uint64_t unknown = 0;
  for (uint64_t fp : leaves) {
    FingerprintOrigin o = index.leafOrigin(fp);
    if (o.kind == FingerprintOrigin::Kind::Leaf) {
      Group &g = groups[{o.param, o.arg}];
      if (g.elements.empty())
        g.first = o;
      g.elements.push_back(o.element);
    } else if (o.kind == FingerprintOrigin::Kind::Content) {
      contents.push_back(o);
    } else {
      ++unknown;
    }
  }
  std::vector<std::string> items;
  for (auto &[key, g] : groups) {
    std::sort(g.elements.begin(), g.elements.end());
    g.elements.erase(std::unique(g.elements.begin(), g.elements.end()), g.elements.end());
    std::string name = paramName(index.record(), g.first);
    uint64_t lo = g.elements.front(), hi = g.elements.back();
    if (!byBytes(g.first) && g.elements.size() > 1 && hi - lo + 1 == g.elements.size()) {
      items.push_back(name + "[" + std::to_string(lo) + ".." + std::to_string(hi) + "]");
    } else if (g.elements.size() <= kListedLeaves) {
      for (uint64_t element : g.elements) {
        FingerprintOrigin o = g.first;
        o.element = element;
        items.push_back(describeOrigin(index, o));
      }
    } else {
      items.push_back(std::to_string(g.elements.size()) + " of " + name);
    }
  }
  if (contents.size() == 1)
    items.push_back(describeOrigin(index, contents[0]));
  else if (contents.size() > 1)
    items.push_back(std::to_string(contents.size()) + " other values");
  if (unknown > 0)
    items.push_back(plural(unknown, "value", "values") + " the operation log does not have");
  return items;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out;
}

// "512 values x[0..511]", "4 values of y" (one group, not contiguous).
std::string valuesPhrase(const OrderOpsIndex &index, const std::vector<uint64_t> &leaves) {
  std::vector<std::string> items = leafItems(index, leaves);
  uint64_t n = leaves.size();
  std::string count = std::to_string(n);
  if (items.size() == 1) {
    // Value-labelled leaves (order_leaves=value): values, and nothing more to say.
    if (items[0] == count + " other values")
      return plural(n, "value", "values");
    if (items[0] == plural(n, "value", "values") + " the operation log does not have")
      return items[0];
    if (items[0].rfind(count + " of ", 0) == 0)
      return plural(n, "value", "values") + items[0].substr(count.size());
  }
  return plural(n, "value", "values") + " " + join(items);
}

bool startsWith(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// The operations whose operands the pass sorts (docs/order.md): their
// operands' order says nothing, so descriptions put them in reading order.
bool commutativeOp(const std::string &name) {
  return name == "fadd" || name == "fmul" || name == "fma.mul" || name == "minnum" ||
         name == "maxnum" || name == "minimum" || name == "maximum" ||
         startsWith(name, "nvvm.add.") || startsWith(name, "nvvm.mul.") ||
         startsWith(name, "nvvm.fmin") || startsWith(name, "nvvm.fmax");
}

// Reading order of two leaves: parameters by index, elements ascending,
// then content labels.
bool readsBefore(const FingerprintOrigin &x, const FingerprintOrigin &y) {
  auto rank = [](const FingerprintOrigin &o) {
    return std::tuple(o.kind != FingerprintOrigin::Kind::Leaf, o.arg, o.element, o.bits);
  };
  return rank(x) < rank(y);
}

// The value of node n; where subtree is given, it is n's (computed once
// by the caller).
std::string describeNode(const OrderOpsIndex &index, Walk &w, uint32_t n, int depth = 0,
                         const Subtree *subtree = nullptr) {
  const OrderOp *op = w.ops[n];
  if (!op)
    return describeOrigin(index, index.leafOrigin(w.fps[n]));
  const std::string &name = index.opName(*op);
  auto [x, y] = w.operands[n];
  // One-operand operations name their operand, a few levels deep.
  if (index.unary(*op) && x != kNone && depth < 3)
    return "the " + name + " of " + describeNode(index, w, x, depth + 1);
  if (!index.unary(*op) && x != kNone && y != kNone && !w.ops[x] && !w.ops[y]) {
    if (commutativeOp(name) &&
        readsBefore(index.leafOrigin(w.fps[y]), index.leafOrigin(w.fps[x])))
      std::swap(x, y);
    return "the " + name + " of " + describeNode(index, w, x, depth + 1) + " and " +
           describeNode(index, w, y, depth + 1);
  }
  Subtree own;
  if (!subtree) {
    own = subtreeOf(w, n);
    subtree = &own;
  }
  return "the " + name + " of " + valuesPhrase(index, subtree->leaves);
}

} // namespace

std::string describeValue(const OrderOpsIndex &index, uint64_t fp) {
  Walk w = walkFrom(index, fp);
  return describeNode(index, w, 0);
}

//===----------------------------------------------------------------------===//
// explainParting
//===----------------------------------------------------------------------===//

namespace {

// The first operation of a walk (in post-order) that takes node v as an
// operand, or kNone.
uint32_t firstUse(const Walk &w, uint32_t v) {
  for (uint32_t n : w.postorder)
    if (w.operands[n][0] == v || w.operands[n][1] == v)
      return n;
  return kNone;
}

// A walk's first operation: down from the root, always into the operand
// with more leaves (the accumulator of a chain), to an operation whose
// operands are not operations.
uint32_t firstOperation(const Walk &w) {
  uint32_t n = 0;
  if (!w.ops[n])
    return kNone;
  for (size_t steps = 0; steps < w.fps.size(); ++steps) {
    uint32_t next = kNone;
    for (uint32_t c : w.operands[n])
      if (c != kNone && w.ops[c] && (next == kNone || w.leaves[c] > w.leaves[next]))
        next = c;
    if (next == kNone)
      return n;
    n = next;
  }
  return n;
}

std::string siteText(const OrderOpsIndex &index, const OrderOp &op) {
  const std::string &location = index.location(op);
  return location.empty() ? index.opName(op) : location + " " + index.opName(op);
}

// What operation node use does with node v ("it"): "adds x[4] to it".
std::string stepText(const OrderOpsIndex &index, Walk &w, uint32_t use, uint32_t v) {
  const OrderOp &op = *w.ops[use];
  const std::string &name = index.opName(op);
  auto [x, y] = w.operands[use];
  if (index.unary(op) || y == kNone)
    return "applies " + name + " to it";
  bool first = x == v;
  uint32_t other = first ? y : x;
  if (other == v)
    return "combines it with itself in " + name;
  std::string d = describeNode(index, w, other);
  bool larger = w.leaves[other] > w.leaves[v];
  if (name == "fadd" || startsWith(name, "nvvm.add."))
    return larger ? "adds it to " + d : "adds " + d + " to it";
  if (name == "fmul" || startsWith(name, "nvvm.mul."))
    return "multiplies it by " + d;
  if (name == "fsub")
    return first ? "subtracts " + d + " from it" : "subtracts it from " + d;
  if (name == "fdiv")
    return first ? "divides it by " + d : "divides " + d + " by it";
  if (name == "fma.mul")
    return "multiplies it by " + d + " in an fma";
  if (name == "fma" || startsWith(name, "nvvm.fma.")) {
    // The fma's product is described as "the fma.mul of a and b".
    const char *mul = "the fma.mul of ";
    if (!first && startsWith(d, mul))
      d = "the product of " + d.substr(std::strlen(mul));
    return "adds " + d + " to it in an fma";
  }
  if (commutativeOp(name))
    return "takes the " + name + " of it and " + d;
  return first ? "combines it with " + d + " in " + name
               : "combines " + d + " with it in " + name;
}

// "; A uses 4 values B does not (x[4..7])", or "".
std::string onlyText(const char *who, const char *other, const OrderOpsIndex &index,
                     const Walk &mine, const Walk &theirs) {
  std::vector<uint64_t> only;
  for (uint32_t n : mine.postorder)
    if (!mine.ops[n] && !theirs.holds(mine.fps[n]))
      only.push_back(mine.fps[n]);
  if (only.empty())
    return "";
  return std::string("; ") + who + " uses " +
         plural(only.size(), "value", "values") + " " + other + " does not (" +
         join(leafItems(index, only)) + ")";
}

std::string notLogged(const char *who, const OrderOpsIndex &index) {
  std::string out = std::string(who) + "'s value is not in " + who + "'s operation log";
  if (index.dropped() > 0)
    out += " (perhaps one of the " +
           plural(index.dropped(), "operation", "operations") + " it dropped)";
  return out;
}

} // namespace

OrderParting explainParting(const OrderOpsIndex &a, const OrderOpsIndex &b, uint64_t fpA,
                            uint64_t fpB) {
  OrderParting p;
  bool unknownA = a.origin(fpA).kind == FingerprintOrigin::Kind::Unknown;
  bool unknownB = b.origin(fpB).kind == FingerprintOrigin::Kind::Unknown;
  if (unknownA || unknownB) {
    p.missing = unknownA && unknownB ? notLogged("A", a) + ", nor B's in B's"
                : unknownA           ? notLogged("A", a)
                                     : notLogged("B", b);
    p.text = "not explained: " + p.missing;
    return p;
  }
  p.explained = true;
  Walk wa = walkFrom(a, fpA), wb = walkFrom(b, fpB);

  // The last common value: the operation of A's walk, also in B's, with
  // the most operations (ties: more leaves, then the first in post-order).
  uint32_t common = kNone;
  for (uint32_t n : wa.postorder) {
    if (!wa.ops[n] || !wb.holds(wa.fps[n]))
      continue;
    if (common == kNone || wa.opCount[n] > wa.opCount[common] ||
        (wa.opCount[n] == wa.opCount[common] && wa.leaves[n] > wa.leaves[common]))
      common = n;
  }

  auto withSite = [](const std::string &what, const std::string &site) {
    return site.empty() ? what : what + " (" + site + ")";
  };
  if (common != kNone) {
    Subtree shared = subtreeOf(wa, common);
    p.common_ops = shared.ops;
    p.common = describeNode(a, wa, common, 0, &shared);
    auto step = [&](const OrderOpsIndex &index, Walk &w, uint32_t v, std::string *what,
                    std::string *site) {
      uint32_t use = firstUse(w, v);
      if (use == kNone) {
        *what = "keeps it as its result";
        return;
      }
      *what = stepText(index, w, use, v);
      *site = siteText(index, *w.ops[use]);
    };
    step(a, wa, common, &p.a, &p.a_site);
    step(b, wb, wb.find(wa.fps[common]), &p.b, &p.b_site);
    p.text = (p.common_ops == 1 ? std::string("the first operation agrees")
                                : "the first " + std::to_string(p.common_ops) +
                                      " operations agree") +
             " (" + p.common + "); then A " + withSite(p.a, p.a_site) + ", B " +
             withSite(p.b, p.b_site);
  } else {
    auto first = [](const OrderOpsIndex &index, Walk &w, std::string *what,
                    std::string *site) {
      uint32_t n = firstOperation(w);
      if (n == kNone) {
        *what = describeNode(index, w, 0);
        return std::string("'s value is ") + *what + " itself";
      }
      *what = describeNode(index, w, n);
      *site = siteText(index, *w.ops[n]);
      return std::string("'s first operation is ") + *what + " (" + *site + ")";
    };
    std::string textA = first(a, wa, &p.a, &p.a_site);
    std::string textB = first(b, wb, &p.b, &p.b_site);
    p.text = "no operation agrees: A" + textA + ", B" + textB;
  }
  p.text += onlyText("A", "B", a, wa, wb) + onlyText("B", "A", b, wb, wa);
  return p;
}

} // namespace kosan::detail
