import torch.nn as nn

SCENARIO = "build-error"


class ModelNew(nn.Module):
    pass
