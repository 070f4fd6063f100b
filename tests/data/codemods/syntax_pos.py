"""Safe rewrites of syntax graph mode rejects (MSG410): each Cell runs in PyNative as written."""
import contextlib

import mindspore.nn as nn


class ForElse(nn.Cell):
    def construct(self, x):
        for i in range(3):
            x = x + i
        else:  # always runs: no break
            x = x * 2
        return x


class WhileElse(nn.Cell):
    def construct(self, x):
        i = 0
        while i < 2:
            x = x + 1
            i += 1
        else:
            x = x - 3
        return x


class Walrus(nn.Cell):
    def construct(self, x):
        if (n := x.shape[0]) > 1:
            x = x * n
        return x


class DelLocal(nn.Cell):
    def construct(self, x):
        tmp = x * 2
        y = tmp + 1
        del tmp
        return y


class TryFinally(nn.Cell):
    def construct(self, x):
        y = x
        try:
            y = x * 2
        finally:
            y = y + 1
        return y


class WithNull(nn.Cell):
    def construct(self, x):
        with contextlib.nullcontext():
            y = x * 2
        return y + 1


class ImportInside(nn.Cell):
    def construct(self, x):
        import math
        return x * math.e


class TwoForList(nn.Cell):
    def construct(self, x):
        parts = [x * i + j for i in range(3) for j in range(2) if i != j]
        return parts[0] + parts[3] * 2


class TwoForDict(nn.Cell):
    def construct(self, x):
        parts = {i * 2 + j: x * j for i in range(2) for j in range(2)}
        return parts[1] + parts[3]
