// An off-by-one bound: the last thread writes one element past y. The plain
// build runs "fine" (the write lands in padding of the allocation); kosan
// reports it and drops the write.
#include <cstdio>
#include <vector>

__global__ void scale(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    y[i] = 2.0f * x[i];
}

int main() {
  const int n = 1000;
  std::vector<float> hx(n, 1.5f), hy(n);
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(y, x, n);
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("scale: y[0] = %.1f, y[%d] = %.1f\n", hy[0], n - 1, hy[n - 1]);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
