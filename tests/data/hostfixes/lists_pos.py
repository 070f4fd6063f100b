"""MSG406 fixes that are the same program: a SAFE fix each (the harness runs them)."""
import mindspore.nn as nn
from mindspore import ops


class Extend(nn.Cell):
    def construct(self, x):
        parts = [x]
        parts.extend([x * 2, x * 3])
        return ops.concat(parts, 1)


class InsertFront(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2]
        n = len(parts)
        parts.insert(0, x - n)
        return ops.concat(parts, 1)


class Reverse(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2, x * 3]
        parts.reverse()
        return ops.concat(parts, 0)
