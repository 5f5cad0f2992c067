/*===- kosan/capi.h - C API of the kosan host library ----------------------===
 *
 * libkosan_host.so: read traces and compare them, from C or through ctypes
 * (the Python package uses exactly this). Records cross the API as JSON text
 * with the members of docs/trace-format.md; strings the library returns are
 * freed with kosan_string_free.
 *
 *===------------------------------------------------------------------------===*/
#ifndef KOSAN_CAPI_H
#define KOSAN_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KOSAN_CAPI_VERSION 3
int kosan_capi_version(void);

/* The checks (KOSAN_CHECKS, kosan/abi.h) as a JSON array, in the table's
 * order: {"name", "bits", "runtime", "all"} each; "runtime" is false for a
 * build variant (order-ops), which only --kosan-checks= takes, and "all"
 * says whether "all" includes it. */
char *kosan_checks_json(void);

typedef struct kosan_trace kosan_trace;

/* Opens and reads a trace (not the snapshot contents). Returns NULL on
 * failure and, if error is not NULL, a message in *error (free it). A
 * truncated trace opens (what was complete is there) and sets *error too. */
kosan_trace *kosan_trace_open(const char *path, char **error);
void kosan_trace_close(kosan_trace *trace);

/* The header; and the whole trace as kosan-report --format json prints it. */
char *kosan_trace_header_json(const kosan_trace *trace);
char *kosan_trace_json(const kosan_trace *trace);

/* Records by index: launches, OOB events, snapshots. Out of range: NULL. */
size_t kosan_trace_launch_count(const kosan_trace *trace);
char *kosan_trace_launch_json(const kosan_trace *trace, size_t index);
size_t kosan_trace_oob_count(const kosan_trace *trace);
char *kosan_trace_oob_json(const kosan_trace *trace, size_t index);
size_t kosan_trace_snapshot_count(const kosan_trace *trace);
char *kosan_trace_snapshot_json(const kosan_trace *trace, size_t index);
/* The order check's records (checks=order): each launch's atomics on one
 * buffer (order_atomics, its parts joined; without the landing orders
 * themselves: their count and how many locations depend on them) and each
 * launch's order_summary. */
size_t kosan_trace_order_atomics_count(const kosan_trace *trace);
char *kosan_trace_order_atomics_json(const kosan_trace *trace, size_t index);
size_t kosan_trace_order_summary_count(const kosan_trace *trace);
char *kosan_trace_order_summary_json(const kosan_trace *trace, size_t index);
/* Bytes of snapshot `index` (count * element size). */
uint64_t kosan_trace_snapshot_bytes(const kosan_trace *trace, size_t index);
/* Copies the snapshot's contents into out (capacity bytes, at least
 * kosan_trace_snapshot_bytes). Returns 0, or -1 with *error set. */
int kosan_trace_snapshot_read(const kosan_trace *trace, size_t index, void *out,
                              uint64_t capacity, char **error);

/* Compares two traces. options_json may be NULL or an object with any of
 * {"atol": x, "rtol": x, "tolerances": {"f16": {"atol": x, "rtol": x}},
 *  "launches": [[ref_id, cand_id], ...]}. Returns the result as JSON
 * (kosan-diff --format json) and the verdict in *verdict (0 equivalent,
 * 1 different, 2 trouble). format: "json", "text", "sarif" or "junit". */
char *kosan_diff(const char *ref_path, const char *cand_path,
                 const char *options_json, const char *format, int *verdict);

/* Writes a trace holding one launch whose outputs are the given host
 * arrays: a reference computed outside kosan (a PyTorch model) to diff a
 * candidate against. names[i], dtypes[i] ("f32", "float16", ...), data[i],
 * bytes[i] for i < n; kernel names the launch. Returns 0 or -1 with *error. */
int kosan_write_reference(const char *path, const char *kernel, size_t n,
                          const char *const *names, const char *const *dtypes,
                          const void *const *data, const uint64_t *bytes,
                          char **error);

void kosan_string_free(char *s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KOSAN_CAPI_H */
