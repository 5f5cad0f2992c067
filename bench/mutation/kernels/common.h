// The harness of the mutation kernel set (bench/mutation/README.md): each
// program is `NAME [SEED [OUTPUT]]` (or MUT_SEED / MUT_OUTPUT in the
// environment), draws its inputs from SEED, checks the GPU's result against
// a CPU reference in double with its own tolerance, writes the result's raw
// bytes to OUTPUT, prints one PASS or FAIL line, and exits 0 or 1.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("FAIL: CUDA error '%s' at %s:%d\n", cudaGetErrorString(e_), __FILE__, \
                  __LINE__);                                                           \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

struct Harness {
  unsigned seed = 1;
  const char *output = nullptr;
  uint64_t state;

  Harness(int argc, char **argv) {
    const char *s = argc > 1 ? argv[1] : std::getenv("MUT_SEED");
    if (s)
      seed = (unsigned)std::strtoul(s, nullptr, 10);
    output = argc > 2 ? argv[2] : std::getenv("MUT_OUTPUT");
    state = 0x9e3779b97f4a7c15ull * (seed + 1);
  }
  uint64_t next() { // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * (float)((next() >> 40) * 0x1p-24); }
  std::vector<float> floats(size_t n, float lo = -1, float hi = 1) {
    std::vector<float> v(n);
    for (float &x : v)
      x = uniform(lo, hi);
    return v;
  }
  // A size in [lo, hi]: the seed varies it too, so that no draw is a
  // multiple of a block size by design.
  int size(int lo, int hi) { return lo + (int)(next() % (uint64_t)(hi - lo + 1)); }

  template <class T> void write(const std::vector<T> &v) const {
    if (!output)
      return;
    if (FILE *f = std::fopen(output, "wb")) {
      std::fwrite(v.data(), sizeof(T), v.size(), f);
      std::fclose(f);
    }
  }

  // |got - ref| <= atol + rtol * |ref| everywhere, NaN never.
  template <class T>
  int check(const char *name, const std::vector<T> &got, const std::vector<double> &ref,
            double atol, double rtol) const {
    write(got);
    size_t bad = 0, worst = 0;
    double worstErr = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      double g = (double)got[i];
      double err = std::fabs(g - ref[i]);
      if (!(err <= atol + rtol * std::fabs(ref[i]))) {
        if (bad++ == 0 || err > worstErr || std::isnan(err))
          worst = i, worstErr = std::isnan(err) ? INFINITY : err;
      }
    }
    if (got.size() != ref.size())
      bad += 1;
    if (bad) {
      std::printf("FAIL %s (seed %u): %zu of %zu over tolerance; worst [%zu]: got %.8g ref %.8g\n",
                  name, seed, bad, ref.size(), worst, (double)got[worst], ref[worst]);
      return 1;
    }
    std::printf("PASS %s (seed %u): %zu elements\n", name, seed, ref.size());
    return 0;
  }
};

template <class T> T *toDevice(const std::vector<T> &v) {
  T *d = nullptr;
  CK(cudaMalloc(&d, v.size() * sizeof(T)));
  CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T> T *deviceBuffer(size_t n) {
  T *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemset(d, 0, n * sizeof(T)));
  return d;
}

template <class T> std::vector<T> toHost(const T *d, size_t n) {
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<T> v(n);
  CK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

inline std::vector<float> halfToFloat(const std::vector<__half> &v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    f[i] = __half2float(v[i]);
  return f;
}
