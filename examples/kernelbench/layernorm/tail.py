import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

layernorm_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define WARP 32
#define ROWS_PER_BLOCK 4

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = WARP / 2; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    return __shfl_sync(0xffffffff, v, 0);
}

// One warp per row, four rows per block: the reductions stay in registers
// (warp shuffles), with no shared memory and no __syncthreads.
__global__ void layernorm_warp_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ y,
                                      int rows, int hidden, float eps) {
    int warp = threadIdx.x / WARP;
    int lane = threadIdx.x % WARP;
    int row = blockIdx.x * ROWS_PER_BLOCK + warp;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * hidden;
    float* yr = y + (size_t)row * hidden;

    float sum = 0.0f;
    for (int i = lane; i < hidden; i += WARP) sum += xr[i];
    float mean = warp_sum(sum) / hidden;

    float sq = 0.0f;
    for (int i = lane; i < hidden; i += WARP) {
        float d = xr[i] - mean;
        sq += d * d;
    }
    float rstd = rsqrtf(warp_sum(sq) / hidden + eps);

    for (int i = lane; i < hidden; i += WARP) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    int hidden = gamma.numel();
    int rows = xc.numel() / hidden;
    auto y = torch::empty_like(xc);
    int blocks = rows / ROWS_PER_BLOCK;
    layernorm_warp_kernel<<<blocks, ROWS_PER_BLOCK * WARP>>>(
        xc.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(),
        y.data_ptr<float>(), rows, hidden, (float)eps);
    return y;
}
"""

layernorm_cpp_source = ("torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, "
                        "torch::Tensor beta, double eps);")

layernorm_ext = load_inline(
    name="kb_layernorm_tail",
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
