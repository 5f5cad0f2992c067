//===- runtime/host/core/deferred_table.cpp - The table of deferred clones -===//
#include "core/deferred_table.h"

#include <cstring>

namespace kosan::rt {

std::string parseDeferredTable(std::span<const char> blob, std::vector<DeferredKernel> &out) {
  out.clear();
  kosan_deferred_header h;
  if (blob.size() < sizeof h)
    return "the table is shorter than its header";
  std::memcpy(&h, blob.data(), sizeof h);
  if (h.magic != KOSAN_DEFERRED_MAGIC)
    return "not a table of deferred clones";
  if (h.abi_version != KOSAN_ABI_VERSION)
    return "the table is from another kosan version";
  uint64_t kernelsAt = sizeof h;
  uint64_t refsAt = kernelsAt + uint64_t(h.nkernels) * sizeof(kosan_deferred_kernel);
  uint64_t stringsAt = refsAt + uint64_t(h.nrefs) * sizeof(kosan_deferred_ref);
  uint64_t payloadAt = stringsAt + h.strings_size;
  if (h.payload_size > blob.size() || payloadAt > blob.size() - h.payload_size)
    return "the table is damaged (its parts run past its end)";
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
    if (uint64_t(e.first_ref) + e.nrefs > h.nrefs || e.ptx_offset > h.payload_size ||
        e.ptx_zbytes > h.payload_size - e.ptx_offset)
      return "the table is damaged (a kernel's entry points past it)";
    DeferredKernel k;
    k.name = str(e.name_str);
    k.zptx = std::string_view(blob.data() + payloadAt + e.ptx_offset, e.ptx_zbytes);
    k.ptxBytes = e.ptx_bytes;
    for (uint32_t j = 0; j < e.nrefs; ++j) {
      kosan_deferred_ref r;
      std::memcpy(&r, blob.data() + refsAt + uint64_t(e.first_ref + j) * sizeof r, sizeof r);
      if (r.kind != KOSAN_DEFERRED_ADDRESS && r.kind != KOSAN_DEFERRED_MIRROR)
        return "the table is damaged (a global of unknown kind)";
      k.refs.push_back({str(r.name_str), r.kind, r.bytes});
    }
    out.push_back(std::move(k));
  }
  return {};
}

std::string writeGlobalTable(std::string &ptx, std::span<const uint64_t> addresses) {
  if (addresses.empty())
    return {};
  size_t at = ptx.find(KOSAN_DEFERRED_GTAB_SYMBOL "[");
  size_t begin = at == std::string::npos ? at : ptx.rfind('\n', at);
  size_t end = at == std::string::npos ? at : ptx.find(';', at);
  if (begin == std::string::npos || end == std::string::npos)
    return "the clone's PTX has no table of global addresses";
  std::string line = ".visible .const .align 8 .u64 " KOSAN_DEFERRED_GTAB_SYMBOL "[" +
                     std::to_string(addresses.size()) + "] = {";
  for (size_t i = 0; i < addresses.size(); ++i)
    line += (i ? ", " : "") + std::to_string(addresses[i]);
  line += "}";
  ptx.replace(begin + 1, end - begin - 1, line);
  return {};
}

} // namespace kosan::rt
