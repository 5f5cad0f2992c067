/*===- kosan/codegen.h - libkosan_codegen.so: PTX of deferred clones -*- C -*-===*
 *
 * A deferred clone kept as LLVM bitcode (abi.h, KOSAN_DEFERRED_BITCODE) is
 * made PTX at its kernel's first checked launch by libkosan_codegen.so,
 * which links LLVM (passes/core/ClonePtx.h, the pass's own code generator
 * of clones). The runtime loads it on first need, from KOSAN_CODEGEN or
 * next to libkosan_rt.so, and keeps the PTX it returns on disk
 * (runtime/host/core/clone_codegen.h), so that a later run loads neither.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KOSAN_CODEGEN_H
#define KOSAN_CODEGEN_H

#include <stddef.h>

#define KOSAN_CODEGEN_LIBRARY "libkosan_codegen.so"
#define KOSAN_CODEGEN_PTX_SYMBOL "kosan_codegen_ptx"
#define KOSAN_CODEGEN_FREE_SYMBOL "kosan_codegen_free"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the module in `bitcode` PTX. Returns 0 with the PTX in *out
 * (*out_bytes long, NUL-terminated), or nonzero with an error message (one
 * line) in *out. *out is released with kosan_codegen_free. Thread-safe. */
typedef int (*kosan_codegen_ptx_fn)(const void *bitcode, size_t bytes, char **out,
                                    size_t *out_bytes);
typedef void (*kosan_codegen_free_fn)(char *out);

#ifdef __cplusplus
}
#endif

#endif /* KOSAN_CODEGEN_H */
