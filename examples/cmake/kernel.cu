#include <cstdio>

extern __device__ float next_plus_bias(const float *p, int i);

__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = next_plus_bias(in, i);
}

int main() {
  const int n = 512;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  shift<<<n / 128, 128>>>(in, out, n);
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("separable: %s\n", cudaGetErrorString(err));
  cudaFree(in);
  cudaFree(out);
  return err == cudaSuccess ? 0 : 1;
}
