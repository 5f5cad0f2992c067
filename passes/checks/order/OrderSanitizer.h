//===- passes/checks/order/OrderSanitizer.h - Order fingerprints ------------*- C++ -*-===//
//
// checks=order, the run-time half: every floating-point value an
// instrumented function computes carries a 64-bit fingerprint of how it was
// computed (include/kosan/order.h has the algebra). Fingerprints follow
// values through arithmetic, phis and selects, vectors, warp shuffles,
// shared memory (a shadow array per static __shared__ array and a shadow
// region after the dynamic shared memory) and -O0 stack slots. Each store of
// a floating-point value to global memory hands its fingerprint to the
// device runtime, and each float atomic on global memory logs its
// contribution; float atomics on shared memory fold their contribution into
// the location's shadow.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_ORDERSANITIZER_H
#define KOSAN_PASSES_ORDERSANITIZER_H

#include "core/SiteTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"

namespace kosan {

struct OrderCounts {
  unsigned operations = 0;    // operations given a fingerprint
  unsigned leaves = 0;        // loads labelled by (parameter, offset)
  unsigned contentLeaves = 0; // values labelled by their bits (origin unknown)
  unsigned sharedAccesses = 0; // loads and stores through a shared-memory shadow
  unsigned shuffles = 0;
  unsigned stores = 0;        // global stores handed to the runtime
  unsigned atomics = 0;       // float atomics logged (global) or folded (shared)
  unsigned loggedOps = 0;     // order-ops: operations (per instruction) that call the log
};

// Fingerprint shadows of a module's shared memory, made on first use. A
// static __shared__ array gets a shadow array of one i64 per element
// (granule: the element's size) as long as the module's static shared
// memory stays within the 48 KiB every launch may use; loads from an array
// without one are labelled by their bits. Dynamic shared memory gets a
// shadow region the host adds to the launch (dynamicFactor()).
class SharedShadows {
public:
  // budget: ModuleState::sharedShadowBytesLeft, shared with the other checks.
  SharedShadows(llvm::Module &M, uint64_t &budget);
  // The shadow of G and its granule in bytes, or nullptr.
  llvm::GlobalVariable *shadowOf(llvm::GlobalVariable *G, unsigned &granule);
  // Granule of the dynamic shared memory's shadow (by the element type of
  // the module's extern __shared__ arrays, the smallest).
  unsigned dynamicGranule() const { return dynGranule; }
  // Bytes of shadow per byte of dynamic shared memory the host adds to a
  // launch: 8 / granule, or 0 when the module declares no extern __shared__
  // array.
  unsigned dynamicFactor() const { return dynDeclared ? 8 / dynGranule : 0; }

private:
  llvm::Module &M;
  llvm::DenseMap<llvm::GlobalVariable *, std::pair<llvm::GlobalVariable *, unsigned>> shadows;
  uint64_t &budget;        // bytes of static shared memory left for shadows
  unsigned dynGranule = 4;
  bool dynDeclared = false;
};

class Target;

struct OrderContext {
  llvm::Value *state, *launchId, *flags, *dynSmem;
  bool kernel;             // F is a kernel clone: its pointer parameters are kernel arguments
  bool logOps = false;     // order-ops: every operation also calls __kosan_order_op
  const Target *target = nullptr; // the module's target: its shuffles
};

OrderCounts instrumentOrder(llvm::Function &F, const OrderContext &ctx,
                            SiteTable &sites, SharedShadows &shared);

} // namespace kosan

#endif
