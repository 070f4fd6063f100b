"""The clean reference GPT layer: the structure of MindSpore Transformers' training layer,
written the graph-friendly way, at a size that compiles in seconds on a CPU.

Structure (mirrors ``mindformers.parallel_core.training_graph``'s ``TransformerLayer``,
pre-norm, without tensor parallelism, dropout or rotary embeddings)::

    TransformerLayer
      input_layernorm          LayerNorm
      self_attention           SelfAttention
        linear_qkv             Linear  hidden -> 3 * hidden (fused QKV)
        core_attention         CoreAttention (non-flash: QK^T * scale, causal mask, softmax, PV)
        linear_proj            Linear  hidden -> hidden
      (residual add)
      pre_mlp_layernorm        LayerNorm
      mlp                      MLP
        linear_fc1             Linear  hidden -> ffn
        activation_func        GeLU
        linear_fc2             Linear  ffn -> hidden
      (residual add)

plus ``TransformerBlock`` (a stack of N layers and a final norm, like MindSpore
Transformers' ``TransformerBlock``), ``GPTLayerWithLoss`` (a scalar loss for the
training-step compile) and ``make_train_step`` (``nn.TrainOneStepCell`` with SGD).

Inputs are ``(hidden_states [batch, seq, hidden] float32, attention_mask [1, 1, seq, seq]
bool)``, with ``True`` where a position is masked (the causal upper triangle); see
:func:`make_inputs`. Weights are drawn from fixed seeds, so every instance is identical.

This file is the reference for ``msgraphlint verify`` and the parent of the seeded
fixtures in ``fixtures/seeded/``: keep it free of findings (``msgraphlint check``) and keep
its line layout stable (the fixtures are one-hunk edits of it).
"""

import math

import numpy as np

import mindspore as ms
from mindspore import Parameter, Tensor, nn, ops

HIDDEN_SIZE = 256
NUM_HEADS = 8
SEQ_LENGTH = 64
BATCH_SIZE = 2
FFN_HIDDEN_SIZE = 4 * HIDDEN_SIZE
NUM_LAYERS = 2


def _normal(shape, seed, std=0.02):
    return Tensor(np.random.default_rng(seed).normal(0.0, std, shape).astype(np.float32))


class Linear(nn.Cell):
    """``y = x @ W^T + b`` over the last axis (MindSpore Transformers' ``Linear``)."""

    def __init__(self, input_size, output_size, seed=0):
        super().__init__()
        self.input_size = input_size
        self.output_size = output_size
        self.weight = Parameter(_normal((output_size, input_size), seed), name="weight")
        self.bias = Parameter(_normal((output_size,), seed + 1000), name="bias")
        self.matmul = ops.MatMul(transpose_b=True)
        self.bias_add = ops.BiasAdd()
        self.reshape = ops.Reshape()

    def construct(self, x):
        out_shape = x.shape[:-1] + (self.output_size,)
        x = self.reshape(x, (-1, self.input_size))
        x = self.matmul(x, self.weight)
        x = self.bias_add(x, self.bias)
        return self.reshape(x, out_shape)


class CoreAttention(nn.Cell):
    """Non-flash dot-product attention with a boolean mask (``True`` = masked)."""

    def __init__(self, head_dim):
        super().__init__()
        self.inv_norm_factor = 1.0 / math.sqrt(head_dim)
        self.bmm_qk = ops.BatchMatMul(transpose_b=True)
        self.bmm_pv = ops.BatchMatMul()
        self.mul = ops.Mul()
        self.masked_fill = ops.MaskedFill()
        self.fill_value = Tensor(-10000.0, ms.float32)
        self.softmax = ops.Softmax(axis=-1)

    def construct(self, query, key, value, attention_mask):
        scores = self.bmm_qk(query, key)
        scores = self.mul(scores, self.inv_norm_factor)
        scores = self.masked_fill(scores, attention_mask, self.fill_value)
        probs = self.softmax(scores)
        return self.bmm_pv(probs, value)


class SelfAttention(nn.Cell):
    """Fused QKV projection, split into heads, core attention, output projection."""

    def __init__(self, hidden_size=HIDDEN_SIZE, num_heads=NUM_HEADS, seed=0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.linear_qkv = Linear(hidden_size, 3 * hidden_size, seed=seed)
        self.core_attention = CoreAttention(self.head_dim)
        self.linear_proj = Linear(hidden_size, hidden_size, seed=seed + 1)
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()
        self.split = ops.Split(axis=3, output_num=3)

    def construct(self, hidden_states, attention_mask):
        bs, seq_len, _ = hidden_states.shape
        qkv = self.linear_qkv(hidden_states)
        qkv = self.reshape(qkv, (bs, seq_len, self.num_heads, 3 * self.head_dim))
        query, key, value = self.split(qkv)
        query = self.transpose(query, (0, 2, 1, 3))
        key = self.transpose(key, (0, 2, 1, 3))
        value = self.transpose(value, (0, 2, 1, 3))
        context = self.core_attention(query, key, value, attention_mask)
        context = self.transpose(context, (0, 2, 1, 3))
        context = self.reshape(context, (bs, seq_len, self.hidden_size))
        return self.linear_proj(context)


class MLP(nn.Cell):
    """fc1 -> GeLU -> fc2."""

    def __init__(self, hidden_size=HIDDEN_SIZE, ffn_hidden_size=FFN_HIDDEN_SIZE, seed=0):
        super().__init__()
        self.linear_fc1 = Linear(hidden_size, ffn_hidden_size, seed=seed)
        self.activation_func = ops.GeLU()
        self.linear_fc2 = Linear(ffn_hidden_size, hidden_size, seed=seed + 1)

    def construct(self, hidden_states):
        intermediate = self.linear_fc1(hidden_states)
        intermediate = self.activation_func(intermediate)
        return self.linear_fc2(intermediate)


class TransformerLayer(nn.Cell):
    """Pre-norm GPT layer: x + attn(norm(x)), then h + mlp(norm(h))."""

    def __init__(self, hidden_size=HIDDEN_SIZE, num_heads=NUM_HEADS,
                 ffn_hidden_size=FFN_HIDDEN_SIZE, layer_number=0):
        super().__init__()
        seed = 100 * layer_number
        self.input_layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-5)
        self.self_attention = SelfAttention(hidden_size, num_heads, seed=seed + 10)
        self.pre_mlp_layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-5)
        self.mlp = MLP(hidden_size, ffn_hidden_size, seed=seed + 20)
        self.add = ops.Add()

    def construct(self, hidden_states, attention_mask):
        residual = hidden_states
        normed = self.input_layernorm(hidden_states)
        attention_output = self.self_attention(normed, attention_mask)
        hidden_states = self.add(residual, attention_output)
        residual = hidden_states
        normed = self.pre_mlp_layernorm(hidden_states)
        mlp_output = self.mlp(normed)
        return self.add(residual, mlp_output)


class TransformerBlock(nn.Cell):
    """A stack of ``num_layers`` layers and a final norm."""

    def __init__(self, num_layers=NUM_LAYERS, hidden_size=HIDDEN_SIZE, num_heads=NUM_HEADS,
                 ffn_hidden_size=FFN_HIDDEN_SIZE):
        super().__init__()
        self.layers = nn.CellList([
            TransformerLayer(hidden_size, num_heads, ffn_hidden_size, layer_number=i)
            for i in range(num_layers)
        ])
        self.final_layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-5)

    def construct(self, hidden_states, attention_mask):
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return self.final_layernorm(hidden_states)


class GPTLayerWithLoss(nn.Cell):
    """A scalar loss over one layer (or a block): predict the next position's hidden state."""

    def __init__(self, backbone=None):
        super().__init__()
        self.backbone = backbone if backbone is not None else TransformerLayer()
        self.square = ops.Square()
        self.mean = ops.ReduceMean()

    def construct(self, hidden_states, attention_mask):
        output = self.backbone(hidden_states, attention_mask)
        prediction = output[:, :-1, :]
        target = hidden_states[:, 1:, :]
        return self.mean(self.square(prediction - target))


def make_train_step(backbone=None, learning_rate=1e-3):
    """One optimisation step (forward, backward, SGD update) as a Cell."""
    net_with_loss = GPTLayerWithLoss(backbone)
    optimizer = nn.SGD(net_with_loss.trainable_params(), learning_rate=learning_rate)
    return nn.TrainOneStepCell(net_with_loss, optimizer)


def make_causal_mask(seq=SEQ_LENGTH):
    """``[1, 1, seq, seq]`` bool, ``True`` above the diagonal (future positions)."""
    return np.triu(np.ones((1, 1, seq, seq), dtype=np.bool_), k=1)


def make_inputs(batch=BATCH_SIZE, seq=SEQ_LENGTH, hidden=HIDDEN_SIZE):
    """Deterministic inputs for every Cell in this file (``msgraphlint verify`` calls it)."""
    hidden_states = np.random.default_rng(1234).standard_normal((batch, seq, hidden)).astype(np.float32)
    return Tensor(hidden_states), Tensor(make_causal_mask(seq))
