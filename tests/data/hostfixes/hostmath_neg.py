"""MSG401/402/403 host computations: every rewrite to the op is UNSAFE (gradients flow through
the op, the result is a tensor, not NumPy / a Python number); functions whose NumPy meaning
differs from the op's get no fix."""
import math

import numpy as np
import mindspore as ms
import mindspore.nn as nn
from mindspore import Tensor


class TanhRoundTrip(nn.Cell):
    def construct(self, x):
        h = Tensor(np.tanh(x.asnumpy()), dtype=ms.float32)
        return h + 1


class ExpRoundTripNoDtype(nn.Cell):
    def construct(self, x):
        return Tensor(np.exp(x.asnumpy())) * 2


class RoundHalfEven(nn.Cell):
    def construct(self, x):
        return Tensor(np.round(x.asnumpy()))  # np.round rounds half to even: no op fix


class MathLogBase(nn.Cell):
    def construct(self, x):
        return x * math.log(x.sum(), 2)  # a base argument: no fix


class MathSqrt(nn.Cell):
    def construct(self, x):
        return x / math.sqrt(x.abs().sum())


class ExpOfItem(nn.Cell):
    def construct(self, x):
        return x * math.exp(x.mean().item())


class NpClip(nn.Cell):
    def construct(self, x):
        return Tensor(np.clip(x, -1.0, 1.0))


class MatrixNorm(nn.Cell):
    def construct(self, w):
        return w / float(np.linalg.norm(w, 2))  # the matrix 2-norm: no op fix


class IntOfFloat(nn.Cell):
    def construct(self, x):
        k = int(x.abs().sum())
        return x * k


class ItemOfSum(nn.Cell):
    def construct(self, x):
        return x * (x.sum() + 1).item()


class SizeFromItem(nn.Cell):
    def construct(self, x):
        n = x.shape[0] + x.sum().astype(ms.int32).item()
        h = (x > 0).astype(ms.int32).sum().item()
        return ms.ops.arange(h), n  # a size: a tensor will not do (mindone's `h = h.item()` loops): no fix


class RepeatCount(nn.Cell):
    def construct(self, x):
        k = int((x > 0).astype(ms.int32).sum())
        return [x] * k  # a list repeated: needs the Python int: no fix


class NumpyKept(nn.Cell):
    def construct(self, x):
        y = np.exp(x)
        return y.sum()  # a NumPy method on the value: no fix
