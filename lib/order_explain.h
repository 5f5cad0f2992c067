//===- order_explain.h - Where two computations of one element part -------===//
//
// checks=order-ops logs every floating-point operation of a launch
// (OrderOpsRecord). An operation's result fingerprint is
// kosan_fp_logged_result(op, a, b) (kosan_fp_combine, or the sum of an
// fma's product), so a stored fingerprint can be walked back
// through the log to its leaves; walking A's and B's fingerprints of one
// element side by side says at which operation the two runs part
// (docs/diff.md). Used by kosan-diff --order and --batch-invariance.
//
// The walks are iterative and memoized (chains of millions of operations,
// shared subexpressions and the cycles a damaged log could hold cost no
// stack), and every lookup is a hash probe.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_LIB_ORDER_EXPLAIN_H
#define KOSAN_LIB_ORDER_EXPLAIN_H

#include "kosan/diff.h"
#include "kosan/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kosan::detail {

// An open-addressing hash table from fingerprints to 32-bit values: the
// logs hold millions of operations, and std::unordered_map's nodes would
// cost several times the log itself.
class FingerprintTable {
public:
  static constexpr uint32_t kNone = UINT32_MAX;
  explicit FingerprintTable(size_t expected = 0);
  // The value stored for fp, or kNone.
  uint32_t find(uint64_t fp) const;
  bool contains(uint64_t fp) const { return find(fp) != kNone; }
  // Stores value (not kNone) for fp unless fp has one; returns the value fp
  // has now and whether it was inserted.
  std::pair<uint32_t, bool> insert(uint64_t fp, uint32_t value);
  size_t size() const { return size_; }

private:
  // Key and value side by side: one cache line per probe.
  struct Slot {
    uint64_t key = 0;
    uint32_t value = kNone; // kNone: empty
  };
  void grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint64_t mask_ = 0;
};

// What a fingerprint that no logged operation yields stands for.
struct FingerprintOrigin {
  enum class Kind { Operation, Leaf, Content, Unknown };
  Kind kind = Kind::Unknown;
  // Leaf: the kernel parameter and the element (byte offset / dtype size)
  // read; param indexes OrderOpsRecord::params, or is kNoParam where the
  // record does not describe the parameter (then dtype is Unknown and
  // element is the byte offset).
  static constexpr uint32_t kNoParam = UINT32_MAX;
  uint32_t param = kNoParam;
  uint32_t arg = 0;
  uint64_t element = 0;
  // Content: the value's bits and type.
  DType dtype = DType::Unknown;
  uint64_t bits = 0;
};

// One run's operation log of one launch, indexed by result fingerprint.
class OrderOpsIndex {
public:
  // dropped: operations the log lost (OrderSummary::dropped_ops).
  explicit OrderOpsIndex(const OrderOpsRecord &record, uint64_t dropped = 0);
  const OrderOpsRecord &record() const { return *record_; }
  uint64_t dropped() const { return dropped_; }
  // The logged operation whose result is fp, or nullptr.
  const OrderOp *producer(uint64_t fp) const;
  // The operation's name and "file:line:col" (empty where unknown).
  const std::string &opName(const OrderOp &op) const;
  const std::string &location(const OrderOp &op) const;
  // An operation's operands in the walk: a, and b unless b is the salt of
  // a one-operand operation (kosan_fp_unary).
  bool unary(const OrderOp &op) const;
  FingerprintOrigin origin(uint64_t fp) const;
  // origin() of a fingerprint known not to be a logged operation's result.
  FingerprintOrigin leafOrigin(uint64_t fp) const;

private:
  const OrderOpsRecord *record_;
  uint64_t dropped_;
  FingerprintTable byResult_;
};

// A fingerprint for users: "x[512]", "the f32 value 0.25", "the fadd of 512
// values x[0..511]", "a value the operation log does not have".
std::string describeValue(const OrderOpsIndex &index, uint64_t fp);

// Where fpA (A's fingerprint of an element) and fpB (B's) part. Sets every
// member but element and element_b.
OrderParting explainParting(const OrderOpsIndex &a, const OrderOpsIndex &b, uint64_t fpA,
                            uint64_t fpB);

// The inverse of kosan_fp_scramble.
uint64_t unscrambleFingerprint(uint64_t y);

} // namespace kosan::detail

#endif // KOSAN_LIB_ORDER_EXPLAIN_H
