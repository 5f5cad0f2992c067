// A quotient and a square root, whose PTX depends on the code generator's
// options (-mllvm -nvptx-prec-divf32, -nvptx-prec-sqrtf32): a deferred
// clone made PTX at run time must be compiled with the build's.
__global__ void ratio(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = sqrtf(a[i]) / b[i];
}
