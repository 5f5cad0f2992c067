//===- order_explain_test.cpp - Where two computations of one element part -===//
#include "order_explain.h"

#include "kosan/order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

using namespace kosan;
using namespace kosan::detail;

namespace {

// The inverse of KOSAN_FP_MUL modulo 2^64.
constexpr uint64_t inverseOfMul() {
  uint64_t m = KOSAN_FP_MUL, x = m;
  for (int i = 0; i < 6; ++i)
    x *= 2 - m * x;
  return x;
}

// One run's operation log, built the way an instrumented kernel computes
// fingerprints (include/kosan/order.h).
class Ops {
public:
  Ops() {
    record.params = {{0, "x", DType::F32}, {1, "w", DType::F16}, {2, "out", DType::F32}};
  }

  static uint64_t leaf(uint32_t arg, uint64_t element, uint32_t size = 4) {
    return kosan_fp_leaf(arg, element * size);
  }
  static uint64_t f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return kosan_fp_content(bits, uint32_t(DType::F32));
  }

  uint64_t op(const std::string &name, const std::string &location, uint64_t a, uint64_t b) {
    if ((name == "fadd" || name == "fmul") && b < a)
      std::swap(a, b);
    OrderOpSite site{name, location};
    auto it = std::find(record.sites.begin(), record.sites.end(), site);
    if (it == record.sites.end())
      it = record.sites.insert(record.sites.end(), site);
    uint64_t code = kosan_fp_op(name.c_str());
    record.ops.push_back({a, b, code, uint32_t(it - record.sites.begin())});
    return kosan_fp_combine(code, a, b);
  }
  uint64_t add(const std::string &location, uint64_t a, uint64_t b) {
    return op("fadd", location, a, b);
  }
  uint64_t unary(const std::string &name, const std::string &location, uint64_t a) {
    return op(name, location, a, KOSAN_FP_UNARY_SALT);
  }
  // ((x[first] + x[first+1]) + ...) over n elements of parameter arg.
  uint64_t chain(const std::string &location, uint32_t arg, uint64_t first, uint64_t n) {
    uint64_t acc = leaf(arg, first);
    for (uint64_t i = 1; i < n; ++i)
      acc = add(location, acc, leaf(arg, first + i));
    return acc;
  }
  // Pairwise: each half, then their sum.
  uint64_t tree(const std::string &location, uint32_t arg, uint64_t first, uint64_t n) {
    if (n == 1)
      return leaf(arg, first);
    return add(location, tree(location, arg, first, n / 2),
               tree(location, arg, first + n / 2, n - n / 2));
  }

  // The index, over the log sorted and deduplicated as the runtime writes it.
  OrderOpsIndex index(uint64_t dropped = 0) {
    auto key = [](const OrderOp &o) { return std::tuple(o.a, o.b, o.op, o.site); };
    std::sort(record.ops.begin(), record.ops.end(),
              [&](const OrderOp &x, const OrderOp &y) { return key(x) < key(y); });
    record.ops.erase(std::unique(record.ops.begin(), record.ops.end()), record.ops.end());
    return OrderOpsIndex(record, dropped);
  }

  OrderOpsRecord record;
};

TEST(OrderExplain, UnscrambleInvertsTheScramble) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    uint64_t x = rng();
    EXPECT_EQ(unscrambleFingerprint(kosan_fp_scramble(x)), x);
  }
  EXPECT_EQ(unscrambleFingerprint(kosan_fp_scramble(0)), 0u);
}

TEST(OrderExplain, TableHoldsMillionsAndAnyKey) {
  FingerprintTable t;
  for (uint32_t i = 0; i < 1000000; ++i)
    EXPECT_TRUE(t.insert(uint64_t(i) * 0x9e3779b97f4a7c15ull, i).second);
  EXPECT_EQ(t.size(), 1000000u);
  EXPECT_EQ(t.find(uint64_t(123456) * 0x9e3779b97f4a7c15ull), 123456u);
  EXPECT_EQ(t.insert(0, 99).first, 0u); // 0 was inserted first (i = 0)
  EXPECT_EQ(t.find(1), FingerprintTable::kNone);
}

TEST(OrderExplain, OriginsOfLeavesAndContentLabels) {
  Ops ops;
  uint64_t sum = ops.add("k.cu:1:1", Ops::leaf(0, 1), Ops::leaf(0, 2));
  OrderOpsIndex index = ops.index();

  FingerprintOrigin x = index.origin(Ops::leaf(0, 512));
  EXPECT_EQ(x.kind, FingerprintOrigin::Kind::Leaf);
  EXPECT_EQ(x.param, 0u);
  EXPECT_EQ(x.element, 512u);
  FingerprintOrigin w = index.origin(Ops::leaf(1, 7, 2)); // f16: 2 bytes an element
  EXPECT_EQ(w.kind, FingerprintOrigin::Kind::Leaf);
  EXPECT_EQ(w.arg, 1u);
  EXPECT_EQ(w.element, 7u);
  // A parameter the record does not describe: by byte offset.
  FingerprintOrigin other = index.origin(kosan_fp_leaf(5, 12));
  EXPECT_EQ(other.kind, FingerprintOrigin::Kind::Leaf);
  EXPECT_EQ(other.param, FingerprintOrigin::kNoParam);
  EXPECT_EQ(other.arg, 5u);
  EXPECT_EQ(other.element, 12u);

  FingerprintOrigin c = index.origin(Ops::f32(0.25f));
  EXPECT_EQ(c.kind, FingerprintOrigin::Kind::Content);
  EXPECT_EQ(c.dtype, DType::F32);
  EXPECT_EQ(c.bits, 0x3e800000u);
  EXPECT_EQ(index.origin(sum).kind, FingerprintOrigin::Kind::Operation);
  EXPECT_EQ(index.origin(0x1234).kind, FingerprintOrigin::Kind::Unknown);

  EXPECT_EQ(describeValue(index, Ops::leaf(0, 512)), "x[512]");
  EXPECT_EQ(describeValue(index, Ops::leaf(1, 7, 2)), "w[7]");
  EXPECT_EQ(describeValue(index, kosan_fp_leaf(5, 12)), "arg5 at byte 12");
  EXPECT_EQ(describeValue(index, Ops::f32(0.25f)), "the f32 value 0.25");
  EXPECT_EQ(describeValue(index, kosan_fp_content(0x3c00, uint32_t(DType::F16))),
            "the f16 value 1");
  EXPECT_EQ(describeValue(index, sum), "the fadd of x[1] and x[2]");
  EXPECT_EQ(describeValue(index, 0x1234), "a value the operation log does not have");
  OrderOpsIndex lossy = ops.index(/*dropped=*/3);
  EXPECT_EQ(describeValue(lossy, 0x1234), "a value the operation log does not have "
                                          "(perhaps one of the 3 operations it dropped)");
}

TEST(OrderExplain, F64ContentOnlyInF64Kernels) {
  double half = 0.5;
  uint64_t bits;
  std::memcpy(&bits, &half, 8);
  uint64_t fp = kosan_fp_content(bits, uint32_t(DType::F64));
  Ops f32Kernel;
  EXPECT_EQ(f32Kernel.index().origin(fp).kind, FingerprintOrigin::Kind::Unknown);
  Ops f64Kernel;
  f64Kernel.record.params = {{0, "x", DType::F64}};
  OrderOpsIndex index = f64Kernel.index();
  EXPECT_EQ(describeValue(index, fp), "the f64 value 0.5");
  EXPECT_EQ(describeValue(index, kosan_fp_leaf(0, 24)), "x[3]");
}

TEST(OrderExplain, DescribesValuesByLeavesAndRanges) {
  Ops ops;
  uint64_t chain = ops.chain("k.cu:3:5", 0, 0, 512);
  uint64_t mixed = ops.add("k.cu:4:5", ops.chain("k.cu:3:5", 0, 600, 4),
                           ops.add("k.cu:4:5", Ops::leaf(1, 0, 2), Ops::leaf(1, 1, 2)));
  uint64_t gaps = ops.add("k.cu:5:5", ops.add("k.cu:5:5", Ops::leaf(0, 1), Ops::leaf(0, 5)),
                          Ops::leaf(0, 9));
  uint64_t sparse = ops.add("k.cu:5:5", gaps, Ops::leaf(0, 13));
  uint64_t root = ops.unary("sqrt.f32", "k.cu:6:5", chain);
  uint64_t scaled = ops.op("fmul", "k.cu:7:5", Ops::leaf(0, 3), Ops::f32(2));
  OrderOpsIndex index = ops.index();
  EXPECT_EQ(describeValue(index, chain), "the fadd of 512 values x[0..511]");
  EXPECT_EQ(describeValue(index, mixed), "the fadd of 6 values x[600..603], w[0..1]");
  EXPECT_EQ(describeValue(index, gaps), "the fadd of 3 values x[1], x[5], x[9]");
  EXPECT_EQ(describeValue(index, sparse), "the fadd of 4 values of x");
  EXPECT_EQ(describeValue(index, root), "the sqrt.f32 of the fadd of 512 values x[0..511]");
  EXPECT_EQ(describeValue(index, scaled), "the fmul of x[3] and the f32 value 2");
}

// The split-K case: A sums 1024 values in one chain, B in two chains of 512
// that it adds at the end.
TEST(OrderExplain, SplitKPartsAfterTheFirstSplit) {
  Ops a, b;
  uint64_t fpA = a.chain("splitk.cu:14:9", 0, 0, 1024);
  uint64_t fpB = b.add("splitk.cu:22:7", b.chain("splitk.cu:14:9", 0, 0, 512),
                       b.chain("splitk.cu:14:9", 0, 512, 512));
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, fpB);
  EXPECT_TRUE(p.explained);
  EXPECT_EQ(p.missing, "");
  EXPECT_EQ(p.common_ops, 511u);
  EXPECT_EQ(p.common, "the fadd of 512 values x[0..511]");
  EXPECT_EQ(p.a, "adds x[512] to it");
  EXPECT_EQ(p.a_site, "splitk.cu:14:9 fadd");
  EXPECT_EQ(p.b, "adds the fadd of 512 values x[512..1023] to it");
  EXPECT_EQ(p.b_site, "splitk.cu:22:7 fadd");
  EXPECT_EQ(p.text, "the first 511 operations agree (the fadd of 512 values x[0..511]); then "
                    "A adds x[512] to it (splitk.cu:14:9 fadd), B adds the fadd of 512 values "
                    "x[512..1023] to it (splitk.cu:22:7 fadd)");

  // The other way round.
  OrderParting q = explainParting(ib, ia, fpB, fpA);
  EXPECT_EQ(q.a, "adds the fadd of 512 values x[512..1023] to it");
  EXPECT_EQ(q.b, "adds x[512] to it");
}

TEST(OrderExplain, TreeAgainstChain) {
  Ops a, b;
  uint64_t fpA = a.tree("tree.cu:9:5", 0, 0, 8);
  uint64_t fpB = b.chain("chain.cu:12:5", 0, 0, 8);
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, fpB);
  EXPECT_EQ(p.text, "the first operation agrees (the fadd of x[0] and x[1]); then A adds the "
                    "fadd of x[2] and x[3] to it (tree.cu:9:5 fadd), B adds x[2] to it "
                    "(chain.cu:12:5 fadd)");
  EXPECT_EQ(p.common_ops, 1u);
}

TEST(OrderExplain, NoCommonOperation) {
  Ops a, b;
  uint64_t fpA = a.add("k.cu:9:5", a.add("k.cu:9:5", Ops::leaf(0, 0), Ops::leaf(0, 1)),
                       a.add("k.cu:9:5", Ops::leaf(0, 2), Ops::leaf(0, 3)));
  uint64_t fpB = b.add("k.cu:9:5", b.add("k.cu:9:5", Ops::leaf(0, 0), Ops::leaf(0, 2)),
                       b.add("k.cu:9:5", Ops::leaf(0, 1), Ops::leaf(0, 3)));
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, fpB);
  EXPECT_TRUE(p.explained);
  EXPECT_EQ(p.common_ops, 0u);
  EXPECT_EQ(p.common, "");
  // The first operation is under the operand with more leaves, the first
  // where they tie: which pair that is follows the fingerprints.
  EXPECT_EQ(p.text.rfind("no operation agrees: A's first operation is the fadd of x[", 0), 0u)
      << p.text;
  EXPECT_NE(p.text.find(" (k.cu:9:5 fadd), B's first operation is the fadd of x["),
            std::string::npos)
      << p.text;
  EXPECT_EQ(p.text.find(" uses "), std::string::npos) << p.text; // the same leaves
}

TEST(OrderExplain, DifferentLeavesAreNamed) {
  Ops a, b;
  uint64_t fpA = a.chain("k.cu:3:5", 0, 0, 8);
  uint64_t acc = b.chain("k.cu:3:5", 0, 0, 4);
  for (uint64_t i = 4; i < 8; ++i)
    acc = b.add("k.cu:3:5", acc, Ops::leaf(1, i, 2));
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, acc);
  EXPECT_EQ(p.text, "the first 3 operations agree (the fadd of 4 values x[0..3]); then A adds "
                    "x[4] to it (k.cu:3:5 fadd), B adds w[4] to it (k.cu:3:5 fadd); A uses 4 "
                    "values B does not (x[4..7]); B uses 4 values A does not (w[4..7])");
}

TEST(OrderExplain, ResultOfOneIsAnIntermediateOfTheOther) {
  Ops a, b;
  uint64_t fpA = a.chain("k.cu:3:5", 0, 0, 4);
  uint64_t fpB = b.unary("fneg", "k.cu:8:3", b.chain("k.cu:3:5", 0, 0, 4));
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, fpB);
  EXPECT_EQ(p.text, "the first 3 operations agree (the fadd of 4 values x[0..3]); then A keeps "
                    "it as its result, B applies fneg to it (k.cu:8:3 fneg)");
  EXPECT_EQ(p.a_site, "");
}

TEST(OrderExplain, AValueMissingFromTheLogIsNotExplained) {
  Ops a, b;
  uint64_t fpA = a.chain("k.cu:3:5", 0, 0, 4);
  b.chain("k.cu:3:5", 0, 0, 4);
  OrderOpsIndex ia = a.index(), ib = b.index(/*dropped=*/12);
  OrderParting p = explainParting(ia, ib, fpA, 0xdeadbeef);
  EXPECT_FALSE(p.explained);
  EXPECT_EQ(p.missing, "B's value is not in B's operation log (perhaps one of the 12 "
                       "operations it dropped)");
  EXPECT_EQ(p.text, "not explained: " + p.missing);

  // A lost operation inside the walk (x[0] + x[2], not logged): the
  // explanation stops there.
  Ops c;
  uint64_t x0 = Ops::leaf(0, 0), x2 = Ops::leaf(0, 2);
  uint64_t lost = kosan_fp_combine(kosan_fp_op("fadd"), std::min(x0, x2), std::max(x0, x2));
  uint64_t fpC = c.add("k.cu:3:5", lost, Ops::leaf(0, 1));
  fpC = c.add("k.cu:3:5", fpC, Ops::leaf(0, 3));
  OrderOpsIndex ic = c.index(/*dropped=*/2);
  OrderParting q = explainParting(ia, ic, fpA, fpC);
  EXPECT_TRUE(q.explained);
  EXPECT_EQ(q.text, "no operation agrees: A's first operation is the fadd of x[0] and x[1] "
                    "(k.cu:3:5 fadd), B's first operation is the fadd of x[1] and a value the "
                    "operation log does not have (perhaps one of the 2 operations it dropped) "
                    "(k.cu:3:5 fadd); A uses 2 values B does not (x[0], x[2]); B uses 1 value "
                    "A does not (1 value the operation log does not have)");
}

// A damaged log (or a collision) can make an operation its own operand.
TEST(OrderExplain, CyclesEnd) {
  Ops a, b;
  uint64_t code = kosan_fp_op("fadd");
  uint64_t x = 0x0123456789abcdefull;
  // combine(code, x, y) == x for this y.
  uint64_t y = (x * inverseOfMul()) ^ kosan_fp_rotl(x) ^ code;
  a.record.sites = {{"fadd", "k.cu:1:1"}};
  a.record.ops.push_back({x, y, code, 0});
  ASSERT_EQ(kosan_fp_combine(code, x, y), x);
  uint64_t fpB = b.chain("k.cu:1:1", 0, 0, 3);
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, x, fpB);
  EXPECT_TRUE(p.explained);
  EXPECT_EQ(p.text.rfind("no operation agrees", 0), 0u) << p.text;
}

// Chains of 100000 operations: iterative walks, in well under a second.
TEST(OrderExplain, LongChainsAreFastAndNeedNoRecursion) {
  constexpr uint64_t n = 100000;
  Ops a, b;
  uint64_t fpA = a.chain("k.cu:3:5", 0, 0, n);
  uint64_t fpB = b.add("k.cu:9:5", b.chain("k.cu:3:5", 0, 0, n / 2),
                       b.chain("k.cu:3:5", 0, n / 2, n / 2));
  auto start = std::chrono::steady_clock::now();
  OrderOpsIndex ia = a.index(), ib = b.index();
  OrderParting p = explainParting(ia, ib, fpA, fpB);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(p.common_ops, n / 2 - 1);
  EXPECT_EQ(p.text, "the first 49999 operations agree (the fadd of 50000 values x[0..49999]); "
                    "then A adds x[50000] to it (k.cu:3:5 fadd), B adds the fadd of 50000 "
                    "values x[50000..99999] to it (k.cu:9:5 fadd)");
  EXPECT_LT(seconds, 5.0); // about 0.05 s; generous for loaded machines
}

} // namespace
