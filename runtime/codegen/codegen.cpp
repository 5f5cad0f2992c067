//===- runtime/codegen/codegen.cpp - libkosan_codegen.so ------------------===//
//
// PTX of deferred clones kept as bitcode (kosan/codegen.h), with the code
// generator the pass uses (passes/core/ClonePtx.h).
//
//===----------------------------------------------------------------------===//
#include "kosan/codegen.h"

#include "core/ClonePtx.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace {

char *copyOut(const std::string &s, size_t *bytes) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (!out)
    return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  if (bytes)
    *bytes = s.size();
  return out;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
kosan_codegen_ptx(const void *bitcode, size_t bytes, char **out, size_t *out_bytes) {
  // The code generator's options are the process's: one compile at a time.
  static std::mutex mu;
  static kosan::PtxEmitter *emitter;
  std::lock_guard<std::mutex> lock(mu);
  if (!emitter) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    emitter = new kosan::PtxEmitter;
  }
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(static_cast<const char *>(bitcode), bytes), "deferred clone",
      /*RequiresNullTerminator=*/false);
  llvm::Expected<std::unique_ptr<llvm::Module>> M = llvm::parseBitcodeFile(*buffer, Ctx);
  if (!M) {
    *out = copyOut("its bitcode does not read (" + llvm::toString(M.takeError()) + ")", out_bytes);
    return 1;
  }
  std::string why;
  std::string ptx = emitter->emit(**M, why, /*applyOptions=*/true);
  if (ptx.empty()) {
    *out = copyOut(why, out_bytes);
    return 1;
  }
  *out = copyOut(ptx, out_bytes);
  return *out ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) void kosan_codegen_free(char *out) {
  std::free(out);
}
