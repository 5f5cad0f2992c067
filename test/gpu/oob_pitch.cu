// A 2D image from cudaMallocPitch read one column past its width: the bytes
// are inside the allocation (row padding), but not inside any row.
// RUN: %gpubin/oob_pitch bug 2>&1 | FileCheck %s
// RUN: %gpubin/oob_pitch fixed > %t.fixed 2> %t.err; FileCheck --allow-empty --check-prefix=FIXED %s < %t.err
// RUN: %gpubin/oob_pitch.plain fixed > %t.plain; diff %t.fixed %t.plain
// REQUIRES: gpu
#include "common.h"

__global__ void row_diff(float *out, const float *img, size_t pitch, int width, int height,
                         int reach) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < width && y < height) {
    const float *row = (const float *)((const char *)img + y * pitch);
    float right = x + 1 < width + reach ? row[x + 1] : 0.0f; // CHECK: ERROR: kosan: global-buffer-overflow: READ of size 4 in kernel 'row_diff(float*, float const*, unsigned long, int, int, int)' at {{.*}}oob_pitch.cu:[[@LINE]]
    out[y * width + x] = right - row[x];
  }
}
// CHECK: bytes past the end of row {{[0-9]+}} (row width 400 bytes, pitch {{[0-9]+}})
// FIXED-NOT: kosan

int main(int argc, char **argv) {
  const int width = 100, height = 8;
  float *img, *out;
  size_t pitch = 0;
  CHECK_CUDA(cudaMallocPitch(&img, &pitch, width * sizeof(float), height));
  CHECK_CUDA(cudaMalloc(&out, width * height * sizeof(float)));
  std::vector<float> h(width * height);
  for (int i = 0; i < width * height; ++i)
    h[i] = float((i * 7) % 31);
  CHECK_CUDA(cudaMemcpy2D(img, pitch, h.data(), width * sizeof(float), width * sizeof(float),
                          height, cudaMemcpyHostToDevice));
  row_diff<<<dim3(1, height), 128>>>(out, img, pitch, width, height, isBug(argc, argv) ? 1 : 0);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h.data(), out, width * height * sizeof(float), cudaMemcpyDeviceToHost));
  printChecksum("out", h);
  return 0;
}
