// Host code that relies on what nvcc's cuda_runtime.h includes (math.h,
// time.h): isfinite() and clock() without their headers, as in llm.c's
// dev/cuda kernels. (nvcc builds do not see printf() without cstdio.)
#include <cstdio>
__global__ void k(float *o) { o[threadIdx.x] = isfinite(o[threadIdx.x]) ? 1.0f : 0.0f; }
template <class T> int count_finite(const T *v, int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i]) && !isnan(v[i]) && !isinf(v[i]))
      c++;
  return c;
}
int main() {
  float f[3] = {1.0f, 1.0f / 0.0f, 0.0f / 0.0f};
  double d[2] = {2.0, -1.0 / 0.0};
  clock_t start = clock();
  int *p = new int(count_finite(f, 3) + count_finite(d, 2));
  std::printf("finite %d %g clock %d\n", *p, fabs(-0.5), start >= 0);
  int r = *p == 2 ? 0 : 1;
  delete p;
  return r;
}
