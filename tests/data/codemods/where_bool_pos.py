"""Safe select fixes (MSG101, MSG103) whose condition is an and/or of one-element conditions."""
import mindspore.nn as nn
from mindspore import ops


class AndBranch(nn.Cell):
    def construct(self, x):
        if (x > -10).all() and (x < 10).all():
            x = x + 1
        return x


class OrReturn(nn.Cell):
    def construct(self, x):
        if x.max() > 0.9 or x.min() < -0.4:
            return x * 2
        return x - 1


class AndOrTernary(nn.Cell):
    def construct(self, x):
        y = x * 3 if (x.sum() > 0 and x.mean() < 0.9) or x.max() > 5 else x + 3
        return y


class OrFalse(nn.Cell):
    def construct(self, x):
        if x.max() > 100 or x.min() < -100:  # false for the harness's inputs: the other value
            x = x * 5
        return x
