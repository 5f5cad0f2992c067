import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

// One block per row; each thread sums a strided slice, then a shared-memory
// tree combines the partial sums.
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float sdata[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float* xr = x + (size_t)row * cols;
    float sum = 0.0f;
    for (int i = tid; i < cols; i += THREADS) sum += xr[i];
    sdata[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[row] = sdata[0];
}

torch::Tensor sum_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2D CUDA tensor");
    auto xc = x.contiguous();
    int rows = xc.size(0), cols = xc.size(1);
    auto out = torch::empty({rows, 1}, xc.options());
    row_sum_kernel<<<rows, THREADS>>>(xc.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

sum_cpp_source = "torch::Tensor sum_dim1_cuda(torch::Tensor x);"

sum_ext = load_inline(
    name="kb_sum_correct",
    cpp_sources=sum_cpp_source,
    cuda_sources=sum_source,
    functions=["sum_dim1_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sum_ext.sum_dim1_cuda(x)
