//===- passes/DeviceRuntime.h - The device runtime's entry points -*- C++ -*-===//
//
// The `__kosan_*` functions instrumented code calls, one constant per entry
// of KOSAN_DEVICE_ENTRIES (include/kosan/abi.h, where their signatures are
// documented): kosan::rt::OobRecord is "__kosan_oob_record". Passes name
// entries through these, never by a string literal.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_DEVICERUNTIME_H
#define KOSAN_PASSES_DEVICERUNTIME_H

#include "kosan/abi.h"

#include "llvm/ADT/StringRef.h"


namespace llvm {
class Module;
} // namespace llvm

namespace kosan {
namespace rt {

// Every symbol of the device runtime starts with this.
inline constexpr char Prefix[] = "__kosan_";

#define KOSAN_ENTRY_NAME(id, sym, site, inlined) inline constexpr char id[] = sym;
KOSAN_DEVICE_ENTRIES(KOSAN_ENTRY_NAME)
#undef KOSAN_ENTRY_NAME

struct Entry {
  const char *name;
  int siteArgument; // -1: none
  bool inlined;
};
// Every entry, in KOSAN_DEVICE_ENTRIES' order: which take a site id (the
// argument that holds it, to which relocatable device code adds the unit's
// site base), which the plugin inlines into their callers once the runtime
// is linked.
inline constexpr Entry Entries[] = {
#define KOSAN_ENTRY_ROW(id, sym, site, inlined) {id, site, (inlined) != 0},
    KOSAN_DEVICE_ENTRIES(KOSAN_ENTRY_ROW)
#undef KOSAN_ENTRY_ROW
};

} // namespace rt

// Links the embedded device runtime into M (only the functions M calls) and
// makes them internal to M.
bool linkDeviceRuntime(llvm::Module &M);
// Whether the plugin carries a device runtime for M's target (amdgcn's is
// built only where the ROCm device libraries are).
bool hasDeviceRuntime(const llvm::Module &M);

} // namespace kosan

#endif
