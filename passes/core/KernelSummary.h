//===- passes/core/KernelSummary.h - What a kernel does with its parameters -----===//
//
// Which pointer parameters a kernel reads and writes, and the element type it
// stores through them. The runtime uses it to snapshot a launch's outputs
// (snapshot=1) and to poison the outputs a kernel writes without reading
// (poison=1), so the summary errs on the safe side: whatever the compiler
// cannot follow counts as read and written.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_KERNELSUMMARY_H
#define KOSAN_PASSES_KERNELSUMMARY_H

#include "kosan/abi.h"

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace llvm {
class Type;
class Function;
class DataLayout;
} // namespace llvm

namespace kosan {

struct ParamSummary {
  std::string name;   // from debug information, if any
  uint32_t flags = 0; // kosan_param_flags
  uint32_t dtype = KOSAN_DTYPE_UNKNOWN;
};

struct KernelSummary {
  uint32_t flags = 0; // kosan_kernel_flags
  std::vector<ParamSummary> params;
};

KernelSummary summarizeKernel(llvm::Function &kernel, const llvm::DataLayout &DL);

// kosan_dtype of a scalar floating-point IR type (double, float, half,
// bfloat); KOSAN_DTYPE_UNKNOWN for anything else.
uint32_t floatDtypeOf(const llvm::Type *T);

// "f32", "bf16", ... for remarks and site names; "?" when unknown.
const char *dtypeShortName(uint32_t dtype);

// Element type of the pointee of a demangled C++ parameter type
// ("float const*" -> f32, "__half*" -> f16); KOSAN_DTYPE_UNKNOWN otherwise.
uint32_t dtypeOfPointerParameter(llvm::StringRef demangledType);

// The demangled parameter types of an Itanium-mangled function name, split at
// top-level commas; empty when the name is not mangled.
std::vector<std::string> demangledParameterTypes(llvm::StringRef mangled);

} // namespace kosan

#endif
