import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean squared error between predictions and targets."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean((predictions - targets) ** 2)


batch_size = 128
dim = 4096

# The loss is a scalar: no row of it belongs to one sample, so no batch check.
KOSAN_JUDGE = {"batch": None}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
