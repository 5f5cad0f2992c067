import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mse_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256
#define BLOCKS 512

// Pass 1: a fixed grid; each block sums the squared differences of a
// grid-stride slice and writes its partial sum.
__global__ void sq_diff_partial_kernel(const float* __restrict__ p, const float* __restrict__ t,
                                       float* __restrict__ partial, long n) {
    __shared__ float sdata[THREADS];
    int tid = threadIdx.x;
    float sum = 0.0f;
    for (long i = (long)blockIdx.x * THREADS + tid; i < n; i += (long)gridDim.x * THREADS) {
        float d = p[i] - t[i];
        sum += d * d;
    }
    sdata[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// Pass 2: one block adds the partial sums in a fixed order (deterministic).
__global__ void finalize_kernel(const float* __restrict__ partial, float* __restrict__ out,
                                int count, long n) {
    __shared__ float sdata[THREADS];
    int tid = threadIdx.x;
    float sum = 0.0f;
    for (int i = tid; i < count; i += THREADS) sum += partial[i];
    sdata[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[0] = sdata[0] / (float)n;
}

torch::Tensor mse_cuda(torch::Tensor predictions, torch::Tensor targets) {
    TORCH_CHECK(predictions.is_cuda() && targets.is_cuda(), "inputs must be CUDA tensors");
    auto p = predictions.contiguous();
    auto t = targets.contiguous();
    long n = p.numel();
    auto partial = torch::empty({BLOCKS}, p.options());
    auto out = torch::empty({}, p.options());
    sq_diff_partial_kernel<<<BLOCKS, THREADS>>>(p.data_ptr<float>(), t.data_ptr<float>(),
                                                partial.data_ptr<float>(), n);
    finalize_kernel<<<1, THREADS>>>(partial.data_ptr<float>(), out.data_ptr<float>(), BLOCKS, n);
    return out;
}
"""

mse_cpp_source = "torch::Tensor mse_cuda(torch::Tensor predictions, torch::Tensor targets);"

mse_ext = load_inline(
    name="kb_mse_correct",
    cpp_sources=mse_cpp_source,
    cuda_sources=mse_source,
    functions=["mse_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return mse_ext.mse_cuda(predictions, targets)
