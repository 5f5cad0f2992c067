// What snapshot=1 costs per launch: the same launches timed with and
// without it, side by side in one process run each (run.sh). Each launch is
// followed by cudaDeviceSynchronize, so a launch's own time is kernel time
// plus launch overhead, and with snapshot=1 also the copy of its output to
// the host, its compression and the trace write.
//
//   snapshot_cost KIND ELEMENTS LAUNCHES
//     KIND: out   y[i] = 2 x[i] + 1     (y written only: poisonable)
//           inout y[i] = y[i] * 0.5 + x[i] (y read and written: hashed before)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void write_only(const float *x, float *y, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    y[i] = 2.0f * x[i] + 1.0f;
}

__global__ void read_write(const float *x, float *y, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n;
       i += long(gridDim.x) * blockDim.x)
    y[i] = y[i] * 0.5f + x[i];
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: snapshot_cost out|inout ELEMENTS LAUNCHES\n");
    return 2;
  }
  bool inout = !std::strcmp(argv[1], "inout");
  long n = std::atol(argv[2]);
  int launches = std::atoi(argv[3]);
  float *x, *y;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&y, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  // Data a real output resembles (not constants, which compress to nothing).
  std::vector<float> h(n);
  unsigned s = 12345;
  for (long i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    h[i] = float(s >> 8) / float(1 << 24);
  }
  cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), n * 4, cudaMemcpyHostToDevice);
  auto launch = [&] {
    if (inout)
      read_write<<<1024, 256>>>(x, y, n);
    else
      write_only<<<1024, 256>>>(x, y, n);
    cudaDeviceSynchronize();
  };
  launch(); // warm-up: module load, first-launch work
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i)
    launch();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t0).count() / launches;
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%s %ld %.4f\n", argv[1], n, ms);
  return 0;
}
