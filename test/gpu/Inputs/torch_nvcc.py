"""A PyTorch extension built by torch's own load_inline, with kosan-nvcc in
nvcc's place (PYTORCH_NVCC), as a KernelBench-style harness builds a
candidate: nothing else in the harness changes. The kernel writes one element
past a cudaMalloc'd buffer when the limit it is given is one too many.

usage: torch_nvcc.py bug|fixed BUILD_DIR"""
import os
import sys

import torch
from torch.utils.cpp_extension import load_inline

mode, build_dir = sys.argv[1], sys.argv[2]
os.makedirs(build_dir, exist_ok=True)

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void twice(const float *x, float *out, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < limit)
    out[i] = 2.0f * x[i];
}

torch::Tensor twice_into_scratch(torch::Tensor x, int64_t extra) {
  int n = x.numel();
  float *scratch = nullptr;
  cudaMalloc(&scratch, n * sizeof(float));
  twice<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), scratch, n + int(extra));
  cudaDeviceSynchronize();
  torch::Tensor y = torch::empty_like(x);
  cudaMemcpy(y.data_ptr<float>(), scratch, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaFree(scratch);
  return y;
}
"""
cpp_source = "torch::Tensor twice_into_scratch(torch::Tensor x, int64_t extra);"

try:
    ext = load_inline(name="kosan_torch_nvcc", cpp_sources=cpp_source,
                      cuda_sources=cuda_source, functions=["twice_into_scratch"],
                      build_directory=build_dir, extra_cuda_cflags=["-O2", "-lineinfo"])
except RuntimeError as error:
    # The build's own output, whole, where the test log shows it.
    print(f"build failed: {error}", file=sys.stderr)
    print(getattr(error, "__cause__", None) and getattr(error.__cause__, "output", b"") or "",
          file=sys.stderr)
    sys.exit(1)
x = torch.arange(1000, device="cuda", dtype=torch.float32)
y = ext.twice_into_scratch(x, 1 if mode == "bug" else 0)
torch.cuda.synchronize()
print("correct:", bool(torch.equal(y, 2 * x)))
