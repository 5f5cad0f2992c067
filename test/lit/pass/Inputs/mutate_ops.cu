// One small kernel per mutation operator.
__global__ void guard_rel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * 2.0f;
}

__global__ void accumulate(const float *x, float *out, int n) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    sum += x[i];
  out[threadIdx.x] += sum;
}

__global__ void tile_sync(const float *x, float *y) {
  __shared__ float tile[64];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  y[threadIdx.x] = tile[63 - threadIdx.x] / 3.0f;
}

__global__ void warp_exp(const float *x, float *y) {
  float v = expf(x[threadIdx.x]);
  v += __shfl_down_sync(0xffffffffu, v, 16);
  y[threadIdx.x] = fmaf(v, v, 1.0f);
}

__global__ void row_dot(const float *a, const float *b, float *out, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[blockIdx.x * n + k] * b[k];
  out[blockIdx.x] = acc;
}
