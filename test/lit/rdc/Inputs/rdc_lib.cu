// Device code that other translation units call: the last thread reads one
// element past the buffer.
__device__ float scale = 2.0f;

__device__ float load_past(const float *p, int i) {
  return p[i + 1];
}
