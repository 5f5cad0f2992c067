// Half and bf16 arithmetic as people write it, with the real cuda_fp16.h and
// cuda_bf16.h: clang compiles these to inline PTX on i16/i32 registers.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void k(const float *x, __half *y, __nv_bfloat16 *z, float *w, __half2 *v, int n) {
  int i = threadIdx.x;
  __half a = __float2half(x[i]);
  __half b = __hadd(a, __float2half(1.0f));
  b = __hmul(b, a);
  b = __hfma(a, b, b);
  y[i] = hexp(b);
  __nv_bfloat16 c = __float2bfloat16(x[i]);
  c = __hadd(c, c);
  z[i] = c;
  w[i] = __half2float(b) + __bfloat162float(c) + __expf(x[i]) + __fdividef(x[i], 3.0f) +
         rsqrtf(x[i]);
  __half2 h2 = __halves2half2(a, b);
  v[i] = __hmul2(h2, h2);
}

// An fp16 accumulator carried around a loop: a phi of i16 registers.
__global__ void dot(const __half *a, const __half *b, float *out, int n) {
  __half acc = __float2half(0.0f);
  for (int i = 0; i < n; ++i)
    acc = __hfma(a[i], b[i], acc);
  *out = __half2float(acc);
}
