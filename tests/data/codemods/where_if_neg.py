"""Look-alikes whose select would change behaviour: no safe fix (unsafe, or none)."""
import mindspore.nn as nn
from mindspore import ops


class Mask(nn.Cell):
    def construct(self, x):
        y = x
        if x[0, 0] > 0:  # defect: unsafe (the condition may have more than one element)
            y = x * 2
        return y


class OtherShape(nn.Cell):
    def construct(self, x, z):
        if x.sum() > 0:  # defect: unsafe (x and z may have different shapes)
            y = x
        else:
            y = z
        return y


class Promotes(nn.Cell):
    def construct(self, x):
        y = x + 1
        if x.sum() > 0:  # defect: unsafe (an integer x becomes float)
            y = y / 2
        return y


class Calls(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        if x.sum() > 0:  # defect: unsafe (both branches run: the dropout draws)
            return self.drop(x)
        return x


class TupleReturn(nn.Cell):
    def construct(self, x):
        h = x * 2
        if h.sum() > 0:  # defect: no fix (a tuple and a tensor)
            return h, x
        return h


class TwoStatements(nn.Cell):
    def construct(self, x):
        y = x
        if x.sum() > 0:  # defect: no fix (two statements)
            y = x * 2
            x = x + 1
        return x + y


class Unbound(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # defect: no fix (y has no value without the branch)
            y = x * 2
        return x


class Elif(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # defect: no fix (an elif chain)
            y = x * 2
        elif x.mean() > 0:  # defect
            y = x * 3
        else:
            y = x
        return y


class ReadAgain(nn.Cell):
    def construct(self, x):
        y = ops.relu(x)
        z = (y,)
        return y.mul_(2.0) + z[0]  # defect: the write is seen through z: no safe fix
