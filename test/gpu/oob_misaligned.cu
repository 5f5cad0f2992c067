// Misaligned accesses: a float4 load through a pointer that is inside its
// buffer but not 16-byte aligned (the vectorised copy of a row whose length
// is not a multiple of 4, as generated kernels write it), and a float store
// at a byte offset. The GPU faults on both ("misaligned address") and the
// CUDA context is lost; kosan reports each at its site and drops it, and the
// program runs on. The aligned twin reports nothing and gives the plain
// build's bits.
// RUN: %gpubin/oob_misaligned bug > %t.out 2> %t.err; FileCheck %s < %t.err
// RUN: FileCheck --check-prefix=RAN %s < %t.out
// RUN: %gpubin/oob_misaligned fixed > %t.fixed 2> %t.fixed.err; FileCheck --check-prefix=FIXED --allow-empty %s < %t.fixed.err
// RUN: %gpubin/oob_misaligned.plain fixed > %t.plain; diff %t.fixed %t.plain
// RUN: env KOSAN_OPTIONS=trace=%t.trace %gpubin/oob_misaligned bug > /dev/null 2>&1
// RUN: %kosan-report --format json %t.trace | FileCheck --check-prefix=JSON %s
// REQUIRES: gpu
#include "common.h"

// Copies row r of a rows x cols matrix four floats at a time.
__global__ void copy_rows_vec4(const float *in, float *out, int rows, int cols, bool bug) {
  int r = blockIdx.x;
  // bug: assumes cols % 4 == 0, so rows after the first start off a
  // 16-byte boundary; fixed: rows padded to a multiple of 4.
  int pitch = bug ? cols : (cols + 3) / 4 * 4;
  const float4 *src = reinterpret_cast<const float4 *>(in + size_t(r) * pitch);
  float4 *dst = reinterpret_cast<float4 *>(out + size_t(r) * pitch);
  for (int c = threadIdx.x; c < cols / 4; c += blockDim.x)
    dst[c] = src[c]; // CHECK-DAG: ERROR: kosan: misaligned-access: {{READ|WRITE}} of size 16 in kernel 'copy_rows_vec4(float const*, float*, int, int, bool)' at {{.*}}oob_misaligned.cu:[[@LINE]]
}

// Writes one float per thread at a byte offset of a byte buffer.
__global__ void store_at_offset(unsigned char *bytes, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    *reinterpret_cast<float *>(bytes + offset + 4 * i) = float(i); // CHECK-DAG: ERROR: kosan: misaligned-access: WRITE of size 4 in kernel 'store_at_offset(unsigned char*, int, int)' at {{.*}}oob_misaligned.cu:[[@LINE]]
}
// CHECK-DAG: is not 16-byte aligned
// CHECK-DAG: is not 4-byte aligned
// CHECK: SUMMARY: kosan:
// FIXED-NOT: kosan
// RAN: out checksum
// RAN: bytes checksum
// JSON: "kind": "misaligned-access"

int main(int argc, char **argv) {
  bool bug = isBug(argc, argv);
  const int rows = 37, cols = 1022, padded = (cols + 3) / 4 * 4;
  std::vector<float> hin(size_t(rows) * padded), hout(hin.size());
  Lcg rng{7};
  for (float &v : hin)
    v = rng.uniform();
  float *in, *out;
  CHECK_CUDA(cudaMalloc(&in, hin.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, hin.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, hin.data(), hin.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(out, 0, hin.size() * sizeof(float)));
  copy_rows_vec4<<<rows, 128>>>(in, out, rows, cols, bug);
  // Collected here: the first kernel's thousands of events would otherwise
  // fill the device log before the second kernel's (log_capacity).
  CHECK_CUDA(cudaDeviceSynchronize());
  const int n = 1000;
  unsigned char *bytes;
  CHECK_CUDA(cudaMalloc(&bytes, 4 * n + 4));
  CHECK_CUDA(cudaMemset(bytes, 0, 4 * n + 4));
  store_at_offset<<<(n + 255) / 256, 256>>>(bytes, n, bug ? 2 : 4);
  cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(sync));
    return 1;
  }
  CHECK_CUDA(cudaMemcpy(hout.data(), out, hout.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> hbytes(4 * n + 4);
  CHECK_CUDA(cudaMemcpy(hbytes.data(), bytes, hbytes.size(), cudaMemcpyDeviceToHost));
  printChecksum("out", hout);
  printChecksum("bytes", hbytes);
  return 0;
}
