import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

attention_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

#define THREADS 128

__device__ float block_reduce(float v, float* red, bool is_max) {
    int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = is_max ? fmaxf(red[tid], red[tid + s]) : red[tid] + red[tid + s];
        __syncthreads();
    }
    float r = red[0];
    __syncthreads();
    return r;
}

// One block per (query row, batch): the row's scores against every key in
// shared memory, a softmax over them, then the weighted sum of the values.
__global__ void attention_row_kernel(const float* __restrict__ q, const float* __restrict__ k,
                                     const float* __restrict__ v, float* __restrict__ out,
                                     int seq, int d, float scale) {
    extern __shared__ float smem[];
    float* q_row = smem;            // d
    float* scores = smem + d;       // seq
    __shared__ float red[THREADS];
    int i = blockIdx.x, b = blockIdx.y, tid = threadIdx.x;
    const float* qb = q + ((size_t)b * seq + i) * d;
    const float* kb = k + (size_t)b * seq * d;
    const float* vb = v + (size_t)b * seq * d;

    for (int t = tid; t < d; t += THREADS) q_row[t] = qb[t];
    __syncthreads();

    float m = -FLT_MAX;
    for (int j = tid; j < seq; j += THREADS) {
        float s = 0.0f;
        for (int t = 0; t < d; ++t) s += q_row[t] * kb[(size_t)j * d + t];
        s *= scale;
        scores[j] = s;
        m = fmaxf(m, s);
    }
    float row_max = block_reduce(m, red, true);

    float sum = 0.0f;
    for (int j = tid; j < seq; j += THREADS) {
        float e = expf(scores[j] - row_max);
        scores[j] = e;
        sum += e;
    }
    float inv_sum = 1.0f / block_reduce(sum, red, false);

    for (int t = tid; t < d; t += THREADS) {
        float acc = 0.0f;
        for (int j = 0; j < seq; ++j) acc += scores[j] * vb[(size_t)j * d + t];
        out[((size_t)b * seq + i) * d + t] = acc * inv_sum;
    }
}

torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor v, double scale) {
    TORCH_CHECK(q.is_cuda() && k.is_cuda() && v.is_cuda(), "q, k, v must be CUDA tensors");
    auto qc = q.contiguous(), kc = k.contiguous(), vc = v.contiguous();
    int B = qc.size(0), seq = qc.size(1), d = qc.size(2);
    auto out = torch::empty_like(qc);
    dim3 grid(seq, B);
    size_t smem = (size_t)(d + seq) * sizeof(float);
    attention_row_kernel<<<grid, THREADS, smem>>>(qc.data_ptr<float>(), kc.data_ptr<float>(),
                                                  vc.data_ptr<float>(), out.data_ptr<float>(),
                                                  seq, d, (float)scale);
    return out;
}
"""

attention_cpp_source = ("torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, "
                        "torch::Tensor v, double scale);")

attention_ext = load_inline(
    name="kb_attention_correct",
    cpp_sources=attention_cpp_source,
    cuda_sources=attention_source,
    functions=["attention_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return attention_ext.attention_cuda(q, k, v, 1.0 / math.sqrt(q.size(-1)))
