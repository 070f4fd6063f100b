"""A stand-in for PyTorch in the semantic harness's child (tests/fix_semantics_child.py puts
this folder on the path and names it `torch` in sys.modules when PyTorch is not installed): the functions MSG502's fixes rewrite
(msgraphlint/fix/torchfixes.py), each computed in NumPy on MindSpore tensors as PyTorch
documents it (pytorch.org/docs/stable/generated/torch.<name>.html): values, defaults and
result dtypes (integer sums are int64, `arange` of ints is int64, `full` takes the fill's
dtype, `squeeze(x, d)` of a non-1 axis returns x). It is the *before* side of a fix: what
the PyTorch call meant."""
import math

import numpy as np
import mindspore as ms

float16, float32, int64 = np.float16, np.float32, np.int64


def _np(x):
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


def _t(a):
    a = np.asarray(a)
    if a.dtype == np.float64:
        a = a.astype(np.float32)
    return ms.Tensor(a)


def _axis(dim):
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def matmul(input, other):
    return _t(np.matmul(_np(input), _np(other)))


def bmm(input, mat2):
    return _t(np.matmul(_np(input), _np(mat2)))


def cat(tensors, dim=0):
    return _t(np.concatenate([_np(t) for t in tensors], axis=dim))


concat = cat


def stack(tensors, dim=0):
    return _t(np.stack([_np(t) for t in tensors], axis=dim))


def split(tensor, split_size_or_sections, dim=0):
    a = _np(tensor)
    n = a.shape[dim]
    if isinstance(split_size_or_sections, int):
        cuts = list(range(split_size_or_sections, n, split_size_or_sections))
    else:
        cuts = list(np.cumsum(split_size_or_sections)[:-1])
    return tuple(_t(p) for p in np.split(a, cuts, axis=dim))


def chunk(input, chunks, dim=0):
    n = _np(input).shape[dim]
    return split(input, int(math.ceil(n / chunks)), dim)


def _softmax(a, dim):
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def softmax(input, dim):
    return _t(_softmax(_np(input), dim))


def log_softmax(input, dim):
    return _t(np.log(_softmax(_np(input), dim)))


def tanh(input):
    return _t(np.tanh(_np(input)))


def sigmoid(input):
    return _t(1 / (1 + np.exp(-_np(input))))


def exp(input):
    return _t(np.exp(_np(input)))


def log(input):
    return _t(np.log(_np(input)))


def sqrt(input):
    return _t(np.sqrt(_np(input)))


def rsqrt(input):
    return _t(1 / np.sqrt(_np(input)))


def mean(input, dim=None, keepdim=False):
    return _t(np.mean(_np(input), axis=_axis(dim), keepdims=keepdim))


def sum(input, dim=None, keepdim=False):
    a = _np(input)
    r = np.sum(a, axis=_axis(dim), keepdims=keepdim)
    return _t(r.astype(np.int64) if a.dtype.kind in "iub" else r.astype(a.dtype))


def argmax(input, dim=None, keepdim=False):
    a = _np(input)
    if dim is None:
        return _t(np.int64(np.argmax(a)))
    r = np.argmax(a, axis=dim).astype(np.int64)
    return _t(np.expand_dims(r, dim) if keepdim else r)


def where(condition, input, other):
    a, b = _np(input), _np(other)
    dt = a.dtype if isinstance(input, ms.Tensor) else b.dtype if isinstance(other, ms.Tensor) else np.float32
    return _t(np.where(_np(condition), a, b).astype(dt))


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def zeros(*size):
    return _t(np.zeros(_size(size), np.float32))


def ones(*size):
    return _t(np.ones(_size(size), np.float32))


def zeros_like(input):
    return _t(np.zeros_like(_np(input)))


def ones_like(input):
    return _t(np.ones_like(_np(input)))


def full(size, fill_value):
    dt = np.bool_ if isinstance(fill_value, bool) else np.int64 if isinstance(fill_value, int) else np.float32
    return _t(np.full(tuple(size), fill_value, dt))


def arange(start, end=None, step=1):
    if end is None:
        start, end = 0, start
    dt = np.int64 if all(isinstance(v, int) for v in (start, end, step)) else np.float32
    return _t(np.arange(start, end, step).astype(dt))


def tril(input, diagonal=0):
    return _t(np.tril(_np(input), diagonal))


def triu(input, diagonal=0):
    return _t(np.triu(_np(input), diagonal))


def masked_fill(input, mask, value):
    a = _np(input)
    return _t(np.where(_np(mask), np.asarray(value, a.dtype), a))


def clamp(input, min=None, max=None):
    a = _np(input)
    if a.dtype.kind in "iu" and any(isinstance(v, float) for v in (min, max)):
        a = a.astype(np.float32)
    return _t(np.clip(a, min, max).astype(a.dtype))


def gather(input, dim, index):
    return _t(np.take_along_axis(_np(input), _np(index), axis=dim))


def transpose(input, dim0, dim1):
    return _t(np.swapaxes(_np(input), dim0, dim1))


def permute(input, dims):
    return _t(np.transpose(_np(input), tuple(dims)))


def reshape(input, shape):
    return _t(np.reshape(_np(input), tuple(shape)))


def flatten(input, start_dim=0, end_dim=-1):
    a = _np(input)
    if a.ndim == 0:
        return _t(a.reshape(1))
    s, e = start_dim % a.ndim, end_dim % a.ndim
    return _t(a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1:]))


def unsqueeze(input, dim):
    return _t(np.expand_dims(_np(input), dim))


def squeeze(input, dim=None):
    a = _np(input)
    if dim is None:
        return _t(np.squeeze(a))
    dims = [d % a.ndim for d in (dim if isinstance(dim, (tuple, list)) else (dim,)) if a.shape[d] == 1]
    return _t(np.squeeze(a, axis=tuple(dims)) if dims else a)

concat = cat

from . import nn  # noqa: E402,F401  (torch.nn.functional; imports the helpers above)
