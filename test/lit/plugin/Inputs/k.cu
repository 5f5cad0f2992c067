// Two kernels and a host that allocates, launches, synchronises and frees,
// against the real CUDA headers.
#include <cuda_runtime.h>

__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

__global__ void copy(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

int main() {
  float *d_x;
  cudaMalloc(&d_x, 256 * sizeof(float));
  scale<<<1, 256>>>(d_x, 2.0f, 256);
  cudaDeviceSynchronize();
  cudaFree(d_x);
  return 0;
}
