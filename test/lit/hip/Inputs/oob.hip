// Out-of-bounds accesses in each address space of an AMD GPU: global (a
// kernel argument), LDS (a __shared__ tile) and private (a local array),
// and a pointer loaded from memory, which only the runtime's table knows.
#include <hip/hip_runtime.h>

__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) // one past the end
    x[i] = a * x[i];
}

__global__ void tile(const float *in, float *out, int shift) {
  __shared__ float t[64];
  float priv[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = in[i];
  __syncthreads();
  for (int k = 0; k < 8; ++k)
    priv[k] = t[threadIdx.x + shift + k];
  out[i] = priv[shift & 15];
}

__global__ void gather(float **rows, float *out, int col) {
  out[threadIdx.x] = rows[blockIdx.x][col + threadIdx.x];
}

int main() {
  float *x;
  hipMalloc(&x, 256 * sizeof(float));
  scale<<<1, 256>>>(x, 256, 2.0f);
  hipDeviceSynchronize();
  hipFree(x);
  return 0;
}
