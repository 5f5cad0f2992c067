//===- entry_test.cpp - Which blocks pass a kernel's entry test ----------===//
//
// Interval arithmetic over LLVM's fixed-width integers: a value of w bits
// is an interval [lo, hi] of exact integers standing for their residues
// modulo 2^w, hi - lo < 2^w, shifted so that lo lies in [-2^(w-1),
// 2^(w-1)). The unsigned and the signed reading of the interval are exact
// whenever it does not straddle the boundary of that reading (0 for
// unsigned, 2^(w-1) for signed); where it does, the reading is the whole
// range of the type. Every operation's result holds every value the
// operation yields on members of its operands (inclusion), so a test that
// evaluates to [1, 1] over a box of blocks holds in each of its blocks.
//
//===----------------------------------------------------------------------===//
#include "core/entry_test.h"

#include <algorithm>
#include <cstring>

namespace kosan::rt {

namespace {

using i128 = __int128;

constexpr unsigned kOperands[] = {
#define KOSAN_ENTRY_OPERANDS_(name, operands) operands,
    KOSAN_ENTRY_OPS(KOSAN_ENTRY_OPERANDS_)
#undef KOSAN_ENTRY_OPERANDS_
};
static_assert(sizeof(kOperands) / sizeof(kOperands[0]) == KOSAN_ENTRY_NUM_OPS);

i128 pow2(unsigned k) { return i128(1) << k; }
uint64_t mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

// floor(a / 2^k) for k < 127.
i128 floorShift(i128 a, unsigned k) { return a >> k; }

struct Iv {
  i128 lo, hi;
};

Iv normalize(i128 lo, i128 hi, unsigned w) {
  const i128 p = pow2(w), half = p >> 1;
  if (hi - lo >= p)
    return {0, p - 1};
  if (lo >= -half && lo < half)
    return {lo, hi};
  i128 shift = floorShift(lo + half, w) * p;
  return {lo - shift, hi - shift};
}
Iv point(uint64_t v, unsigned w) {
  v &= mask(w);
  return normalize(i128(v), i128(v), w);
}
bool isPoint(const Iv &a) { return a.lo == a.hi; }

// [lo, hi] in the unsigned reading, within [0, 2^w).
Iv unsignedView(const Iv &a, unsigned w) {
  if (a.lo >= 0 && a.hi < pow2(w))
    return a;
  if (a.hi < 0)
    return {a.lo + pow2(w), a.hi + pow2(w)};
  return {0, pow2(w) - 1};
}
// [lo, hi] in the signed reading, within [-2^(w-1), 2^(w-1)).
Iv signedView(const Iv &a, unsigned w) {
  if (a.hi < pow2(w - 1))
    return a;
  return {-pow2(w - 1), pow2(w - 1) - 1};
}
uint64_t pointValue(const Iv &a, unsigned w) { return uint64_t(unsignedView(a, w).lo); }

Iv mul(const Iv &a, const Iv &b, unsigned w) {
  if (isPoint(a) && isPoint(b))
    return point(pointValue(a, w) * pointValue(b, w), w);
  i128 c[4];
  if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
      __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
    return {0, pow2(w) - 1};
  return normalize(*std::min_element(c, c + 4), *std::max_element(c, c + 4), w);
}

// Three-valued: 1 true, 0 false, -1 either.
int truth(const Iv &a) {
  Iv u = unsignedView(a, 1);
  return u.lo == u.hi ? int(u.lo) : -1;
}
Iv boolean(int t) { return t < 0 ? Iv{-1, 0} : point(uint64_t(t), 1); }

int compare(uint32_t pred, const Iv &a, const Iv &b, unsigned w) {
  bool isSigned = pred >= KOSAN_ENTRY_CMP_SGT;
  Iv x = isSigned ? signedView(a, w) : unsignedView(a, w);
  Iv y = isSigned ? signedView(b, w) : unsignedView(b, w);
  switch (pred) {
  case KOSAN_ENTRY_CMP_EQ:
  case KOSAN_ENTRY_CMP_NE: {
    int eq = isPoint(x) && isPoint(y) && x.lo == y.lo ? 1 : (x.hi < y.lo || y.hi < x.lo) ? 0 : -1;
    return eq < 0 ? -1 : pred == KOSAN_ENTRY_CMP_EQ ? eq : !eq;
  }
  case KOSAN_ENTRY_CMP_UGT:
  case KOSAN_ENTRY_CMP_SGT:
    return x.lo > y.hi ? 1 : x.hi <= y.lo ? 0 : -1;
  case KOSAN_ENTRY_CMP_UGE:
  case KOSAN_ENTRY_CMP_SGE:
    return x.lo >= y.hi ? 1 : x.hi < y.lo ? 0 : -1;
  case KOSAN_ENTRY_CMP_ULT:
  case KOSAN_ENTRY_CMP_SLT:
    return x.hi < y.lo ? 1 : x.lo >= y.hi ? 0 : -1;
  default: // ULE, SLE
    return x.hi <= y.lo ? 1 : x.lo > y.hi ? 0 : -1;
  }
}

uint64_t readBytes(const void *from, unsigned bits) {
  uint64_t v = 0;
  std::memcpy(&v, from, (bits + 7) / 8);
  return v;
}

} // namespace

std::string checkEntryProgram(std::span<const kosan_entry_op> ops,
                              std::span<const size_t> paramSizes, size_t infoBytes) {
  if (ops.empty())
    return "an empty entry program";
  for (size_t i = 0; i < ops.size(); ++i) {
    const kosan_entry_op &o = ops[i];
    std::string at = "entry program operation " + std::to_string(i) + ": ";
    if (o.op >= KOSAN_ENTRY_NUM_OPS)
      return at + "unknown opcode " + std::to_string(o.op);
    if (o.bits < 1 || o.bits > 64)
      return at + "width " + std::to_string(o.bits);
    const uint32_t operand[3] = {o.a, o.b, o.c};
    for (unsigned k = 0; k < kOperands[o.op]; ++k)
      if (operand[k] >= i)
        return at + "an operand that does not come before it";
    auto bitsOf = [&](unsigned k) { return ops[operand[k]].bits; };
    bool ok = true;
    switch (o.op) {
    case KOSAN_ENTRY_PARAM:
      ok = o.imm < paramSizes.size() && size_t(o.bits + 7) / 8 <= paramSizes[o.imm];
      break;
    case KOSAN_ENTRY_INFO:
      ok = o.imm <= infoBytes && size_t(o.bits + 7) / 8 <= infoBytes - o.imm;
      break;
    case KOSAN_ENTRY_BLOCK_ID:
    case KOSAN_ENTRY_BLOCK_DIM:
    case KOSAN_ENTRY_GRID_DIM:
      ok = o.imm < 3;
      break;
    case KOSAN_ENTRY_ZEXT:
    case KOSAN_ENTRY_SEXT:
      ok = bitsOf(0) <= o.bits;
      break;
    case KOSAN_ENTRY_TRUNC:
      ok = bitsOf(0) >= o.bits;
      break;
    case KOSAN_ENTRY_ICMP:
      ok = o.bits == 1 && o.imm < KOSAN_ENTRY_NUM_CMPS && bitsOf(0) == bitsOf(1);
      break;
    case KOSAN_ENTRY_SELECT:
      ok = bitsOf(0) == 1 && bitsOf(1) == o.bits && bitsOf(2) == o.bits;
      break;
    case KOSAN_ENTRY_CONST:
      break;
    default: // binary operations of one width
      ok = bitsOf(0) == o.bits && bitsOf(1) == o.bits;
      break;
    }
    if (!ok)
      return at + "operands or immediate do not fit the operation";
  }
  if (ops.back().bits != 1)
    return "an entry program whose result is not a truth value";
  return "";
}

namespace {
int evaluate(std::span<const kosan_entry_op> ops, const EntryLaunch &L, const uint32_t lo[3],
             const uint32_t hi[3], std::vector<Iv> &v) {
  v.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const kosan_entry_op &o = ops[i];
    const unsigned w = o.bits;
    const Iv &a = v[o.a < i ? o.a : 0], &b = v[o.b < i ? o.b : 0], &c = v[o.c < i ? o.c : 0];
    const unsigned wa = ops[o.a < i ? o.a : 0].bits;
    Iv r{0, pow2(w) - 1};
    switch (o.op) {
    case KOSAN_ENTRY_CONST:
      r = point(o.imm, w);
      break;
    case KOSAN_ENTRY_PARAM:
      r = point(readBytes(L.args[o.imm], w), w);
      break;
    case KOSAN_ENTRY_INFO:
      r = point(readBytes(L.info + o.imm, w), w);
      break;
    case KOSAN_ENTRY_BLOCK_ID:
      r = normalize(lo[o.imm], hi[o.imm], w);
      break;
    case KOSAN_ENTRY_BLOCK_DIM:
      r = point(L.block[o.imm], w);
      break;
    case KOSAN_ENTRY_GRID_DIM:
      r = point(L.grid[o.imm], w);
      break;
    case KOSAN_ENTRY_ADD:
      r = normalize(a.lo + b.lo, a.hi + b.hi, w);
      break;
    case KOSAN_ENTRY_SUB:
      r = normalize(a.lo - b.hi, a.hi - b.lo, w);
      break;
    case KOSAN_ENTRY_MUL:
      r = mul(a, b, w);
      break;
    case KOSAN_ENTRY_SHL:
    case KOSAN_ENTRY_LSHR:
    case KOSAN_ENTRY_ASHR: {
      if (!isPoint(b))
        break;
      uint64_t k = pointValue(b, w);
      if (k >= w) // poison in LLVM: any value will do
        break;
      if (o.op == KOSAN_ENTRY_SHL) {
        r = isPoint(a) ? point(pointValue(a, w) << k, w) : mul(a, point(1ull << k, w), w);
      } else if (o.op == KOSAN_ENTRY_LSHR) {
        Iv u = unsignedView(a, w);
        r = normalize(floorShift(u.lo, unsigned(k)), floorShift(u.hi, unsigned(k)), w);
      } else {
        Iv s = signedView(a, w);
        r = normalize(floorShift(s.lo, unsigned(k)), floorShift(s.hi, unsigned(k)), w);
      }
      break;
    }
    case KOSAN_ENTRY_AND:
    case KOSAN_ENTRY_OR:
    case KOSAN_ENTRY_XOR:
      if (isPoint(a) && isPoint(b)) {
        uint64_t x = pointValue(a, w), y = pointValue(b, w);
        r = point(o.op == KOSAN_ENTRY_AND ? x & y : o.op == KOSAN_ENTRY_OR ? x | y : x ^ y, w);
      } else if (w == 1) {
        int x = truth(a), y = truth(b);
        if (o.op == KOSAN_ENTRY_AND)
          r = boolean(x == 0 || y == 0 ? 0 : x == 1 && y == 1 ? 1 : -1);
        else if (o.op == KOSAN_ENTRY_OR)
          r = boolean(x == 1 || y == 1 ? 1 : x == 0 && y == 0 ? 0 : -1);
        else
          r = boolean(-1);
      } else if (o.op == KOSAN_ENTRY_AND && (isPoint(a) || isPoint(b))) {
        // x & m lies in [0, min(x, m)] (unsigned).
        Iv m = unsignedView(isPoint(a) ? a : b, w), x = unsignedView(isPoint(a) ? b : a, w);
        r = normalize(0, std::min(m.hi, x.hi), w);
      }
      break;
    case KOSAN_ENTRY_ZEXT: {
      Iv u = unsignedView(a, wa);
      r = normalize(u.lo, u.hi, w);
      break;
    }
    case KOSAN_ENTRY_SEXT: {
      Iv s = signedView(a, wa);
      r = normalize(s.lo, s.hi, w);
      break;
    }
    case KOSAN_ENTRY_TRUNC:
      r = normalize(a.lo, a.hi, w);
      break;
    case KOSAN_ENTRY_ICMP:
      r = boolean(compare(uint32_t(o.imm), a, b, wa));
      break;
    case KOSAN_ENTRY_SELECT: {
      int t = truth(a);
      r = t == 1 ? b : t == 0 ? c : normalize(std::min(b.lo, c.lo), std::max(b.hi, c.hi), w);
      break;
    }
    case KOSAN_ENTRY_UMIN:
    case KOSAN_ENTRY_UMAX:
    case KOSAN_ENTRY_SMIN:
    case KOSAN_ENTRY_SMAX: {
      bool isSigned = o.op == KOSAN_ENTRY_SMIN || o.op == KOSAN_ENTRY_SMAX;
      Iv x = isSigned ? signedView(a, w) : unsignedView(a, w);
      Iv y = isSigned ? signedView(b, w) : unsignedView(b, w);
      bool isMin = o.op == KOSAN_ENTRY_UMIN || o.op == KOSAN_ENTRY_SMIN;
      r = isMin ? normalize(std::min(x.lo, y.lo), std::min(x.hi, y.hi), w)
                : normalize(std::max(x.lo, y.lo), std::max(x.hi, y.hi), w);
      break;
    }
    default:
      break;
    }
    v[i] = r;
  }
  return truth(v.back());
}
} // namespace

int evalEntryProgram(std::span<const kosan_entry_op> ops, const EntryLaunch &L,
                     const uint32_t lo[3], const uint32_t hi[3]) {
  std::vector<Iv> v;
  return evaluate(ops, L, lo, hi, v);
}

FastBlocks fastBlocks(std::span<const kosan_entry_op> ops, uint32_t dims,
                      const EntryLaunch &L) {
  FastBlocks none;
  uint32_t lo[3], hi[3];
  for (unsigned d = 0; d < 3; ++d) {
    if (!L.grid[d])
      return none;
    lo[d] = 0;
    hi[d] = L.grid[d] - 1;
  }
  std::vector<Iv> scratch;
  auto holds = [&] { return evaluate(ops, L, lo, hi, scratch) == 1; };
  auto result = [&] {
    FastBlocks f;
    for (unsigned d = 0; d < 3; ++d) {
      f.lo[d] = lo[d];
      f.n[d] = hi[d] - lo[d] + 1;
    }
    return f;
  };
  // The whole grid: the test proven for every block, or proven false for
  // every block (a tile too short for any block): no search either way.
  if (int whole = evaluate(ops, L, lo, hi, scratch); whole == 1)
    return result();
  else if (whole == 0)
    return none;
  unsigned used[3], nused = 0;
  for (unsigned d = 0; d < 3; ++d)
    if (dims >> d & 1)
      used[nused++] = d;
  if (!nused)
    return none;
  // One dimension: a tail block (if (i < n) in the last block) or a halo
  // (the first and the last) fails; each of these boxes is the largest
  // there is when it holds and the larger ones do not.
  if (nused == 1 && L.grid[used[0]] >= 3) {
    unsigned d = used[0];
    uint32_t last = L.grid[d] - 1;
    for (auto [a, b] : {std::pair<uint32_t, uint32_t>{0, last - 1}, {1, last}, {1, last - 1}}) {
      lo[d] = a;
      hi[d] = b;
      if (holds())
        return result();
    }
    lo[d] = 0;
    hi[d] = last;
  }
  // A block that passes: the middle first, then next to the edges (a halo
  // fails in the first and the last block), the edges, the quarters.
  std::vector<uint32_t> tries[3];
  for (unsigned k = 0; k < nused; ++k) {
    uint32_t g = L.grid[used[k]];
    for (uint64_t t : {uint64_t(g / 2), uint64_t(1), uint64_t(g) - 2, uint64_t(0),
                       uint64_t(g) - 1, uint64_t(g / 4), uint64_t(g) * 3 / 4})
      if (t < g && std::find(tries[k].begin(), tries[k].end(), uint32_t(t)) == tries[k].end())
        tries[k].push_back(uint32_t(t));
  }
  bool found = false;
  unsigned pick[3] = {0, 0, 0};
  for (unsigned attempt = 0; attempt < 64 && !found; ++attempt) {
    // The diagonal (the same kind of try in every dimension) first, then
    // the mixed ones.
    unsigned code = attempt;
    for (unsigned k = 0; k < nused; ++k) {
      size_t n = tries[k].size();
      pick[k] = attempt < 7 ? std::min<size_t>(attempt, n - 1) : code % n;
      code /= unsigned(n);
    }
    for (unsigned k = 0; k < nused; ++k)
      lo[used[k]] = hi[used[k]] = tries[k][pick[k]];
    found = holds();
  }
  if (!found)
    return none;
  // Widen the box one dimension at a time; each step keeps a proven box.
  // The blocks that fail lie at the edges in the kernels this is for (a
  // halo, a tail), so each end gallops from the grid's edge inward (the
  // edge, then 1, 3, 7, ... blocks in) and bisects between the last try
  // that failed and the first that held: about 2 log2 of the failing
  // blocks' depth evaluations, where a bisection from the passing block
  // takes log2 of the grid.
  auto widen = [&](uint32_t &end, uint32_t edge, uint32_t good, bool down) {
    // Distances from the edge: `good` held, `bad` (when any) failed.
    auto place = [&](uint64_t dist) { end = down ? edge + uint32_t(dist) : edge - uint32_t(dist); };
    uint64_t goodDist = down ? good - edge : edge - good;
    int64_t badDist = -1;
    for (uint64_t step = 1; step - 1 < goodDist; step *= 2) {
      place(step - 1);
      if (holds()) {
        goodDist = step - 1;
        break;
      }
      badDist = int64_t(step - 1);
    }
    uint64_t low = uint64_t(badDist + 1), high = goodDist;
    while (low < high) {
      uint64_t mid = low + (high - low) / 2;
      place(mid);
      if (holds())
        high = mid;
      else
        low = mid + 1;
    }
    place(high);
  };
  for (unsigned k = 0; k < nused; ++k) {
    unsigned d = used[k];
    widen(lo[d], 0, lo[d], true);
    widen(hi[d], L.grid[d] - 1, hi[d], false);
  }
  return result();
}

std::vector<uint64_t> entryLeaves(std::span<const kosan_entry_op> ops, const EntryLaunch &L) {
  std::vector<uint64_t> out = {L.grid[0], L.grid[1], L.grid[2],
                               L.block[0], L.block[1], L.block[2]};
  for (const kosan_entry_op &o : ops)
    if (o.op == KOSAN_ENTRY_PARAM)
      out.push_back(readBytes(L.args[o.imm], o.bits) & mask(o.bits));
    else if (o.op == KOSAN_ENTRY_INFO)
      out.push_back(readBytes(L.info + o.imm, o.bits) & mask(o.bits));
  return out;
}

} // namespace kosan::rt
