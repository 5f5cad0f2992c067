"""Tensor lifetimes inside PyTorch, with kosan.torch.enable():

  uaf        the extension launches a kernel on a temporary tensor's memory
             after the tensor was released (heap-use-after-free)
  uaf-ok     the same with the temporary alive through the launch
  uaf-reused the same, with a tensor of the same size allocated between the
             release and the launch (the caching allocator hands it the
             released block; KOSAN_TORCH_QUARANTINE=1 keeps it from it)
  uninit     a kernel accumulates into torch::empty_like (uninit=1: a read
             of what nobody wrote)
  uninit-ok  the same into torch::zeros_like
  unwritten  a kernel writes half of its torch::empty output: with uninit=1
             kosan.torch.unwritten() counts the other half
  written    the kernel writes all of it

usage: torch_lifetimes.py MODE"""
import sys

import torch

import kosan.torch

state = kosan.torch.enable()
from torch.utils.cpp_extension import load_inline  # noqa: E402

mode = sys.argv[1]

cuda_source = r"""
#include <torch/extension.h>

__global__ void add_one(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1.0f;
}

__global__ void accumulate(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += x[i];
}

void stale_into(torch::Tensor x, torch::Tensor y, bool keep, bool reuse) {
  int n = x.numel();
  torch::Tensor kept, other;
  const float *p;
  {
    torch::Tensor tmp = x.clone();
    p = tmp.data_ptr<float>();
    if (keep)
      kept = tmp;
  }
  if (reuse)
    other = torch::zeros_like(x);
  add_one<<<(n + 255) / 256, 256>>>(p, y.data_ptr<float>(), n);
}

torch::Tensor accumulated(torch::Tensor x, bool zeroed) {
  torch::Tensor out = zeroed ? torch::zeros_like(x) : torch::empty_like(x);
  int n = x.numel();
  accumulate<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}

torch::Tensor first(torch::Tensor x, int64_t count) {
  torch::Tensor y = torch::empty_like(x);
  int n = int(count);
  add_one<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""
cpp_source = """
void stale_into(torch::Tensor x, torch::Tensor y, bool keep, bool reuse);
torch::Tensor accumulated(torch::Tensor x, bool zeroed);
torch::Tensor first(torch::Tensor x, int64_t count);
"""
ext = load_inline(name="kosan_torch_lifetimes", cpp_sources=cpp_source,
                  cuda_sources=cuda_source, functions=["stale_into", "accumulated", "first"],
                  extra_cuda_cflags=["-O2"])
x = torch.ones(1000, device="cuda")
if mode in ("uaf", "uaf-ok", "uaf-reused"):
    y = torch.zeros(1000, device="cuda")
    ext.stale_into(x, y, mode == "uaf-ok", mode == "uaf-reused")
elif mode in ("uninit", "uninit-ok"):
    out = ext.accumulated(x, mode == "uninit-ok")
else:
    y = ext.first(x, 500 if mode == "unwritten" else 1000)
    torch.cuda.synchronize()
    print("unwritten elements:", kosan.torch.unwritten(y), flush=True)
torch.cuda.synchronize()
print("kosan errors:", kosan.torch.flush(), flush=True)
