//===- kosan/order.h - Fingerprints of the order of floating-point work ----===//
//
// checks=order gives every floating-point value an order fingerprint: a
// 64-bit hash of how the value was computed. The instrumented kernel (code
// the pass emits), the device runtime and the host (which folds a
// location's atomic contributions in the order they landed) all compute it
// by the rules here; docs/order.md explains them.
//
//   leaf      a value read from kernel parameter `arg` at byte offset `off`
//             from the parameter's value: kosan_fp_leaf(arg, off). Comparable
//             between runs whose buffers lie at other addresses.
//   content   a value of unknown origin (read through a pointer the compiler
//             could not trace, converted from an integer, shuffled as raw
//             bits): kosan_fp_content(bits, dtype). Equal bits, equal leaf:
//             such a value cannot make two results differ unless its bits do.
//   constant  kosan_fp_content of its bits, folded by the compiler.
//   operation kosan_fp_combine(op, a, b): not commutative, not associative,
//             so (a+b)+c, a+(b+c) and (a+c)+b all differ.
//   commutative operations (fadd, fmul, min, max, fma's product) sort their
//             operands first: a+b and b+a give the same bits in IEEE
//             arithmetic, so they get the same fingerprint.
//   fma(a,b,c) combine(FMA, product(a, b), c) with product(a, b) = a + b
//             (mod 2^64): unlike a*b+c computed in two roundings. The
//             product is exact inside the fma, so it needs no hash of its
//             own: a sum tells {a, b} apart from any other pair of
//             fingerprints as well as a sorted hash would, and a chain
//             acc = fma(x, y, acc) (a dot product, a matmul's k loop) costs
//             one combine per step.
//   atomics   a location's fingerprint after float atomics is its leaf
//             folded with each contribution in landing order,
//             combine(ATOMIC_<op>, acc, contribution), on the host.
//
// Equal fingerprints: the same operations on the same inputs in the same
// order, so the same bits. Unequal ones: the bits may differ.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_ORDER_H
#define KOSAN_ORDER_H

#include <stdint.h>

#include "kosan/fnv.h"

#if defined(__CUDACC__) || defined(__CUDA__)
#define KOSAN_FP_FN static inline __host__ __device__
#else
#define KOSAN_FP_FN static inline
#endif

#define KOSAN_FP_MUL 0x9e3779b97f4a7c15ull     // odd: multiplying is a bijection
#define KOSAN_FP_LEAF_MUL 0xbf58476d1ce4e5b9ull
#define KOSAN_FP_CONTENT_SALT 0x94d049bb133111ebull
#define KOSAN_FP_UNARY_SALT 0x2545f4914f6cdd1dull
#define KOSAN_FP_ROTATE 23

// Operation codes: FNV-1a 64 of the operation's name, so the pass can name
// any operation without a table; the host needs only the atomic ones.
KOSAN_FP_FN uint64_t kosan_fp_op(const char *name) {
  uint64_t h = KOSAN_FNV_OFFSET_BASIS;
  for (; *name; ++name)
    h = kosan_fnv1a_step(h, (uint8_t)*name);
  return h;
}

// The salt that tells kernel parameters apart in leaves.
KOSAN_FP_FN uint64_t kosan_fp_arg_salt(uint32_t arg) {
  uint64_t x = (uint64_t)arg + 0x632be59bd9b4e019ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

KOSAN_FP_FN uint64_t kosan_fp_scramble(uint64_t x) {
  x *= KOSAN_FP_LEAF_MUL;
  return x ^ (x >> 29);
}

KOSAN_FP_FN uint64_t kosan_fp_leaf(uint32_t arg, uint64_t byte_offset) {
  return kosan_fp_scramble(byte_offset ^ kosan_fp_arg_salt(arg));
}

// dtype: kosan_dtype of the value (so that 1.0f and 1.0 differ).
KOSAN_FP_FN uint64_t kosan_fp_content(uint64_t bits, uint32_t dtype) {
  return kosan_fp_scramble(bits ^ KOSAN_FP_CONTENT_SALT ^ ((uint64_t)dtype << 56));
}

KOSAN_FP_FN uint64_t kosan_fp_rotl(uint64_t x) {
  return (x << KOSAN_FP_ROTATE) | (x >> (64 - KOSAN_FP_ROTATE));
}

KOSAN_FP_FN uint64_t kosan_fp_combine(uint64_t op, uint64_t a, uint64_t b) {
  return (kosan_fp_rotl(a) ^ b ^ op) * KOSAN_FP_MUL;
}

KOSAN_FP_FN uint64_t kosan_fp_combine_commutative(uint64_t op, uint64_t a, uint64_t b) {
  return a < b ? kosan_fp_combine(op, a, b) : kosan_fp_combine(op, b, a);
}

KOSAN_FP_FN uint64_t kosan_fp_unary(uint64_t op, uint64_t a) {
  return kosan_fp_combine(op, a, KOSAN_FP_UNARY_SALT);
}

// The product inside an fma (the order-ops log records it as an "fma.mul"
// operation whose result is this, not a combine).
KOSAN_FP_FN uint64_t kosan_fp_product(uint64_t a, uint64_t b) { return a + b; }

KOSAN_FP_FN uint64_t kosan_fp_fma(uint64_t a, uint64_t b, uint64_t c) {
  return kosan_fp_combine(kosan_fp_op("fma"), kosan_fp_product(a, b), c);
}

// What an operation the order-ops log records (operands a and b, operation
// code op) computed: the fma's product is a sum, every other a combine.
KOSAN_FP_FN uint64_t kosan_fp_logged_result(uint64_t op, uint64_t a, uint64_t b) {
  return op == kosan_fp_op("fma.mul") ? kosan_fp_product(a, b) : kosan_fp_combine(op, a, b);
}

#undef KOSAN_FP_FN

#endif // KOSAN_ORDER_H
