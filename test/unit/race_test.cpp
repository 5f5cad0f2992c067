//===- race_test.cpp - The race check's rule, on simulated blocks ----------===//
//
// kosan_race_step (kosan/race.h) is what the device runtime runs for every
// shared access of a race-checked kernel. Here a block is simulated on the
// host: its threads' clocks, one shadow word per granule, accesses in an
// order a GPU could run them in, barriers and __syncwarp() as the device
// runtime applies them.
//
//===----------------------------------------------------------------------===//
#include "kosan/race.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

struct Race {
  uint32_t site, thread, otherSite, otherThread, granule, kinds;
};

struct Block {
  explicit Block(uint32_t threads, uint32_t granules) : clocks(threads, 0), words(granules, 0) {}
  void access(uint32_t t, uint32_t g, bool write, uint32_t site) {
    kosan_race_outcome o = kosan_race_step(words[g], t, clocks[t], site, write);
    if (o.race)
      races.push_back({site, t, o.other_site, o.other_thread, g, o.kinds});
    if (o.store)
      words[g] = o.next;
  }
  void read(uint32_t t, uint32_t g, uint32_t site) { access(t, g, false, site); }
  void write(uint32_t t, uint32_t g, uint32_t site) { access(t, g, true, site); }
  void barrier() {
    for (uint32_t &c : clocks)
      c = kosan_race_after_barrier(c);
  }
  void syncwarp(uint32_t warp) {
    for (uint32_t t = warp * 32; t < warp * 32 + 32 && t < clocks.size(); ++t)
      clocks[t] = kosan_race_after_warp_sync(clocks[t]);
  }
  std::vector<uint32_t> clocks;
  std::vector<uint64_t> words;
  std::vector<Race> races;
};

enum Site : uint32_t { kStore = 1, kLoadOther = 2, kLoadOwn = 3, kStoreSum = 4 };

// sdata[t] = x; [__syncthreads();] for s: if (t < s) sdata[t] += sdata[t + s]; __syncthreads();
// Each step's threads run one after the other, forward or backward;
// without the first barrier, `threadAtATime` runs each thread's store and
// first step before the next thread starts (readers before writers).
Block treeReduction(bool firstBarrier, bool backward, bool threadAtATime = false) {
  const uint32_t n = 256;
  Block b(n, n);
  auto each = [&](auto f) {
    for (uint32_t i = 0; i < n; ++i)
      f(backward ? n - 1 - i : i);
  };
  auto step = [&](uint32_t t, uint32_t s) {
    if (t < s) {
      b.read(t, t + s, kLoadOther);
      b.read(t, t, kLoadOwn);
      b.write(t, t, kStoreSum);
    }
  };
  uint32_t s = n / 2;
  if (threadAtATime) {
    each([&](uint32_t t) {
      b.write(t, t, kStore);
      step(t, s);
    });
    b.barrier();
    s /= 2;
  } else {
    each([&](uint32_t t) { b.write(t, t, kStore); });
    if (firstBarrier)
      b.barrier();
  }
  for (; s > 0; s /= 2) {
    each([&](uint32_t t) { step(t, s); });
    b.barrier();
  }
  return b;
}

TEST(RaceRule, TreeReductionWithBarriersIsSilent) {
  EXPECT_TRUE(treeReduction(true, false).races.empty());
  EXPECT_TRUE(treeReduction(true, true).races.empty());
}

TEST(RaceRule, MissingBarrierIsReportedWithBothSitesAndThreads) {
  // Writers first: each of threads 0-127 reads what thread t + 128 wrote.
  Block forward = treeReduction(false, false);
  ASSERT_EQ(forward.races.size(), 128u);
  const Race &r = forward.races[5];
  EXPECT_EQ(r.site, kLoadOther);
  EXPECT_EQ(r.thread, 5u);
  EXPECT_EQ(r.otherSite, kStore);
  EXPECT_EQ(r.otherThread, 133u);
  EXPECT_EQ(r.granule, 133u);
  EXPECT_EQ(r.kinds, 2u); // a read after a write
  // Readers first: the store of thread t + 128 finds thread t's read.
  Block readersFirst = treeReduction(false, false, true);
  ASSERT_EQ(readersFirst.races.size(), 128u);
  const Race &w = readersFirst.races[5];
  EXPECT_EQ(w.site, kStore);
  EXPECT_EQ(w.thread, 133u);
  EXPECT_EQ(w.otherSite, kLoadOther);
  EXPECT_EQ(w.otherThread, 5u);
  EXPECT_EQ(w.kinds, 1u); // a write after a read
  EXPECT_EQ(treeReduction(false, true).races.size(), 128u);
}

// The last warp's reduction: v = s[t]; for off: v += s[t + off]; [__syncwarp();]
// s[t] = v; [__syncwarp();], the warp in lockstep (every lane's read, then
// every lane's write).
Block warpReduction(bool syncwarp) {
  Block b(64, 64);
  for (uint32_t t = 0; t < 64; ++t)
    b.write(t, t, kStore);
  b.barrier();
  for (uint32_t t = 0; t < 32; ++t)
    b.read(t, t, kLoadOwn);
  for (uint32_t off = 16; off > 0; off /= 2) {
    for (uint32_t t = 0; t < 32; ++t)
      b.read(t, t + off, kLoadOther);
    if (syncwarp)
      b.syncwarp(0);
    for (uint32_t t = 0; t < 32; ++t)
      b.write(t, t, kStoreSum);
    if (syncwarp)
      b.syncwarp(0);
  }
  return b;
}

TEST(RaceRule, WarpOrderedBySyncwarpIsSilent) {
  EXPECT_TRUE(warpReduction(true).races.empty());
}

TEST(RaceRule, WarpSynchronousWithoutSyncwarpIsARace) {
  Block b = warpReduction(false);
  ASSERT_FALSE(b.races.empty());
  EXPECT_EQ(b.races[0].site, kStoreSum);
  EXPECT_EQ(b.races[0].kinds & 1u, 1u);
}

TEST(RaceRule, SyncwarpDoesNotOrderOtherWarps) {
  Block b(64, 4);
  b.write(40, 0, kStore);  // warp 1
  b.syncwarp(0);
  b.syncwarp(1);
  b.read(3, 0, kLoadOther); // warp 0: no block barrier between them
  ASSERT_EQ(b.races.size(), 1u);
  EXPECT_EQ(b.races[0].otherThread, 40u);
}

TEST(RaceRule, BroadcastReadsAndOwnAccessesAreNotRaces) {
  Block b(128, 4);
  b.write(0, 0, kStore);
  b.barrier();
  for (uint32_t t = 0; t < 128; ++t)
    b.read(t, 0, kLoadOther); // every thread reads what thread 0 wrote
  EXPECT_TRUE(b.races.empty());
  // A thread rewriting what it wrote or read itself is no race; two
  // threads writing one granule in one interval are.
  b.write(7, 1, kStore);
  b.read(7, 1, kLoadOwn);
  b.write(7, 1, kStoreSum);
  EXPECT_TRUE(b.races.empty());
  b.write(2, 2, kStore);
  b.write(3, 2, kStore);
  ASSERT_EQ(b.races.size(), 1u);
  EXPECT_EQ(b.races[0].otherThread, 2u);
  EXPECT_EQ(b.races[0].kinds, 3u); // a write after a write
}

TEST(RaceRule, WriteAfterSeveralReadersOfWhichItIsOne) {
  Block b(64, 1);
  b.read(5, 0, kLoadOther);
  b.read(40, 0, kLoadOther);
  b.write(5, 0, kStoreSum); // thread 40's read is unordered with it
  ASSERT_EQ(b.races.size(), 1u);
  EXPECT_EQ(b.races[0].otherThread, KOSAN_RACE_THREAD_UNKNOWN);
  EXPECT_EQ(b.races[0].kinds, 1u);
}

// A tiled loop: write the tile, barrier, read other threads' elements,
// barrier. Without the second barrier the next iteration's writes race
// with the last reads.
Block tiledLoop(bool secondBarrier) {
  const uint32_t n = 64;
  Block b(n, n);
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (uint32_t t = 0; t < n; ++t)
      b.write(t, t, kStore);
    b.barrier();
    for (uint32_t t = 0; t < n; ++t)
      for (uint32_t k = 0; k < 8; ++k)
        b.read(t, (t / 8) * 8 + k, kLoadOther);
    if (secondBarrier)
      b.barrier();
  }
  return b;
}

TEST(RaceRule, TiledLoopNeedsBothBarriers) {
  EXPECT_TRUE(tiledLoop(true).races.empty());
  Block racy = tiledLoop(false);
  ASSERT_FALSE(racy.races.empty());
  EXPECT_EQ(racy.races[0].site, kStore);
  EXPECT_EQ(racy.races[0].otherSite, kLoadOther);
}

TEST(RaceRule, ShadowWordKeepsSiteThreadAndKind) {
  uint64_t w = kosan_race_word(kosan_race_after_barrier(0), 0, 1023, KOSAN_RACE_KIND_WRITE, 77);
  EXPECT_EQ((w >> 32) & 0x3ff, 1023u);
  EXPECT_EQ((w >> 42) & 3, uint64_t(KOSAN_RACE_KIND_WRITE));
  EXPECT_EQ(w >> 44, 77u);
  EXPECT_EQ(w & 0xffff, 1u);
  // Sites past 20 bits are kept as unknown.
  EXPECT_EQ(kosan_race_word(0, 0, 0, KOSAN_RACE_KIND_READ, 1u << 21) >> 44,
            uint64_t(KOSAN_RACE_SITE_UNKNOWN));
}

} // namespace
