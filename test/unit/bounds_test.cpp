// The bounds the host runtime passes for each kind of argument (the checks
// the instrumented code makes with them: test/lit/pass/kernel_arg.ll and
// the GPU tests).
#include "kosan/bounds.h"

#include <gtest/gtest.h>

using namespace kosan;

TEST(Bounds, UnresolvedArgumentIsUnbounded) {
  kosan_arg_bounds u = unboundedArg();
  EXPECT_EQ(u.begin, 0u);
  EXPECT_EQ(u.end, ~0ull);
  EXPECT_EQ(u.pitch, 0u);
  EXPECT_EQ(u.shape, 0u);
}

TEST(Bounds, PlainBufferArgument) {
  kosan_arg_bounds a = bufferArg(0x2000, 0x3000, 0, 0);
  EXPECT_EQ(a.begin, 0x2000u);
  EXPECT_EQ(a.end, 0x3000u);
  EXPECT_EQ(a.pitch, 0u);
  EXPECT_EQ(a.shape, 0u);
}

TEST(Bounds, PitchedBufferCarriesItsShape) {
  // 8 rows of 400 bytes, pitch 512: the inline test covers the allocation,
  // the nonzero pitch sends accesses on to the row check.
  kosan_arg_bounds a = bufferArg(0x10000, 0x10000 + 8 * 512, 512, 400);
  EXPECT_EQ(a.begin, 0x10000u);
  EXPECT_EQ(a.end, 0x10000u + 8 * 512);
  EXPECT_EQ(a.pitch, 512u);
  EXPECT_EQ(a.shape >> 32, 8u);
  EXPECT_EQ(a.shape & 0xffffffffu, 400u);
}

TEST(Bounds, AnAccessNeedsItsSizeRoundedDownToAPowerOfTwoAtMost16) {
  // The pass tests this (or what the IR promises, if less); the report
  // calls an access below it misaligned and names the same number.
  EXPECT_EQ(accessAlignment(1), 1u);
  EXPECT_EQ(accessAlignment(2), 2u);
  EXPECT_EQ(accessAlignment(3), 2u);
  EXPECT_EQ(accessAlignment(4), 4u);
  EXPECT_EQ(accessAlignment(12), 8u);
  EXPECT_EQ(accessAlignment(16), 16u);
  EXPECT_EQ(accessAlignment(32), 16u);
  EXPECT_EQ(accessAlignment(4096), 16u);
}
