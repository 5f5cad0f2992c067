//===- passes/mutate/Mutator.h - Mutants of device code ----------*- C++ -*-===//
//
// Mutation analysis at the IR level: the pass enumerates, in the device
// code a build compiles, every place where one of the operators of
// kosan/mutate.h applies (a mutant), and on request applies exactly one. It
// runs at the start of the optimization pipeline, on the code as the
// frontend emitted it (one icmp per source comparison, one GEP per
// subscript), before optimization and before kosan's checks instrument
// anything, so every build route gets the same mutants and a mutant is
// optimized and checked like hand-written code. See docs/mutate.md.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_MUTATE_MUTATOR_H
#define KOSAN_PASSES_MUTATE_MUTATOR_H

#include "llvm/IR/PassManager.h"

#include <string>
#include <vector>

namespace kosan {

struct MutateOptions {
  // Apply the mutant with this id (hex, as listed); empty: apply none.
  std::string apply;
  // Append one JSON line per mutant of the module to this file ("-": stdout).
  std::string listFile;
  // Append the applied id to this file. When set, a module without the
  // mutant is not an error: the driver that gave the file checks that some
  // module of the build had it (several device modules, one per GPU
  // architecture, compile from one source).
  std::string reportFile;
  // Functions defined in files under these prefixes (system and toolkit
  // headers) are not mutated.
  std::vector<std::string> skipPrefixes;

  bool active() const { return !apply.empty() || !listFile.empty(); }
  // Defaults from the hidden -kosan-mutate-* command-line options.
  static MutateOptions fromCommandLine();
};

struct MutantInfo {
  std::string id;          // 12 hex digits, stable for a source and its flags
  std::string op;          // an operator name of kosan/mutate.h
  std::string function;    // demangled
  std::string file;
  unsigned line = 0, column = 0;
  std::string description; // what the mutant changes, in a few words
};

// The mutants of M's device code, in module order; applies the one whose id
// is \p apply (if any), setting *applied.
std::vector<MutantInfo> enumerateMutants(llvm::Module &M, const MutateOptions &opts,
                                         llvm::StringRef apply = "",
                                         bool *applied = nullptr);

// opt -passes='kosan-mutate<list>' / 'kosan-mutate<id=ID>'; the plugin adds
// it at the pipeline start of device modules when a build asks for it.
struct MutatorPass : llvm::PassInfoMixin<MutatorPass> {
  explicit MutatorPass(MutateOptions opts) : opts(std::move(opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>);
  MutateOptions opts;
};

} // namespace kosan

#endif
