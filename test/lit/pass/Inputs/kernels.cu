// Small kernels for the pass tests, compiled without the CUDA headers
// (-nocudainc): the attributes behind __global__ and friends are spelled out.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

static __device__ unsigned tid() { return __nvvm_read_ptx_sreg_tid_x(); }

// Kernel parameters 1 and 2 are the buffers.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = tid();
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// A local pointer variable derived from a parameter: at -O0 both live in
// stack slots that are stored once.
__global__ void offset(int *out, int n) {
  int *p = out + 1;
  p[tid()] = n;
}

// A static shared array (128 floats, 512 bytes) next to a parameter.
__global__ void reverse(float *data) {
  __shared__ float tile[128];
  unsigned t = tid();
  tile[t] = data[t];
  __syncthreads();
  data[t] = tile[127 - t];
}
