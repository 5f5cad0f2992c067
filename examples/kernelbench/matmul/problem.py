import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B: a batch of rows A (batch_size x K) times a matrix B (K x N)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


batch_size = 256
K = 1024
N = 1024


def get_inputs():
    A = torch.randn(batch_size, K)
    B = torch.randn(K, N)
    return [A, B]


def get_init_inputs():
    return []
