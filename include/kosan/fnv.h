/*===- kosan/fnv.h - FNV-1a 64, once ----------------------------*- C -*-===*
 *
 * The one definition of FNV-1a 64's constants and step, for every hash kosan
 * takes with it: the codes of operations in fingerprints (order.h, host and
 * device), the names of kosan-clang++'s cache entries, and the runtime's
 * word-wise change hash of snapshots. C, so that device code can use it.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KOSAN_FNV_H
#define KOSAN_FNV_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__CUDA__)
#define KOSAN_FNV_FN static inline __host__ __device__
#else
#define KOSAN_FNV_FN static inline
#endif

#define KOSAN_FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define KOSAN_FNV_PRIME 0x100000001b3ull

/* One step: h folded with v (a byte, or a whole word for the word-wise
 * variant). */
KOSAN_FNV_FN uint64_t kosan_fnv1a_step(uint64_t h, uint64_t v) {
  return (h ^ v) * KOSAN_FNV_PRIME;
}

/* FNV-1a 64 of n bytes. */
KOSAN_FNV_FN uint64_t kosan_fnv1a(const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = KOSAN_FNV_OFFSET_BASIS;
  for (size_t i = 0; i < n; ++i)
    h = kosan_fnv1a_step(h, p[i]);
  return h;
}

#endif /* KOSAN_FNV_H */
