import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

fused_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// gelu(x * scale + bias) in one pass, one thread per element (the exact
// GELU, with erf, as torch's default).
__global__ void scale_bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                       float* __restrict__ out, float scale, int n, int features) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx <= n) {
        float v = x[idx] * scale + bias[idx % features];
        out[idx] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

torch::Tensor scale_bias_gelu_cuda(torch::Tensor x, torch::Tensor bias, double scale) {
    TORCH_CHECK(x.is_cuda() && bias.is_cuda(), "x and bias must be CUDA tensors");
    auto xc = x.contiguous();
    int n = xc.numel();
    int features = bias.numel();
    auto out = torch::empty_like(xc);
    const int threads = 256;
    int blocks = n / threads + 1;
    scale_bias_gelu_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), bias.data_ptr<float>(),
                                                out.data_ptr<float>(), (float)scale, n, features);
    return out;
}
"""

fused_cpp_source = "torch::Tensor scale_bias_gelu_cuda(torch::Tensor x, torch::Tensor bias, double scale);"

fused_ext = load_inline(
    name="kb_fused_gelu_overflow",
    cpp_sources=fused_cpp_source,
    cuda_sources=fused_source,
    functions=["scale_bias_gelu_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, features: int, scale: float):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.02)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fused_ext.scale_bias_gelu_cuda(x, self.bias, self.scale)
