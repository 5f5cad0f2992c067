//===- plugin/Plugin.h - Shared by the pass plugin and the frontend plugin -===//
#ifndef KOSAN_PLUGIN_PLUGIN_H
#define KOSAN_PLUGIN_PLUGIN_H

#include "KosanPasses.h"

namespace llvm {
class PassBuilder;
}

namespace kosan {
// Set when the frontend plugin registered the passes itself, so that the
// same library also given as -fpass-plugin does not instrument twice.
extern bool gFrontendRegistered;
void registerPasses(llvm::PassBuilder &PB, PassOptions opts, bool fromFrontend);
} // namespace kosan

#endif
