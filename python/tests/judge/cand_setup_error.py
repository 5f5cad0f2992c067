import torch.nn as nn

SCENARIO = "setup-error"


class ModelNew(nn.Module):
    pass
