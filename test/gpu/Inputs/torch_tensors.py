"""Per-tensor bounds inside PyTorch: with kosan.torch.enable() (the only line
a harness adds), every tensor of the caching allocator is its own buffer.
The extension's kernel writes `past` floats beyond the end of its output,
which torch::empty allocated inside the extension, into the allocator's
segment; or, with a view, beyond the view but inside its storage.

usage: torch_tensors.py out PAST | view PAST"""
import sys

import torch

import kosan.torch

state = kosan.torch.enable()
from torch.utils.cpp_extension import load_inline  # noqa: E402

mode, past = sys.argv[1], int(sys.argv[2])

cuda_source = r"""
#include <torch/extension.h>

__global__ void add_one(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1.0f;
}

torch::Tensor add_one_past(torch::Tensor x, int64_t past) {
  torch::Tensor y = torch::empty_like(x);
  int n = x.numel() + int(past);
  add_one<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}

void add_one_into(torch::Tensor x, torch::Tensor y, int64_t past) {
  int n = x.numel() + int(past);
  add_one<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
}
"""
cpp_source = """
torch::Tensor add_one_past(torch::Tensor x, int64_t past);
void add_one_into(torch::Tensor x, torch::Tensor y, int64_t past);
"""
ext = load_inline(name="kosan_torch_tensors", cpp_sources=cpp_source,
                  cuda_sources=cuda_source, functions=["add_one_past", "add_one_into"],
                  extra_cuda_cflags=["-O2"])
print("extensions built by", "kosan-nvcc" if state["nvcc"].endswith("kosan-nvcc") else state["nvcc"],
      flush=True)
if mode == "out":
    # A neighbour right behind the output in the allocator's segment.
    x = torch.ones(1000, device="cuda")
    y = ext.add_one_past(x, past)
    z = torch.zeros(1000, device="cuda")
    torch.cuda.synchronize()
    print("kosan errors:", kosan.torch.flush(), flush=True)
    print("y correct:", bool(torch.all(y == 2)))
else:
    # The view covers elements 100..199 of a 1000-float storage: writing
    # past the view stays inside the storage; past 1000 it does not.
    base = torch.zeros(1000, device="cuda")
    view = base[100:200]
    x = torch.ones(100 + past, device="cuda")
    ext.add_one_into(x[:100], view, past)
    torch.cuda.synchronize()
    print("kosan errors:", kosan.torch.flush(), flush=True)
    print("view written:", int((base != 0).sum()))
print("tracker counts (registered, refused):", state["tracker"].counts())
