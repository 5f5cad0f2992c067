// Shared by the HIP test programs (hip_*.hip): the same sources build for
// NVIDIA GPUs through kosan (kosan-clang++ -x cuda -include
// kosan_hip_nvidia.h) and for AMD GPUs (kosan-hipcc, --offload-arch=gfx90a).
#pragma once
#include <hip/hip_runtime.h>

#include "common.h"

#define CHECK_HIP(call)                                                        \
  do {                                                                         \
    hipError_t e_ = (call);                                                    \
    if (e_ != hipSuccess) {                                                    \
      std::fprintf(stderr, "HIP error %s at %s:%d\n", hipGetErrorString(e_),   \
                   __FILE__, __LINE__);                                        \
      std::exit(3);                                                            \
    }                                                                          \
  } while (0)
