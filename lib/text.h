//===- text.h - Small text helpers of the reports (internal) ---------------===//
#ifndef KOSAN_LIB_TEXT_H
#define KOSAN_LIB_TEXT_H

#include <cstdint>
#include <string>

namespace kosan::detail {

// "1 element", "3 elements".
inline std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace kosan::detail

#endif
