//===- kosan-fp - Order fingerprints from the command line (tests) ---------===//
//
// kosan-fp [--label NAME] EXPR: prints the fingerprint (include/kosan/order.h) of EXPR as a
// signed decimal, the way LLVM IR prints an i64 constant, so that lit tests
// can hold the pass's inline arithmetic to the host's. EXPR is prefix
// notation, one word per argument:
//   leaf ARG OFFSET          kosan_fp_leaf
//   f32 VALUE | f64 VALUE    kosan_fp_content of the value's bits
//   f16 BITS | bf16 BITS     kosan_fp_content of a half's bits (0x3c00 is 1.0)
//   op NAME A B              kosan_fp_combine(kosan_fp_op(NAME), A, B)
//   comm NAME A B            kosan_fp_combine_commutative
//   unary NAME A             kosan_fp_unary
//   fma A B C                kosan_fp_fma
// With --label, the line is "NAME VALUE".
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"
#include "kosan/order.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

char **arg, **end;

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: kosan-fp EXPR (see the source)\n");
  std::exit(2);
}

const char *word() {
  if (arg == end)
    usage();
  return *arg++;
}

uint64_t expr() {
  std::string w = word();
  if (w == "leaf") {
    uint32_t a = std::strtoul(word(), nullptr, 0);
    return kosan_fp_leaf(a, std::strtoull(word(), nullptr, 0));
  }
  if (w == "f32") {
    float f = std::strtof(word(), nullptr);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return kosan_fp_content(bits, KOSAN_DTYPE_F32);
  }
  if (w == "f64") {
    double d = std::strtod(word(), nullptr);
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    return kosan_fp_content(bits, KOSAN_DTYPE_F64);
  }
  if (w == "f16" || w == "bf16")
    return kosan_fp_content(std::strtoul(word(), nullptr, 0) & 0xffff,
                            w == "f16" ? KOSAN_DTYPE_F16 : KOSAN_DTYPE_BF16);
  if (w == "unary") {
    uint64_t op = kosan_fp_op(word());
    return kosan_fp_unary(op, expr());
  }
  if (w == "op" || w == "comm") {
    uint64_t op = kosan_fp_op(word());
    uint64_t a = expr(), b = expr();
    return w == "op" ? kosan_fp_combine(op, a, b) : kosan_fp_combine_commutative(op, a, b);
  }
  if (w == "fma") {
    uint64_t a = expr(), b = expr(), c = expr();
    return kosan_fp_fma(a, b, c);
  }
  usage();
}

} // namespace

int main(int argc, char **argv) {
  arg = argv + 1;
  end = argv + argc;
  const char *label = nullptr;
  if (arg != end && std::strcmp(*arg, "--label") == 0) {
    ++arg;
    label = word();
  }
  uint64_t v = expr();
  if (arg != end)
    usage();
  if (label)
    std::printf("%s ", label);
  std::printf("%lld\n", static_cast<long long>(v));
  return 0;
}
