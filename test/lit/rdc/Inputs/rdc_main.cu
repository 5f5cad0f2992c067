// A kernel that calls a device function and reads a __device__ variable,
// both defined in rdc_lib.cu (relocatable device code).
#include <cstdio>

extern __device__ float scale;
extern __device__ float load_past(const float *p, int i);

__global__ void scaled(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = load_past(in, i) * scale;
}

int main() {
  const int n = 256;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  scaled<<<n / 128, 128>>>(in, out, n);
  cudaError_t err = cudaDeviceSynchronize();
  std::printf("done: %s\n", cudaGetErrorString(err));
  cudaFree(in);
  cudaFree(out);
  return err == cudaSuccess ? 0 : 1;
}
