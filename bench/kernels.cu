// Kernel-level cost of instrumentation: typical kernels (memory-bound
// streaming, shared-memory tiling, reductions with shuffles, atomics,
// indirect gathers), each timed with CUDA events over many launches after a
// warm-up, so that one-time costs (module loading, kosan resolving a kernel
// at its first launch) stay out. Built twice, plain and instrumented, by
// bench/build_kernels.sh; bench/kernel_bench.py runs both and prints ratios.
//
// Output, one line per kernel: "<name> <median ms> <checksum>".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA error %s at line %d\n",                      \
                   cudaGetErrorString(e_), __LINE__);                          \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

__global__ void saxpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

constexpr int TILE = 32;
__global__ void matmul(float *c, const float *a, const float *b, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void reduce_sum(float *out, const float *in, int n) {
  __shared__ float warpSums[32];
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0)
    warpSums[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1)
      s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0)
      out[blockIdx.x] = s;
  }
}

__global__ void histogram(unsigned *bins, const unsigned char *data, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    atomicAdd(&bins[i], local[i]);
}

constexpr int RADIUS = 3;
__global__ void stencil(float *out, const float *in, int n) {
  extern __shared__ float halo[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  halo[l] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {
    halo[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0;
    halo[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0;
  }
  __syncthreads();
  if (g < n) {
    float s = 0;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k)
      s += halo[l + k];
    out[g] = s / (2 * RADIUS + 1);
  }
}

// One warp per row.
__global__ void softmax(float *out, const float *in, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (row >= rows)
    return;
  const float *r = in + (size_t)row * cols;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32)
    m = fmaxf(m, r[c]);
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0;
  for (int c = lane; c < cols; c += 32)
    s += __expf(r[c] - m);
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  for (int c = lane; c < cols; c += 32)
    out[(size_t)row * cols + c] = __expf(r[c] - m) / s;
}

__global__ void gather(float *y, const float *x, const int *idx, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[idx[i]];
}

template <typename F> float timeMs(F launch, int reps) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i)
    launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <typename T> double checksum(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  double s = 0;
  for (size_t i = 0; i < n; ++i)
    s += double(h[i]) * double((i % 7) + 1);
  return s;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  const int n = 1 << 26, m = 2048, rows = 16384, cols = 1024;
  std::vector<float> hf(n);
  std::vector<int> hi(n);
  std::vector<unsigned char> hb(n);
  unsigned seed = 12345;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    hf[i] = float(seed >> 8) / float(1 << 24) - 0.5f;
    hi[i] = int(seed % unsigned(n));
    hb[i] = (unsigned char)(seed >> 24);
  }
  float *x, *y, *z, *r;
  int *idx;
  unsigned char *bytes;
  unsigned *bins;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&z, n * sizeof(float)));
  CHECK(cudaMalloc(&r, 4096 * sizeof(float)));
  CHECK(cudaMalloc(&idx, n * sizeof(int)));
  CHECK(cudaMalloc(&bytes, n));
  CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned)));
  CHECK(cudaMemcpy(x, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(idx, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(bytes, hb.data(), n, cudaMemcpyHostToDevice));

  float ms;
  ms = timeMs([&] { saxpy<<<1056, 256>>>(y, x, 1.0001f, n); }, reps);
  std::printf("saxpy %.5f %.6e\n", ms, checksum(y, 1 << 20));
  ms = timeMs([&] { matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(z, x, y, m); }, reps / 5 + 1);
  std::printf("matmul %.5f %.6e\n", ms, checksum(z, 1 << 20));
  ms = timeMs([&] { transpose<<<dim3(8192 / TILE, 8192 / TILE), dim3(TILE, 8)>>>(z, x, 8192); }, reps);
  std::printf("transpose %.5f %.6e\n", ms, checksum(z, 1 << 20));
  ms = timeMs([&] { reduce_sum<<<4096, 256>>>(r, x, n); }, reps);
  std::printf("reduce_sum %.5f %.6e\n", ms, checksum(r, 4096));
  ms = timeMs([&] {
    CHECK(cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned)));
    histogram<<<1056, 256>>>(bins, bytes, n);
  }, reps);
  std::printf("histogram %.5f %.6e\n", ms, checksum(bins, 256));
  ms = timeMs([&] { stencil<<<n / 256, 256, (256 + 2 * RADIUS) * sizeof(float)>>>(z, x, n); }, reps);
  std::printf("stencil %.5f %.6e\n", ms, checksum(z, 1 << 20));
  ms = timeMs([&] { softmax<<<rows / 8, 256>>>(z, x, rows, cols); }, reps);
  std::printf("softmax %.5f %.6e\n", ms, checksum(z, 1 << 20));
  ms = timeMs([&] { gather<<<1056, 256>>>(z, x, idx, n); }, reps);
  std::printf("gather %.5f %.6e\n", ms, checksum(z, 1 << 20));
  return 0;
}
