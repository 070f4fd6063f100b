"""MSG203 fixes that are the same program: a subscript write of a number on a local tensor
nothing else holds -> `ops.select_scatter(y, ops.full_like(y[...], c), axis, k)`. A SAFE fix
each (the semantic harness runs them in graph mode and PyNative)."""
import mindspore.nn as nn
from mindspore import ops


class Col(nn.Cell):
    def construct(self, x):
        y = ops.relu(x) * 2
        y[:, 1] = 0
        return y + 1


class Row(nn.Cell):
    def construct(self, x):
        y = x * 3
        y[-1] = -1.5  # the last row
        return y - 1


class LastAxis(nn.Cell):
    def construct(self, x):
        y = x + 1
        y[..., 0] = 0.5
        return y * 2


class RowWholeAxes(nn.Cell):
    def construct(self, x):
        y = x - 0.25
        y[1, :] = 7
        return y


class BoolMask(nn.Cell):
    def construct(self, x):
        y = x > 0.5
        y[:, 0] = True
        return ops.select(y, x, x * 0)


class ReadsBefore(nn.Cell):
    def construct(self, x):
        y = ops.exp(x)
        s = y * 2
        if y.shape[0] > 1:
            y[0] = 0
        return s + y


class TwoWrites(nn.Cell):
    def construct(self, x):
        y = ops.zeros_like(x)
        y[0] = 1
        y[:, 1] = 2
        return y + x
