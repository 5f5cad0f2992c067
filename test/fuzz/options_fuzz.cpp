//===- options_fuzz.cpp - libFuzzer target: the KOSAN_OPTIONS parser ------===//
//
// The input is the text of KOSAN_OPTIONS. Whatever it holds, parsing ends
// without a crash or a sanitizer report, every warning is one line that
// starts "kosan: warning: ", the options it yields are in their documented
// ranges, and the help text and the list of effective values are printable.
//
//===----------------------------------------------------------------------===//
#include "core/options.h"

#include "kosan/abi.h"
#include "kosan/checks.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using kosan::rt::ParsedOptions;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  // An environment variable ends at its first NUL.
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  ParsedOptions parsed = kosan::rt::parseOptions(text.c_str());
  const kosan::rt::Options &o = parsed.options;
  for (const std::string &w : parsed.warnings)
    if (w.rfind("kosan: warning: ", 0) != 0 || w.find('\n') != std::string::npos)
      std::abort();
  // Run-time checks only: no build variant (order-ops) comes out.
  if ((o.check_bits() & ~kosan::kEveryCheck) != 0)
    std::abort();
  if (o.print_limit < 0 || o.error_exitcode < 0 || o.error_exitcode > 255 ||
      o.snapshot_max_mb < 0 || o.precision_sites < 1 || o.precision_sites > 65536 ||
      o.log_capacity < 64 || o.log_capacity > (1 << 20) ||
      (o.log_capacity & (o.log_capacity - 1)) != 0 || o.order_shadow_mb < 0 ||
      (o.order_leaves != "position" && o.order_leaves != "value") ||
      o.log_path == "stdout" || o.log_path == "stderr")
    std::abort();
  (void)kosan::rt::optionsHelp();
  return 0;
}
