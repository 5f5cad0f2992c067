//===- runtime/device/order.cpp - Device runtime of the order check --------===//
//
// Compiled to nvptx64 and amdgcn bitcode like oob.cpp and linked into instrumented
// device modules after instrumentation. Instrumented code calls in here at
// every store of a floating-point value to global memory and at every float
// atomic, with the value's fingerprint (include/kosan/order.h). The lanes of
// a warp that call together claim their records with one atomic, by the
// lowest of them, and write them side by side. Records past a log's
// capacity are not written; the count still rises, so the host knows how
// many were dropped.
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"
#include "kosan/order.h"

#include "gpu.h"

#define KOSAN_DEVICE extern "C" __attribute__((noinline))

namespace {

kosan_order_state *orderState(uint64_t state) {
  if (!state)
    return nullptr;
  return (kosan_order_state *)((const kosan_device_state *)state)->order;
}

// This lane's record index in its shard: the group of lanes here now claims
// its records with one atomic, by the lowest of them.
uint32_t claim(uint32_t *count) {
  using namespace kosan::gpu;
  LaneMask group = activeMask();
  uint32_t lane = laneId();
  uint32_t leader = lowestLane(group);
  uint32_t rank = popcount(lanesBelow(group, lane));
  uint32_t base = 0;
  if (lane == leader)
    base = __atomic_fetch_add(count, popcount(group), __ATOMIC_RELAXED);
  base = shuffle(group, base, leader);
  return base + rank;
}

uint32_t linearBlock() {
  using namespace kosan::gpu;
  return blockId(0) + gridDim(0) * (blockId(1) + gridDim(1) * blockId(2));
}

uint32_t linearThread() {
  using namespace kosan::gpu;
  return threadId(0) + blockDim(0) * (threadId(1) + blockDim(1) * threadId(2));
}

} // namespace

static uint32_t shard() { return kosan::gpu::spreadId() & (KOSAN_ORDER_SHARDS - 1); }

KOSAN_DEVICE void __kosan_order_store(uint64_t state, uint64_t where, uint64_t fp) {
  kosan_order_state *os = orderState(state);
  if (!os)
    return;
  uint32_t arg = (uint32_t)(where >> KOSAN_ORDER_WHERE_SHIFT);
  if (arg < KOSAN_ORDER_DENSE_ARGS && os->dense) {
    const kosan_order_dense *d = (const kosan_order_dense *)os->dense + arg;
    uint64_t index = (where & ((1ull << KOSAN_ORDER_WHERE_SHIFT) - 1)) >> d->shift;
    if (d->shadow && index < d->elements) {
      ((uint64_t *)d->shadow)[index] = fp;
      return;
    }
  }
  if (!os->store_capacity)
    return;
  uint32_t s = shard();
  uint32_t i = claim((uint32_t *)os->counts + KOSAN_ORDER_COUNT(0, s));
  if (i >= os->store_capacity)
    return;
  kosan_order_store *r = (kosan_order_store *)os->stores + (uint64_t)s * os->store_capacity + i;
  r->fp = fp;
  r->where = where;
}

KOSAN_DEVICE void __kosan_order_atomic(uint64_t state, uint64_t where, uint64_t fp,
                                       uint64_t oldBits, uint64_t valBits) {
  kosan_order_state *os = orderState(state);
  if (!os)
    return;
  uint32_t arg = (uint32_t)(where >> KOSAN_ORDER_WHERE_SHIFT);
  if (arg < KOSAN_ORDER_DENSE_ARGS && os->atomic_dense) {
    const kosan_order_dense *d = (const kosan_order_dense *)os->atomic_dense + arg;
    uint64_t index = (where & ((1ull << KOSAN_ORDER_WHERE_SHIFT) - 1)) >> d->shift;
    if (d->shadow && index < d->elements) {
      uint64_t *slot = (uint64_t *)d->shadow + index;
      uint64_t mine = fp & ~KOSAN_ORDER_FOLD_FLAG;
      mine = mine ? mine : 1;
      uint64_t first = 0;
      if (!__atomic_compare_exchange_n(slot, &first, mine, false, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED) &&
          (first & ~KOSAN_ORDER_FOLD_FLAG) != mine && !(first & KOSAN_ORDER_FOLD_FLAG) &&
          !(__atomic_fetch_or(slot, KOSAN_ORDER_FOLD_FLAG, __ATOMIC_RELAXED) &
            KOSAN_ORDER_FOLD_FLAG))
        __atomic_fetch_add((uint64_t *)d->shadow + d->elements, 1ull, __ATOMIC_RELAXED);
      return;
    }
  }
  uint32_t s = shard();
  uint32_t i = claim((uint32_t *)os->counts + KOSAN_ORDER_COUNT(1, s));
  if (i >= os->atomic_capacity)
    return;
  kosan_order_atomic *r = (kosan_order_atomic *)os->atomics + (uint64_t)s * os->atomic_capacity + i;
  r->fp = fp;
  r->where = where;
  r->old_bits = oldBits;
  r->val_bits = valBits;
  r->block = linearBlock();
  r->thread = linearThread();
}

// A float atomic on shared memory: fold the contribution into the
// location's fingerprint in the order the folds succeed.
KOSAN_DEVICE void __kosan_order_shared_atomic(uint64_t *shadow, uint64_t op, uint64_t fp) {
  uint64_t seen = *(volatile uint64_t *)shadow;
  while (true) {
    uint64_t want = kosan_fp_combine(op, seen, fp);
    uint64_t expected = seen;
    if (__atomic_compare_exchange_n(shadow, &expected, want, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return;
    seen = expected;
  }
}

// order-ops builds: one floating-point operation. Every lane logs its own;
// a warp's lanes that operate together claim their records with one atomic.
KOSAN_DEVICE void __kosan_order_op(uint64_t state, uint64_t a, uint64_t b, uint64_t op,
                                   uint32_t site) {
  kosan_order_state *os = orderState(state);
  if (!os || !os->op_capacity)
    return;
  uint32_t s = shard();
  uint32_t i = claim((uint32_t *)os->counts + KOSAN_ORDER_COUNT(2, s));
  if (i >= os->op_capacity)
    return;
  kosan_order_op *r = (kosan_order_op *)os->ops + (uint64_t)s * os->op_capacity + i;
  r->a = a;
  r->b = b;
  r->op = op;
  r->site = site;
  r->reserved = 0;
}
