"""MSG406 look-alikes: another name holds the list (a new list would leave it unchanged), an
index the rewrite does not know, a pop."""
import mindspore.nn as nn
from mindspore import ops


class Aliased(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2]
        kept = parts
        parts.insert(0, x - 1)  # `kept` sees the insert; a rebinding would not: unsafe
        return ops.concat(kept, 1)


class InsertMiddle(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2]
        parts.insert(1, x - 1)  # not at the front: no fix
        return ops.concat(parts, 1)


class Pop(nn.Cell):
    def construct(self, x):
        parts = [x, x * 2]
        last = parts.pop()  # two results: no fix
        return last + parts[0]


class AliasedInLoop(nn.Cell):
    def construct(self, x):
        parts = [x]
        seen = []
        for _ in range(2):
            parts.insert(0, x * 2)  # `seen` keeps the list read after it, before the next insert: unsafe
            seen.append(parts)
        return ops.concat(seen[0], 1)


class ElementOfAContainer(nn.Cell):
    def construct(self, x):
        pairs = ([1, 2, 3], 4)
        first = pairs[0]
        first.reverse()  # `pairs` holds the same list (MSG406's third INVALID example): unsafe
        return x + first[0] + pairs[0][0]

