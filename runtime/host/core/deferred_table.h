//===- runtime/host/core/deferred_table.h - The table of deferred clones ---===//
//
// Reading a module's table of deferred clones (abi.h, KOSAN_DEFERRED_SYMBOL)
// and preparing one clone's PTX for the driver: pure functions, tested on
// tables the pass wrote (test/lit/pass/defer_clones.test).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H
#define KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H

#include "kosan/abi.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::rt {

struct DeferredRef {
  std::string name;
  uint32_t kind = KOSAN_DEFERRED_ADDRESS; // kosan_deferred_ref_kind
  uint64_t bytes = 0;
};

struct DeferredKernel {
  std::string name; // the clone's
  std::vector<DeferredRef> refs;
  std::string_view zptx; // its zstd frame, in the table
  uint64_t ptxBytes = 0;
};

// The kernels of a table; an error (one line) when it is not one this kosan
// wrote, or is damaged.
std::string parseDeferredTable(std::span<const char> blob, std::vector<DeferredKernel> &out);

// Writes the addresses (in the order of the clone's KOSAN_DEFERRED_ADDRESS
// refs) into the clone's PTX, as the initializer of its
// KOSAN_DEFERRED_GTAB_SYMBOL; an error when the PTX has no such table.
std::string writeGlobalTable(std::string &ptx, std::span<const uint64_t> addresses);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H
