"""torch.nn.functional of the harness's PyTorch stand-in (see ../__init__.py): NumPy, as
PyTorch documents each function."""
import math

import numpy as np

from .. import _np, _t, _softmax


def softmax(input, dim):
    return _t(_softmax(_np(input), dim))


def log_softmax(input, dim):
    return _t(np.log(_softmax(_np(input), dim)))


_erf = np.vectorize(math.erf)


def gelu(input, approximate="none"):
    a = _np(input).astype(np.float64)
    if approximate == "tanh":
        r = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))
    else:
        r = 0.5 * a * (1 + _erf(a / math.sqrt(2)))
    return _t(r.astype(np.float32))


def silu(input):
    a = _np(input)
    return _t(a / (1 + np.exp(-a)))


def relu(input):
    return _t(np.maximum(_np(input), 0).astype(_np(input).dtype))


def linear(input, weight, bias=None):
    r = np.matmul(_np(input), _np(weight).T)
    return _t(r if bias is None else r + _np(bias))


def pad(input, pad, mode="constant", value=None):
    assert mode == "constant"
    a = _np(input)
    width = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        width[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return _t(np.pad(a, width, constant_values=0 if value is None else value).astype(a.dtype))


def scaled_dot_product_attention(query, key, value):
    q, k, v = _np(query), _np(key), _np(value)
    w = _softmax(np.matmul(q, np.swapaxes(k, -1, -2)) / math.sqrt(q.shape[-1]), -1)
    return _t(np.matmul(w, v))

