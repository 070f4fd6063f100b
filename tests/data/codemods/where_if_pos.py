"""Safe select fixes (MSG101, MSG103): one-element conditions, elementwise values over the same names."""
import mindspore.nn as nn
from mindspore import ops


class OneArmed(nn.Cell):
    def construct(self, x):
        y = x * 2
        if y.sum() > 0:  # defect
            y = y - 1
        return ops.relu(y)


class WithElse(nn.Cell):
    def construct(self, x):
        if x.mean() < 0.5:  # defect
            # scale up
            y = x * 3 + 1
        else:
            y = -x + 1  # flip
        return y


class EarlyReturn(nn.Cell):
    def construct(self, x):
        if (x.max() > 1.0):  # defect
            return x / 2
        return x * 0.5 + x / 4


class Ternary(nn.Cell):
    def construct(self, x):
        y = x * 3 if x.sum() > 0 else x - 3  # defect
        return y + 1


class Inplace(nn.Cell):
    def construct(self, x):
        y = ops.relu(x)
        return y.mul_(2.0) + 1  # defect
