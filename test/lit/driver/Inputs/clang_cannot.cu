// CUDA that nvcc accepts and clang 19 rejects; SPELLING selects one.
struct Counter {
  __device__ Counter() : n(0) {}
  int n;
};

__global__ void k(float *out) {
#if SPELLING == 1
  __shared__ alignas(16) float tile[32];
  tile[threadIdx.x] = 1.0f;
  out[threadIdx.x] = tile[threadIdx.x];
#elif SPELLING == 2
  __shared__ Counter c;
  out[threadIdx.x] = float(c.n);
#else
  out[threadIdx.x] = 1.0f;
#endif
}

void launch(float *out) {
#if SPELLING == 3
  k<< <1, 32>> >(out);
#else
  k<<<1, 32>>>(out);
#endif
}
