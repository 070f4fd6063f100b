"""MSG203 look-alikes: an unsafe fix (PyNative's write is seen through another reference,
the value is a tensor, an augmented write) or none (the index is not one int literal)."""
import numpy as np
import mindspore.nn as nn
from mindspore import Tensor, ops


class TupleAlias(nn.Cell):
    def construct(self, x):
        y = x * 2
        t = (y,)
        y[:, 1] = 0  # PyNative changes t[0] too (and graph mode does not: an MSG202 miss, reported as MSG203)
        return t[0] + y


class ListAlias(nn.Cell):
    def construct(self, x):
        y = x * 2
        t = [y]
        y[0] = 0
        return t[0] + y


class ViewBefore(nn.Cell):
    def construct(self, x):
        y = x * 2
        z = y[0]
        y[0] = 0  # PyNative: z is a view of y
        return z + y[0]


class Closure(nn.Cell):
    def construct(self, x):
        y = x * 2
        f = lambda: y  # noqa: E731
        y[0] = 0
        return f() + 1


class ViewBound(nn.Cell):
    def __init__(self):
        super().__init__()
        self.buf = Tensor(np.zeros((2, 2), np.float32))

    def construct(self, x):
        y = self.buf * 1
        y = y.view(-1, 2)
        y[0] = 1
        return x + y


class TensorValue(nn.Cell):
    def construct(self, x):
        y = x * 2
        y[:, 1] = x[:, 0] * 3  # select_scatter needs exactly y[:, 1]'s shape and dtype
        return y


class Augmented(nn.Cell):
    def construct(self, x):
        y = x * 2
        y[0] += 1
        return y


class IndexName(nn.Cell):
    def construct(self, x):
        y = x * 2
        for i in range(2):
            y[:, i] = 0
        return y


class SliceWrite(nn.Cell):
    def construct(self, x):
        y = x * 2
        y[0:1] = 0
        y[0, 1] = 5
        return y
