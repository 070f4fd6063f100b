"""MSG420 look-alikes where the rewrite would change behaviour: an unsafe fix or none."""
import mindspore.nn as nn
from mindspore import Tensor


class TensorPredicate(nn.Cell):
    def construct(self, x, y):
        if all(t.sum() > 0 for t in (x, y)):  # a tensor predicate: `and` would return a tensor
            return x
        return y


class NotADisplay(nn.Cell):
    def construct(self, x, mask=None):
        items = self.pick(x, mask)
        if all(t is not None for t in items):  # an iterable of unknown length: nothing to unroll
            return x
        return x * 2

    def pick(self, x, mask):
        return (x, mask)


class ReversedCells(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for blk in reversed(self.blocks):  # a CellList slice renames the cells' parameters: none
            x = blk(x)
        return x


class TypeIs(nn.Cell):
    def construct(self, x):
        if type(x) is Tensor:  # isinstance also accepts a Parameter: unsafe
            return x * 2
        return x
