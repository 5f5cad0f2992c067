// Uninitialized reads (uninit=1): fresh allocations are filled with a NaN
// pattern, and a kernel that reads an element nobody wrote is reported at
// the reading site, naming the buffer and where it was allocated. A buffer
// the program wrote (cudaMemcpy, cudaMemset, a kernel) reports nothing;
// without uninit=1 nothing is filled or reported.
// RUN: env KOSAN_OPTIONS=uninit=1 %gpubin/uninit_read tail 2>&1 | FileCheck %s --check-prefix=TAIL
// RUN: env KOSAN_OPTIONS=uninit=1 %gpubin/uninit_read accumulate 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: env KOSAN_OPTIONS=uninit=1 %gpubin/uninit_read fixed 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: env KOSAN_OPTIONS=uninit=1 %gpubin/uninit_read async 2>&1 | FileCheck %s --check-prefix=TAIL
// RUN: %gpubin/uninit_read tail 2>&1 | FileCheck %s --check-prefix=OFF
// REQUIRES: gpu
#include "common.h"

#include <cstring>

// Copies x into y; only the first `written` elements of x were written.
__global__ void copy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i]; // TAIL: ERROR: kosan: use-of-uninitialized-value: READ of size 4 in kernel 'copy(float const*, float*, int)' at {{.*}}uninit_read.cu:[[@LINE]]
}
// TAIL: address {{0x[0-9a-f]+}} is inside the 4000-byte buffer 'x'
// TAIL: nothing wrote them
// TAIL: 'x' was allocated at {{.*}}uninit_read.cu:
// TAIL: SUMMARY: kosan: use-of-uninitialized-value

// out[i] += x[i] on an output that was never zeroed.
__global__ void accumulate(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += x[i]; // ACC: ERROR: kosan: use-of-uninitialized-value: READ of size 4 in kernel 'accumulate(float const*, float*, int)' at {{.*}}uninit_read.cu:[[@LINE]]
}
// ACC: inside the 4000-byte buffer 'out'
// FIXED-NOT: ERROR: kosan
// FIXED: wrong values: 0
// FIXED: done
// OFF-NOT: ERROR: kosan
// OFF: done

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fixed";
  const int n = 1000;
  bool fixed = !std::strcmp(mode, "fixed");
  std::vector<float> hx(n, 1.0f);
  float *x, *y, *out;
  if (!std::strcmp(mode, "async")) {
    CHECK_CUDA(cudaMallocAsync(&x, n * sizeof(float), 0));
  } else {
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  }
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
  // All of x when fixed; else its first 900 elements.
  CHECK_CUDA(cudaMemcpy(x, hx.data(), (fixed ? n : 900) * sizeof(float), cudaMemcpyHostToDevice));
  if (!std::strcmp(mode, "accumulate")) {
    CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    accumulate<<<(n + 255) / 256, 256>>>(x, out, n);
  } else {
    copy<<<(n + 255) / 256, 256>>>(x, y, n);
    if (fixed) {
      CHECK_CUDA(cudaMemset(out, 0, n * sizeof(float)));
      accumulate<<<(n + 255) / 256, 256>>>(y, out, n);
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  if (fixed) {
    // With uninit=1 every checked load takes its report path, where it
    // reads its value again after the report call: the values must be the
    // ones written.
    std::vector<float> h(n);
    CHECK_CUDA(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (float v : h)
      wrong += v != 1.0f;
    std::printf("wrong values: %d\n", wrong);
  }
  std::printf("done\n");
  return 0;
}
