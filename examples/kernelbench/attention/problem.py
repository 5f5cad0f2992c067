import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """Single-head scaled dot-product attention: softmax(q k^T / sqrt(d)) v."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = 1.0 / math.sqrt(q.size(-1))
        scores = torch.matmul(q, k.transpose(-2, -1)) * scale
        return torch.matmul(torch.softmax(scores, dim=-1), v)


batch_size = 32
seq_len = 256
head_dim = 64


def get_inputs():
    q = torch.randn(batch_size, seq_len, head_dim)
    k = torch.randn(batch_size, seq_len, head_dim)
    v = torch.randn(batch_size, seq_len, head_dim)
    return [q, k, v]


def get_init_inputs():
    return []
