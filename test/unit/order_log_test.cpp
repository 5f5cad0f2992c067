// The order fingerprint algebra (include/kosan/order.h) and the host's
// reading of the device's order logs (lib/order_log.h).
#include "kosan/order_log.h"

#include "kosan/order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

using namespace kosan;

namespace {

uint64_t f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return kosan_fp_content(b, KOSAN_DTYPE_F32);
}

uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

const uint64_t kAdd = kosan_fp_op("fadd");

uint64_t add(uint64_t a, uint64_t b) { return kosan_fp_combine_commutative(kAdd, a, b); }

} // namespace

TEST(OrderFingerprint, SwappedOperandsOfAnAddAreOneOrder) {
  uint64_t a = f32(1.5f), b = f32(-2.0f);
  EXPECT_EQ(add(a, b), add(b, a));
  // Not so for a subtraction, whose bits do depend on the order.
  uint64_t sub = kosan_fp_op("fsub");
  EXPECT_NE(kosan_fp_combine(sub, a, b), kosan_fp_combine(sub, b, a));
}

TEST(OrderFingerprint, AssociationAndPermutationChangeTheFingerprint) {
  uint64_t x = f32(1), y = f32(2), z = f32(3), w = f32(4);
  std::set<uint64_t> seen = {
      add(add(x, y), z), add(x, add(y, z)), add(add(x, z), y),
      // Pairwise trees with other pairings: not a linear hash.
      add(add(x, y), add(z, w)), add(add(x, w), add(z, y)), add(add(x, z), add(y, w)),
      add(add(add(x, y), z), w)};
  EXPECT_EQ(seen.size(), 7u);
}

TEST(OrderFingerprint, FusedAndUnfusedDiffer) {
  uint64_t a = f32(3), b = f32(2), c = f32(1);
  uint64_t unfused = add(kosan_fp_combine_commutative(kosan_fp_op("fmul"), a, b), c);
  EXPECT_NE(kosan_fp_fma(a, b, c), unfused);
  EXPECT_EQ(kosan_fp_fma(a, b, c), kosan_fp_fma(b, a, c));
}

TEST(OrderFingerprint, AnFmaTellsItsAddendFromItsFactors) {
  uint64_t a = f32(3), b = f32(2), c = f32(1);
  std::set<uint64_t> seen = {kosan_fp_fma(a, b, c), kosan_fp_fma(a, c, b), kosan_fp_fma(c, b, a),
                             kosan_fp_fma(a, a, b), kosan_fp_fma(a, b, a)};
  EXPECT_EQ(seen.size(), 5u);
}

TEST(OrderFingerprint, DotProductChainsInAnotherOrderDiffer) {
  // acc = fma(x[k], w[k], acc) over the 24 orders of 4 products, and over
  // the 24 orders of 4 squares (x[k] * x[k]: the product's operands alike).
  uint64_t zero = f32(0);
  std::set<uint64_t> products, squares;
  int order[4] = {0, 1, 2, 3};
  do {
    uint64_t acc = zero, sq = zero;
    for (int k : order) {
      uint64_t x = kosan_fp_leaf(0, 4 * k), w = kosan_fp_leaf(1, 4 * k);
      acc = kosan_fp_fma(x, w, acc);
      sq = kosan_fp_fma(x, x, sq);
    }
    products.insert(acc);
    squares.insert(sq);
  } while (std::next_permutation(order, order + 4));
  EXPECT_EQ(products.size(), 24u);
  EXPECT_EQ(squares.size(), 24u);
  // Another pairing of the same leaves: x[0]*w[1] + x[1]*w[0].
  uint64_t x0 = kosan_fp_leaf(0, 0), x1 = kosan_fp_leaf(0, 4);
  uint64_t w0 = kosan_fp_leaf(1, 0), w1 = kosan_fp_leaf(1, 4);
  EXPECT_NE(kosan_fp_fma(x1, w1, kosan_fp_fma(x0, w0, zero)),
            kosan_fp_fma(x1, w0, kosan_fp_fma(x0, w1, zero)));
  // Two partial sums added, against one chain.
  uint64_t split = add(kosan_fp_fma(x0, w0, zero), kosan_fp_fma(x1, w1, zero));
  EXPECT_NE(split, kosan_fp_fma(x1, w1, kosan_fp_fma(x0, w0, zero)));
  // A long chain: swapping any two of its 256 products changes it.
  std::vector<uint64_t> prods;
  for (uint64_t k = 0; k < 256; ++k)
    prods.push_back(k);
  auto chain = [&](const std::vector<uint64_t> &ks) {
    uint64_t acc = zero;
    for (uint64_t k : ks)
      acc = kosan_fp_fma(kosan_fp_leaf(0, 4 * k), kosan_fp_leaf(1, 4 * k), acc);
    return acc;
  };
  uint64_t straight = chain(prods);
  std::set<uint64_t> swapped = {straight};
  for (size_t i = 0; i < 256; i += 15)
    for (size_t j = i + 1; j < 256; j += 7) {
      std::vector<uint64_t> ks = prods;
      std::swap(ks[i], ks[j]);
      EXPECT_TRUE(swapped.insert(chain(ks)).second) << i << " " << j;
    }
}

TEST(OrderFingerprint, LeavesTellArgumentsOffsetsAndTypesApart) {
  EXPECT_NE(kosan_fp_leaf(0, 0), kosan_fp_leaf(1, 0));
  EXPECT_NE(kosan_fp_leaf(0, 4), kosan_fp_leaf(0, 8));
  uint64_t one32 = f32(1.0f);
  double d = 1.0;
  uint64_t b64;
  std::memcpy(&b64, &d, 8);
  EXPECT_NE(one32, kosan_fp_content(b64, KOSAN_DTYPE_F64));
  // 10^5 offsets of one argument: no two leaves alike.
  std::set<uint64_t> leaves;
  for (uint64_t off = 0; off < 400000; off += 4)
    leaves.insert(kosan_fp_leaf(2, off));
  EXPECT_EQ(leaves.size(), 100000u);
}

namespace {

uint64_t where(uint32_t arg, uint64_t offset) {
  return uint64_t(arg) << KOSAN_ORDER_WHERE_SHIFT | offset;
}

kosan_order_atomic contribution(float old, float val, uint32_t block, uint64_t fp = 0) {
  kosan_order_atomic a{};
  a.old_bits = bits(old);
  a.val_bits = bits(val);
  a.block = block;
  a.fp = fp ? fp : f32(val);
  a.where = where(1, 8);
  return a;
}

} // namespace

TEST(OrderLog, AtomicsArePutInTheOrderTheyLanded) {
  // Landed: 1.0 (found 0), then 2.0 (found 1), then 0.5 (found 3); the log
  // received them in another order.
  std::vector<kosan_order_atomic> log = {contribution(3.0f, 0.5f, 7),
                                         contribution(0.0f, 1.0f, 12),
                                         contribution(1.0f, 2.0f, 3)};
  std::vector<const kosan_order_atomic *> ptrs;
  for (auto &a : log)
    ptrs.push_back(&a);
  bool exact = false;
  std::vector<size_t> order = atomicLandingOrder(ptrs, KOSAN_DTYPE_F32, "fadd", &exact);
  EXPECT_TRUE(exact);
  EXPECT_EQ(order, (std::vector<size_t>{1, 2, 0}));
}

TEST(OrderLog, ABrokenChainFallsBackToTheLogsOrder) {
  std::vector<kosan_order_atomic> log = {contribution(5.0f, 1.0f, 1),
                                         contribution(0.0f, 1.0f, 2)};
  std::vector<const kosan_order_atomic *> ptrs = {&log[0], &log[1]};
  bool exact = true;
  std::vector<size_t> order = atomicLandingOrder(ptrs, KOSAN_DTYPE_F32, "fadd", &exact);
  EXPECT_FALSE(exact);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1}));
  // fmax cannot be redone from what the atomics returned: the log's order.
  order = atomicLandingOrder(ptrs, KOSAN_DTYPE_F32, "fmax", &exact);
  EXPECT_FALSE(exact);
}

namespace {

OrderLaunch launchOf() {
  OrderLaunch l;
  l.launch = 1;
  l.argValues = {0x700000000000, 0x700000100000};
  l.argEnds = {0x700000001000, 0x700000101000};
  l.argNames = {"x", "out"};
  l.sites = {{1, KOSAN_ACCESS_ORDER_STORE, KOSAN_DTYPE_F32, "store", "k.cu:10:3"},
             {-1, KOSAN_ACCESS_ORDER_STORE, KOSAN_DTYPE_F32, "store", "k.cu:14:3"},
             {1, KOSAN_ACCESS_ORDER_ATOMIC, KOSAN_DTYPE_F32, "fadd", "k.cu:11:5"}};
  return l;
}

} // namespace

TEST(OrderLog, StoresKeepTheLastValuePerElementAndAtomicsFold) {
  OrderLaunch launch = launchOf();
  std::vector<kosan_order_store> stores = {
      {111, where(1, 4)},            // out[1]
      {222, where(1, 0)},            // out[0]
      {333, where(1, 4)},            // out[1] again: the later one counts
      {444, where(KOSAN_ORDER_ARG_UNRESOLVED, 0x700000100008)},  // out[2], by address
      {555, where(KOSAN_ORDER_ARG_UNRESOLVED, 0x7fff00000000)}}; // nowhere known
  std::vector<kosan_order_atomic> atomics = {contribution(1.0f, 2.0f, 4, 0x99),
                                             contribution(0.0f, 1.0f, 9, 0x77)};
  OrderRecords r = buildOrderRecords(stores.data(), stores.size(), 7, atomics.data(),
                                     atomics.size(), 2, launch);
  EXPECT_EQ(r.summary.dropped_stores, 2u);
  EXPECT_EQ(r.summary.dropped_atomics, 0u);
  EXPECT_EQ(r.unresolved, 1u);
  ASSERT_EQ(r.stores.size(), 1u);
  EXPECT_EQ(r.stores[0].name, "out");
  EXPECT_EQ(r.stores[0].dtype, DType::F32);
  EXPECT_EQ(r.stores[0].elements,
            (std::vector<OrderElement>{{0, 222}, {1, 333}, {2, 444}}));
  EXPECT_EQ(r.stores[0].sites, (std::vector<std::string>{"k.cu:10:3", "k.cu:14:3"}));
  ASSERT_EQ(r.atomics.size(), 1u);
  const OrderAtomicRecord &a = r.atomics[0];
  EXPECT_EQ(a.op, "fadd");
  EXPECT_EQ(a.sites, std::vector<std::string>{"k.cu:11:5"});
  EXPECT_TRUE(a.exact);
  ASSERT_EQ(a.locations.size(), 1u);
  EXPECT_EQ(a.locations[0].element, 2u); // byte offset 8 of out
  ASSERT_EQ(a.locations[0].order.size(), 2u);
  EXPECT_EQ(a.locations[0].order[0].block, 9u); // found 0: landed first
  EXPECT_EQ(a.locations[0].order[1].block, 4u);
  uint64_t fold = kosan_fp_leaf(1, 8);
  fold = kosan_fp_combine(kosan_fp_op("atomic.fadd"), fold, 0x77);
  fold = kosan_fp_combine(kosan_fp_op("atomic.fadd"), fold, 0x99);
  EXPECT_EQ(a.locations[0].fp, fold);
  // Two contributions with different fingerprints: order-dependent.
  EXPECT_EQ(r.summary.order_dependent_locations, 1u);
}

TEST(OrderLog, EqualContributionsDoNotDependOnOrder) {
  OrderLaunch launch = launchOf();
  std::vector<kosan_order_atomic> atomics = {contribution(0.0f, 1.0f, 1, 0x5),
                                             contribution(1.0f, 1.0f, 2, 0x5)};
  OrderRecords r = buildOrderRecords(nullptr, 0, 0, atomics.data(), atomics.size(), 2, launch);
  EXPECT_EQ(r.summary.order_dependent_locations, 0u);
  // With value-labelled leaves the fold starts from the value found first.
  launch.valueLeaves = true;
  r = buildOrderRecords(nullptr, 0, 0, atomics.data(), atomics.size(), 2, launch);
  uint64_t fold = f32(0.0f);
  fold = kosan_fp_combine(kosan_fp_op("atomic.fadd"), fold, 0x5);
  fold = kosan_fp_combine(kosan_fp_op("atomic.fadd"), fold, 0x5);
  EXPECT_EQ(r.atomics[0].locations[0].fp, fold);
}

TEST(OrderLog, HalfAtomicsAreChainedInTheirOwnType) {
  // f16 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 3.5 = 0x4300.
  auto half = [](uint16_t old, uint16_t val, uint32_t block) {
    kosan_order_atomic a{};
    a.old_bits = old;
    a.val_bits = val;
    a.block = block;
    return a;
  };
  std::vector<kosan_order_atomic> log = {half(0x4200, 0x3800, 5), half(0x0000, 0x3c00, 6),
                                         half(0x3c00, 0x4000, 7)};
  std::vector<const kosan_order_atomic *> ptrs = {&log[0], &log[1], &log[2]};
  bool exact = false;
  EXPECT_EQ(atomicLandingOrder(ptrs, KOSAN_DTYPE_F16, "fadd", &exact),
            (std::vector<size_t>{1, 2, 0}));
  EXPECT_TRUE(exact);
  // bf16 1.0 = 0x3f80, 2.0 = 0x4000, 3.0 = 0x4040.
  log = {half(0x3f80, 0x4000, 1), half(0x0000, 0x3f80, 2)};
  ptrs = {&log[0], &log[1]};
  EXPECT_EQ(atomicLandingOrder(ptrs, KOSAN_DTYPE_BF16, "fadd", &exact),
            (std::vector<size_t>{1, 0}));
  EXPECT_TRUE(exact);
}

TEST(OrderLog, OperationLogBecomesOneRecordWithItsOwnSites) {
  OrderLaunch launch = launchOf();
  launch.argDtypes = {KOSAN_DTYPE_F32, KOSAN_DTYPE_F16};
  uint64_t fadd = kosan_fp_op("fadd"), fmul = kosan_fp_op("fmul");
  // Module sites 40 (fadd) and 7 (fmul); the same fadd logged by two lanes.
  std::vector<kosan_order_op> ops = {{5, 9, fadd, 40, 0}, {1, 2, fmul, 7, 0},
                                     {5, 9, fadd, 40, 0}, {3, 4, fadd, 40, 0}};
  std::vector<uint32_t> asked;
  OrderOpsRecord r = buildOrderOpsRecord(ops.data(), ops.size(), launch, [&](uint32_t id) {
    asked.push_back(id);
    return OrderOpSite{id == 40 ? "fadd" : "fmul", "k.cu:" + std::to_string(id) + ":1"};
  });
  EXPECT_EQ(r.launch, 1u);
  // Each module site is asked for once and numbered in the order first seen.
  EXPECT_EQ(asked, (std::vector<uint32_t>{40, 7}));
  ASSERT_EQ(r.sites.size(), 2u);
  EXPECT_EQ(r.sites[0], (OrderOpSite{"fadd", "k.cu:40:1"}));
  EXPECT_EQ(r.sites[1], (OrderOpSite{"fmul", "k.cu:7:1"}));
  // Distinct operations, sorted.
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[0], (OrderOp{1, 2, fmul, 1}));
  EXPECT_EQ(r.ops[1], (OrderOp{3, 4, fadd, 0}));
  EXPECT_EQ(r.ops[2], (OrderOp{5, 9, fadd, 0}));
  // Parameters named as the records name buffers, with their element types.
  ASSERT_EQ(r.params.size(), 2u);
  EXPECT_EQ(r.params[0], (OrderParam{0, "x", DType::F32}));
  EXPECT_EQ(r.params[1], (OrderParam{1, "out", DType::F16}));
}

TEST(OrderLog, DenseShadowsGiveTheElementsAndTheLogComesAfter) {
  OrderLaunch launch = launchOf();
  // out's shadow: elements 0 and 2 stored to, 1 and 3 not.
  launch.dense.push_back({1, {0x11, 0, 0x33, 0}});
  // Through an untraced pointer: element 2 again (the log's record counts
  // over the shadow's) and element 5, past the shadow.
  std::vector<kosan_order_store> stores = {{0x99, where(0xffff, 0x700000100000 + 8)},
                                           {0x55, where(0xffff, 0x700000100000 + 20)}};
  OrderRecords r = buildOrderRecords(stores.data(), stores.size(), 2, nullptr, 0, 0, launch);
  ASSERT_EQ(r.stores.size(), 1u);
  EXPECT_EQ(r.stores[0].arg, 1u);
  EXPECT_EQ(r.stores[0].name, "out");
  EXPECT_EQ(r.stores[0].elements,
            (std::vector<OrderElement>{{0, 0x11}, {2, 0x99}, {5, 0x55}}));
  // Sites of the traced stores and of the untraced ones.
  EXPECT_EQ(r.stores[0].sites, (std::vector<std::string>{"k.cu:10:3", "k.cu:14:3"}));
  // Two records from the log, one element from the shadow alone.
  EXPECT_EQ(r.summary.stores, 3u);
  EXPECT_EQ(r.summary.dropped_stores, 0u);
}

TEST(OrderLog, AStoreAtANegativeIndexBesideADenseShadowIsUnresolved) {
  // out[-1] through a traced parameter: the offset wraps around in the
  // record's 48 offset bits. It once sized the element list (2^46 slots,
  // std::bad_alloc) and lost the launch's reports.
  OrderLaunch launch = launchOf();
  launch.dense.push_back({1, {0x11, 0x22}});
  uint64_t minusFour = (uint64_t(1) << KOSAN_ORDER_WHERE_SHIFT) - 4;
  std::vector<kosan_order_store> stores = {{0x99, where(1, minusFour)}, {0x55, where(1, 4)}};
  OrderRecords r = buildOrderRecords(stores.data(), stores.size(), 2, nullptr, 0, 0, launch);
  ASSERT_EQ(r.stores.size(), 1u);
  EXPECT_EQ(r.stores[0].elements, (std::vector<OrderElement>{{0, 0x11}, {1, 0x55}}));
  EXPECT_EQ(r.unresolved, 1u);
}

TEST(OrderLog, ADenseShadowWithoutStoresGivesNoRecord) {
  // A kernel that may store to out but did not (its store is conditional).
  OrderLaunch launch = launchOf();
  launch.dense.push_back({1, std::vector<uint64_t>(8, 0)});
  OrderRecords r = buildOrderRecords(nullptr, 0, 0, nullptr, 0, 0, launch);
  EXPECT_TRUE(r.stores.empty());
  EXPECT_EQ(r.summary.stores, 0u);
}

TEST(OrderLog, HalfStoresAreElementsOfTwoBytes) {
  // A kernel writing __half outputs (cuda_fp16.h): the store sites say f16,
  // and a __half2 store is two records two bytes apart.
  OrderLaunch launch = launchOf();
  launch.sites = {{1, KOSAN_ACCESS_ORDER_STORE, KOSAN_DTYPE_F16, "store", "k.cu:20:5"}};
  std::vector<kosan_order_store> stores = {
      {0x10, where(1, 0)}, {0x12, where(1, 2)}, {0x16, where(1, 6)}, {0x17, where(1, 8)}};
  OrderRecords r = buildOrderRecords(stores.data(), stores.size(), 2, nullptr, 0, 0, launch);
  ASSERT_EQ(r.stores.size(), 1u);
  EXPECT_EQ(r.stores[0].dtype, DType::F16);
  EXPECT_EQ(r.stores[0].elements,
            (std::vector<OrderElement>{{0, 0x10}, {1, 0x12}, {3, 0x16}, {4, 0x17}}));
}
