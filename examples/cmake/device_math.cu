// Device code that kernel.cu calls across translation units.
__device__ float bias = 1.0f;

// Reads p[i + 1]: past the end for the last element.
__device__ float next_plus_bias(const float *p, int i) {
  return p[i + 1] + bias;
}
