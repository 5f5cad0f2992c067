//===- trace_json.h - JSON form of trace records (internal) -----------------===//
//
// Shared by the trace writer and formatTraceJson, so that a record has the
// same members in a trace line and in kosan-report's JSON output.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_LIB_TRACE_JSON_H
#define KOSAN_LIB_TRACE_JSON_H

#include "kosan/trace.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kosan::detail {

// Insertion-ordered, so that "type" leads every line and fields keep the
// order of the data model.
using OrderedJson = nlohmann::ordered_json;

// Addresses are "0x..." strings: jq (and JavaScript) hold numbers as doubles,
// which cannot represent every 64-bit address.
std::string hexAddress(uint64_t value);

OrderedJson toJson(const TraceHeader &header);
OrderedJson toJson(const ModuleRecord &module);
OrderedJson toJson(const LaunchRecord &launch);
OrderedJson toJson(const OobEvent &event);
// Non-finite doubles (JSON has none) are the strings "inf", "-inf", "nan".
OrderedJson toJson(const PrecisionRecord &record);
OrderedJson doubleJson(double value);
OrderedJson toJson(const TraceEnd &end);
// The snapshot record's members (not its chunks, not the reader's offsets).
OrderedJson toJson(const SnapshotRecord &snapshot);

// checks=order records. For order_stores, order_atomics and order_ops, the
// members a trace line and kosan-report's JSON share (not the payload):
// element (operation) counts instead of the elements.
OrderedJson toJson(const KernelOrderInfo &info);
OrderedJson toJson(const OrderSummary &summary);
OrderedJson toJson(const OrderStoreRecord &record);
OrderedJson toJson(const OrderAtomicRecord &record);
OrderedJson toJson(const OrderOpsRecord &record);
// Fingerprints are "0x..." strings, like addresses.
inline std::string hexFingerprint(uint64_t fp) { return hexAddress(fp); }

// How every snapshot_chunk line starts: readTrace skips such lines unparsed.
inline constexpr const char *kSnapshotChunkStart = R"({"type":"snapshot_chunk")";

// v with `digits` significant digits, exponents without zero padding
// (2.1e-5, 4.2e+9), "inf"/"-inf"/"nan" for the special values: how reports
// print measured numbers.
std::string significantDigits(double v, int digits);

// Serializes without ever throwing: strings that are not valid UTF-8 (argv,
// file names) get U+FFFD in place of the bad bytes.
std::string dumpJson(const OrderedJson &value, int indent = -1);

} // namespace kosan::detail

#endif // KOSAN_LIB_TRACE_JSON_H
