// Device code of oob_rdc.cu's program, in a translation unit of its own
// (relocatable device code): the caller's kernel is in oob_rdc.cu.
__device__ float rdc_bias = 1.0f;

// x[i + 1] when `bug`: one element past x for the last i.
__device__ float rdc_next(const float *x, int i, int n, bool bug) {
  int j = bug ? i + 1 : (i + 1 < n ? i + 1 : i);
  return x[j] + rdc_bias;
}
