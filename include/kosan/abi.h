//===- kosan/abi.h - The ABI shared by pass, device runtime and host -------===//
//
// One header, included by the LLVM pass (for names and layouts), by the
// device runtime (CUDA, compiled to nvptx64 bitcode) and by the host runtime.
// Every struct here has fixed-width fields; new members are only ever added at
// the end, and every size is pinned with a static_assert so that a layout
// change cannot go unnoticed.
//
// Mismatch between an instrumented object and the runtime is a link error, not
// silent corruption: instrumented host code references
// KOSAN_VERSION_CHECK_SYMBOL, which only a runtime of the same ABI defines.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_ABI_H
#define KOSAN_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "kosan/intercepts.h"

// An enum of a fixed underlying type in C++ (the layouts below rely on it);
// in C, whose enums take their type from their values, a plain enum.
#ifdef __cplusplus
#define KOSAN_ENUM(name, type) enum name : type
#else
#define KOSAN_ENUM(name, type) enum name
#endif

#define KOSAN_ABI_VERSION 9
// __kosan_version_mismatch_check_v<KOSAN_ABI_VERSION>, as an identifier for
// the runtime that defines it and as a string for the pass that calls it.
#define KOSAN_PASTE_(a, b) a##b
#define KOSAN_PASTE(a, b) KOSAN_PASTE_(a, b)
#define KOSAN_STRINGIFY_(x) #x
#define KOSAN_STRINGIFY(x) KOSAN_STRINGIFY_(x)
#define KOSAN_VERSION_CHECK_FN KOSAN_PASTE(__kosan_version_mismatch_check_v, KOSAN_ABI_VERSION)
#define KOSAN_VERSION_CHECK_SYMBOL KOSAN_STRINGIFY(KOSAN_VERSION_CHECK_FN)

// Suffix of the instrumented clone of every kernel and device function. The
// uninstrumented original keeps its name, so a run with checks off launches
// exactly the code an uninstrumented build would have.
#define KOSAN_CLONE_SUFFIX "__kosan"

// Per-module site table (device global, read by the host through the driver
// API on the first event of a module).
#define KOSAN_SITE_TABLE_SYMBOL "__kosan_site_table"
#define KOSAN_SITE_TABLE_MAGIC 0x5449534bu /* "KSIT" */

// Relocatable device code (-fgpu-rdc): nvlink links the device code of
// several translation units into one module, so each unit's per-module
// globals carry the unit's id, 16 hex digits: KOSAN_SITE_TABLE_SYMBOL "_<id>",
// KOSAN_PREC_BASE_SYMBOL "_<id>" and KOSAN_SITE_BASE_PREFIX "<id>". The unit
// also defines an empty kernel KOSAN_UNIT_MARKER_PREFIX "<id>", by which the
// host finds the units of a module (cuModuleEnumerateFunctions). Site ids
// are the unit's own, from 0; instrumented code adds the unit's site base
// (uint32_t, written by the host, which concatenates the units' tables in
// the order of their ids) to the id it records, so that ids are unique in
// the module.
#define KOSAN_UNIT_MARKER_PREFIX "__kosan_unit_"
#define KOSAN_SITE_BASE_PREFIX "__kosan_site_base_"

// The checks: the one table every part of kosan derives its checks from
// (include/kosan/checks.h): the check bits below, the names that
// --kosan-checks=, -fplugin-arg-kosan-checks=, -kosan-checks and
// KOSAN_OPTIONS=checks= take, opt's pass names (kosan-<name>), the device
// pass's instrumenters and the host runtime's collectors.
//
// X(ID, Name, "name", bit, all, rank, "help") is a check:
//   KOSAN_CHECK_<ID> = 1u << bit;
//   passes/checks/<name>/ defines kosan::make<Name>Instrumenter(ModuleState &);
//   runtime/host/checks/<name>/ defines kosan::rt::make<Name>Collector(Runtime &);
//   runtime/device/<name>.cpp is its half of the device runtime;
//   all: in "all"; rank: the clone's instrumenters run by rising rank (a
//   later one sees the earlier ones' code as kosan's own, nosanitize);
//   help: what it finds, as the drivers' help and KOSAN_OPTIONS=help=1
//   say it.
// V(ID, "name", bit, OF, "help") is a build variant of check OF, compile
//   time only: naming it sets KOSAN_CHECK_<ID> and KOSAN_CHECK_<OF>; OF's
//   instrumenter reads the bit.
// Rows are in the order messages list the names, and in the order the host
// runtime calls the collectors at each hook. race is not in "all": it takes
// a barrier at each block's start and extra shared memory.
#define KOSAN_CHECKS(X, V)                                                    \
  X(OOB, Oob, "oob", 0, 1, 40,                                                \
    "out-of-bounds and use-after-free accesses to global and shared "         \
    "memory (docs/design.md)")                                                \
  X(PRECISION, Precision, "precision", 1, 1, 20,                              \
    "the error of stored floating-point values, against fp64 shadows "        \
    "(docs/precision.md)")                                                    \
  X(ORDER, Order, "order", 2, 1, 10,                                          \
    "fingerprints of reduction orders: results that depend on the order "     \
    "of arrival, the launch or the batch (docs/order.md)")                    \
  V(ORDER_OPS, "order-ops", 3, ORDER,                                         \
    "order that also logs every floating-point operation, so that "           \
    "kosan-diff can say at which operation two runs part (slow: for "         \
    "diagnosis)")                                                             \
  X(RACE, Race, "race", 4, 0, 30,                                             \
    "shared-memory data races between the threads of a block "                \
    "(docs/race.md)")

// For a KOSAN_CHECKS argument that takes no rows of one kind.
#define KOSAN_CHECK_ROW_NONE(...)

#define KOSAN_CHECK_BIT_OF_CHECK_(ID, Name, name, bit, all, rank, help) KOSAN_CHECK_##ID = 1u << (bit),
#define KOSAN_CHECK_BIT_OF_VARIANT_(ID, name, bit, of, help) KOSAN_CHECK_##ID = 1u << (bit),
KOSAN_ENUM(kosan_check_bits, uint32_t) {
  KOSAN_CHECKS(KOSAN_CHECK_BIT_OF_CHECK_, KOSAN_CHECK_BIT_OF_VARIANT_)
};
#undef KOSAN_CHECK_BIT_OF_CHECK_
#undef KOSAN_CHECK_BIT_OF_VARIANT_

// Bounds of one kernel argument, resolved by the host at launch. An access
// through pointer argument i is in bounds when begin <= addr and
// addr + size <= end: two compares against kernel parameters. For pitched
// buffers (cudaMallocPitch, pitch != 0) every access also goes to the
// runtime, which checks the row: in bounds when the access lies inside the
// first row_bytes of its row.
// An argument the host could not resolve gets begin = 0, end = UINT64_MAX.
struct kosan_arg_bounds {
  uint64_t begin;
  uint64_t end;
  uint64_t pitch;    // 0 unless pitched
  uint64_t shape;    // pitched only: rows << 32 | row_bytes
};

// Passed by value as the last parameter of every instrumented kernel clone:
// kernel parameters live in the constant bank, so reading bounds costs no
// memory traffic and needs no copy before the launch.
struct kosan_launch_info {
  uint64_t state;          // device address of kosan_device_state
  uint32_t launch_id;
  uint32_t flags;          // kosan_launch_flags
  uint64_t dyn_smem_bytes; // dynamic shared memory of this launch
  // checks=race (KOSAN_LAUNCH_RACE): where the race shadow lies, in bytes
  // from the start of the dynamic shared memory (low 32 bits), and how many
  // granules it covers (high 32 bits). See kosan_race_header.
  uint64_t race_layout;
  // The blocks that run a kernel copied whole as compiled (checks=oob,
  // docs/design.md "Whole kernels"): those whose blockIdx lies in
  // [fast_lo[d], fast_lo[d] + fast_n[d]) in every dimension d its entry
  // test reads (kosan_kernel_entry::entry_dims); the others run the copy
  // checked access by access. The host proves the test for them at each
  // launch from the kernel's entry program (kosan_entry_op); 0 blocks where
  // it cannot.
  uint32_t fast_lo[3];
  uint32_t fast_n[3];
  // followed by kosan_arg_bounds args[number of original kernel parameters]
};

KOSAN_ENUM(kosan_launch_flags, uint32_t) {
  KOSAN_LAUNCH_HALT_ON_ERROR = 1u << 0,
  // checks=order: label leaves by the bits read, not by (parameter, offset)
  // (KOSAN_OPTIONS=order_leaves=value).
  KOSAN_LAUNCH_ORDER_VALUE_LEAVES = 1u << 1,
  // checks=order: the launch logs its stores (there is a trace for them).
  // Without it the clone skips the stores' log, and the fingerprints that
  // only stores use are not computed. With it the device state's order
  // state and its table of output shadows (kosan_order_dense) are set: the
  // clone reads its outputs' entries at its entry.
  KOSAN_LAUNCH_ORDER_STORES = 1u << 2,
  // uninit=1: fresh allocations hold KOSAN_UNINIT_PATTERN; a checked global
  // load that reads it records an event at its site, with
  // KOSAN_SITE_UNINIT_BIT set in the site id.
  KOSAN_LAUNCH_UNINIT = 1u << 3,
  // checks=race: the launch has the race shadow (race_layout); without it
  // the clone's race checks do nothing.
  KOSAN_LAUNCH_RACE = 1u << 4,
};

// The fill of fresh allocations under uninit=1, one 32-bit word repeated:
// every aligned f32 (0xfff5fff5), f16 and bf16 (0xfff5) and f64
// (0xfff5fff5fff5fff5) it holds is a NaN with a payload that GPU arithmetic
// never produces (it only makes the canonical NaN), so a float load that
// reads it read something nobody wrote. As integers it is -655371 (i32) and
// -11 (i16); loads of one byte are not checked.
#define KOSAN_UNINIT_PATTERN 0xfff5fff5u
#define KOSAN_SITE_UNINIT_BIT 0x80000000u

// Where an access goes, as far as the pass could tell.
KOSAN_ENUM(kosan_space, uint32_t) {
  KOSAN_SPACE_GLOBAL = 0,
  KOSAN_SPACE_SHARED = 1,
  KOSAN_SPACE_LOCAL = 2,
  KOSAN_SPACE_UNKNOWN = 3,  // provenance not resolved: checked against the table
  KOSAN_SPACE_PARAM = 4,
};

KOSAN_ENUM(kosan_access_kind, uint32_t) {
  KOSAN_ACCESS_LOAD = 0,
  KOSAN_ACCESS_STORE = 1,
  KOSAN_ACCESS_ATOMIC = 2,
  KOSAN_ACCESS_MEMCPY_SRC = 3,
  KOSAN_ACCESS_MEMCPY_DST = 4,
  // Precision sites (checks=precision). For these, kosan_site::size holds the
  // kosan_dtype of the real value, arg_index the kosan_dtype converted from
  // (narrowing) or -1, object_str the operation ("fadd", "fma.rn.f16",
  // "cvt.rn.bf16.f32", "ex2.approx.f32", ...).
  KOSAN_ACCESS_PREC_STORE = 5,      // a value stored to global memory
  KOSAN_ACCESS_PREC_ATOMIC = 6,     // a value added (or min/max'ed) atomically
  KOSAN_ACCESS_PREC_NARROW = 7,     // a conversion to a narrower float type
  KOSAN_ACCESS_PREC_NONFINITE = 8,  // an operation that may turn finite operands into NaN/Inf
  // Order sites (checks=order): size holds the kosan_dtype of the value
  // stored, arg_index the kernel parameter (or -1), object_str the operation.
  KOSAN_ACCESS_ORDER_STORE = 9,     // a floating-point value stored to global memory
  KOSAN_ACCESS_ORDER_ATOMIC = 10,   // a float atomic on global memory
  KOSAN_ACCESS_ORDER_OP = 11,       // order-ops: a floating-point operation (object_str: its name)
};

// One precision site's totals, in device memory (kosan_precision_state::
// slots, indexed by the module's slot base + site id). Updated once per warp
// and site where the warp's lanes agree (warp intrinsics), zeroed by the host
// after it harvested them. The arithmetic is include/kosan/precision.h:
//   relative error  |real - shadow| / |shadow|  (shadow 0: 0 if real is 0, else +inf)
//   error in ULPs   |real - shadow| / ulp in the real type at max(|real|, |shadow|)
//   bits lost       log2 of the error in ULPs, 0 below 1 ULP
struct kosan_prec_slot {
  uint64_t count;             // values recorded
  double sum_rel_err;         // for the mean; finite errors only
  uint64_t max_rel_err_bits;  // bit pattern of the largest relative error (a double >= 0)
  uint64_t max_ulp_err_bits;  // bit pattern of the largest error in ULPs (a double >= 0)
  uint64_t hist[8];           // bits lost: [0,1) [1,2) [2,4) [4,8) [8,12) [12,16) [16,24) [24,inf]
  uint64_t overflows;         // NARROW: finite in, infinite out
  uint64_t underflows;        // NARROW: nonzero in, zero or subnormal out
  uint64_t nans;              // NARROW: NaN out of a non-NaN; NONFINITE: NaN/Inf born here
  // The value with the largest error in ULPs (NONFINITE: one birth), written
  // by the lane that raised max_ulp_err_bits.
  double worst_real, worst_shadow;
  uint32_t worst_block[3], worst_thread[3];
  uint32_t worst_launch;
  // STORE, ATOMIC: the root cause of the worst value, see below:
  // the operation with the largest local error along its history.
  uint32_t worst_cause_code;  // its local error code (KOSAN_PREC_CAUSE_*), 0: none
  // STORE, ATOMIC: the scale-aware error (include/kosan/precision.h). Bit
  // patterns of non-negative doubles, combined with integer maxima:
  uint64_t max_abs_err_bits;  // the largest |real - shadow| (NaN as +inf)
  uint64_t max_scale_bits;    // the site's scale: the largest finite |shadow|
  // worst_* of STORE and ATOMIC sites follow max_abs_err_bits (the value
  // farthest from its shadow in absolute terms), NARROW's max_ulp_err_bits.
  uint32_t worst_cause_slot;  // slot of the root-cause operation's site, ~0u: none
  uint32_t reserved2;
};

// One thread's running totals of a STORE or ATOMIC site that runs in a loop
// (__kosan_prec_tally): the instrumented function keeps one per such site,
// zeroed at its entry and held in registers, and adds them to the site's
// slot with one warp-level merge (__kosan_prec_flush) when it returns, or
// when count reaches KOSAN_PREC_TALLY_FLUSH, instead of a merge per value.
// The fields mean those of kosan_prec_slot; hist holds the 8 bins' counts
// in 8 bits each (hence the flush at 255); worst_* is the thread's value
// with the largest absolute error (the first of equals).
struct kosan_prec_tally {
  double sum_rel_err;
  uint64_t max_rel_err_bits, max_ulp_err_bits, max_abs_err_bits, max_scale_bits;
  uint64_t hist;
  double worst_real, worst_shadow;
  uint32_t count;
  uint32_t worst_cause_code, worst_cause_slot;
  uint32_t reserved;
};
#define KOSAN_PREC_TALLY_FLUSH 255u

// Root cause of a value's error (precision.h, "Local error"): every shadowed
// value carries a 32-bit tag, the largest local error of an operation along
// its history in its high KOSAN_PREC_CAUSE_CODE_BITS bits (0: none; else
// floor(log2(local error / |exact result|)) + KOSAN_PREC_CAUSE_BIAS, clamped
// to [1, 4095]) and that operation's site id (module-relative, from the
// unit's slot base) in the low KOSAN_PREC_CAUSE_SITE_BITS bits; an unsigned
// maximum of two tags keeps the larger local error.
#define KOSAN_PREC_CAUSE_SITE_BITS 20
#define KOSAN_PREC_CAUSE_CODE_BITS 12
#define KOSAN_PREC_CAUSE_BIAS 2048

// NARROW sites: kosan_site::arg_index holds the kosan_dtype converted from,
// with this bit set when the narrowed value is stored to shared memory
// (where its shadow does not follow it).
#define KOSAN_PREC_NARROW_TO_SHARED 0x100

// The precision check's device state: one per process, its address in
// kosan_device_state::precision, which every instrumented function reaches.
// Each module's sites own the slots [slot base, slot base + nsites); the
// host assigns the base when it loads the module and writes it to the
// module's KOSAN_PREC_BASE_SYMBOL global (uint32_t), which instrumented code
// adds to its site ids.
struct kosan_precision_state {
  uint64_t slots;             // device address of kosan_prec_slot[capacity]
  uint32_t capacity;
  uint32_t dirty;             // set by the device when any slot changed
};
#define KOSAN_PREC_BASE_SYMBOL "__kosan_prec_base"

// The checks' module globals beside the site table: G(CHECK, symbol, initial
// uint32_t value). The passes name each per unit under relocatable device
// code (symbol "_<id>"); on AMD GPUs a module whose instrumenter defined
// none gets one with the initial value, and HIP host code registers each
// with __hipRegisterVar, so that the host runtime finds it in the code
// object. A check whose device code reads such a global adds its row here.
#define KOSAN_CHECK_GLOBALS(G)                                                \
  G(PRECISION, KOSAN_PREC_BASE_SYMBOL, 0x80000000u)

// Every site has KOSAN_PREC_SHARDS slots side by side (slot site * SHARDS +
// the SM's id modulo SHARDS), which the host adds up: warps on different
// SMs then rarely contend for the same atomics. capacity counts sites.
#define KOSAN_PREC_SHARDS 64

// One out-of-bounds access, as the offending thread wrote it. Instrumented
// code writes events inline (a call would make every instrumented kernel pay
// the callee's registers) into mapped host memory: no copy is needed to read
// them, and they survive a kernel that traps (halt_on_error=1). The host
// aggregates them per (launch, site).
struct kosan_oob_event {
  uint64_t key;        // ((uint64_t)launch_id << 32 | site_id) + 1, written last; 0 = empty
  uint64_t addr;       // the address accessed
  uint64_t begin;      // bounds it was checked against
  uint64_t end;
  uint64_t pitch;      // nonzero for pitched buffers
  uint32_t block[3];
  uint32_t thread[3];
  uint32_t size;       // bytes accessed
  uint32_t flags;      // kosan_event_flags; the inline reports leave it 0
};

KOSAN_ENUM(kosan_event_flags, uint32_t) {
  // A pointer of unknown provenance into the block's shared memory window,
  // past what the block has ([begin, end): the generic addresses of the
  // window's reserved KiB and its %total_smem_size bytes): the GPU would
  // fault on it.
  KOSAN_EVENT_SHARED_WINDOW = 1u << 0,
};

// Lives in device memory, one per process (per device); its address reaches
// every module through kosan_launch_info::state.
struct kosan_device_state {
  uint32_t abi_version;
  uint32_t event_capacity;  // events the log holds
  uint64_t events;          // device view of mapped host memory: kosan_oob_event[event_capacity]
  uint64_t table;           // device address of uint64_t[2*table_len] {begin,end}, sorted
  uint32_t table_len;
  uint32_t event_count;     // events claimed (atomic); past capacity they are dropped
  uint64_t host_flag;       // device view of mapped host memory (kosan_host_flag)
  uint64_t precision;       // device address of kosan_precision_state; 0: precision off
  uint64_t order;           // device address of kosan_order_state; 0: order off
  // A kernel that claims this many events between two collections is
  // stopped as halt_on_error stops it (KOSAN_OPTIONS=stop_after): a loop
  // whose bound a bad read turned around would otherwise run on for ever.
  // 0: never.
  uint32_t event_budget;
  uint32_t reserved;
  // checks=race: the race log, in mapped host memory (device view): its
  // header (kosan_race_log_header, race.h: the flag the device sets after a
  // race and when one stopped the kernel, the host's halt_on_error), then
  // kosan_race_event[race_capacity]. race_count: events claimed (atomic)
  // since the host last collected; past event_budget a race stops it.
  uint64_t race_events;
  uint64_t race_flag;
  uint32_t race_capacity;
  uint32_t race_count;
};

// checks=race: the shared memory of a block that a race-instrumented clone
// runs in, when the launch has KOSAN_LAUNCH_RACE (the host enlarges the
// dynamic shared memory for it):
//
//   [program's static shared][program's dynamic shared][order shadow]
//   [pad to 16][shadow: uint64_t[granules]][clocks: uint32_t[threads]]
//   [pad to 8][kosan_race_header]                   <- end of dynamic shared
//
// Granule g is the bytes [g << shift, (g + 1) << shift) of the block's
// shared window (offsets as cvta.to.shared gives them); shift is the
// module's smallest shared access (kernel flags, KOSAN_KERNEL_RACE_SHIFT).
// The clocks hold each thread's barrier count (low 16 bits) and its warp
// synchronisation count (bits 16-30), see KOSAN_RACE_SHADOW_*. The kernel
// clone clears shadow and clocks and writes the header at its start, then
// waits at a barrier; device functions find the header at the end.
struct kosan_race_header {
  uint32_t shadow;            // shared offset of the shadow
  uint32_t granules;
  uint32_t clocks;            // shared offset of the clocks
  uint32_t reserved;
};

// One shadow word (uint64_t) per granule: the last access that matters in
// the current barrier interval:
//   bits  0-15 the barrier count (epoch) of the access
//   bits 16-30 the warp synchronisation count of the thread that made it
//   bit  31    readers: several warps read it
//   bits 32-41 the thread (linear index in the block)
//   bits 42-43 kind: 0 none, 1 read by one thread, 2 read by several, 3 written
//   bits 44-63 the site (KOSAN_RACE_SITE_UNKNOWN: past 20 bits)
#define KOSAN_RACE_KIND_NONE 0u
#define KOSAN_RACE_KIND_READ 1u
#define KOSAN_RACE_KIND_READS 2u
#define KOSAN_RACE_KIND_WRITE 3u
#define KOSAN_RACE_SITE_UNKNOWN 0xfffffu
#define KOSAN_RACE_THREAD_UNKNOWN 0xffffffffu

// One race, as the second thread found it: its own access (the key's site,
// block, thread) and the earlier access it conflicts with.
struct kosan_race_event {
  uint64_t key;          // ((uint64_t)launch_id << 32 | site_id) + 1, written last
  uint32_t other_site;   // the earlier access's site, KOSAN_RACE_SITE_UNKNOWN if unknown
  uint32_t other_thread; // its thread (linear index), KOSAN_RACE_THREAD_UNKNOWN if unknown
  uint32_t block[3];
  uint32_t thread[3];
  uint32_t offset;       // shared offset of the granule
  uint32_t kinds;        // bit 0: this access writes; bit 1: the earlier one writes
};

// checks=order: where the fingerprints of stored values and the float
// atomics go (include/kosan/order.h has the fingerprint algebra). The host
// collects both logs after every launch. Each log has KOSAN_ORDER_SHARDS
// shards (shard: the SM's id modulo KOSAN_ORDER_SHARDS), so that warps on
// different SMs rarely claim records from the same counter. Records past a
// shard's capacity are dropped, and counted: its count keeps rising.
struct kosan_order_state {
  uint64_t stores;            // kosan_order_store[KOSAN_ORDER_SHARDS][store_capacity]
  uint64_t atomics;           // kosan_order_atomic[KOSAN_ORDER_SHARDS][atomic_capacity]
  uint32_t store_capacity;    // records per shard; 0: stores are not logged
  uint32_t atomic_capacity;   // records per shard
  uint64_t counts;            // claimed per shard: stores, atomics, ops (KOSAN_ORDER_COUNT)
  uint64_t ops;               // kosan_order_op[KOSAN_ORDER_SHARDS][op_capacity]
  uint32_t op_capacity;       // records per shard; 0: operations are not logged
  uint32_t reserved;
  uint64_t dense;             // kosan_order_dense[KOSAN_ORDER_DENSE_ARGS]
  // Without a trace: kosan_order_dense[KOSAN_ORDER_DENSE_ARGS] for float
  // atomics (KOSAN_ORDER_FOLD_FLAG below); 0: every atomic goes to the log.
  uint64_t atomic_dense;
};

// Stores to the output a kernel parameter points to go, when the host gave
// that parameter a shadow for the launch, to the shadow: one fingerprint per
// element at the element's index, written in place (no log record, no
// atomic; the last store to an element wins, as for the element itself).
// Stores through other pointers, and past the shadow, go to the log. The
// clone writes to the shadow itself (passes/checks/order), so: elements is
// 0 where shadow is 0, and shift is that of the element size of the
// parameter's store sites (the clone shifts by a constant where they all
// have one size).
struct kosan_order_dense {
  uint64_t shadow;            // device address of uint64_t[elements]; 0: none
  uint64_t elements;          // 0 where shadow is 0
  uint32_t shift;             // log2 of the element's size in bytes
  uint32_t reserved;
};
#define KOSAN_ORDER_DENSE_ARGS 64
// Float atomics through a parameter that has an entry in atomic_dense (a run
// without a trace: only whether a location's result depends on the order
// its contributions land in is wanted, not the order) fold into the
// entry's shadow instead of the log: the first contribution's fingerprint
// (without this bit; 0 written as 1) goes in with a compare-and-swap; a
// contribution with another fingerprint sets this bit, and the one that
// sets it adds 1 to shadow[elements], the number of order-dependent
// locations.
#define KOSAN_ORDER_FOLD_FLAG (1ull << 63)
#define KOSAN_ORDER_SHARDS 64
// The counts are uint32_t, each alone in a 128-byte line: atomics on counts
// that shared a line would all queue at one L2 slice. Log `log` (0 stores,
// 1 atomics, 2 ops), shard s: counts[KOSAN_ORDER_COUNT(log, s)], of
// KOSAN_ORDER_COUNT_WORDS words in all.
#define KOSAN_ORDER_COUNT_STRIDE 32
#define KOSAN_ORDER_COUNT(log, s) (((log) * KOSAN_ORDER_SHARDS + (s)) * KOSAN_ORDER_COUNT_STRIDE)
#define KOSAN_ORDER_COUNT_WORDS (3 * KOSAN_ORDER_SHARDS * KOSAN_ORDER_COUNT_STRIDE)

// Where a store or atomic went: `where` holds the kernel parameter in its
// top 16 bits and the byte offset from the parameter's value in the low 48;
// for KOSAN_ORDER_ARG_UNRESOLVED the low 48 bits are the address itself
// (the host finds the parameter it lies in). The dtype and the operation
// come from the kernel's order sites for that parameter.
#define KOSAN_ORDER_ARG_UNRESOLVED 0xffffu
#define KOSAN_ORDER_WHERE_SHIFT 48

// One store of a floating-point value to global memory, with the
// fingerprint of how the value was computed. A warp writes its lanes'
// records side by side after one atomic on store_count.
struct kosan_order_store {
  uint64_t fp;
  uint64_t where;
};

// One float atomic (add, sub, min, max) on global memory. old_bits is what
// the atomic returned (the value it found): the host puts a location's
// contributions in the order they landed by chaining old + val -> next old.
struct kosan_order_atomic {
  uint64_t fp;                // fingerprint of the contribution
  uint64_t where;
  uint64_t old_bits;
  uint64_t val_bits;
  uint32_t block;             // linear block index
  uint32_t thread;            // linear thread index in the block
};

// One floating-point operation of a clone built with order-ops: its
// operands' fingerprints as combined (commutative operations sorted) and
// its operation code; its result is kosan_fp_combine(op, a, b). site: the
// module's site (KOSAN_ACCESS_ORDER_OP) that names the operation and where
// in the source it is.
struct kosan_order_op {
  uint64_t a;
  uint64_t b;
  uint64_t op;
  uint32_t site;
  uint32_t reserved;
};

// Mapped host memory the device writes (never atomically) so the host can
// tell without a CUDA call whether there is anything to collect.
struct kosan_host_flag {
  volatile uint32_t dirty;
  volatile uint32_t halted;   // a kernel trapped at an error (halt_on_error=1, stop_after)
};

// Deferred clones (NVPTX, not relocatable device code): the instrumented
// clone of a kernel is not compiled to machine code with its module. Its
// module of its own (the clone, the device functions it calls and the
// device runtime) is kept zstd-compressed in the device global
// KOSAN_DEFERRED_SYMBOL of the plain module, as LLVM bitcode that
// libkosan_codegen.so makes PTX (KOSAN_DEFERRED_BITCODE, the default) or
// as PTX (KOSAN_DEFERRED_PTX), and the runtime has the driver compile the
// PTX at the kernel's first checked launch (docs/design.md, "Deferred
// clones"). A deferred clone reaches the plain module's globals through
// its KOSAN_DEFERRED_GTAB_SYMBOL, a .const array of their addresses that
// the runtime fills once the clone is loaded; its copies of the module's
// __constant__ variables are refreshed from the plain module's before
// each launch.
//   kosan_deferred_header, kosan_deferred_kernel[nkernels],
//   kosan_deferred_ref[nrefs], char strings[strings_size],
//   payload: one zstd frame of every clone's code, one after another (the
//   clones of one module share most of it)
#define KOSAN_DEFERRED_SYMBOL "__kosan_deferred"
#define KOSAN_DEFERRED_MAGIC 0x4645444bu /* "KDEF" */
#define KOSAN_DEFERRED_GTAB_SYMBOL "__kosan_gtab"

struct kosan_deferred_header {
  uint32_t magic;         // KOSAN_DEFERRED_MAGIC
  uint32_t abi_version;
  uint32_t nkernels;
  uint32_t nrefs;
  uint32_t strings_size;
  uint32_t format;        // kosan_deferred_format
  uint64_t payload_zbytes;  // the frame
  uint64_t payload_bytes;   // what it decompresses to
};

struct kosan_deferred_kernel {
  uint32_t name_str;      // the clone's name (KOSAN_CLONE_SUFFIX)
  uint32_t first_ref;     // its refs: [first_ref, first_ref + nrefs)
  uint32_t nrefs;
  uint32_t reserved;
  uint64_t code_offset;   // its code in the decompressed payload
  uint64_t code_bytes;    // (no terminating NUL)
};

// What a table's payload holds.
enum kosan_deferred_format {
  KOSAN_DEFERRED_PTX = 0,     // PTX text
  KOSAN_DEFERRED_BITCODE = 1, // LLVM bitcode, a module per clone (libkosan_codegen.so)
};

// How a deferred clone reaches a global of the plain module.
enum kosan_deferred_ref_kind {
  KOSAN_DEFERRED_ADDRESS = 0, // the next element of its KOSAN_DEFERRED_GTAB_SYMBOL
  KOSAN_DEFERRED_MIRROR = 1,  // its own copy of the same name, refreshed before each launch
};

struct kosan_deferred_ref {
  uint32_t name_str;      // the global's name, the same in both modules
  uint32_t kind;          // kosan_deferred_ref_kind
  uint64_t bytes;
};

// Site table blob, one per device module (KOSAN_SITE_TABLE_SYMBOL):
//   kosan_site_table_header, kosan_site[nsites], kosan_kernel_entry[nkernels],
//   kosan_param_entry[nparams], kosan_entry_op[nentry_ops],
//   char strings[strings_size]
// All *_str fields are byte offsets into strings (0 = empty string).
struct kosan_site_table_header {
  uint32_t magic;         // KOSAN_SITE_TABLE_MAGIC
  uint32_t abi_version;
  uint32_t nsites;
  uint32_t strings_size;
  uint32_t module_str;    // source file of the translation unit
  uint32_t compiler_str;  // llvm.ident
  uint32_t fp_str;        // floating-point mode seen in the module
  uint32_t nkernels;
  uint32_t nparams;
  uint32_t nentry_ops;
};

// What a kernel does with its parameters, as far as the compiler can tell:
// the runtime snapshots the buffers a kernel writes (snapshot=1) and poisons
// those it writes without reading (poison=1).
struct kosan_kernel_entry {
  uint32_t name_str;      // mangled name of the (uninstrumented) kernel
  uint32_t flags;         // kosan_kernel_flags
  uint32_t first_param;   // index into the kosan_param_entry array
  uint32_t nparams;
  uint32_t first_site;    // sites of the kernel's clone: [first_site, first_site + nsites)
  uint32_t nsites;
  uint32_t order_str;     // checks=order: the static findings, as the remark says them
  // The kernel's entry program, when the OOB check copied it whole and
  // leaves its test to the host: ops [first_entry_op, first_entry_op +
  // nentry_ops), and the dimensions of blockIdx it reads (bit d: d).
  uint32_t entry_dims;
  uint32_t first_entry_op;
  uint32_t nentry_ops;
};

// One operation of a kernel's entry program: the test a block passes to
// run the kernel as compiled, which the host evaluates at each launch for
// ranges of blocks (runtime/host/core/entry_test.h) so that a block only
// compares its index with kosan_launch_info::fast_lo and fast_n. Each
// operation yields an integer of `bits` bits (1 to 64) with LLVM's
// semantics (wrapping, two's complement); a, b, c index earlier operations
// of the same program; the last one is the test (1 bit).
//   X(NAME, operands): KOSAN_ENTRY_<NAME>. imm holds CONST's value,
//   PARAM's parameter index (its value: the first bits / 8 bytes the
//   launch passes for it, a pointer's address), INFO's byte offset in the
//   launch info (a field of bits / 8 bytes), BLOCK_ID's, BLOCK_DIM's and
//   GRID_DIM's dimension, ICMP's predicate (kosan_entry_cmp); shift
//   amounts are operand b.
#define KOSAN_ENTRY_OPS(X)                                                    \
  X(CONST, 0) X(PARAM, 0) X(INFO, 0) X(BLOCK_ID, 0) X(BLOCK_DIM, 0)          \
  X(GRID_DIM, 0) X(ADD, 2) X(SUB, 2) X(MUL, 2) X(SHL, 2) X(LSHR, 2)           \
  X(ASHR, 2) X(AND, 2) X(OR, 2) X(XOR, 2) X(ZEXT, 1) X(SEXT, 1) X(TRUNC, 1)  \
  X(ICMP, 2) X(SELECT, 3) X(UMIN, 2) X(UMAX, 2) X(SMIN, 2) X(SMAX, 2)
KOSAN_ENUM(kosan_entry_opcode, uint16_t) {
#define KOSAN_ENTRY_OPCODE_(name, operands) KOSAN_ENTRY_##name,
  KOSAN_ENTRY_OPS(KOSAN_ENTRY_OPCODE_)
#undef KOSAN_ENTRY_OPCODE_
  KOSAN_ENTRY_NUM_OPS
};
#define KOSAN_ENTRY_CMPS(X) X(EQ) X(NE) X(UGT) X(UGE) X(ULT) X(ULE) X(SGT) X(SGE) X(SLT) X(SLE)
KOSAN_ENUM(kosan_entry_cmp, uint32_t) {
#define KOSAN_ENTRY_CMP_(name) KOSAN_ENTRY_CMP_##name,
  KOSAN_ENTRY_CMPS(KOSAN_ENTRY_CMP_)
#undef KOSAN_ENTRY_CMP_
  KOSAN_ENTRY_NUM_CMPS
};
struct kosan_entry_op {
  uint16_t op;            // kosan_entry_opcode
  uint16_t bits;
  uint32_t a, b, c;
  uint64_t imm;
};

KOSAN_ENUM(kosan_kernel_flags, uint32_t) {
  // A store or atomic whose buffer the compiler could not tell: any pointer
  // argument may be written.
  KOSAN_KERNEL_UNRESOLVED_WRITES = 1u << 0,
  // checks=order, the static half: what may make the kernel's results
  // depend on the order of arrival, the launch or the batch.
  KOSAN_KERNEL_FLOAT_ATOMICS = 1u << 1,
  KOSAN_KERNEL_SHUFFLE_REDUCTION = 1u << 2,
  KOSAN_KERNEL_SHARED_REDUCTION = 1u << 3,
  KOSAN_KERNEL_LAUNCH_DEPENDENT_LOOP = 1u << 4,
  // The clone carries fingerprints (checks=order at compile time).
  KOSAN_KERNEL_ORDER_FINGERPRINTS = 1u << 5,
  // The clone logs its floating-point operations (order-ops).
  KOSAN_KERNEL_ORDER_OPS = 1u << 6,
  // The clone may log float atomics on global memory (it logs one, or calls
  // a device function or through a pointer). Without it, and without a
  // trace, the host has nothing to collect after a launch and does not wait
  // for it.
  KOSAN_KERNEL_ORDER_ATOMIC_LOG = 1u << 7,
};
// Bits 8-11 of the flags: bytes of fingerprint shadow the clone keeps per
// byte of dynamic shared memory (0: it keeps none). The host enlarges the
// launch's dynamic shared memory by that much, plus the padding to a
// multiple of 8: the shadow starts at the first multiple of 8 past the
// program's own bytes.
#define KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT 8u
#define KOSAN_KERNEL_DYNSMEM_SHADOW_MASK 0xf00u
// checks=race: the clone checks its shared accesses for races (bit 12),
// with granules of 1 << shift bytes (bits 13-14).
#define KOSAN_KERNEL_RACE (1u << 12)
#define KOSAN_KERNEL_RACE_SHIFT_SHIFT 13u
#define KOSAN_KERNEL_RACE_SHIFT_MASK (3u << 13)

struct kosan_param_entry {
  uint32_t name_str;      // the parameter's name, if debug information has it
  uint32_t flags;         // kosan_param_flags
  uint32_t dtype;         // kosan_dtype: element type of what is stored through it
  uint32_t reserved;
};

KOSAN_ENUM(kosan_param_flags, uint32_t) {
  KOSAN_PARAM_POINTER = 1u << 0,
  KOSAN_PARAM_READ = 1u << 1,
  KOSAN_PARAM_WRITTEN = 1u << 2,
  KOSAN_PARAM_ATOMIC = 1u << 3,
  // Passed to a call or stored somewhere the compiler cannot follow: it may
  // be read and written (never poisoned).
  KOSAN_PARAM_ESCAPES = 1u << 4,
};

// Element types; the numbering is kosan::DType's (include/kosan/trace.h).
// The element types, in kosan_dtype order: the one list the pass's
// summaries, the trace's DType (kosan/trace.h) and its names (lib/dtype.cpp)
// derive from. X(KOSAN_DTYPE_ suffix, DType enumerator, trace name, bytes,
// is a float type).
#define KOSAN_DTYPES(X)                                                       \
  X(UNKNOWN, Unknown, "bytes", 1, 0)                                          \
  X(F64, F64, "f64", 8, 1)                                                    \
  X(F32, F32, "f32", 4, 1)                                                    \
  X(F16, F16, "f16", 2, 1)                                                    \
  X(BF16, BF16, "bf16", 2, 1)                                                 \
  X(F8E4M3, F8E4M3, "f8e4m3", 1, 1)                                           \
  X(F8E5M2, F8E5M2, "f8e5m2", 1, 1)                                           \
  X(I64, I64, "i64", 8, 0)                                                    \
  X(I32, I32, "i32", 4, 0)                                                    \
  X(I16, I16, "i16", 2, 0)                                                    \
  X(I8, I8, "i8", 1, 0)                                                       \
  X(U64, U64, "u64", 8, 0)                                                    \
  X(U32, U32, "u32", 4, 0)                                                    \
  X(U16, U16, "u16", 2, 0)                                                    \
  X(U8, U8, "u8", 1, 0)                                                       \
  X(BOOL, Bool, "bool", 1, 0)

KOSAN_ENUM(kosan_dtype, uint32_t) {
#define KOSAN_DTYPE_ENUMERATOR(suffix, cpp, name, bytes, isFloat) KOSAN_DTYPE_##suffix,
  KOSAN_DTYPES(KOSAN_DTYPE_ENUMERATOR)
#undef KOSAN_DTYPE_ENUMERATOR
};

struct kosan_site {
  uint32_t function_str;  // mangled name of the function holding the access
  uint32_t file_str;
  uint32_t line;
  uint32_t column;
  uint32_t access;        // kosan_access_kind
  uint32_t space;         // kosan_space
  uint32_t size;          // bytes (0: variable, e.g. memcpy)
  uint32_t object_str;    // what the pointer derives from: a parameter or variable name
  int32_t arg_index;      // kernel parameter index, or -1
  uint32_t inlined_at_str; // "file:line" of the outermost call site, if inlined
};

// Every layout pinned, in C++ and in C.
#ifdef __cplusplus
#define KOSAN_STATIC_ASSERT static_assert
#else
#define KOSAN_STATIC_ASSERT _Static_assert
#endif
KOSAN_STATIC_ASSERT(sizeof(struct kosan_arg_bounds) == 32, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_launch_info) == 56, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_oob_event) == 72, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_device_state) == 88, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_race_event) == 48, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_race_header) == 16, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_order_state) == 64, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_order_dense) == 24, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_order_op) == 32, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_order_store) == 16, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_order_atomic) == 40, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_site_table_header) == 40, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_kernel_entry) == 40, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_entry_op) == 24, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_param_entry) == 16, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_site) == 40, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_host_flag) == 8, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_prec_slot) == 192, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_precision_state) == 16, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_deferred_header) == 40, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_deferred_kernel) == 32, "ABI");
KOSAN_STATIC_ASSERT(sizeof(struct kosan_deferred_ref) == 16, "ABI");
KOSAN_STATIC_ASSERT(offsetof(struct kosan_device_state, events) == 8 &&
                        offsetof(struct kosan_device_state, event_count) == 28 &&
                        offsetof(struct kosan_device_state, host_flag) == 32 &&
                        offsetof(struct kosan_device_state, precision) == 40 &&
                        offsetof(struct kosan_device_state, order) == 48 &&
                        offsetof(struct kosan_device_state, event_budget) == 56,
                    "the pass emits these offsets");

// Entry points of the device runtime, called by instrumented device code
// (only for accesses whose buffer the compiler could not tell; everything
// else is checked and recorded inline).
//   X(name-constant, symbol, site, inlined)
// site: the argument that holds a site id, to which relocatable device code
// adds the unit's site base (-1: none); inlined: the plugin inlines the
// entry into its callers once the runtime is linked (its fast path is a few
// shared-memory accesses; a call would cost more).
#define KOSAN_DEVICE_ENTRIES(X)                                               \
  X(OobCheckTable, "__kosan_oob_check_table", 3, 0)                           \
  X(OobRecord, "__kosan_oob_record", 3, 0)                                    \
  X(PrecValue, "__kosan_prec_value", -1, 0)                                   \
  X(PrecNarrow, "__kosan_prec_narrow", -1, 0)                                 \
  X(PrecNonfinite, "__kosan_prec_nonfinite", -1, 0)                           \
  X(PrecTally, "__kosan_prec_tally", -1, 1)                                   \
  X(PrecFlush, "__kosan_prec_flush", -1, 1)                                   \
  X(ShadowExp2, "__kosan_shadow_exp2", -1, 1)                                 \
  X(ShadowLog2, "__kosan_shadow_log2", -1, 1)                                 \
  X(ShadowSin, "__kosan_shadow_sin", -1, 0)                                   \
  X(ShadowCos, "__kosan_shadow_cos", -1, 0)                                   \
  X(ShadowTanh, "__kosan_shadow_tanh", -1, 0)                                 \
  X(OrderStore, "__kosan_order_store", -1, 0)                                 \
  X(OrderAtomic, "__kosan_order_atomic", -1, 0)                               \
  X(OrderSharedAtomic, "__kosan_order_shared_atomic", -1, 0)                  \
  X(OrderOp, "__kosan_order_op", 4, 0)                                        \
  X(RaceEnter, "__kosan_race_enter", -1, 1)                                   \
  X(RaceAccess, "__kosan_race_access", 3, 1)                                  \
  X(RaceBarrier, "__kosan_race_barrier", -1, 1)                               \
  X(RaceWarpSync, "__kosan_race_warp_sync", -1, 1)

// Signatures of the precision entry points (slot = module base + site id;
// real and shadow as doubles; dtype = kosan_dtype of the real value):
//   void __kosan_prec_value(uint64_t state, uint32_t launch, uint32_t slot,
//                           double real, double shadow, uint32_t dtype,
//                           uint32_t cause_code, uint32_t cause_slot);
//     (cause_code: the value's tag >> KOSAN_PREC_CAUSE_SITE_BITS, 0: none;
//     cause_slot: the unit's slot base + the tag's site id)
//   void __kosan_prec_narrow(uint64_t state, uint32_t launch, uint32_t slot,
//                            double in, double out, uint32_t dtype);
//   void __kosan_prec_nonfinite(uint64_t state, uint32_t launch, uint32_t slot,
//                               double real, double shadow);
//   void __kosan_prec_tally(uint64_t state, uint32_t launch, uint32_t slot,
//                           kosan_prec_tally *tally, double real, double shadow,
//                           uint32_t dtype, uint32_t cause_code, uint32_t cause_slot);
//     (__kosan_prec_value's sample, added to the thread's tally; inlined)
//   void __kosan_prec_flush(uint64_t state, uint32_t launch, uint32_t slot,
//                           kosan_prec_tally *tally);
//     (adds a nonempty tally to the slot and zeroes it; inlined)
//   double __kosan_shadow_{exp2,log2,sin,cos,tanh}(double);   // fp64 (libdevice, within 2 ulps)
// state is the kosan_device_state address; a 0 precision pointer in it
// (checks=precision off at run time) makes them return at once.
//
// Signatures of the order entry points (fingerprints: include/kosan/order.h):
//   void __kosan_order_store(uint64_t state, uint64_t where, uint64_t fp);
//   void __kosan_order_atomic(uint64_t state, uint64_t where, uint64_t fp,
//                             uint64_t old_bits, uint64_t val_bits);
//   void __kosan_order_shared_atomic(uint64_t *shadow /* shared */, uint64_t op,
//                                    uint64_t fp);   // folds fp into *shadow atomically
//   void __kosan_order_op(uint64_t state, uint64_t a, uint64_t b, uint64_t op,
//                         uint32_t site);                  // order-ops builds
// A 0 order pointer in the state makes the store, atomic and op entries
// return at once.
//
// Race entry points (checks=race; NVPTX only). The plugin inlines them
// into the clone after linking the runtime, so they cost no call:
//   void __kosan_race_enter(uint32_t flags, uint64_t race_layout);  // kernel start
//   void __kosan_race_access(uint64_t state, uint32_t flags, uint32_t launch,
//                            uint32_t site, uint64_t shared_offset,
//                            uint32_t size, uint32_t is_write, uint32_t shift,
//                            uint64_t race_layout);  // 0 in device functions
//   void __kosan_race_barrier(uint32_t flags);    // after a block barrier
//   void __kosan_race_warp_sync(uint32_t flags);  // after __syncwarp
// Without KOSAN_LAUNCH_RACE in flags they return at once.

// Host-side replacements: instrumented host code calls these instead of the
// CUDA and HIP runtime functions of the same signature (the pass rewrites
// the call).
//   X(cuda-function, kosan-replacement)
// Derived from the list of intercepted functions (kosan/intercepts.h).
#define KOSAN_HOST_INTERCEPT_NAMES_(X, function, hook, params, args, perThread) \
  X(#function, KOSAN_INTERCEPT_PREFIX #function)
#define KOSAN_HOST_INTERCEPTS(X)                                                \
  KOSAN_CUDA_INTERCEPTS_WITH(KOSAN_HOST_INTERCEPT_NAMES_, X)                     \
  KOSAN_HIP_INTERCEPTS_WITH(KOSAN_HOST_INTERCEPT_NAMES_, X)

// Called (by the pass) just before an intercepted allocation, so that the
// buffer gets a name and an allocation site without changing the signature
// of the replacement: __kosan_alloc_site(const char *site, const char *name).
#define KOSAN_ALLOC_SITE_NAME "__kosan_alloc_site"

#endif // KOSAN_ABI_H
