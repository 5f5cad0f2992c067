// A correct kernel: kosan reports nothing and the result matches a plain build.
#include <cstdio>
#include <vector>

__global__ void saxpy(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i % 1000) * 0.001f;
    hy[i] = 1.0f;
  }
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<256, 256>>>(y, x, 2.0f, n);
  cudaError_t err = cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "saxpy: %s\n", cudaGetErrorString(err));
    return 1;
  }
  double sum = 0;
  for (float v : hy)
    sum += v;
  std::printf("saxpy: sum of y = %.6f\n", sum);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
