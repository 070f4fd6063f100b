"""MSG502 fixes that keep PyTorch's meaning: each call gets a SAFE fix (the semantic harness
runs every class before, with tests/data/torch_shim/ standing in for PyTorch, and after, in
graph mode and PyNative)."""
import torch
import torch.nn.functional as F
import mindspore.nn as nn


class Concat(nn.Cell):
    def construct(self, x):
        y = torch.cat((x, x * 2), dim=-1)
        z = torch.stack([x, y[..., :x.shape[-1]]], 1)
        return y, z


class SplitChunk(nn.Cell):
    def construct(self, x):
        a, b = torch.split(x, 1, dim=0)
        parts = torch.chunk(x, 3, -1)
        return a + b, parts[0], parts[-1]


class Softmaxes(nn.Cell):
    def construct(self, x):
        return torch.softmax(x, dim=-1), F.softmax(x, 0), F.log_softmax(x, dim=1), torch.log_softmax(x, -1)


class Unary(nn.Cell):
    def construct(self, x):
        y = torch.tanh(x) + torch.sigmoid(x) + torch.exp(x)
        return y, torch.log(y), torch.sqrt(y), torch.rsqrt(y)


class Reductions(nn.Cell):
    def construct(self, x):
        m = torch.mean(x, dim=-1, keepdim=True)
        s = torch.sum(x, 1)
        return m, s, torch.mean(x), torch.argmax(x, dim=-1), torch.argmax(x)


class Select(nn.Cell):
    def construct(self, x):
        y = torch.where(x > 0.5, x, x * 0.1)
        y = torch.masked_fill(y, x < 0.2, -1e9)
        return torch.clamp(y, min=0.0), torch.clamp(x, 0.2, 0.8), y


class Makers(nn.Cell):
    def construct(self, x):
        return (torch.zeros_like(x) + torch.ones_like(x), torch.zeros(2, 3), torch.ones((4,)),
                torch.full((2, 2), 7), torch.arange(5), torch.arange(0, 1, 0.25))


class Masks(nn.Cell):
    def construct(self, x):
        a = x.reshape(-1, x.shape[-1])
        return torch.tril(a), torch.triu(a, diagonal=1), torch.tril(a, -1)


class Shapes(nn.Cell):
    def construct(self, x):
        y = torch.unsqueeze(x, 0)
        z = torch.squeeze(y, 0)
        w = torch.squeeze(x, 0)
        return torch.transpose(y, 1, 2), torch.reshape(z, (-1,)), torch.flatten(x), torch.flatten(x, 1), w


class Permute(nn.Cell):
    def construct(self, x):
        return torch.permute(x, (1, 0)), torch.matmul(x, x.T), torch.gather(x, 1, (x > 0.5).astype("int64"))


class Functional(nn.Cell):
    def construct(self, x):
        h = F.gelu(x) + F.gelu(x, approximate="tanh") + F.silu(x) + F.relu(x - 0.5)
        w = x.reshape(-1, x.shape[-1])
        return F.linear(h, w), F.pad(x, (1, 2)), F.pad(x, (1, 1), "constant", 3.0)
