/* The headers kosan writes for C, compiled as C: abi.h (the layouts the
 * pass, the device runtime and the host share, each pinned by a static
 * assertion that C checks too), codegen.h and fnv.h. */
#include "kosan/abi.h"
#include "kosan/codegen.h"
#include "kosan/fnv.h"

int main(void) {
  enum kosan_deferred_format format = KOSAN_DEFERRED_BITCODE;
  return (int)format - 1 + (kosan_fnv1a("", 0) != KOSAN_FNV_OFFSET_BASIS);
}
