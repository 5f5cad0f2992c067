//===- base64.h - base64 of trace payloads (internal) ---------------------===//
//
// Standard base64 with padding (RFC 4648), as snapshot_chunk, order_stores
// and order_atomics lines hold their payloads (docs/trace-format.md).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_LIB_BASE64_H
#define KOSAN_LIB_BASE64_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::detail {

// Appends the encoding of in[0, n) to out.
void base64Encode(const uint8_t *in, size_t n, std::string &out);
// Decodes into out (resized). False on a length that is not a multiple of 4,
// a character outside the alphabet, or misplaced padding.
bool base64Decode(std::string_view in, std::vector<uint8_t> &out);

} // namespace kosan::detail

#endif // KOSAN_LIB_BASE64_H
