import torch.nn as nn

SCENARIO = "mismatch-odd-size"


class ModelNew(nn.Module):
    pass
