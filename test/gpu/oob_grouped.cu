// Accesses at constant distances are checked once per group, at the first
// of them; a bad group is reported as its first member in program order that
// is out of bounds, with that member's line, address and buffer, as a check
// of its own would have. Accesses proven in bounds are not checked, and
// what cannot be proven still is. (test/lit/pass/groups_cuda.test: what the
// compiler made of these kernels.)
//
// window: eight loads of x around x + 4t, one group; with 'bug' x is 3
// floats short, so the last thread's x[4t + 5..7] are past its end: the
// first of them in program order is x[4t + 6], 4 bytes after the buffer.
// smooth (__launch_bounds__(256)): tile[t] and, under t < 255, tile[t + 1]
// are proven in bounds; tile[t - 1] is checked, and with 'bug' thread 0
// reads tile[-1], 4 bytes before the 1024-byte tile.
// RUN: %gpubin/oob_grouped bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: %gpubin/oob_grouped fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// Correct programs compute bit for bit what the plain build does:
// RUN: %gpubin/oob_grouped.plain fixed > %t.plain; diff %t.fixed %t.plain
// halt_on_error stops at the same first bad access:
// RUN: env KOSAN_OPTIONS=halt_on_error=1 not %gpubin/oob_grouped bug 2>&1 | FileCheck --check-prefix=HALT %s
// REQUIRES: gpu
#include "common.h"

__global__ void window(float *y, const float *x, int threads) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads)
    return;
  const float *w = x + 4 * t;
  float s = w[0];
  s += 2.0f * w[6]; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'window(float*, float const*, int)' at {{.*}}oob_grouped.cu:[[@LINE]]
  s += 3.0f * w[7];
  s += 4.0f * w[5];
  s += 5.0f * w[1];
  s += 6.0f * w[2];
  s += 7.0f * w[4];
  s += 8.0f * w[3];
  y[t] = s;
}
// CHECK: first by block (1,0,0) thread (255,0,0)
// CHECK: is 4 bytes after the {{[0-9]+}}-byte buffer 'x'
// HALT: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'window(float*, float const*, int)' at {{.*}}oob_grouped.cu:[[@LINE-11]]
// HALT: halt_on_error=1

__global__ void __launch_bounds__(256) smooth(float *out, const float *in, int first) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  if (t < first || t >= 255)
    return;
  float v = 0.25f * tile[t - 1]; // CHECK: ERROR: kosan: shared-buffer-overflow: READ of size 4 in kernel 'smooth(float*, float const*, int)' at {{.*}}oob_grouped.cu:[[@LINE]]
  v += 0.5f * tile[t];
  v += 0.25f * tile[t + 1];
  out[blockIdx.x * 256 + t] = v;
}
// CHECK: is 4 bytes before the 1024-byte buffer '{{.*}}tile'
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int threads = 512, blocks = threads / 256;
  // Windows of 8 floats at a stride of 4: the last ends at 4 * threads + 4.
  const int n = 4 * threads + (bug ? 1 : 4);
  std::vector<float> hx(n);
  Lcg rng{7};
  for (float &v : hx)
    v = rng.uniform() - 0.5f;
  float *x, *y, *out;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, threads * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, threads * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(out, 0, threads * sizeof(float)));
  window<<<blocks, 256>>>(y, x, threads);
  CHECK_CUDA(cudaGetLastError());
  smooth<<<blocks, 256>>>(out, x, bug ? 0 : 1);
  CHECK_CUDA(cudaGetLastError());
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  std::vector<float> hy(threads), hout(threads);
  CHECK_CUDA(cudaMemcpy(hy.data(), y, threads * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hout.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("y", hy);
  printChecksum("out", hout);
  cudaFree(x);
  cudaFree(y);
  cudaFree(out);
  return 0;
}
