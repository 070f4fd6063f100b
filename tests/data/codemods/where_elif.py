"""MSG101 on the last link of an if/elif/else chain: the elif and else become one select."""
import mindspore.nn as nn
from mindspore import ops


class ElifSafe(nn.Cell):
    def __init__(self, use_abs=False):
        super().__init__()
        self.use_abs = use_abs

    def construct(self, x):
        if self.use_abs:
            y = ops.abs(x)
        elif x.mean() > 0:  # sign
            y = x * 2
        else:
            y = x - 1
        return y


class ElifUnsafe(nn.Cell):
    def __init__(self, mode=0):
        super().__init__()
        self.mode = mode

    def construct(self, x):
        if self.mode == 1:
            y = x
        elif self.mode == 2:
            y = x * 3
        elif x[0, 0] > 0:
            y = ops.relu(x)
        else:
            y = x
        return y


class ElifChainOn(nn.Cell):
    def construct(self, x):
        if x.sum() > 100:
            y = x * 2
        elif x.mean() > 0:
            y = x + 1
        elif x.max() > 1:
            y = x - 1
        return x
