// Inclusive prefix sum: Hillis-Steele in shared memory per block, block
// totals scanned by a second launch, then added back.
#include "common.h"

#define B 256

__global__ void scan_block(const int *x, int *y, int *totals, int n) {
  __shared__ int buf[2][B];
  int i = blockIdx.x * B + threadIdx.x;
  int in = 0, out = 1;
  buf[in][threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int off = 1; off < B; off <<= 1) {
    int v = buf[in][threadIdx.x];
    if (threadIdx.x >= off)
      v += buf[in][threadIdx.x - off];
    buf[out][threadIdx.x] = v;
    __syncthreads();
    in = 1 - in;
    out = 1 - out;
  }
  if (i < n)
    y[i] = buf[in][threadIdx.x];
  if (threadIdx.x == B - 1)
    totals[blockIdx.x] = buf[in][threadIdx.x];
}

__global__ void add_offsets(int *y, const int *totals, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i >= n)
    return;
  int offset = 0;
  for (int b = 0; b < blockIdx.x; ++b)
    offset += totals[b];
  y[i] += offset;
}

int main(int argc, char **argv) {
  Harness h(argc, argv);
  int n = h.size(30000, 50000);
  std::vector<int> x(n);
  for (int &v : x)
    v = (int)(h.next() % 21) - 10;
  int blocks = (n + B - 1) / B;
  int *dx = toDevice(x), *dy = deviceBuffer<int>(n), *dt = deviceBuffer<int>(blocks);
  scan_block<<<blocks, B>>>(dx, dy, dt, n);
  add_offsets<<<blocks, B>>>(dy, dt, n);
  auto y = toHost(dy, n);
  std::vector<double> ref(n);
  long long s = 0;
  for (int i = 0; i < n; ++i)
    ref[i] = (double)(s += x[i]);
  return h.check("scan", y, ref, 0, 0);
}
