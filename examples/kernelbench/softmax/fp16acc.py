import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cfloat>

#define THREADS 256

// One block per row. The per-thread partial sums of the exponentials are
// kept in half precision to halve register pressure; the block reduction
// and the outputs are fp32.
__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int dim) {
    __shared__ float sdata[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float* xr = x + (size_t)row * dim;
    float* yr = y + (size_t)row * dim;

    float m = -FLT_MAX;
    for (int i = tid; i < dim; i += THREADS) m = fmaxf(m, xr[i]);
    sdata[tid] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    float row_max = sdata[0];
    __syncthreads();

    __half sum = __float2half(0.0f);
    for (int i = tid; i < dim; i += THREADS) sum = __hadd(sum, __float2half(expf(xr[i] - row_max)));
    sdata[tid] = __half2float(sum);
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    float inv_sum = 1.0f / sdata[0];

    for (int i = tid; i < dim; i += THREADS) yr[i] = expf(xr[i] - row_max) * inv_sum;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    int rows = xc.size(0), dim = xc.size(1);
    auto y = torch::empty_like(xc);
    softmax_kernel<<<rows, THREADS>>>(xc.data_ptr<float>(), y.data_ptr<float>(), dim);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="kb_softmax_fp16acc",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = softmax_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax.softmax_cuda(x)
