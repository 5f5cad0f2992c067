// Kernels whose reduction order the static half of the order check must
// classify (test/lit/pass/order_static.test).

// Row sums by float atomics: the order of arrival decides the bits.
__global__ void rowsum_atomic(const float *x, float *out, int cols) {
  int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols)
    atomicAdd(&out[r], x[r * cols + c]);
}

// A fixed-order per-row sum with a compile-time trip count.
__global__ void rowsum_fixed(const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int c = 0; c < 128; ++c)
    s += x[r * 128 + c];
  out[r] = s;
}

// A warp-shuffle tree.
__global__ void warp_sum(const float *x, float *out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

// A block-wide tree in shared memory whose shape follows blockDim.
__global__ void block_sum(const float *x, float *out) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  buf[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s)
      buf[t] = buf[t] + buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

// Split-K: each block sums a slice of k whose length depends on the
// argument `splits` (and so on the batch, if the caller derives it from M).
__global__ void splitk(const float *a, const float *x, float *partial, int k, int splits) {
  int row = blockIdx.y, part = blockIdx.x;
  int len = k / splits;
  float s = 0.0f;
  for (int i = part * len + threadIdx.x; i < (part + 1) * len; i += blockDim.x)
    s += a[row * k + i] * x[i];
  partial[(row * splits + part) * blockDim.x + threadIdx.x] = s;
}

// A tree picked at run time: the shuffle reaches the add through a select
// (or a phi at -O0).
__global__ void warp_sum_either(const float *x, float *out, int butterfly) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += butterfly ? __shfl_xor_sync(0xffffffffu, v, o) : __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

// The number of partial sums picked by an argument (`lanes`, from the
// batch size in the caller): each loop runs or not by a branch on it.
__global__ void lanes_dot(const float *x, const float *w, float *y, int lanes) {
  float s;
  if (lanes == 4) {
    float a0 = 0.0f, a1 = 0.0f;
    for (int k = 0; k < 256; k += 2) {
      a0 += x[k] * w[k];
      a1 += x[k + 1] * w[k + 1];
    }
    s = a0 + a1;
  } else {
    s = 0.0f;
    for (int k = 0; k < 256; ++k)
      s += x[k] * w[k];
  }
  y[threadIdx.x] = s;
}

// A fixed-order sum behind a bounds guard on the thread's row: the guard
// does not change how a row is summed.
__global__ void rowsum_guarded(const float *x, float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < 128; ++c)
      s += x[r * 128 + c];
    out[r] = s;
  }
}

// A sum over n values: at -O2 the loop is entered under its zero-trip test
// (n > 0), a branch on the same argument as its trip count, named once.
__global__ void sum_n(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += x[i];
  out[threadIdx.x] = s;
}
