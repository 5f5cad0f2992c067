import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

layernorm_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

__device__ float block_sum(float v, float* sdata) {
    int tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    float total = sdata[0];
    __syncthreads();
    return total;
}

// One block per row: mean, then variance (two passes for accuracy), then
// the normalized, scaled and shifted outputs.
__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y,
                                 int hidden, float eps) {
    __shared__ float sdata[THREADS];
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * hidden;
    float* yr = y + (size_t)row * hidden;

    float sum = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += THREADS) sum += xr[i];
    float mean = block_sum(sum, sdata) / hidden;

    float sq = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += THREADS) {
        float d = xr[i] - mean;
        sq += d * d;
    }
    float rstd = rsqrtf(block_sum(sq, sdata) / hidden + eps);

    for (int i = threadIdx.x; i < hidden; i += THREADS) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    int hidden = gamma.numel();
    int rows = xc.numel() / hidden;
    auto y = torch::empty_like(xc);
    layernorm_kernel<<<rows, THREADS>>>(xc.data_ptr<float>(), gamma.data_ptr<float>(),
                                        beta.data_ptr<float>(), y.data_ptr<float>(), hidden,
                                        (float)eps);
    return y;
}
"""

layernorm_cpp_source = ("torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, "
                        "torch::Tensor beta, double eps);")

layernorm_ext = load_inline(
    name="kb_layernorm_correct",
    cpp_sources=layernorm_cpp_source,
    cuda_sources=layernorm_source,
    functions=["layernorm_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = 1e-5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layernorm_ext.layernorm_cuda(x, self.weight, self.bias, self.eps)
