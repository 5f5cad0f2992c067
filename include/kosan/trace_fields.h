//===- kosan/trace_fields.h - The members of each trace record -------------===//
//
// One table per record kind (docs/trace-format.md): the members of a trace
// line in the order they are written, each with its JSON form. The writer
// (TraceWriter, and kosan-report's JSON output) and the reader (readTrace)
// both derive from these tables (lib/trace.cpp), so a member is named once.
// What a reader checks beyond the form (a kind's allowed values, counts
// that must agree) stays with the reader.
//
//   F(member, form)
//
// form:
//   Plain        the member's own JSON form: numbers, strings, booleans,
//                arrays; Dim3 as [x, y, z]; nested records by their table
//   Address      a "0x..." string (addresses, hashes: JSON readers hold
//                numbers as doubles)
//   Double       a number, or "inf", "-inf", "nan"
//   DType        an element type's name ("f32")
//   DTypeOrEmpty an element type's name, or "" for Unknown
//   OmitEmpty    a string written only when not empty; may be absent
//   Optional     always written; may be absent (traces of older runtimes)
//   OptionalDouble  a Double, always written; may be absent
//   OmitFalse    a boolean written only when true; absent reads as false
//   OmitEmptyRecord a nested record written only when its `kind` is not
//                empty; may be absent
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TRACE_FIELDS_H
#define KOSAN_TRACE_FIELDS_H

// "header", after "format": the first line.
#define KOSAN_TRACE_HEADER_FIELDS(F)                                                       \
  F(version, Plain) F(kosan_version, Plain) F(pid, Plain) F(argv, Plain)                   \
  F(start_time, Plain) F(options, Plain) F(gpu_name, Plain) F(gpu_arch, Plain)             \
  F(driver_version, Plain) F(runtime_version, Plain)

// ModuleRecord: "module".
#define KOSAN_TRACE_MODULE_FIELDS(F)                                                       \
  F(id, Plain) F(source, Plain) F(compiler, Plain) F(fp_mode, Plain) F(sites, Plain)

// LaunchRecord: "launch".
#define KOSAN_TRACE_LAUNCH_FIELDS(F)                                                       \
  F(id, Plain) F(kernel, Plain) F(mangled, Plain) F(module, Plain) F(grid, Plain)          \
  F(block, Plain) F(shared_bytes, Plain) F(stream, Address) F(instrumented, Plain)

// SourceLoc: the "site" of OOB and precision records.
#define KOSAN_TRACE_SOURCE_LOC_FIELDS(F)                                                   \
  F(file, Plain) F(line, Plain) F(column, Plain) F(function, Plain) F(inlined_at, Plain)

// OobEvent: "oob" (memory errors: out of bounds, use after free, and the
// race check's data races, whose `conflict` names the other access).
#define KOSAN_TRACE_OOB_FIELDS(F)                                                          \
  F(launch, Plain) F(kind, Plain) F(access, Plain) F(size, Plain) F(count, Plain)          \
  F(site, Plain) F(site_id, Plain) F(block, Plain) F(thread, Plain) F(address, Address)    \
  F(buffer_name, Plain) F(buffer_begin, Address) F(buffer_end, Address) F(pitch, Plain)    \
  F(row_bytes, Plain) F(allocated_at, Plain) F(freed_at, OmitEmpty) F(space, Plain)                          \
  F(conflict, OmitEmpty)

// PrecisionWorst: the "worst" of a precision record.
#define KOSAN_TRACE_PRECISION_WORST_FIELDS(F)                                              \
  F(real, Double) F(shadow, Double) F(block, Plain) F(thread, Plain) F(launch, Plain)

// PrecisionCause: the "cause" of a precision record (its root cause).
#define KOSAN_TRACE_PRECISION_CAUSE_FIELDS(F)                                              \
  F(kind, Plain) F(op, Plain) F(dtype, DType) F(from_dtype, DTypeOrEmpty) F(site, Plain)   \
  F(local_log2, Plain)

// PrecisionRecord: "precision". The scale-aware error (max_abs_err, scale,
// scaled_bits), to_shared and cause are absent from traces of runtimes
// before them.
#define KOSAN_TRACE_PRECISION_FIELDS(F)                                                    \
  F(launch_first, Plain) F(launch_last, Plain) F(kind, Plain) F(op, Plain)                 \
  F(dtype, DType) F(from_dtype, DTypeOrEmpty) F(site, Plain) F(site_id, Plain)             \
  F(module, Plain) F(count, Plain) F(mean_rel_err, Double) F(max_rel_err, Double)          \
  F(max_ulp_err, Double) F(bits_lost, Double) F(hist, Plain) F(overflows, Plain)           \
  F(underflows, Plain) F(nans, Plain) F(worst, Plain) F(max_abs_err, OptionalDouble)       \
  F(scale, OptionalDouble) F(scaled_bits, OptionalDouble) F(to_shared, OmitFalse)           \
  F(cause, OmitEmptyRecord)

// SnapshotRecord: "snapshot" (not the reader's file offsets).
#define KOSAN_TRACE_SNAPSHOT_FIELDS(F)                                                     \
  F(launch, Plain) F(arg, Plain) F(name, Plain) F(dtype, DType) F(count, Plain)            \
  F(shape, Plain) F(address, Address) F(read, Plain) F(poisoned, Plain)                    \
  F(poison, Address) F(pre_hash, Address) F(post_hash, Address) F(store_sites, Plain)      \
  F(chunks, Plain) F(chunk_elements, Plain) F(hash, OmitEmpty) F(payload, OmitEmpty)

// TraceEnd: "end".
#define KOSAN_TRACE_END_FIELDS(F)                                                          \
  F(launches, Plain) F(errors, Plain) F(reports, Plain) F(dropped, Plain)                  \
  F(unresolved_accesses, Plain)

// KernelOrderInfo: "kernel_order".
#define KOSAN_TRACE_KERNEL_ORDER_FIELDS(F)                                                 \
  F(module, Plain) F(kernel, Plain) F(mangled, Plain) F(float_atomics, Plain)              \
  F(shuffle_reduction, Plain) F(shared_reduction, Plain)                                   \
  F(launch_dependent_loop, Plain) F(fingerprints, Plain) F(findings, Plain)

// OrderSummary: "order_summary" (ops, dropped_ops: order-ops builds).
#define KOSAN_TRACE_ORDER_SUMMARY_FIELDS(F)                                                \
  F(launch, Plain) F(stores, Plain) F(atomics, Plain) F(dropped_stores, Plain)             \
  F(dropped_atomics, Plain) F(ops, Optional) F(dropped_ops, Optional)                      \
  F(order_dependent_locations, Plain)

// The members every part line of an order record repeats (its payload and
// counts follow them): OrderStoreRecord ("order_stores"), OrderAtomicRecord
// ("order_atomics"), OrderOpsRecord ("order_ops") with the tables of its
// params and sites.
#define KOSAN_TRACE_ORDER_STORES_HEAD_FIELDS(F)                                            \
  F(launch, Plain) F(arg, Plain) F(name, Plain) F(dtype, DType) F(sites, Plain)
#define KOSAN_TRACE_ORDER_ATOMICS_HEAD_FIELDS(F)                                           \
  F(launch, Plain) F(arg, Plain) F(name, Plain) F(dtype, DType) F(op, Plain)               \
  F(sites, Plain) F(exact, Plain)
#define KOSAN_TRACE_ORDER_OPS_HEAD_FIELDS(F) F(launch, Plain) F(params, Plain) F(sites, Plain)
#define KOSAN_TRACE_ORDER_PARAM_FIELDS(F) F(arg, Plain) F(name, Plain) F(dtype, DType)
#define KOSAN_TRACE_ORDER_OP_SITE_FIELDS(F) F(op, Plain) F(location, Plain)

#endif // KOSAN_TRACE_FIELDS_H
