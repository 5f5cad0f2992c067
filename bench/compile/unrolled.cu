// A 4096-iteration loop unrolled 512 times: 512 loads of one kernel
// argument at constant distances per iteration of the unrolled loop, and a
// shared tile read back the same way. Plain builds take about a second;
// bench/compile_time.sh measures what the checks add.
#include <cstdio>

constexpr int kSteps = 4096;
constexpr int kTile = 256;

__global__ void __launch_bounds__(kTile) unrolledSum(const float *in, float *out, int n) {
  __shared__ float tile[kTile];
  int t = threadIdx.x;
  float acc = 0.0f;
#pragma unroll 512
  for (int i = 0; i < kSteps; ++i)
    acc += in[blockIdx.x * kSteps + i] * float(t + 1);
  tile[t] = acc;
  __syncthreads();
#pragma unroll 512
  for (int i = 0; i < kSteps; ++i)
    acc += tile[(t + i) % kTile];
  if (blockIdx.x * kTile + t < n)
    out[blockIdx.x * kTile + t] = acc;
}

int main() {
  const int blocks = 4, n = blocks * kTile;
  float *in, *out;
  cudaMalloc(&in, sizeof(float) * blocks * kSteps);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMemset(in, 0, sizeof(float) * blocks * kSteps);
  unrolledSum<<<blocks, kTile>>>(in, out, n);
  float first = -1.0f;
  cudaMemcpy(&first, out, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("out[0] = %g\n", first);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
