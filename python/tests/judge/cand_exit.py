import torch.nn as nn

SCENARIO = "exit"


class ModelNew(nn.Module):
    pass
