"""The name `ops` is taken by something else and mindspore.ops is not imported: no fix."""
import torch
import mindspore.nn as nn

ops = ("not", "mindspore")


class Net(nn.Cell):
    def construct(self, x):
        return torch.cat([x, x], dim=1)
