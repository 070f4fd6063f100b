"""MSG502 look-alikes: calls whose ops spelling would mean something else, or that the
rewrite cannot carry, get an unsafe fix with the condition or none."""
import torch
import torch.nn.functional as F
import mindspore.nn as nn


class NoDim(nn.Cell):
    def construct(self, x):
        a = torch.softmax(x)            # PyTorch requires dim; ops.softmax's axis defaults to -1
        b = F.softmax(x)                # PyTorch picks a dim by rank
        return a, b


class Extras(nn.Cell):
    def construct(self, x, out):
        torch.cat((x, x), dim=0, out=out)   # out=: nothing in ops.cat takes it
        a = torch.sum(x, dtype=torch.float16)  # a PyTorch dtype
        b = torch.zeros(2, 3, dtype=torch.float16)
        c = torch.full((2,), 1.5)           # ops.full((2,), 1.5) is int64 [1, 1]
        d = torch.where(x > 0)              # PyTorch's nonzero
        e = torch.max(x, 1)                 # three overloads
        xs = (x, x)
        f = torch.cat(*xs)                  # starred
        return a, b, c, d, e, f


class Random(nn.Cell):
    def construct(self, x):
        y = F.dropout(x, 0.1, self.training)    # unsafe: another random stream
        return F.layer_norm(y, (8,))           # unsafe: no CPU kernel


class Local(nn.Cell):
    def construct(self, x):
        return Shim.cat((x, x), dim=0)      # not torch


class Shim:
    @staticmethod
    def cat(xs, dim=0):
        return xs[0]
