import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256
#define ELEMS_PER_BLOCK (THREADS * 2)

// A 2D grid: blockIdx.y is the row, blockIdx.x a chunk of it, so that a
// long row is reduced by many blocks at once. Each block reduces its chunk
// in shared memory and adds the result to the row's sum with one atomicAdd.
__global__ void row_sum_atomic_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float sdata[THREADS];
    int row = blockIdx.y;
    int tid = threadIdx.x;
    int base = blockIdx.x * ELEMS_PER_BLOCK;
    const float* xr = x + (size_t)row * cols;
    float v = 0.0f;
    if (base + tid < cols) v += xr[base + tid];
    if (base + tid + THREADS < cols) v += xr[base + tid + THREADS];
    sdata[tid] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(&out[row], sdata[0]);
}

torch::Tensor sum_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2D CUDA tensor");
    auto xc = x.contiguous();
    int rows = xc.size(0), cols = xc.size(1);
    auto out = torch::zeros({rows, 1}, xc.options());
    dim3 grid((cols + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK, rows);
    row_sum_atomic_kernel<<<grid, THREADS>>>(xc.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

sum_cpp_source = "torch::Tensor sum_dim1_cuda(torch::Tensor x);"

sum_ext = load_inline(
    name="kb_sum_atomics",
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
