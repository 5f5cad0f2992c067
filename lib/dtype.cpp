//===- dtype.cpp - Element types of snapshots -----------------------------===//
//
// Kept apart from the snapshot codec so that a program that only writes
// records (the runtime without snapshot=1) does not pull in zstd.
//
//===----------------------------------------------------------------------===//
#include "kosan/trace.h"

#include <algorithm>
#include <cctype>

namespace kosan {

namespace {

struct DTypeInfo {
  DType type;
  const char *name;     // as the trace writes it
  uint32_t size;
  bool isFloat;
};

constexpr DTypeInfo kDTypes[] = {
#define KOSAN_DTYPE_INFO(suffix, cpp, name, bytes, isFloat) {DType::cpp, name, bytes, isFloat != 0},
    KOSAN_DTYPES(KOSAN_DTYPE_INFO)
#undef KOSAN_DTYPE_INFO
};

// Other spellings: PyTorch's (torch.float32, torch.half) and NumPy's.
struct Alias {
  const char *name;
  DType type;
};
constexpr Alias kAliases[] = {
    {"float64", DType::F64},   {"double", DType::F64},
    {"float32", DType::F32},   {"float", DType::F32},
    {"float16", DType::F16},   {"half", DType::F16},
    {"bfloat16", DType::BF16},
    {"float8_e4m3fn", DType::F8E4M3}, {"float8_e4m3", DType::F8E4M3},
    {"e4m3", DType::F8E4M3},   {"fp8_e4m3", DType::F8E4M3},
    {"float8_e5m2", DType::F8E5M2}, {"e5m2", DType::F8E5M2},
    {"fp8_e5m2", DType::F8E5M2},
    {"int64", DType::I64},     {"long", DType::I64},
    {"int32", DType::I32},     {"int", DType::I32},
    {"int16", DType::I16},     {"short", DType::I16},
    {"int8", DType::I8},
    {"uint64", DType::U64},    {"uint32", DType::U32},
    {"uint16", DType::U16},    {"uint8", DType::U8},
    {"bool_", DType::Bool},
    {"unknown", DType::Unknown}, {"raw", DType::Unknown},
};

const DTypeInfo &info(DType t) {
  for (const DTypeInfo &i : kDTypes)
    if (i.type == t)
      return i;
  return kDTypes[0];
}

} // namespace

const char *dtypeName(DType t) { return info(t).name; }
uint32_t dtypeSize(DType t) { return info(t).size; }
bool dtypeIsFloat(DType t) { return info(t).isFloat; }

std::optional<DType> parseDType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string_view key = lower;
  for (std::string_view prefix : {"torch.", "numpy.", "np."})
    if (key.starts_with(prefix))
      key.remove_prefix(prefix.size());
  for (const DTypeInfo &i : kDTypes)
    if (key == i.name)
      return i.type;
  for (const Alias &a : kAliases)
    if (key == a.name)
      return a.type;
  return std::nullopt;
}

} // namespace kosan
