// Square roots whose rounding nvcc's -prec-sqrt decides (libdevice asks
// __nvvm_reflect("__CUDA_PREC_SQRT")), and two that it does not.
#include <cmath>

extern "C" __global__ void root(float *p) { p[threadIdx.x] = sqrtf(p[threadIdx.x]); }
extern "C" __global__ void std_root(float *p) { p[threadIdx.x] = std::sqrt(p[threadIdx.x]); }
extern "C" __global__ void hypot_root(float *p, const float *q) {
  p[threadIdx.x] = hypotf(p[threadIdx.x], q[threadIdx.x]);
}
extern "C" __global__ void root_f64(double *p) { p[threadIdx.x] = sqrt(p[threadIdx.x]); }
extern "C" __global__ void reciprocal_root(float *p) { p[threadIdx.x] = rsqrtf(p[threadIdx.x]); }
