//===- alloc_table_test.cpp - The table of known device buffers -----------===//
#include "core/alloc_table.h"

#include <gtest/gtest.h>

#include <set>

using kosan::rt::AllocTable;
using kosan::rt::Buffer;
using kosan::rt::BufferOrigin;

namespace {

Buffer allocation(uint64_t begin, uint64_t bytes, std::string name = "") {
  Buffer b;
  b.begin = begin;
  b.end = begin + bytes;
  b.name = std::move(name);
  b.site = "main.cu:10";
  return b;
}

void registerOk(AllocTable &table, uint64_t begin, uint64_t bytes,
                std::string name) {
  std::string error;
  ASSERT_TRUE(table.registerBuffer(begin, bytes, name, &error)) << error;
}

std::string nameAt(const AllocTable &table, uint64_t addr) {
  const Buffer *b = table.find(addr);
  return b ? b->name : "<none>";
}

std::string nearestTo(const AllocTable &table, uint64_t addr) {
  const Buffer *b = table.nearest(addr);
  return b ? b->name : "<none>";
}

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(AllocTable, FindCoversExactlyBeginToEnd) {
  AllocTable table;
  EXPECT_EQ(table.addAllocation(allocation(0x1000, 0x100, "a")), 0u);
  EXPECT_EQ(nameAt(table, 0xfff), "<none>");
  EXPECT_EQ(nameAt(table, 0x1000), "a");
  EXPECT_EQ(nameAt(table, 0x1080), "a");
  EXPECT_EQ(nameAt(table, 0x10ff), "a");
  EXPECT_EQ(nameAt(table, 0x1100), "<none>");

  const Buffer *b = table.find(0x1000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->begin, 0x1000u);
  EXPECT_EQ(b->end, 0x1100u);
  EXPECT_EQ(b->site, "main.cu:10");
  EXPECT_EQ(b->origin, BufferOrigin::Malloc);
  EXPECT_NE(b->id, 0u);
}

TEST(AllocTable, NullAllocationIsIgnored) {
  AllocTable table;
  uint64_t generation = table.generation();
  EXPECT_EQ(table.addAllocation(allocation(0, 0)), 0u);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.generation(), generation);
  EXPECT_EQ(table.find(0), nullptr);
}

TEST(AllocTable, IdsAreUnique) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x100, "a"));
  table.addAllocation(allocation(0x2000, 0x100, "b"));
  registerOk(table, 0x1000, 0x10, "r");
  table.removeAllocation(0x2000);
  table.addAllocation(allocation(0x2000, 0x100, "c"));
  std::set<uint64_t> ids;
  for (uint64_t addr : {0x1000, 0x1010, 0x2000})
    ids.insert(table.find(addr)->id);
  EXPECT_EQ(ids.size(), 3u);
}

TEST(AllocTable, OverlappingAllocationDropsStaleBuffers) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x1000, "a"));
  table.addAllocation(allocation(0x3000, 0x1000, "b"));
  table.addAllocation(allocation(0x5000, 0x1000, "untouched"));
  registerOk(table, 0x1100, 0x100, "inside a, away from the new one");
  // a and b were freed behind kosan's back; the new allocation straddles both.
  EXPECT_EQ(table.addAllocation(allocation(0x1800, 0x2000, "new")), 3u);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(nameAt(table, 0x1100), "<none>");
  EXPECT_EQ(nameAt(table, 0x1800), "new");
  EXPECT_EQ(nameAt(table, 0x37ff), "new");
  EXPECT_EQ(nameAt(table, 0x3800), "<none>");
  EXPECT_EQ(nameAt(table, 0x5000), "untouched");
}

TEST(AllocTable, OverlappingAllocationDropsStaleRegisteredBuffers) {
  AllocTable table;
  // Memory from an allocator kosan does not see, freed without unregistering.
  registerOk(table, 0x8000, 0x1000, "outer");
  registerOk(table, 0x8800, 0x100, "inner");
  registerOk(table, 0xa000, 0x100, "elsewhere");
  EXPECT_EQ(table.addAllocation(allocation(0x8f00, 0x200, "new")), 2u);
  EXPECT_EQ(nameAt(table, 0x8800), "<none>");
  EXPECT_EQ(nameAt(table, 0x8f00), "new");
  EXPECT_EQ(nameAt(table, 0xa000), "elsewhere");
}

TEST(AllocTable, SameStartReplacesEvenWhenSmaller) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x1000, "old"));
  EXPECT_EQ(table.addAllocation(allocation(0x1000, 0x10, "new")), 1u);
  EXPECT_EQ(nameAt(table, 0x1000), "new");
  EXPECT_EQ(nameAt(table, 0x1010), "<none>");
}

TEST(AllocTable, FreeRemovesRegistrationsInside) {
  AllocTable table;
  table.addAllocation(allocation(0x10000, 0x10000, "slab"));
  registerOk(table, 0x10000, 0x1000, "tensor");
  registerOk(table, 0x10100, 0x100, "view");
  registerOk(table, 0x1ff00, 0, "empty at the last byte");
  registerOk(table, 0x20000, 0x100, "after the slab");
  EXPECT_EQ(table.size(), 5u);

  EXPECT_TRUE(table.removeAllocation(0x10000));
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(nameAt(table, 0x10000), "<none>");
  EXPECT_EQ(nameAt(table, 0x10100), "<none>");
  EXPECT_EQ(nameAt(table, 0x1ff00), "<none>");
  EXPECT_EQ(nameAt(table, 0x20000), "after the slab");
  EXPECT_FALSE(table.unregisterBuffer(0x10100));
}

TEST(AllocTable, FreeOfUnknownAddressFails) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x100, "a"));
  uint64_t generation = table.generation();
  EXPECT_FALSE(table.removeAllocation(0x1010)); // inside, but not the start
  EXPECT_FALSE(table.removeAllocation(0x9000));
  EXPECT_EQ(table.generation(), generation);
  EXPECT_EQ(nameAt(table, 0x1000), "a");
}

TEST(AllocTable, FreedAddressReusedWithAnotherSize) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x100, "small"));
  ASSERT_TRUE(table.removeAllocation(0x1000));
  EXPECT_EQ(table.addAllocation(allocation(0x1000, 0x800, "big")), 0u);
  EXPECT_EQ(nameAt(table, 0x1200), "big");
  ASSERT_TRUE(table.removeAllocation(0x1000));
  table.addAllocation(allocation(0x1000, 0x40, "tiny"));
  EXPECT_EQ(nameAt(table, 0x103f), "tiny");
  EXPECT_EQ(nameAt(table, 0x1040), "<none>");
}

TEST(AllocTable, InnermostRegisteredBufferWins) {
  AllocTable table;
  table.addAllocation(allocation(0x10000, 0x10000, "slab"));
  registerOk(table, 0x11000, 0x1000, "tensor");
  registerOk(table, 0x11100, 0x100, "view");
  EXPECT_EQ(nameAt(table, 0x11150), "view");
  EXPECT_EQ(nameAt(table, 0x11200), "tensor");
  EXPECT_EQ(nameAt(table, 0x11fff), "tensor");
  EXPECT_EQ(nameAt(table, 0x12000), "slab");
  EXPECT_EQ(nameAt(table, 0x10fff), "slab");

  // Registered around buffers that already exist.
  registerOk(table, 0x10800, 0x2000, "block");
  EXPECT_EQ(nameAt(table, 0x11150), "view");
  EXPECT_EQ(nameAt(table, 0x11200), "tensor");
  EXPECT_EQ(nameAt(table, 0x12000), "block");
  EXPECT_EQ(nameAt(table, 0x10800), "block");
  EXPECT_EQ(nameAt(table, 0x12800), "slab");

  EXPECT_EQ(table.find(0x11150)->origin, BufferOrigin::Registered);
}

TEST(AllocTable, NestedBuffersSharingTheirStart) {
  AllocTable table;
  registerOk(table, 0x1000, 0x100, "inner");
  registerOk(table, 0x1000, 0x1000, "outer");
  registerOk(table, 0x1000, 0x10, "innermost");
  EXPECT_EQ(nameAt(table, 0x1000), "innermost");
  EXPECT_EQ(nameAt(table, 0x1010), "inner");
  EXPECT_EQ(nameAt(table, 0x1100), "outer");
  EXPECT_EQ(nameAt(table, 0x2000), "<none>");
}

TEST(AllocTable, SameRangeRegisteredTwiceStacks) {
  AllocTable table;
  registerOk(table, 0x1000, 0x100, "tensor");
  registerOk(table, 0x1000, 0x100, "alias");
  EXPECT_EQ(nameAt(table, 0x1080), "alias");
  EXPECT_TRUE(table.unregisterBuffer(0x1000));
  EXPECT_EQ(nameAt(table, 0x1080), "tensor");
  EXPECT_TRUE(table.unregisterBuffer(0x1000));
  EXPECT_EQ(nameAt(table, 0x1080), "<none>");
}

TEST(AllocTable, UnregisterUndoesRegistrationsInReverseOrder) {
  AllocTable table;
  table.addAllocation(allocation(0x10000, 0x1000, "slab"));
  registerOk(table, 0x10000, 0x100, "tensor");
  registerOk(table, 0x10000, 0x800, "bigger, registered later");
  EXPECT_TRUE(table.unregisterBuffer(0x10000));
  EXPECT_EQ(nameAt(table, 0x10400), "slab");
  EXPECT_EQ(nameAt(table, 0x10000), "tensor");
  EXPECT_TRUE(table.unregisterBuffer(0x10000));
  EXPECT_EQ(nameAt(table, 0x10000), "slab");
  EXPECT_FALSE(
      table.unregisterBuffer(0x10000)); // an allocation is not registered
  EXPECT_EQ(nameAt(table, 0x10000), "slab");
}

TEST(AllocTable, UnregisteringAnOuterBufferKeepsInnerOnesFindable) {
  AllocTable table;
  registerOk(table, 0x1000, 0x1000, "outer");
  registerOk(table, 0x1400, 0x400, "middle");
  registerOk(table, 0x1500, 0x10, "inner");
  registerOk(table, 0x1600, 0, "empty");
  ASSERT_TRUE(table.unregisterBuffer(0x1400));
  EXPECT_EQ(nameAt(table, 0x1500), "inner");
  EXPECT_EQ(nameAt(table, 0x1600), "empty");
  EXPECT_EQ(nameAt(table, 0x1601), "outer");
  EXPECT_EQ(nameAt(table, 0x1700), "outer");
  ASSERT_TRUE(table.unregisterBuffer(0x1000));
  EXPECT_EQ(nameAt(table, 0x1500), "inner");
  EXPECT_EQ(nameAt(table, 0x1601), "<none>");
  EXPECT_EQ(nameAt(table, 0x1600), "empty");
}

TEST(AllocTable, PartialOverlapIsRejectedNamingBoth) {
  AllocTable table;
  registerOk(table, 0x1000, 0x100, "a");
  uint64_t generation = table.generation();
  std::string error;
  // Starting inside a and ending past it.
  EXPECT_FALSE(table.registerBuffer(0x1080, 0x100, "b", &error));
  EXPECT_EQ(error, "cannot register buffer 'b' [0x1080, 0x1180): it partially "
                   "overlaps registered buffer 'a' [0x1000, 0x1100)");
  // Starting before a and ending inside it.
  error.clear();
  EXPECT_FALSE(table.registerBuffer(0xf00, 0x180, "c", &error));
  EXPECT_NE(error.find("'c'"), std::string::npos) << error;
  EXPECT_NE(error.find("'a'"), std::string::npos) << error;
  // Around a nested pair, cutting through the outer one.
  registerOk(table, 0x1010, 0x10, "a.inner");
  generation = table.generation();
  EXPECT_FALSE(table.registerBuffer(0x1008, 0x100, "d", nullptr));

  EXPECT_EQ(table.generation(), generation);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(nameAt(table, 0x1090), "a");
  EXPECT_EQ(nameAt(table, 0x1100), "<none>");
}

TEST(AllocTable, TouchingBuffersDoNotOverlap) {
  AllocTable table;
  registerOk(table, 0x1000, 0x100, "a");
  registerOk(table, 0x1100, 0x100, "b");
  registerOk(table, 0xf00, 0x100, "c");
  EXPECT_EQ(nameAt(table, 0x10ff), "a");
  EXPECT_EQ(nameAt(table, 0x1100), "b");
  EXPECT_EQ(nameAt(table, 0xfff), "c");
}

TEST(AllocTable, ZeroByteBufferResolvesOnlyAtItsAddress) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x100, "a"));
  registerOk(table, 0x1040, 0, "empty tensor");
  EXPECT_EQ(nameAt(table, 0x1040), "empty tensor");
  const Buffer *b = table.find(0x1040);
  EXPECT_EQ(b->begin, b->end);
  EXPECT_EQ(nameAt(table, 0x1041), "a");
  EXPECT_EQ(nameAt(table, 0x103f), "a");
}

TEST(AllocTable, InvalidRegistrationsAreRejected) {
  AllocTable table;
  std::string error;
  EXPECT_FALSE(table.registerBuffer(0, 16, "null", &error));
  EXPECT_NE(error.find("null address"), std::string::npos) << error;
  EXPECT_FALSE(table.registerBuffer(UINT64_MAX - 8, 16, "wrap", &error));
  EXPECT_NE(error.find("wraps around"), std::string::npos) << error;
  EXPECT_EQ(table.size(), 0u);
}

TEST(AllocTable, NearestBuffer) {
  AllocTable table;
  EXPECT_EQ(table.nearest(0x1000), nullptr);
  table.addAllocation(allocation(0x1000, 0x100, "a"));
  table.addAllocation(allocation(0x2000, 0x100, "b"));
  EXPECT_EQ(nearestTo(table, 0x10), "a");   // before everything
  EXPECT_EQ(nearestTo(table, 0x1100), "a"); // 0 bytes after a
  EXPECT_EQ(nearestTo(table, 0x1500), "a");
  EXPECT_EQ(nearestTo(table, 0x1f00), "b"); // 0x100 bytes before b
  EXPECT_EQ(nearestTo(table, 0x1880), "a"); // tie: 0x780 either way
  EXPECT_EQ(nearestTo(table, 0x9000), "b"); // after everything
  EXPECT_EQ(nearestTo(table, 0x2010), "b"); // inside
}

TEST(AllocTable, NearestPrefersTheInnermostBufferAtTheEdge) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x1000, "slab"));
  registerOk(table, 0x1f00, 0x100, "last tensor");
  registerOk(table, 0x1000, 0x100, "first tensor");
  registerOk(table, 0x4000, 0x100, "outer");
  registerOk(table, 0x4000, 0x10, "inner");
  EXPECT_EQ(nearestTo(table, 0x2004), "last tensor");
  EXPECT_EQ(nearestTo(table, 0xff0), "first tensor");
  EXPECT_EQ(nearestTo(table, 0x3ff0), "inner");
  EXPECT_EQ(nearestTo(table, 0x4110), "outer");
}

TEST(AllocTable, FlatRangesAreSortedDisjointAndCoverEverything) {
  AllocTable table;
  EXPECT_TRUE(table.flatRanges().empty());
  table.addAllocation(allocation(0x5000, 0x1000, "alloc"));
  registerOk(table, 0x5100, 0x100, "inside the allocation");
  registerOk(table, 0x1000, 0x1000, "outside");
  registerOk(table, 0x1100, 0x100, "nested");
  registerOk(table, 0x2000, 0x100, "touching");
  registerOk(table, 0x3000, 0, "empty");
  // Reaches past the allocation: memory kosan saw allocated only in part.
  registerOk(table, 0x5f00, 0x200, "straddling");
  table.addAllocation(allocation(0x9000, 0x10, "last"));

  EXPECT_EQ(table.flatRanges(), (Ranges{{0x1000, 0x2000},
                                        {0x2000, 0x2100},
                                        {0x5000, 0x6100},
                                        {0x9000, 0x9010}}));
}

TEST(AllocTable, FlatRangesFollowFrees) {
  AllocTable table;
  table.addAllocation(allocation(0x1000, 0x100, "a"));
  table.addAllocation(allocation(0x2000, 0x100, "b"));
  table.removeAllocation(0x1000);
  EXPECT_EQ(table.flatRanges(), (Ranges{{0x2000, 0x2100}}));
}

TEST(AllocTable, GenerationChangesOnEveryModification) {
  AllocTable table;
  std::set<uint64_t> seen = {table.generation()};
  auto changed = [&] { return seen.insert(table.generation()).second; };

  table.addAllocation(allocation(0x1000, 0x100, "a"));
  EXPECT_TRUE(changed());
  registerOk(table, 0x1000, 0x10, "r");
  EXPECT_TRUE(changed());
  EXPECT_TRUE(table.unregisterBuffer(0x1000));
  EXPECT_TRUE(changed());
  EXPECT_TRUE(table.removeAllocation(0x1000));
  EXPECT_TRUE(changed());
  table.addAllocation(allocation(0x1000, 0x100, "a again"));
  EXPECT_TRUE(changed());

  uint64_t before = table.generation();
  EXPECT_FALSE(table.removeAllocation(0x5000));
  EXPECT_FALSE(table.unregisterBuffer(0x1000));
  table.find(0x1000);
  table.flatRanges();
  EXPECT_EQ(table.generation(), before);
}

} // namespace

// kosan_register_tensor: what a tensor holds travels with the buffer into
// the snapshots (name, dtype, shape), for the innermost registration.
TEST(AllocTable, RegisteredTensorKeepsDtypeAndShape) {
  AllocTable table;
  table.addAllocation(allocation(0x10000, 0x10000, "slab"));
  std::string error;
  ASSERT_TRUE(table.registerBuffer(0x10000, 512 * 4, "y", &error, "f32", {16, 32}))
      << error;
  ASSERT_TRUE(table.registerBuffer(0x10000 + 512 * 4, 64, "z", &error)) << error;
  const Buffer *y = table.find(0x10000 + 4);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->name, "y");
  EXPECT_EQ(y->dtype, "f32");
  EXPECT_EQ(y->shape, (std::vector<int64_t>{16, 32}));
  const Buffer *z = table.find(0x10000 + 512 * 4);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->name, "z");
  EXPECT_TRUE(z->dtype.empty());
  EXPECT_TRUE(z->shape.empty());
  // The slab around them has neither.
  const Buffer *slab = table.find(0x18000);
  ASSERT_NE(slab, nullptr);
  EXPECT_EQ(slab->name, "slab");
  EXPECT_TRUE(slab->dtype.empty());
}
