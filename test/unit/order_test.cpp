//===- order_test.cpp - checks=order records, reports and comparisons ------===//
#include "kosan/diff.h"
#include "kosan/trace.h"

#include "temp_dir_test.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace kosan;

namespace {

using test::splitLines;

//===----------------------------------------------------------------------===//
// Sample records
//===----------------------------------------------------------------------===//

KernelOrderInfo sampleKernel() {
  KernelOrderInfo k;
  k.module = 3;
  k.kernel = "rowsum(float const*, float*, int)";
  k.mangled = "_Z6rowsumPKfPfi";
  k.float_atomics = true;
  k.launch_dependent_loop = true;
  k.fingerprints = true;
  k.findings = "float atomics at k.cu:12 (atomicAdd on 'out')\nreduction loop at k.cu:9";
  return k;
}

// n elements 0, 2, 4, ... with distinct fingerprints.
OrderStoreRecord sampleStores(uint32_t launch, size_t n) {
  OrderStoreRecord r;
  r.launch = launch;
  r.arg = 2;
  r.name = "y";
  r.dtype = DType::F32;
  r.sites = {"k.cu:20:7", "k.cu:22:7"};
  for (size_t i = 0; i < n; ++i)
    r.elements.push_back({2 * i, 0xf00d0000ull + i * 0x1111111111ull});
  return r;
}

AtomicContribution contribution(uint32_t block, uint32_t thread, uint64_t fp,
                                uint64_t bits = 0x3f800000) {
  return {fp, bits, block, thread};
}

OrderAtomicRecord sampleAtomics(uint32_t launch) {
  OrderAtomicRecord r;
  r.launch = launch;
  r.arg = 0;
  r.name = "out";
  r.dtype = DType::F32;
  r.op = "fadd";
  r.sites = {"k.cu:12:5"};
  r.exact = false;
  // Locations of 3, 0, 1 and 5 contributions.
  r.locations.push_back({17, 0xaaa, {contribution(12, 0, 0x1), contribution(7, 3, 0x2),
                                     contribution(0, 31, 0xffffffffffffffff, UINT64_MAX)}});
  r.locations.push_back({18, 0xbbb, {}});
  r.locations.push_back({19, 0xccc, {contribution(UINT32_MAX, UINT32_MAX, 0x5)}});
  AtomicSequence big{UINT64_MAX, 0xddd, {}};
  for (uint32_t i = 0; i < 5; ++i)
    big.order.push_back(contribution(i, i * 2, 0x100 + i));
  r.locations.push_back(big);
  return r;
}

OrderSummary sampleSummary(uint32_t launch) {
  return {.launch = launch, .stores = 8, .atomics = 9, .dropped_stores = 10,
          .dropped_atomics = 11, .order_dependent_locations = 12};
}

void expectSameStores(const OrderStoreRecord &a, const OrderStoreRecord &b) {
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.arg, b.arg);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.sites, b.sites);
  EXPECT_EQ(a.elements, b.elements);
}

void expectSameAtomics(const OrderAtomicRecord &a, const OrderAtomicRecord &b) {
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.arg, b.arg);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.sites, b.sites);
  EXPECT_EQ(a.exact, b.exact);
  ASSERT_EQ(a.locations.size(), b.locations.size());
  for (size_t i = 0; i < a.locations.size(); ++i) {
    EXPECT_EQ(a.locations[i].element, b.locations[i].element);
    EXPECT_EQ(a.locations[i].fp, b.locations[i].fp);
    EXPECT_EQ(a.locations[i].order, b.locations[i].order);
  }
}

class OrderTraceTest : public test::TempDirTest {
protected:
  // header, kernel_order, launch 1, stores (3 parts), atomics (3 parts),
  // summary, end: 10 lines.
  std::string writeSample(const std::string &name) {
    std::string p = path(name);
    auto w = TraceWriter::create(p, nullptr);
    TraceHeader h;
    h.options = {{"checks", "order"}};
    w->write(h);
    w->write(sampleKernel());
    LaunchRecord l;
    l.id = 1;
    l.kernel = sampleKernel().kernel;
    l.mangled = sampleKernel().mangled;
    l.module = 3;
    w->write(l);
    // 48 bytes: 3 store elements per part; atomics split at locations.
    w->setOrderPartBytes(48);
    w->write(sampleStores(1, 7));
    w->setOrderPartBytes(100);
    w->write(sampleAtomics(1));
    w->write(sampleSummary(1));
    w->write(TraceEnd{});
    return p;
  }

  std::string writeLines(const std::string &name, const std::vector<std::string> &lines,
                         bool lastNewline = true) {
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i)
      text += lines[i] + (i + 1 < lines.size() || lastNewline ? "\n" : "");
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

//===----------------------------------------------------------------------===//
// Trace I/O
//===----------------------------------------------------------------------===//

TEST_F(OrderTraceTest, RoundTripsAllFourRecordsAcrossParts) {
  std::string p = writeSample("t.trace");
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  EXPECT_TRUE(r.trace.warnings.empty());

  ASSERT_EQ(r.trace.kernel_order.size(), 1u);
  const KernelOrderInfo &k = r.trace.kernel_order[0];
  EXPECT_EQ(k.module, 3u);
  EXPECT_EQ(k.kernel, sampleKernel().kernel);
  EXPECT_EQ(k.mangled, sampleKernel().mangled);
  EXPECT_TRUE(k.float_atomics);
  EXPECT_FALSE(k.shuffle_reduction);
  EXPECT_FALSE(k.shared_reduction);
  EXPECT_TRUE(k.launch_dependent_loop);
  EXPECT_TRUE(k.fingerprints);
  EXPECT_EQ(k.findings, sampleKernel().findings);

  ASSERT_EQ(r.trace.order_stores.size(), 1u);
  expectSameStores(r.trace.order_stores[0], sampleStores(1, 7));
  ASSERT_EQ(r.trace.order_atomics.size(), 1u);
  expectSameAtomics(r.trace.order_atomics[0], sampleAtomics(1));

  ASSERT_EQ(r.trace.order_summaries.size(), 1u);
  const OrderSummary &s = r.trace.order_summaries[0];
  EXPECT_EQ(s.launch, 1u);
  EXPECT_EQ(s.stores, 8u);
  EXPECT_EQ(s.atomics, 9u);
  EXPECT_EQ(s.dropped_stores, 10u);
  EXPECT_EQ(s.dropped_atomics, 11u);
  EXPECT_EQ(s.order_dependent_locations, 12u);
  EXPECT_TRUE(r.trace.end);
}

// What scripts see: one line per part, with the record's members repeated,
// the part's own count and numbering, and a zstd payload.
TEST_F(OrderTraceTest, PartLinesCarryTheRecordAndTheirOwnCounts) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  ASSERT_EQ(lines.size(), 11u);
  std::vector<std::string> types;
  for (const std::string &line : lines)
    types.push_back(nlohmann::json::parse(line)["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{
                       "header", "kernel_order", "launch", "order_stores", "order_stores",
                       "order_stores", "order_atomics", "order_atomics", "order_atomics",
                       "order_summary", "end"}));
  std::vector<uint64_t> counts;
  for (int i = 3; i < 6; ++i) {
    EXPECT_EQ(lines[i].rfind(R"j({"type":"order_stores","launch":1,"arg":2,"name":"y","dtype":"f32",)j", 0), 0u);
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["part"], i - 3);
    EXPECT_EQ(j["parts"], 3);
    EXPECT_EQ(j["encoding"], "zstd+base64");
    EXPECT_EQ(j["sites"], nlohmann::json({"k.cu:20:7", "k.cu:22:7"}));
    counts.push_back(j["count"]);
  }
  EXPECT_EQ(counts, (std::vector<uint64_t>{3, 3, 1}));
  // Atomics: locations of 3, 0, 1 and 5 contributions are 96, 24, 48 and
  // 144 bytes; in parts of 100 bytes at most where a location fits.
  counts.clear();
  for (int i = 6; i < 9; ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["op"], "fadd");
    EXPECT_EQ(j["exact"], false);
    counts.push_back(j["count"]);
  }
  EXPECT_EQ(counts, (std::vector<uint64_t>{1, 2, 1}));
  nlohmann::json summary = nlohmann::json::parse(lines[9]);
  EXPECT_EQ(summary["dropped_atomics"], 11);
}

TEST_F(OrderTraceTest, DefaultPartsHoldFourMegabytesOfElements) {
  std::string p = path("t.trace");
  {
    auto w = TraceWriter::create(p, nullptr);
    w->write(TraceHeader{});
    w->write(sampleStores(1, kSnapshotChunkBytes / 16 + 1));
    OrderStoreRecord empty = sampleStores(2, 0);
    w->write(empty);
  }
  std::vector<std::string> lines = splitLines(readFile(p));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["count"], kSnapshotChunkBytes / 16);
  EXPECT_EQ(nlohmann::json::parse(lines[2])["count"], 1);
  EXPECT_EQ(nlohmann::json::parse(lines[3])["count"], 0);
  EXPECT_EQ(nlohmann::json::parse(lines[3])["parts"], 1);
  ReadResult r = readTrace(p);
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.order_stores.size(), 2u);
  EXPECT_EQ(r.trace.order_stores[0].elements.size(), kSnapshotChunkBytes / 16 + 1);
  EXPECT_TRUE(r.trace.order_stores[1].elements.empty());
}

TEST_F(OrderTraceTest, MissingLastPartIsATruncatedTrace) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  // Cut after the second of the three order_stores parts.
  std::string p = writeLines("cut.trace", {lines.begin(), lines.begin() + 5});
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p + " ends mid-record after 5 complete records (the order_stores "
                           "record that starts on line 4 has 3 parts, 2 of them in the "
                           "file); the process likely died while writing it");
  EXPECT_TRUE(r.trace.order_stores.empty());
  EXPECT_EQ(r.trace.kernel_order.size(), 1u);

  // Cut inside the last part's line.
  std::vector<std::string> torn(lines.begin(), lines.begin() + 6);
  torn.back().resize(torn.back().size() / 2);
  p = writeLines("torn.trace", torn, /*lastNewline=*/false);
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Truncated);
  EXPECT_EQ(r.message, p + " ends mid-record after 5 complete records (line 6 is "
                           "incomplete); the process likely died while writing it");
}

TEST_F(OrderTraceTest, DamagedPayloadIsCorruptAndNamesTheLine) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  auto withData = [&](int index, const std::string &data) {
    std::vector<std::string> copy = lines;
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(copy[index]);
    j["data"] = data;
    copy[index] = j.dump();
    return copy;
  };
  std::string p = writeLines("a.trace", withData(4, "!!!!"));
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":5: corrupt order_stores record: field 'data' is not valid base64");

  p = writeLines("b.trace", withData(7, "AAAAAAAA"));
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":8: corrupt order_atomics record: field 'data' is not a zstd frame");

  // A part whose payload does not hold the elements its count says.
  std::vector<std::string> copy = lines;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(copy[3]);
  j["count"] = 4;
  copy[3] = j.dump();
  p = writeLines("c.trace", copy);
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":4: corrupt order_stores record: field 'data' holds 48 bytes, "
                           "but 4 elements are 64 bytes");
}

TEST_F(OrderTraceTest, PartsOutOfSequenceAreCorrupt) {
  std::vector<std::string> lines = splitLines(readFile(writeSample("t.trace")));
  // Part 1 left out: part 2 follows part 0.
  std::vector<std::string> skipped = lines;
  skipped.erase(skipped.begin() + 4);
  std::string p = writeLines("a.trace", skipped);
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":5: corrupt order_stores record: it is part 2 where part 1 of "
                           "the order_stores record of launch 1, argument 2 (3 parts, from "
                           "line 4) was expected (a part line is missing or out of order)");

  // Another record between two parts.
  std::vector<std::string> interleaved = lines;
  interleaved.insert(interleaved.begin() + 4, lines[9]);
  p = writeLines("b.trace", interleaved);
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":5: corrupt order_stores record: the order_stores record that "
                           "starts on line 4 has 3 parts, and only 1 of them come before "
                           "this line");

  // A later part without its first.
  p = writeLines("c.trace", {lines[0], lines[4]});
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":2: corrupt order_stores record: it is part 1 of 3, but no "
                           "part 0 comes before it");
}

TEST_F(OrderTraceTest, HandWrittenUncompressedLinesRead) {
  // Element 5, fingerprint 0x1234, as 16 little-endian bytes in plain base64.
  std::string header =
      R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"","pid":1,"argv":[],"start_time":"","options":{},"gpu_name":"","gpu_arch":"","driver_version":0,"runtime_version":0})j";
  std::string stores =
      R"j({"type": "order_stores", "launch": 1, "arg": 0, "name": "y", "dtype": "f16", "sites": [], "count": 1, "part": 0, "parts": 1, "encoding": "base64", "data": "BQAAAAAAAAA0EgAAAAAAAA=="})j";
  ReadResult r = readTrace(writeLines("t.trace", {header, stores}));
  ASSERT_EQ(r.error, TraceError::None) << r.message;
  ASSERT_EQ(r.trace.order_stores.size(), 1u);
  EXPECT_EQ(r.trace.order_stores[0].dtype, DType::F16);
  EXPECT_EQ(r.trace.order_stores[0].elements, (std::vector<OrderElement>{{5, 0x1234}}));
}

TEST_F(OrderTraceTest, WrongFieldsAreCorrupt) {
  std::string header =
      R"j({"type":"header","format":"kosan-trace","version":1,"kosan_version":"","pid":1,"argv":[],"start_time":"","options":{},"gpu_name":"","gpu_arch":"","driver_version":0,"runtime_version":0})j";
  std::string p = writeLines(
      "a.trace", {header, R"j({"type":"kernel_order","module":1,"kernel":"k","mangled":"","float_atomics":"yes"})j"});
  ReadResult r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":2: corrupt kernel_order record: field 'float_atomics' must be true or false");
  p = writeLines("b.trace", {header, R"j({"type":"order_summary","launch":1,"stores":-1})j"});
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":2: corrupt order_summary record: field 'stores' must be an unsigned 64-bit integer");
  p = writeLines("c.trace", {header, R"j({"type":"order_stores","launch":1,"arg":0,"name":"y","dtype":"f32","sites":[],"count":0,"part":3,"parts":2,"encoding":"base64","data":""})j"});
  r = readTrace(p);
  EXPECT_EQ(r.error, TraceError::Corrupt);
  EXPECT_EQ(r.message, p + ":2: corrupt order_stores record: field 'part' is 3, but the record has 2 parts (numbered from 0)");
}

TEST(OrderHelpers, OrderDependence) {
  OrderAtomicRecord r = sampleAtomics(1);
  // 3 distinct fingerprints: dependent; none, one, or all alike: not.
  EXPECT_TRUE(orderDependent(r, r.locations[0]));
  EXPECT_FALSE(orderDependent(r, r.locations[1]));
  EXPECT_FALSE(orderDependent(r, r.locations[2]));
  AtomicSequence alike{1, 0, {contribution(1, 0, 0x7), contribution(2, 0, 0x7)}};
  EXPECT_FALSE(orderDependent(r, alike));
  EXPECT_EQ(orderDependentLocations(r), 2u);
  r.op = "fmin";
  EXPECT_EQ(orderDependentLocations(r), 0u);
  EXPECT_FALSE(atomicOrderMatters("fmax"));
  EXPECT_TRUE(atomicOrderMatters("fsub"));
  EXPECT_EQ(formatKernelOrderFlags(sampleKernel()), "float atomics, launch-dependent reduction loop");
  EXPECT_EQ(formatKernelOrderFlags(KernelOrderInfo{}), "none");
  TraceHeader h;
  EXPECT_EQ(orderLeaves(h), "position");
  h.options["order_leaves"] = "value";
  EXPECT_EQ(orderLeaves(h), "value");
}

//===----------------------------------------------------------------------===//
// kosan-report
//===----------------------------------------------------------------------===//

TEST(OrderReport, TextListsFindingsRecordsAndDroppedWarnings) {
  Trace t;
  t.header.options = {{"checks", "order"}};
  LaunchRecord l;
  l.id = 3;
  l.kernel = "rowsum(float const*, float*, int)";
  t.launches = {l};
  t.kernel_order = {sampleKernel()};
  t.order_atomics = {sampleAtomics(3)};
  t.order_stores = {sampleStores(3, 4)};
  OrderSummary s{.launch = 3, .stores = 4, .atomics = 9, .dropped_stores = 2,
                 .order_dependent_locations = 2};
  t.order_summaries = {s};
  std::string text = formatTraceText(t);
  EXPECT_NE(text.find("order: static findings per kernel:\n"
                      "  rowsum(float const*, float*, int): float atomics, launch-dependent reduction loop\n"
                      "    float atomics at k.cu:12 (atomicAdd on 'out')\n"
                      "    reduction loop at k.cu:9\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  launch #3 rowsum(float const*, float*, int): 9 float atomics on "
                      "'out' at 4 locations; 2 are order-dependent (their result depends on "
                      "the order the atomics landed in); the landing order is the order the "
                      "log received them, not reconstructed exactly\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  launch #3 rowsum(float const*, float*, int): fingerprints of 4 "
                      "elements of 'y' (f32) recorded, stored at k.cu:20:7, k.cu:22:7\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("warning: launch #3 rowsum(float const*, float*, int): 2 store records "
                      "dropped: the device log was full; raise order_stores\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("raise order_atomics"), std::string::npos);
  EXPECT_NE(text.find("kosan: order: 1 launch recorded; 2 order-dependent locations in 1 launch\n"),
            std::string::npos)
      << text;

  nlohmann::json j = nlohmann::json::parse(formatTraceJson(t));
  EXPECT_EQ(j["kernel_order"][0]["launch_dependent_loop"], true);
  EXPECT_EQ(j["order_stores"][0]["count"], 4);
  EXPECT_EQ(j["order_atomics"][0]["count"], 4);
  EXPECT_EQ(j["order_atomics"][0]["contributions"], 9);
  EXPECT_EQ(j["order_atomics"][0]["order_dependent_locations"], 2);
  EXPECT_EQ(j["order_summaries"][0]["dropped_stores"], 2);
}

TEST(OrderReport, NoSectionWithoutOrderRecordsOrTheCheck) {
  Trace t;
  EXPECT_EQ(formatTraceText(t).find("order"), std::string::npos);
  t.header.options = {{"checks", "oob,order"}};
  EXPECT_NE(formatTraceText(t).find("kosan: order: no order records (was the program built "
                                    "with --kosan-checks=order?)\n"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// kosan-diff --order and --batch-invariance
//===----------------------------------------------------------------------===//

struct OrderRun {
  std::map<std::string, std::string> options = {{"checks", "order"}};
  std::vector<KernelOrderInfo> kernels = {sampleKernel()};
  struct Launch {
    uint32_t id = 1;
    std::string kernel = "rowsum(float const*, float*, int)";
    std::string mangled = "_Z6rowsumPKfPfi";
    std::vector<OrderStoreRecord> stores;
    std::vector<OrderAtomicRecord> atomics;
    std::optional<OrderSummary> summary;
    std::vector<std::pair<SnapshotRecord, std::vector<float>>> snapshots;
  };
  std::vector<Launch> launches;
};

class OrderDiffTest : public test::TempDirTest {
protected:
  std::string write(const std::string &name, const OrderRun &run) {
    std::string p = path(name);
    auto w = TraceWriter::create(p, nullptr);
    TraceHeader h;
    h.options = run.options;
    w->write(h);
    for (const KernelOrderInfo &k : run.kernels)
      w->write(k);
    for (const OrderRun::Launch &l : run.launches) {
      LaunchRecord record;
      record.id = l.id;
      record.kernel = l.kernel;
      record.mangled = l.mangled;
      record.module = 3;
      w->write(record);
      for (OrderStoreRecord s : l.stores) {
        s.launch = l.id;
        w->write(s);
      }
      for (OrderAtomicRecord a : l.atomics) {
        a.launch = l.id;
        w->write(a);
      }
      for (auto [snapshot, values] : l.snapshots) {
        snapshot.launch = l.id;
        w->writeSnapshot(snapshot, values.data(), values.size() * sizeof(float));
      }
      if (l.summary) {
        OrderSummary s = *l.summary;
        s.launch = l.id;
        w->write(s);
      }
    }
    w->write(TraceEnd{});
    return p;
  }

  OrderDiffResult order(const OrderRun &a, const OrderRun &b, const OrderDiffOptions &options = {}) {
    return diffOrder(write("a.trace", a), write("b.trace", b), options);
  }
};

OrderRun storesRun(std::vector<uint64_t> fps) {
  OrderRun run;
  OrderRun::Launch l;
  OrderStoreRecord s;
  s.arg = 2;
  s.name = "y";
  s.dtype = DType::F32;
  for (size_t i = 0; i < fps.size(); ++i)
    s.elements.push_back({i, fps[i]});
  l.stores = {s};
  run.launches = {l};
  return run;
}

// One fadd location (element 17) hit by the given contributions, in order.
OrderRun atomicsRun(std::vector<AtomicContribution> order, const std::string &op = "fadd",
               uint64_t locationFp = 0) {
  OrderRun run;
  OrderRun::Launch l;
  OrderAtomicRecord a;
  a.arg = 0;
  a.name = "out";
  a.dtype = DType::F32;
  a.op = op;
  a.locations = {{16, 0x55, {contribution(1, 1, 0x9)}}, {17, locationFp, std::move(order)}};
  l.atomics = {a};
  run.launches = {l};
  return run;
}

SnapshotRecord snapshotOf(uint32_t arg, const std::string &name) {
  SnapshotRecord s;
  s.arg = arg;
  s.name = name;
  s.dtype = DType::F32;
  return s;
}

TEST_F(OrderDiffTest, IdenticalRunsAreDeterministic) {
  OrderDiffResult d = order(storesRun({0x1, 0x2, 0x3, 0x4}), storesRun({0x1, 0x2, 0x3, 0x4}));
  ASSERT_EQ(d.verdict, OrderVerdict::Deterministic) << d.error;
  ASSERT_EQ(d.launches.size(), 1u);
  ASSERT_EQ(d.launches[0].stores.size(), 1u);
  EXPECT_EQ(d.launches[0].stores[0].compared, 4u);
  ASSERT_TRUE(d.launches[0].findings);
  EXPECT_EQ(d.launches[0].findings->findings, sampleKernel().findings);
  std::string text = formatOrderDiffText(d);
  EXPECT_NE(text.find("  y (f32, 4 elements stored): same fingerprints at all 4 elements\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(formatOrderDiffVerdict(d),
            "kosan-diff: DETERMINISTIC: 1 output of 1 launch pair comes out the same from "
            "run to run (4 stored elements, 0 atomic locations compared)");
}

TEST_F(OrderDiffTest, OneChangedFingerprintIsNondeterministicAndNamed) {
  OrderDiffResult d = order(storesRun({0x1, 0x2, 0x3, 0x4}), storesRun({0x1, 0x2, 0x30, 0x4}));
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic) << d.error;
  const OrderStoreDiff &s = d.launches[0].stores[0];
  EXPECT_EQ(s.differing, 1u);
  EXPECT_EQ(s.first_differing, std::vector<uint64_t>{2});
  std::string text = formatOrderDiffText(d);
  EXPECT_NE(text.find("A #1 rowsum(float const*, float*, int) vs B #1 rowsum(float const*, float*, int):\n"
                      "  static findings: float atomics, launch-dependent reduction loop\n"
                      "    float atomics at k.cu:12 (atomicAdd on 'out')\n"
                      "    reduction loop at k.cu:9\n"
                      "  y (f32, 4 elements stored): fingerprints differ at 1/4 elements ([2])\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(formatOrderDiffVerdict(d),
            "kosan-diff: NONDETERMINISTIC: 1 of 1 output in 1 launch pair can differ from "
            "run to run");
  nlohmann::json j = nlohmann::json::parse(formatOrderDiffJson(d));
  EXPECT_EQ(j["mode"], "order");
  EXPECT_EQ(j["verdict"], "nondeterministic");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["launches"][0]["stores"][0]["first_differing"], nlohmann::json({2}));
}

TEST_F(OrderDiffTest, OtherLaunchConfigurationsAreNamed) {
  OrderRun a = storesRun({0x1}), b = storesRun({0x2});
  OrderDiffResult d = order(a, b);
  EXPECT_EQ(formatOrderDiffText(d).find("launch configuration"), std::string::npos);
  std::string pa = write("a.trace", a), pb = write("b.trace", b);
  // The same launch with 512 threads a block and 1 KiB of shared memory.
  std::string text = readFile(pb);
  const std::string before = R"("block":[1,1,1],"shared_bytes":0,)";
  size_t at = text.find(before);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, before.size(), R"("block":[512,1,1],"shared_bytes":1024,)");
  std::ofstream(pb, std::ios::binary) << text;
  d = diffOrder(pa, pb);
  EXPECT_NE(formatOrderDiffText(d).find(
                "  launch configuration differs: block (1,1,1) vs (512,1,1), dynamic shared "
                "memory 0 vs 1024 bytes\n"),
            std::string::npos)
      << formatOrderDiffText(d);
}

TEST_F(OrderDiffTest, ElementsStoredInOneRunOnly) {
  OrderDiffResult d = order(storesRun({0x1, 0x2, 0x3}), storesRun({0x1, 0x2}));
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic);
  EXPECT_EQ(d.launches[0].stores[0].only_a, 1u);
  EXPECT_NE(formatOrderDiffText(d).find("1 element stored in A only ([2])"), std::string::npos);
}

TEST_F(OrderDiffTest, SwappedLandingOrderNamesTheFirstDivergence) {
  std::vector<AtomicContribution> a = {contribution(0, 0, 0x10), contribution(3, 1, 0x11),
                                       contribution(12, 0, 0x12), contribution(7, 3, 0x13)};
  std::vector<AtomicContribution> b = {a[0], a[1], a[3], a[2]};
  OrderDiffResult d = order(atomicsRun(a, "fadd", 0xa), atomicsRun(b, "fadd", 0xb));
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic) << d.error;
  const OrderAtomicDiff &t = d.launches[0].atomics[0];
  EXPECT_EQ(t.locations, 2u);
  EXPECT_EQ(t.reordered, 1u);
  EXPECT_EQ(t.order_dependent, 1u);
  EXPECT_EQ(t.dependent_alike, 0u);
  ASSERT_EQ(t.divergences.size(), 1u);
  EXPECT_EQ(t.divergences[0].position, 2u);
  EXPECT_EQ(t.divergences[0].a.block, 12u);
  EXPECT_EQ(t.divergences[0].b.block, 7u);
  std::string text = formatOrderDiffText(d);
  EXPECT_NE(text.find("  out (f32, 5 fadd atomics at 2 locations): 1/2 locations had its "
                      "atomics land in a different order; fingerprints differ at 1 location\n"
                      "    out[17]: 4 atomic contributions landed in a different order; first "
                      "divergence at position 2 (A: block 12 thread 0, B: block 7 thread 3)\n"
                      "    1 location depends on the order atomics land in: [17]\n"),
            std::string::npos)
      << text;
}

TEST_F(OrderDiffTest, OrderDependentAtomicsThatLandedAlikeAreNondeterministic) {
  std::vector<AtomicContribution> a = {contribution(0, 0, 0x10), contribution(1, 0, 0x11)};
  OrderDiffResult d = order(atomicsRun(a, "fadd", 0xa), atomicsRun(a, "fadd", 0xa));
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic) << d.error;
  const OrderAtomicDiff &t = d.launches[0].atomics[0];
  EXPECT_EQ(t.reordered, 0u);
  EXPECT_EQ(t.order_dependent, 1u);
  EXPECT_EQ(t.dependent_alike, 1u);
  EXPECT_NE(formatOrderDiffText(d).find(
                "    1 location depends on the order atomics land in (both runs happened to "
                "land it alike): [17]\n"),
            std::string::npos)
      << formatOrderDiffText(d);
  EXPECT_NE(formatOrderDiffVerdict(d).find("1 atomic location depends on the order atomics land in"),
            std::string::npos);
}

TEST_F(OrderDiffTest, ContributionsWithOneFingerprintDoNotDependOnOrder) {
  std::vector<AtomicContribution> a = {contribution(0, 0, 0x10), contribution(1, 0, 0x10)};
  std::vector<AtomicContribution> b = {a[1], a[0]};
  OrderDiffResult d = order(atomicsRun(a, "fadd", 0xa), atomicsRun(b, "fadd", 0xa));
  EXPECT_EQ(d.verdict, OrderVerdict::Deterministic) << formatOrderDiffText(d);
  EXPECT_EQ(d.launches[0].atomics[0].reordered, 1u);
}

// fmin and fmax give the same result in any order: another landing order
// is not a difference, other contributions are.
TEST_F(OrderDiffTest, MinAndMaxDoNotDependOnTheLandingOrder) {
  std::vector<AtomicContribution> a = {contribution(0, 0, 0x10), contribution(1, 0, 0x11)};
  std::vector<AtomicContribution> b = {a[1], a[0]};
  OrderDiffResult d = order(atomicsRun(a, "fmin", 0xa), atomicsRun(b, "fmin", 0xb));
  ASSERT_EQ(d.verdict, OrderVerdict::Deterministic) << formatOrderDiffText(d);
  EXPECT_FALSE(d.launches[0].atomics[0].order_matters);
  EXPECT_EQ(d.launches[0].atomics[0].reordered, 1u);
  EXPECT_NE(formatOrderDiffText(d).find("fmin: the result does not depend on the order they land in"),
            std::string::npos);

  std::vector<AtomicContribution> c = {contribution(0, 0, 0x10), contribution(1, 0, 0x99)};
  d = order(atomicsRun(a, "fmax"), atomicsRun(c, "fmax"));
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic);
  EXPECT_EQ(d.launches[0].atomics[0].other_contributions, 1u);
  EXPECT_NE(formatOrderDiffText(d).find("1 location received other contributions ([17])"),
            std::string::npos);
}

TEST_F(OrderDiffTest, DroppedRecordsAreNeverDeterministic) {
  OrderRun a = storesRun({0x1, 0x2}), b = storesRun({0x1, 0x2});
  b.launches[0].summary = OrderSummary{.stores = 2, .dropped_stores = 5};
  OrderDiffResult d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_EQ(d.error, "B launch #1 (rowsum(float const*, float*, int)): 5 store records "
                     "dropped: the device log was full; raise order_stores "
                     "(KOSAN_OPTIONS=order_stores=N) and record again: differences could "
                     "hide in the dropped records");
  // A difference found stays one; the dropped records are a note.
  b = storesRun({0x1, 0x3});
  b.launches[0].summary = OrderSummary{.stores = 2, .dropped_atomics = 4};
  d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic);
  EXPECT_EQ(d.notes, std::vector<std::string>{
                         "B launch #1 (rowsum(float const*, float*, int)): 4 atomic records "
                         "dropped: the device log was full; raise order_atomics"});
}

// With store records dropped, a fingerprint may be an earlier store's: a
// fingerprint that differs proves nothing. Order dependence among the
// atomics that were recorded does.
TEST_F(OrderDiffTest, DroppedRecordsMakeOnlySoundEvidenceCount) {
  OrderRun a = storesRun({0x1, 0x2}), b = storesRun({0x1, 0x3});
  b.launches[0].summary = OrderSummary{.stores = 2, .dropped_stores = 1};
  OrderDiffResult d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_TRUE(d.launches[0].stores[0].incomplete);
  EXPECT_EQ(d.launches[0].stores[0].differing, 1u);
  EXPECT_NE(formatOrderDiffText(d).find(
                "    store records of this launch were dropped: a fingerprint may be an "
                "earlier store's, and only the bits count\n"),
            std::string::npos)
      << formatOrderDiffText(d);

  std::vector<AtomicContribution> x = {contribution(0, 0, 0x10), contribution(1, 0, 0x11)};
  std::vector<AtomicContribution> y = {x[0]};
  OrderRun c = atomicsRun(x, "fadd", 0xa), e = atomicsRun(y, "fadd", 0xb);
  e.launches[0].summary = OrderSummary{.atomics = 2, .dropped_atomics = 1};
  d = order(c, e);
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic) << d.error;
  EXPECT_TRUE(d.launches[0].atomics[0].incomplete);
  EXPECT_EQ(d.launches[0].atomics[0].order_dependent, 1u);
  // Without order dependence, the missing contribution is all there is.
  std::vector<AtomicContribution> z = {contribution(0, 0, 0x10), contribution(1, 0, 0x10)};
  d = order(atomicsRun(z, "fadd", 0xa), e);
  EXPECT_EQ(d.verdict, OrderVerdict::Trouble) << formatOrderDiffText(d);
}

TEST_F(OrderDiffTest, TracesWithoutOrderRecordsAreTrouble) {
  OrderRun bare = storesRun({});
  bare.launches[0].stores.clear();
  std::string a = write("bare.trace", bare), b = write("b.trace", storesRun({0x1}));
  OrderDiffResult d = diffOrder(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_EQ(d.error, "A " + a + " has no order records: record it with "
                                "KOSAN_OPTIONS=checks=order and a build with "
                                "--kosan-checks=order");
  d = diffOrder(path("missing.trace"), b);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_EQ(d.error, "cannot open " + path("missing.trace") + ": No such file or directory");
}

TEST_F(OrderDiffTest, BitsTellWhetherTheOrderChangeMattered) {
  OrderRun a = storesRun({0x1, 0x2, 0x3}), b = storesRun({0x1, 0x22, 0x3});
  a.launches[0].snapshots = {{snapshotOf(2, "y"), {1.0f, 2.0f, 3.0f}}};
  b.launches[0].snapshots = {{snapshotOf(2, "y"), {1.0f, 2.0f, 3.0f}}};
  OrderDiffResult d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Nondeterministic);
  const OrderBits &bits = d.launches[0].stores[0].bits;
  EXPECT_TRUE(bits.compared);
  EXPECT_EQ(bits.elements, 3u);
  EXPECT_EQ(bits.differing, 0u);
  EXPECT_NE(formatOrderDiffText(d).find(
                "    bits: identical (3 elements), although the order differs: the results "
                "happened to round alike this time\n"),
            std::string::npos)
      << formatOrderDiffText(d);

  b.launches[0].snapshots = {{snapshotOf(2, "y"), {1.0f, 2.0000002f, 3.0f}}};
  d = order(a, b);
  EXPECT_EQ(d.launches[0].stores[0].bits.differing, 1u);
  EXPECT_NE(formatOrderDiffText(d).find("    bits: 1/3 elements differ ([1])\n"),
            std::string::npos);

  // Bits that differ where every fingerprint agrees: still not deterministic.
  d = order(a, storesRun({0x1, 0x2, 0x3}));
  EXPECT_EQ(d.verdict, OrderVerdict::Deterministic);
  OrderRun c = storesRun({0x1, 0x2, 0x3});
  c.launches[0].snapshots = {{snapshotOf(2, "y"), {1.0f, 2.5f, 3.0f}}};
  d = order(a, c);
  EXPECT_EQ(d.verdict, OrderVerdict::Nondeterministic);
}

TEST_F(OrderDiffTest, LaunchesPairByKernelAndOrderOrExplicitly) {
  OrderRun a = storesRun({0x1}), b = storesRun({0x1});
  OrderRun::Launch second = a.launches[0];
  second.id = 2;
  second.stores[0].elements[0].fp = 0x7;
  a.launches.push_back(second);
  OrderDiffResult d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Deterministic) << d.error;
  EXPECT_EQ(d.notes, std::vector<std::string>{
                         "A launch #2 (rowsum(float const*, float*, int)) has order records "
                         "but no B launch of the same kernel to compare with; it is not "
                         "compared"});
  OrderDiffOptions options;
  options.launches = {{2, 1}};
  d = order(a, b, options);
  EXPECT_EQ(d.verdict, OrderVerdict::Nondeterministic);
  options.launches = {{3, 1}};
  d = order(a, b, options);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_EQ(d.error, "A " + path("a.trace") + " has no launch #3");
}

TEST_F(OrderDiffTest, OtherLeafLabelsCannotBeCompared) {
  OrderRun a = storesRun({0x1}), b = storesRun({0x1});
  b.options["order_leaves"] = "value";
  OrderDiffResult d = order(a, b);
  ASSERT_EQ(d.verdict, OrderVerdict::Trouble);
  EXPECT_EQ(d.error, "A was recorded with order_leaves=position and B with "
                     "order_leaves=value: their fingerprints cannot be compared; record "
                     "both with the same KOSAN_OPTIONS=order_leaves");
}

TEST(RowPairs, Parse) {
  std::string error;
  auto rows = parseRowPairs("0:0,0:5,2:8:4", &error);
  ASSERT_TRUE(rows) << error;
  EXPECT_EQ(*rows, (std::vector<RowPair>{{0, 0, 1}, {0, 5, 1}, {2, 8, 4}}));
  for (const char *bad : {"", "0", "0:", ":1", "0:1:0", "0:1:2:3", "a:b", "0:1,", "0-1", "-1:2"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parseRowPairs(bad, &error));
    EXPECT_EQ(error.rfind(std::string("--rows ") + bad + ": ", 0), 0u) << error;
  }
  parseRowPairs("0:1:0", &error);
  EXPECT_EQ(error, "--rows 0:1:0: '0:1:0' is not RA:RB or RA:RB:COUNT (rows from 0, COUNT 1 "
                   "or more; e.g. 0:0,0:5 or 0:8:4)");
}

// A batch of 1 row of 4 elements against a batch of 8 rows; fingerprints
// of value leaves repeat per row (column c: 0x100 + c).
OrderRun batchRun(uint64_t rows, std::map<uint64_t, uint64_t> changed = {}) {
  std::vector<uint64_t> fps;
  for (uint64_t i = 0; i < rows * 4; ++i)
    fps.push_back(changed.count(i) ? changed[i] : 0x100 + i % 4);
  OrderRun run = storesRun(fps);
  run.options["order_leaves"] = "value";
  return run;
}

TEST_F(OrderDiffTest, BatchInvariantRows) {
  BatchDiffOptions options;
  options.rows = {{0, 0, 1}, {0, 5, 1}};
  options.row_length = 4;
  BatchDiffResult d =
      diffBatchInvariance(write("a.trace", batchRun(1)), write("b.trace", batchRun(8)), options);
  ASSERT_EQ(d.verdict, BatchVerdict::Invariant) << d.error;
  ASSERT_EQ(d.launches.size(), 1u);
  ASSERT_EQ(d.launches[0].outputs.size(), 1u);
  ASSERT_EQ(d.launches[0].outputs[0].rows.size(), 2u);
  EXPECT_EQ(d.launches[0].outputs[0].rows[1].compared, 4u);
  EXPECT_TRUE(d.launches[0].reasons.empty());
  EXPECT_EQ(formatBatchDiffVerdict(d),
            "kosan-diff: INVARIANT: 2 row pairs in 1 output of 1 launch pair have the same "
            "fingerprints (8 elements compared)");
}

TEST_F(OrderDiffTest, BatchVariantRowNamesRowColumnAndReason) {
  BatchDiffOptions options;
  options.rows = {{0, 0, 1}, {0, 5, 1}};
  options.row_length = 4;
  // Row 5, column 2 of B: element 22.
  BatchDiffResult d = diffBatchInvariance(write("a.trace", batchRun(1)),
                                          write("b.trace", batchRun(8, {{22, 0xbad}})), options);
  ASSERT_EQ(d.verdict, BatchVerdict::BatchVariant) << d.error;
  const BatchOutputDiff &o = d.launches[0].outputs[0];
  EXPECT_TRUE(o.rows[0].invariant);
  EXPECT_FALSE(o.rows[1].invariant);
  EXPECT_EQ(o.rows[1].row_b, 5u);
  EXPECT_EQ(o.rows[1].variant, 1u);
  EXPECT_EQ(o.rows[1].first_variant, std::vector<uint64_t>{2});
  std::string text = formatBatchDiffText(d);
  EXPECT_NE(text.find("  y row 0 of A vs row 0 of B: invariant (same fingerprints at all 4 elements)\n"
                      "  y row 0 of A vs row 5 of B: 1/4 elements batch-variant (columns 2; "
                      "first: A [2], B [22])\n"
                      "    (to see at which operation they part, build with "
                      "--kosan-checks=order-ops and record both runs again)\n"
                      "  why: the reduction's split depends on the launch (a loop's trip count "
                      "comes from a kernel argument or a launch dimension, or a branch on one "
                      "picks the loop)\n"
                      "  why: float atomics: the result depends on the order they land in, "
                      "which changes with the batch\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    reduction loop at k.cu:9\n"), std::string::npos);
  EXPECT_EQ(formatBatchDiffVerdict(d),
            "kosan-diff: BATCH-VARIANT: 1 of 2 row pairs differ in 1 output of 1 launch pair "
            "(1 batch-variant element)");
  nlohmann::json j = nlohmann::json::parse(formatBatchDiffJson(d));
  EXPECT_EQ(j["mode"], "batch-invariance");
  EXPECT_EQ(j["verdict"], "batch-variant");
  EXPECT_EQ(j["launches"][0]["outputs"][0]["rows"][1]["first_variant"], nlohmann::json({2}));
  EXPECT_EQ(j["launches"][0]["outputs"][0]["rows"][1]["parting_note"], kOrderOpsHint);
  EXPECT_EQ(j["launches"][0]["outputs"][0]["rows"][1]["partings"], nlohmann::json::array());
}

TEST_F(OrderDiffTest, BatchRowsUseAtomicLocationFingerprints) {
  OrderRun a = batchRun(1), b = batchRun(2);
  OrderAtomicRecord atomics;
  atomics.arg = 2;
  atomics.name = "y";
  atomics.dtype = DType::F32;
  atomics.op = "fadd";
  atomics.locations = {{1, 0x77, {contribution(0, 0, 0x1), contribution(1, 0, 0x2)}}};
  a.launches[0].atomics = {atomics};
  atomics.locations[0].element = 5;
  atomics.locations[0].fp = 0x78;
  b.launches[0].atomics = {atomics};
  BatchDiffOptions options;
  options.rows = {{0, 1, 1}};
  options.row_length = 4;
  BatchDiffResult d = diffBatchInvariance(write("a.trace", a), write("b.trace", b), options);
  ASSERT_EQ(d.verdict, BatchVerdict::BatchVariant) << d.error;
  EXPECT_EQ(d.launches[0].outputs[0].written_by, "stores and atomics");
  EXPECT_EQ(d.launches[0].outputs[0].rows[0].first_variant, std::vector<uint64_t>{1});
}

TEST_F(OrderDiffTest, PositionLeavesCannotCompareRowsAtOtherOffsets) {
  OrderRun a = batchRun(1), b = batchRun(8);
  a.options.erase("order_leaves");
  b.options.erase("order_leaves");
  BatchDiffOptions options;
  options.rows = {{0, 0, 1}, {0, 5, 1}};
  options.row_length = 4;
  BatchDiffResult d = diffBatchInvariance(write("a.trace", a), write("b.trace", b), options);
  ASSERT_EQ(d.verdict, BatchVerdict::Trouble);
  EXPECT_EQ(d.error, "--rows 0:5 compares row 0 of A with row 5 of B, and the traces were "
                     "recorded with order_leaves=position: rows at different offsets need "
                     "value-labelled leaves: record both runs with "
                     "KOSAN_OPTIONS=order_leaves=value");
  // The same row at the same offset is fine with position leaves.
  options.rows = {{0, 0, 1}};
  d = diffBatchInvariance(path("a.trace"), path("b.trace"), options);
  EXPECT_EQ(d.verdict, BatchVerdict::Invariant) << d.error;
}

TEST_F(OrderDiffTest, BatchRowMissingOnOneSideIsTrouble) {
  BatchDiffOptions options;
  options.rows = {{1, 1, 1}};
  options.row_length = 4;
  BatchDiffResult d =
      diffBatchInvariance(write("a.trace", batchRun(1)), write("b.trace", batchRun(8)), options);
  ASSERT_EQ(d.verdict, BatchVerdict::Trouble);
  EXPECT_EQ(d.error, "A recorded no fingerprint in row 1 of 'y' (elements 4 to 7, A launch #1 "
                     "(rowsum(float const*, float*, int)) and B launch #1 (rowsum(float "
                     "const*, float*, int))), where B recorded 4; check --rows and "
                     "--row-length");
}

TEST_F(OrderDiffTest, BatchWithDroppedRecordsIsNotInvariant) {
  OrderRun a = batchRun(1), b = batchRun(8, {{22, 0xbad}});
  b.launches[0].summary = OrderSummary{.stores = 32, .dropped_stores = 3};
  BatchDiffOptions options;
  options.rows = {{0, 0, 1}, {0, 5, 1}};
  options.row_length = 4;
  BatchDiffResult d = diffBatchInvariance(write("a.trace", a), write("b.trace", b), options);
  ASSERT_EQ(d.verdict, BatchVerdict::Trouble);
  EXPECT_EQ(d.error, "B launch #1 (rowsum(float const*, float*, int)): 3 store records "
                     "dropped: the device log was full; raise order_stores "
                     "(KOSAN_OPTIONS=order_stores=N) and record again: differences could "
                     "hide in the dropped records");
  EXPECT_TRUE(d.launches[0].outputs[0].rows[1].incomplete);
}

TEST_F(OrderDiffTest, BatchBitsOfTheMappedRows) {
  OrderRun a = batchRun(1), b = batchRun(2);
  a.launches[0].snapshots = {{snapshotOf(2, "y"), {1, 2, 3, 4}}};
  b.launches[0].snapshots = {{snapshotOf(2, "y"), {9, 9, 9, 9, 1, 2, 3.5f, 4}}};
  BatchDiffOptions options;
  options.rows = {{0, 1, 1}};
  options.row_length = 4;
  BatchDiffResult d = diffBatchInvariance(write("a.trace", a), write("b.trace", b), options);
  ASSERT_EQ(d.verdict, BatchVerdict::BatchVariant) << d.error;
  const BatchRowDiff &row = d.launches[0].outputs[0].rows[0];
  EXPECT_EQ(row.variant, 0u);
  EXPECT_EQ(row.bits.differing, 1u);
  EXPECT_EQ(row.bits.first, std::vector<uint64_t>{2});
  EXPECT_NE(formatBatchDiffText(d).find("    bits: 1/4 columns differ (2)\n"), std::string::npos)
      << formatBatchDiffText(d);
  EXPECT_EQ(formatBatchDiffVerdict(d),
            "kosan-diff: BATCH-VARIANT: 1 of 1 row pair differs in 1 output of 1 launch pair "
            "(0 batch-variant elements; bits differ in 1 row pair)");
}

} // namespace
