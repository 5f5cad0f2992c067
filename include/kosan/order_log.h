//===- kosan/order_log.h - From the device's order logs to trace records --===//
//
// The host runtime copies a launch's order logs (kosan_order_store and
// kosan_order_atomic records, abi.h) off the device and turns them into the
// trace's order records here: stores by buffer and element, the last one
// kept; atomics by location, put in the order they landed. No CUDA: the
// unit tests feed it constructed logs.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_ORDER_LOG_H
#define KOSAN_ORDER_LOG_H

#include "kosan/abi.h"
#include "kosan/trace.h"

#include <functional>
#include <string>
#include <vector>

namespace kosan {

// What the runtime knows about the launch the logs belong to.
struct OrderLaunch {
  uint32_t launch = 0;
  // Per kernel parameter: its value (a device address for pointers) and
  // the end of the buffer it points into (0: not a pointer, or unknown).
  std::vector<uint64_t> argValues, argEnds;
  std::vector<std::string> argNames;   // as snapshots name them
  std::vector<uint32_t> argDtypes;     // kosan_dtype of each parameter's elements (order-ops)
  bool valueLeaves = false;            // order_leaves=value
  // Stores the device kept in a dense shadow (kosan_order_dense): per
  // parameter, the fingerprint of the last value stored to each element, 0
  // where none was. The log's records for the same parameter (stores
  // through pointers the compiler could not trace) are applied after them.
  struct Dense {
    uint32_t arg = 0;
    std::vector<uint64_t> fps;
  };
  std::vector<Dense> dense;
  // The launched kernel's order sites (KOSAN_ACCESS_ORDER_*): the records
  // take their dtype, operation and source lines from those of their
  // parameter (arg -1: a pointer the compiler could not trace).
  struct Site {
    int32_t arg = -1;
    uint32_t access = KOSAN_ACCESS_ORDER_STORE;
    uint32_t dtype = KOSAN_DTYPE_F32;
    std::string op;                    // "store", "fadd", "fsub", "fmin", "fmax"
    std::string location;              // "file:line:col"
  };
  std::vector<Site> sites;
};

struct OrderRecords {
  std::vector<OrderStoreRecord> stores;
  std::vector<OrderAtomicRecord> atomics;
  OrderSummary summary;
  uint64_t unresolved = 0;             // records whose address lies in no parameter's buffer
};

// storeCount/atomicCount: the device's counts, which exceed the records
// given when the logs were full.
OrderRecords buildOrderRecords(const kosan_order_store *stores, size_t nstores,
                               uint64_t storeCount, const kosan_order_atomic *atomics,
                               size_t natomics, uint64_t atomicCount,
                               const OrderLaunch &launch);

// The operation log of an order-ops launch as a trace record: operations
// deduplicated and sorted, their module sites renumbered into the record's
// own table. siteOf names a module site id (its operation and source
// location).
OrderOpsRecord buildOrderOpsRecord(const kosan_order_op *ops, size_t nops,
                                   const OrderLaunch &launch,
                                   const std::function<OrderOpSite(uint32_t)> &siteOf);

// The order in which one location's atomics landed: indices into `log`
// (given in the order the log received them). Each atomic returned the
// value it found, so the first is the one whose value found no other
// contribution's result, and each next one found its predecessor's result.
// *exact is false where that chain breaks or forks (equal intermediate
// values, an operation the host cannot redo): from there on the order is
// the log's. dtype: kosan_dtype; op: "fadd", "fsub", "fmin", "fmax".
std::vector<size_t> atomicLandingOrder(const std::vector<const kosan_order_atomic *> &log,
                                       uint32_t dtype, const std::string &op, bool *exact);

} // namespace kosan

#endif
