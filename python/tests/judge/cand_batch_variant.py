import torch.nn as nn

SCENARIO = "batch-variant"


class ModelNew(nn.Module):
    pass
