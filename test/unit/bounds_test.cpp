// The bounds rules the device runtime and the instrumented code apply, and
// the bounds the host passes for each kind of buffer.
#include "kosan/bounds.h"

#include <gtest/gtest.h>

using namespace kosan;

TEST(Bounds, PlainBufferEdges) {
  // A 4000-byte buffer at 0x1000: the last float is at 0x1000 + 3996.
  const uint64_t b = 0x1000, e = 0x1000 + 4000;
  EXPECT_TRUE(inBounds(b, 4, b, e));
  EXPECT_TRUE(inBounds(e - 4, 4, b, e));
  EXPECT_FALSE(inBounds(e, 4, b, e));         // y[n]: 0 bytes after
  EXPECT_FALSE(inBounds(e - 2, 4, b, e));     // straddles the end
  EXPECT_FALSE(inBounds(b - 4, 4, b, e));     // x[-1]: 4 bytes before
  EXPECT_TRUE(inBounds(b, 0, b, e));          // an empty memcpy at the start
  EXPECT_FALSE(inBounds(b, 8, b, b + 4));     // a vector load wider than the buffer
}

TEST(Bounds, UnresolvedArgumentAllowsEverything) {
  kosan_arg_bounds u = unboundedArg();
  EXPECT_TRUE(inBounds(0, 4, u.begin, u.end));
  EXPECT_TRUE(inBounds(0x7fff00000000ull, 16, u.begin, u.end));
}

TEST(Bounds, PlainBufferArgument) {
  kosan_arg_bounds a = bufferArg(0x2000, 0x3000, 0, 0);
  EXPECT_EQ(a.begin, 0x2000u);
  EXPECT_EQ(a.end, 0x3000u);
  EXPECT_EQ(a.pitch, 0u);
}

TEST(Bounds, PitchedBufferCarriesItsShape) {
  // 8 rows of 400 bytes, pitch 512: the inline test covers the allocation,
  // the nonzero pitch sends accesses on to the row check.
  kosan_arg_bounds a = bufferArg(0x10000, 0x10000 + 8 * 512, 512, 400);
  EXPECT_TRUE(inBounds(0x10000, 4, a.begin, a.end));
  EXPECT_FALSE(inBounds(0x10000 + 8 * 512, 4, a.begin, a.end));
  EXPECT_EQ(a.pitch, 512u);
  EXPECT_EQ(a.shape >> 32, 8u);
  EXPECT_EQ(a.shape & 0xffffffffu, 400u);
  EXPECT_EQ(pitchedEnd(a.begin, a.pitch, a.shape), 0x10000u + 8 * 512);
}

TEST(Bounds, PitchedRows) {
  kosan_arg_bounds a = bufferArg(0x10000, 0x10000 + 8 * 512, 512, 400);
  auto ok = [&](uint64_t off, uint64_t size) {
    return inPitchedBounds(a.begin + off, size, a.begin, a.pitch, a.shape);
  };
  EXPECT_TRUE(ok(0, 4));
  EXPECT_TRUE(ok(396, 4));           // last float of row 0
  EXPECT_FALSE(ok(400, 4));          // first byte of row 0's padding
  EXPECT_FALSE(ok(398, 4));          // straddles the row's end
  EXPECT_TRUE(ok(3 * 512, 4));       // start of row 3
  EXPECT_FALSE(ok(3 * 512 + 400, 4)); // padding of row 3
  EXPECT_TRUE(ok(7 * 512 + 396, 4)); // last float of the last row
  EXPECT_FALSE(ok(8 * 512, 4));      // past the last row
  EXPECT_FALSE(inPitchedBounds(a.begin - 4, 4, a.begin, a.pitch, a.shape));
}
