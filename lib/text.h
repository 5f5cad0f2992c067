//===- text.h - Small text helpers of the reports (internal) ---------------===//
#ifndef KOSAN_LIB_TEXT_H
#define KOSAN_LIB_TEXT_H

#include "kosan/trace.h"

#include <cstdint>
#include <string>

namespace kosan::detail {

// "1 element", "3 elements".
inline std::string plural(uint64_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "file:line:column", leaving out the parts the debug info did not have (as
// the runtime writes a snapshot's store sites).
inline std::string fileLocation(const SourceLoc &s) {
  std::string out = s.file;
  if (s.line != 0) {
    out += ":" + std::to_string(s.line);
    if (s.column != 0)
      out += ":" + std::to_string(s.column);
  }
  return out;
}

} // namespace kosan::detail

#endif
