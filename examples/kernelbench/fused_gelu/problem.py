import torch
import torch.nn as nn


class Model(nn.Module):
    """Scale, add a bias, GELU: y = gelu(x * scale + bias)."""

    def __init__(self, features: int, scale: float):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.02)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x * self.scale + self.bias)


batch_size = 128
features = 4096
scale = 0.5


def get_inputs():
    x = torch.randn(batch_size, features)
    return [x]


def get_init_inputs():
    return [features, scale]
