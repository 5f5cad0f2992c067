//===- kosan/mutate.h - The mutation operators, once -------------*- C++ -*-===//
//
// Every mutation operator kosan's plugin knows (passes/mutate/Mutator.cpp),
// by the name that `kosan-mutate list`, the campaign's reports and the
// documentation (docs/mutate.md) use. The pass, the tool's help and the
// campaign derive their lists from this table.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_MUTATE_H
#define KOSAN_MUTATE_H

#include <string_view>

namespace kosan {

struct MutationOperator {
  std::string_view name;
  std::string_view summary;
};

// X-macro: MUTATION_OPERATOR(identifier, "name", "what it does").
#define KOSAN_MUTATION_OPERATORS(X)                                                  \
  X(Relational, "relational", "relational boundary: < and <=, > and >= swapped")    \
  X(Index, "index", "index off by one: +1 or -1 on an address computation's index") \
  X(Guard, "guard", "removed guard: a branch always takes its guarded side")        \
  X(ThreadIndex, "thread-index",                                                    \
    "swapped thread/block index: threadIdx and blockIdx, x and y")                  \
  X(Arith, "arith", "arithmetic operator replaced: + and -, * and /")               \
  X(Constant, "constant", "constant perturbed: an integer +1, a float by 2^-7")     \
  X(Precision, "precision",                                                         \
    "precision downgrade: an f32 add, sub, mul, div or fma computed in f16 or bf16") \
  X(FastMath, "fast-math",                                                          \
    "fast intrinsic: expf, logf, sinf, cosf, sqrtf or an f32 division made "       \
    "approximate (__expf style)")                                                  \
  X(Barrier, "barrier", "removed barrier: __syncthreads or __syncwarp deleted")     \
  X(ReductionOrder, "reduction-order",                                              \
    "reduction order changed: shuffle down and xor swapped, a shuffle stride "     \
    "halved, or out[i] += x made an atomic add")                                   \
  X(Init, "init", "changed initial value of an accumulator")                        \
  X(Store, "store", "dropped store to memory")                                      \
  X(SharedExtent, "shared-extent",                                                  \
    "wrong shared-memory extent: a shared array index wrapped into half the array")

enum class MutationOperatorId {
#define KOSAN_MUTATION_ENUM(Id, Name, Summary) Id,
  KOSAN_MUTATION_OPERATORS(KOSAN_MUTATION_ENUM)
#undef KOSAN_MUTATION_ENUM
};

inline constexpr MutationOperator kMutationOperators[] = {
#define KOSAN_MUTATION_ROW(Id, Name, Summary) {Name, Summary},
    KOSAN_MUTATION_OPERATORS(KOSAN_MUTATION_ROW)
#undef KOSAN_MUTATION_ROW
};

inline constexpr std::string_view mutationOperatorName(MutationOperatorId id) {
  return kMutationOperators[static_cast<int>(id)].name;
}

} // namespace kosan

#endif // KOSAN_MUTATE_H
