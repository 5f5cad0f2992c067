import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// Direct convolution, one thread per output element (n, oc, oh, ow), 'same'
// padding: taps that fall outside the image contribute zero.
__global__ void conv2d_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     float* __restrict__ y, int N, int C, int H, int W, int OC,
                                     int KS, int pad) {
    long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long total = (long)N * OC * H * W;
    if (idx >= total) return;
    int ow = idx % W;
    int oh = (idx / W) % H;
    int oc = (idx / ((long)W * H)) % OC;
    int n = idx / ((long)W * H * OC);
    float acc = 0.0f;
    for (int c = 0; c < C; ++c) {
        for (int kh = 0; kh < KS; ++kh) {
            int ih = oh + kh - pad;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < KS; ++kw) {
                int iw = ow + kw - pad;
                if (iw < 0 || iw >= W) continue;
                acc += x[(((long)n * C + c) * H + ih) * W + iw] *
                       w[((oc * C + c) * KS + kh) * KS + kw];
            }
        }
    }
    y[idx] = acc;
}

torch::Tensor conv2d_cuda(torch::Tensor x, torch::Tensor w) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda(), "x and w must be CUDA tensors");
    auto xc = x.contiguous();
    auto wc = w.contiguous();
    int N = xc.size(0), C = xc.size(1), H = xc.size(2), W = xc.size(3);
    int OC = wc.size(0), KS = wc.size(2);
    auto y = torch::empty({N, OC, H, W}, xc.options());
    long total = (long)N * OC * H * W;
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    conv2d_direct_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                              y.data_ptr<float>(), N, C, H, W, OC, KS, KS / 2);
    return y;
}
"""

conv_cpp_source = "torch::Tensor conv2d_cuda(torch::Tensor x, torch::Tensor w);"

conv_ext = load_inline(
    name="kb_conv2d_correct",
    cpp_sources=conv_cpp_source,
    cuda_sources=conv_source,
    functions=["conv2d_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        # Keeps nn.Conv2d for its parameters (same initialization as the reference).
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size,
                                padding=kernel_size // 2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return conv_ext.conv2d_cuda(x, self.conv2d.weight)
