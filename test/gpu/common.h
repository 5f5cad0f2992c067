// Shared by the GPU test programs: checked CUDA calls and a checksum of
// results printed to stdout, so that instrumented and plain builds can be
// compared bit for bit.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), \
                   __FILE__, __LINE__);                                        \
      std::exit(3);                                                            \
    }                                                                          \
  } while (0)

template <typename T> void printChecksum(const char *label, const std::vector<T> &v) {
  uint64_t h = 1469598103934665603ull;
  for (const T &x : v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    for (unsigned char c : b)
      h = (h ^ c) * 1099511628211ull;
  }
  std::printf("%s checksum %016llx over %zu elements\n", label, (unsigned long long)h, v.size());
}

// Inputs the same on every run and machine: a linear congruential
// generator, 24 bits at a time.
struct Lcg {
  uint32_t state;
  uint32_t bits24() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  float uniform() { return float(bits24()) / 16777216.0f; } // [0, 1)
};

inline bool isBug(int argc, char **argv) { return argc > 1 && std::strcmp(argv[1], "bug") == 0; }
