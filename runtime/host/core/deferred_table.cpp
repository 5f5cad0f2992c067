//===- runtime/host/core/deferred_table.cpp - The table of deferred clones -===//
#include "core/deferred_table.h"

#include <cstring>

namespace kosan::rt {

namespace {

std::string parse(std::span<const char> blob, DeferredTable &out) {
  kosan_deferred_header h;
  if (blob.size() < sizeof h)
    return "the table is shorter than its header";
  std::memcpy(&h, blob.data(), sizeof h);
  if (h.magic != KOSAN_DEFERRED_MAGIC)
    return "not a table of deferred clones";
  if (h.abi_version != KOSAN_ABI_VERSION)
    return "the table is from another kosan version";
  if (h.format != KOSAN_DEFERRED_PTX && h.format != KOSAN_DEFERRED_BITCODE)
    return "the table is damaged (its clones' code is of unknown form)";
  out.format = h.format;
  uint64_t kernelsAt = sizeof h;
  uint64_t refsAt = kernelsAt + uint64_t(h.nkernels) * sizeof(kosan_deferred_kernel);
  uint64_t stringsAt = refsAt + uint64_t(h.nrefs) * sizeof(kosan_deferred_ref);
  uint64_t payloadAt = stringsAt + h.strings_size;
  if (h.payload_zbytes > blob.size() || payloadAt > blob.size() - h.payload_zbytes)
    return "the table is damaged (its parts run past its end)";
  out.zpayload = std::string_view(blob.data() + payloadAt, h.payload_zbytes);
  out.payloadBytes = h.payload_bytes;
  std::string_view strings(blob.data() + stringsAt, h.strings_size);
  auto str = [&](uint32_t off) -> std::string {
    if (off >= strings.size())
      return {};
    std::string_view rest = strings.substr(off);
    return std::string(rest.substr(0, rest.find('\0')));
  };
  for (uint32_t i = 0; i < h.nkernels; ++i) {
    kosan_deferred_kernel e;
    std::memcpy(&e, blob.data() + kernelsAt + uint64_t(i) * sizeof e, sizeof e);
    if (uint64_t(e.first_ref) + e.nrefs > h.nrefs || e.code_offset > h.payload_bytes ||
        e.code_bytes > h.payload_bytes - e.code_offset)
      return "the table is damaged (a kernel's entry points past it)";
    DeferredKernel k;
    k.name = str(e.name_str);
    k.codeOffset = e.code_offset;
    k.codeBytes = e.code_bytes;
    for (uint32_t j = 0; j < e.nrefs; ++j) {
      kosan_deferred_ref r;
      std::memcpy(&r, blob.data() + refsAt + uint64_t(e.first_ref + j) * sizeof r, sizeof r);
      if (r.kind != KOSAN_DEFERRED_ADDRESS && r.kind != KOSAN_DEFERRED_MIRROR)
        return "the table is damaged (a global of unknown kind)";
      k.refs.push_back({str(r.name_str), r.kind, r.bytes});
    }
    out.kernels.push_back(std::move(k));
  }
  return {};
}

} // namespace

std::string parseDeferredTable(std::span<const char> blob, DeferredTable &out) {
  DeferredTable t;
  std::string why = parse(blob, t);
  out = why.empty() ? std::move(t) : DeferredTable{};
  return why;
}

} // namespace kosan::rt
