import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 16

// Tiled matmul over the K range [k_begin, k_end). With split-K, blockIdx.z
// selects the K slice and the block writes its partial tile to its own slab
// of `out` (splits x M x N); without, `out` is C itself.
__global__ void matmul_splitk_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ out, int M, int K, int N, int k_chunk) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    int k_begin = blockIdx.z * k_chunk;
    int k_end = min(K, k_begin + k_chunk);
    float acc = 0.0f;
    for (int t = k_begin; t < k_end; t += TILE) {
        int a_col = t + threadIdx.x;
        int b_row = t + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && a_col < k_end) ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (b_row < k_end && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[((size_t)blockIdx.z * M + row) * N + col] = acc;
    }
}

// Sums the split-K partials in a fixed order (deterministic).
__global__ void splitk_reduce_kernel(const float* __restrict__ partial, float* __restrict__ C,
                                     int MN, int splits) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < MN) {
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) {
            sum += partial[(size_t)s * MN + idx];
        }
        C[idx] = sum;
    }
}

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    auto A_c = A.contiguous();
    auto B_c = B.contiguous();
    int M = A_c.size(0), K = A_c.size(1), N = B_c.size(1);
    auto C = torch::empty({M, N}, A.options());
    // Small batches give too few output tiles to fill the GPU: split K
    // across blocks to expose more parallelism.
    int splits = (M < 64) ? 8 : 1;
    int k_chunk = ((K + splits - 1) / splits + TILE - 1) / TILE * TILE;
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE, splits);
    if (splits == 1) {
        matmul_splitk_kernel<<<grid, block>>>(A_c.data_ptr<float>(), B_c.data_ptr<float>(),
                                              C.data_ptr<float>(), M, K, N, k_chunk);
    } else {
        auto partial = torch::empty({splits, M, N}, A.options());
        matmul_splitk_kernel<<<grid, block>>>(A_c.data_ptr<float>(), B_c.data_ptr<float>(),
                                              partial.data_ptr<float>(), M, K, N, k_chunk);
        int MN = M * N;
        splitk_reduce_kernel<<<(MN + 255) / 256, 256>>>(partial.data_ptr<float>(),
                                                        C.data_ptr<float>(), MN, splits);
    }
    return C;
}
"""

matmul_cpp_source = "torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);"

matmul_ext = load_inline(
    name="kb_matmul_splitk",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_source,
    functions=["matmul_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = matmul_ext

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return self.matmul.matmul_cuda(A, B)
