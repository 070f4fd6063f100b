"""and/or conditions where ops.where would evaluate what the condition guards: no select fix."""
import mindspore.nn as nn


class GuardedByNone(nn.Cell):
    def construct(self, x, mask=None):
        h = x * 2
        if x.sum() > 0 and mask is None:
            h = h + 1
        return h


class GuardedByFlag(nn.Cell):
    def construct(self, x, flag=False):
        h = x * 2
        if flag or x.sum() > 0:
            h = h - 1
        return h


class ElementwiseOperand(nn.Cell):
    def construct(self, x):
        h = x * 2
        if x.sum() > 0 and x[0, 0] > 0:
            h = h - 1
        return h
