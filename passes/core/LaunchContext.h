//===- passes/core/LaunchContext.h - What an instrumented function knows of its launch -===//
//
// Every instrumented function reads its launch context: the device state's
// address, the launch id, the launch flags and the dynamic shared memory
// of the launch. A kernel clone loads them from its last parameter, the
// launch info (kosan_launch_info in abi.h, laid out by LaunchInfoLayout);
// a device function clone receives them as four trailing arguments, which
// its callers pass on.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_LAUNCHCONTEXT_H
#define KOSAN_PASSES_CORE_LAUNCHCONTEXT_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

namespace kosan {

struct LaunchContext {
  llvm::Value *state = nullptr, *launchId = nullptr, *flags = nullptr, *dynSmem = nullptr;
  llvm::Argument *info = nullptr; // kernels only: the launch info
  bool kernel = false;            // a kernel clone (its pointer parameters are kernel arguments)

  // A kernel clone whose original had numArgs parameters: loads from the
  // launch info after the entry block's allocas.
  static LaunchContext forKernel(llvm::Function &clone, unsigned numArgs);
  // A device function clone whose original had numArgs parameters.
  static LaunchContext forDeviceFunction(llvm::Function &clone, unsigned numArgs);
  // The trailing parameters of a device function clone, and their names.
  static llvm::SmallVector<llvm::Type *, 4> deviceFunctionParams(llvm::LLVMContext &Ctx);
  static void nameDeviceFunctionParams(llvm::Function &clone, unsigned numArgs);
  // What a call of a device function clone passes on.
  void appendArgs(llvm::SmallVectorImpl<llvm::Value *> &args) const {
    args.append({state, launchId, flags, dynSmem});
  }
};

// kosan's own memory accesses (of the launch info, of the unit's site base)
// are never checked.
llvm::Instruction *markNoSanitize(llvm::Instruction *I);

} // namespace kosan

#endif
