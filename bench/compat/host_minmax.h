// Force-included (-include) by bench/build_public.sh into the cuda-samples it
// builds with kosan-clang++. Not part of kosan.
//
// nvcc declares the integer/floating min() and max() of crt/math_functions.hpp
// __host__ __device__, and several cuda-samples call them from host code.
// clang's CUDA wrapper headers make those overloads __device__ only, so such
// host calls fail with "no matching function for call to 'min'". These host
// overloads restore nvcc's behaviour for host code; device code keeps clang's.
#pragma once
#if defined(__clang__) && defined(__CUDA__)
#define KOSAN_BENCH_MINMAX(T)                                                  \
  static inline __host__ T min(T a, T b) { return b < a ? b : a; }            \
  static inline __host__ T max(T a, T b) { return a < b ? b : a; }
KOSAN_BENCH_MINMAX(int)
KOSAN_BENCH_MINMAX(unsigned int)
KOSAN_BENCH_MINMAX(long)
KOSAN_BENCH_MINMAX(unsigned long)
KOSAN_BENCH_MINMAX(long long)
KOSAN_BENCH_MINMAX(unsigned long long)
KOSAN_BENCH_MINMAX(float)
KOSAN_BENCH_MINMAX(double)
#undef KOSAN_BENCH_MINMAX
#endif
