// The quarantine of freed buffers (runtime/host/core/quarantine.h): what a
// use-after-free report can name, and which memory the runtime must really
// free when.
#include "core/quarantine.h"

#include <gtest/gtest.h>

using kosan::rt::Buffer;
using kosan::rt::FreedBuffer;
using kosan::rt::Quarantine;

namespace {

FreedBuffer freed(uint64_t begin, uint64_t bytes, bool held, std::string at = "") {
  FreedBuffer f;
  f.buffer.begin = begin;
  f.buffer.end = begin + bytes;
  f.buffer.name = "b" + std::to_string(begin);
  f.freed_at = std::move(at);
  f.held = held;
  return f;
}

std::vector<uint64_t> begins(const std::vector<FreedBuffer> &v) {
  std::vector<uint64_t> out;
  for (const FreedBuffer &f : v)
    out.push_back(f.buffer.begin);
  return out;
}

} // namespace

TEST(Quarantine, FindsTheFreedBufferContainingAnAddress) {
  Quarantine q(1 << 20);
  EXPECT_TRUE(q.add(freed(0x1000, 0x100, true, "a.cu:9")).empty());
  const FreedBuffer *f = q.find(0x10ff);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->buffer.name, "b4096");
  EXPECT_EQ(f->freed_at, "a.cu:9");
  EXPECT_TRUE(f->held);
  EXPECT_EQ(q.find(0x1100), nullptr);
  EXPECT_EQ(q.find(0xfff), nullptr);
  EXPECT_EQ(q.heldBytes(), 0x100u);
}

TEST(Quarantine, ReleasesOldestHeldMemoryPastItsCapacity) {
  Quarantine q(0x300);
  EXPECT_TRUE(q.add(freed(0x1000, 0x100, true)).empty());
  EXPECT_TRUE(q.add(freed(0x2000, 0x100, true)).empty());
  EXPECT_TRUE(q.add(freed(0x3000, 0x100, true)).empty());
  // The fourth pushes the first out: it must be freed now...
  EXPECT_EQ(begins(q.add(freed(0x4000, 0x100, true))), std::vector<uint64_t>{0x1000});
  EXPECT_EQ(q.heldBytes(), 0x300u);
  // ...but a pointer into it is still a use after free.
  ASSERT_NE(q.find(0x1000), nullptr);
  EXPECT_FALSE(q.find(0x1000)->held);
  EXPECT_TRUE(q.find(0x4000)->held);
}

TEST(Quarantine, ABufferBiggerThanTheQuarantineIsFreedAtOnce) {
  Quarantine q(0x100);
  EXPECT_EQ(begins(q.add(freed(0x1000, 0x200, true))), std::vector<uint64_t>{0x1000});
  EXPECT_EQ(q.heldBytes(), 0u);
  ASSERT_NE(q.find(0x1010), nullptr);
  EXPECT_FALSE(q.find(0x1010)->held);
}

TEST(Quarantine, CapacityZeroHoldsNothingButRemembers) {
  Quarantine q(0);
  EXPECT_EQ(begins(q.add(freed(0x1000, 0x10, true))), std::vector<uint64_t>{0x1000});
  EXPECT_NE(q.find(0x1000), nullptr);
}

TEST(Quarantine, ReuseForgetsWhatWasFreedThere) {
  Quarantine q(1 << 20);
  q.add(freed(0x1000, 0x100, false));
  q.add(freed(0x2000, 0x100, false));
  q.reused(0x1080, 0x2010); // overlaps both
  EXPECT_EQ(q.find(0x1000), nullptr);
  EXPECT_EQ(q.find(0x2050), nullptr);
  EXPECT_EQ(q.records(), 0u);
}

TEST(Quarantine, AnEmptyReuseStillClaimsItsAddress) {
  // A zero-byte allocation handed out at a freed buffer's address.
  Quarantine q(1 << 20);
  q.add(freed(0x1000, 0x100, false));
  q.add(freed(0x2000, 0x100, false));
  q.reused(0x1000, 0x1000);
  EXPECT_EQ(q.find(0x1000), nullptr);
  EXPECT_NE(q.find(0x2000), nullptr);
}

TEST(Quarantine, ANewerRecordReplacesTheOlderOneItCovers) {
  Quarantine q(1 << 20);
  q.add(freed(0x1000, 0x100, false, "old"));
  q.add(freed(0x1000, 0x40, false, "new"));
  ASSERT_NE(q.find(0x1000), nullptr);
  EXPECT_EQ(q.find(0x1000)->freed_at, "new");
  EXPECT_EQ(q.find(0x1080), nullptr);
}

TEST(Quarantine, RecordsAreBoundedOldestFirstAndHeldOnesAreReleased) {
  Quarantine q(1 << 20, /*maxRecords=*/2);
  q.add(freed(0x1000, 0x10, true));
  q.add(freed(0x2000, 0x10, false));
  EXPECT_EQ(begins(q.add(freed(0x3000, 0x10, false))), std::vector<uint64_t>{0x1000});
  EXPECT_EQ(q.records(), 2u);
  EXPECT_EQ(q.find(0x1000), nullptr);
  EXPECT_EQ(q.heldBytes(), 0u);
}

TEST(Quarantine, ReleaseAllEmptiesTheQuarantineAndKeepsTheRecords) {
  Quarantine q(1 << 20);
  q.add(freed(0x1000, 0x10, true));
  q.add(freed(0x2000, 0x10, false));
  q.add(freed(0x3000, 0x10, true));
  EXPECT_EQ(begins(q.releaseAll()), (std::vector<uint64_t>{0x1000, 0x3000}));
  EXPECT_EQ(q.heldBytes(), 0u);
  EXPECT_NE(q.find(0x3000), nullptr);
  // Nothing held is released twice.
  EXPECT_TRUE(q.add(freed(0x4000, 0x10, true)).empty());
  EXPECT_TRUE(q.releaseAll().size() == 1);
}

TEST(Quarantine, ManyReplacementsKeepItsQueuesBounded) {
  Quarantine q(0x1000);
  for (int i = 0; i < 100000; ++i)
    q.add(freed(0x1000, 0x10, true)); // the same address, freed again and again
  EXPECT_EQ(q.records(), 1u);
  EXPECT_EQ(q.heldBytes(), 0x10u);
}
