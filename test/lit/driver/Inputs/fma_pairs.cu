// A multiply and the add that uses it, with a checked load between them.
__global__ void axpy(float *out, const float *a, const float *b, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] * b[i] + c[i];
}

__global__ void residual(float *out, const float *a, const float *b, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = c[i] - a[i] * b[i];
}
