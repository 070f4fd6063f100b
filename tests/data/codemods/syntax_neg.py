"""Look-alikes of the MSG410 rewrites that would change behaviour: no fix, or an unsafe one."""
import contextlib

import mindspore.nn as nn


class ForElseBreak(nn.Cell):
    def construct(self, x):
        for i in range(3):
            if i == 1:
                break
            x = x + i
        else:  # skipped after the break
            x = x * 2
        return x


class DelThenRead(nn.Cell):
    def construct(self, x, y):
        tmp = x * 2
        del tmp
        tmp = y
        return tmp


class WalrusInAnd(nn.Cell):
    def construct(self, x, flag=False):
        if flag and (n := x.shape[0]) > 1:
            x = x * n
        return x


class TryFinallyReturn(nn.Cell):
    def construct(self, x):
        y = x
        try:
            return x * 2
        finally:
            y = y + 1


class TryFinallyCall(nn.Cell):
    def __init__(self):
        super().__init__()
        self.log = []

    def construct(self, x):
        try:
            y = x * 2
        finally:
            self.log.append(1)
        return y


class WithNullAs(nn.Cell):
    def construct(self, x):
        with contextlib.nullcontext(x) as v:
            y = v * 2
        return y


class DelItem(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2, x * 3]
        other = parts
        del parts[1]
        return other[1]


class SetLiteral(nn.Cell):
    def construct(self, x):
        axes = {0, 1}
        return x * len(axes)



class TwoForShadow(nn.Cell):
    def construct(self, x):
        i = 5
        parts = [x * i * j for i in range(2) for j in range(2)]
        return parts[3] + i
