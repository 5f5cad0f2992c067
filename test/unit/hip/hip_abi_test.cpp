// kosan builds without HIP's headers (runtime/host/core/hip.h declares what
// it needs of HIP's ABI); compiled against HIP's own headers, this checks
// that every function kosan calls has the signature HIP declares, and that
// kosan's declarations of HIP's types and codes match HIP's.
#include <hip/hip_runtime_api.h>

#include "core/hip_functions.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace {

// Taking the address as a pointer of the listed type picks the declaration
// of exactly that type among HIP's overloads, or fails to compile.
#define KOSAN_SAME_SIGNATURE(name, ret, params)                                          \
  [[maybe_unused]] constexpr ret(*kosan_hip_check_##name) params = &::name;
KOSAN_HIP_DECLARED_FUNCTIONS(KOSAN_SAME_SIGNATURE)
#undef KOSAN_SAME_SIGNATURE
} // namespace

TEST(HipAbi, KosansDeclarationsMatchHipsHeaders) {
  // hip.h: the codes the runtime returns or tests, and the types' layout.
  EXPECT_EQ(int(hipSuccess), 0);
  EXPECT_EQ(int(hipErrorInvalidValue), 1);
  EXPECT_EQ(int(hipErrorOutOfMemory), 2);
  EXPECT_EQ(int(hipMemcpyHostToDevice), 1);
  EXPECT_EQ(int(hipMemcpyDeviceToHost), 2);
  EXPECT_EQ(unsigned(hipHostMallocMapped), 2u);
  EXPECT_EQ(int(hipStreamCaptureStatusNone), 0);
  // Passed to hipFuncSetAttribute as CUDA numbers it.
  EXPECT_EQ(int(hipFuncAttributeMaxDynamicSharedMemorySize), 8);
  EXPECT_EQ(sizeof(hipFuncAttribute), sizeof(int));
  EXPECT_EQ(sizeof(hipFuncCache_t), sizeof(int));
  EXPECT_EQ(sizeof(hipStreamCaptureStatus), sizeof(int));
  EXPECT_EQ(sizeof(hipError_t), sizeof(int));
  EXPECT_EQ(sizeof(hipMemcpyKind), sizeof(int));
  EXPECT_EQ(sizeof(dim3), 3 * sizeof(unsigned));
  EXPECT_TRUE(std::is_pointer_v<hipStream_t>);
  EXPECT_TRUE(std::is_pointer_v<hipEvent_t>);
  EXPECT_TRUE(std::is_pointer_v<hipMemPool_t>);
  EXPECT_TRUE(std::is_pointer_v<hipFunction_t>);
  EXPECT_TRUE(std::is_pointer_v<hipDeviceptr_t>);
}
