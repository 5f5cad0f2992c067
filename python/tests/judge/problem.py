import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.features = features

    def forward(self, x):
        return x * 2


batch_size = 16
features = 64
N = 4096


def get_inputs():
    return [torch.randn(batch_size, N, features)]


def get_init_inputs():
    return [features]
