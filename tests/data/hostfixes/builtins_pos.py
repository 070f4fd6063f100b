"""MSG420 fixes that are the same Python program: each gets a SAFE fix (the semantic harness
runs every class before and after, graph mode and PyNative)."""
import mindspore.nn as nn


class AllNotNone(nn.Cell):
    def construct(self, x, mask=None):
        if all(t is not None for t in (x, mask)):
            return x * mask
        return x * 2


class AnyIsNone(nn.Cell):
    def construct(self, x, bias=None):
        if any(t is None for t in (bias, x)):
            return x - 1
        return x + bias


class DictLiteral(nn.Cell):
    def construct(self, x):
        d = dict(a=x, b=2)
        return d["a"] * d["b"]


class ReversedList(nn.Cell):
    def construct(self, x):
        feats = [x, x * 2, x * 3]
        out = x
        for f in reversed(feats):
            out = out * 0.5 + f
        return out
