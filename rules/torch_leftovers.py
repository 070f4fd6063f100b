"""MSG50x: PyTorch leftovers in MindSpore code (field report, section 5.1)."""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.parse.astutil import dump
from msgraphlint.fix.codemods import property_call_fix, swapaxes_fix
from msgraphlint.fix.hostfixes import keyword_rename_fix, to_device_fix
from msgraphlint.fix.torchfixes import torch_call_fix, torch_table
from msgraphlint.rule import AST_CAPTURE, EVERY_MODE, FixSafety, Invalid, Rule, Severity, Valid

from msgraphlint.infer.guards import up_the_chain


def _short(ms_name: str) -> str:
    return ms_name.replace("mindspore.ops.", "ops.").replace("mindspore.", "ms.")


class TorchCallInGraph(Rule):
    code = "MSG502"
    fix_safety = FixSafety.SAFE  # the ops function of the same semantics (msgraphlint/fix/torchfixes.py)
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "torch-call-in-graph"
    summary = "A PyTorch function is called inside graph-mode code."
    message = "`{name}` is PyTorch: MindSpore cannot compile it\nIn {where}: {advice}."
    hint = "use the MindSpore equivalent named in the message"
    severity = Severity.ERROR
    rationale = """
        A half-migrated layer often keeps a `torch.` call (a PyTorch helper that was
        copied over). MindSpore's graph compiler does not know PyTorch objects: in
        GRAPH_MODE the call either fails to compile or runs through the Python
        interpreter fallback, cutting the graph (see MSG401). The replacement comes
        from a mapping table kept as data (`msgraphlint/data/torch_to_mindspore.json`,
        every target checked to exist in MindSpore 2.10). Functions with no direct
        equivalent (`F.scaled_dot_product_attention`, article 5.1) get a recipe.
        Importing torch elsewhere in the module (for example a weight-conversion
        script) is not flagged.

        Fix: the `ops` function of the same semantics, keywords renamed to the target
        release's parameter names (`torch.cat(xs, dim=1)` → `ops.cat(xs, axis=1)`,
        `torch.mean(x, dim=-1, keepdim=True)` → `ops.mean(x, axis=-1, keep_dims=True)`,
        `torch.flatten(x)` → `ops.flatten(x, start_dim=0)`), with `from mindspore import ops`
        added when the module has no name for it (`msgraphlint/fix/torchfixes.py`). Safe: the
        semantic harness compares each with PyTorch's documented meaning (NumPy, in PyNative)
        in graph mode and PyNative. No fix where the meaning would change or the call cannot
        be carried: `torch.softmax(x)` without `dim` (ops' `axis` defaults to -1),
        `out=`/`dtype=`/`device=`, `torch.full` with a float fill (`ops.full((2,), 1.5)` is
        int64 on 2.10), `torch.where(c)`, `torch.max`; unsafe for `F.dropout` (another random
        stream) and `F.layer_norm` (no CPU kernel in 2.10).
    """
    VALID = [
        Valid("""
            import torch
            import mindspore as ms
            from mindspore import ops, nn

            def convert(path):
                state = torch.load(path)  # outside the graph: fine
                return {k: ms.Tensor(v.numpy()) for k, v in state.items()}

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.softmax(x, axis=-1)
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            import torch.nn.functional as F
            from mindspore import nn

            class Attn(nn.Cell):
                def construct(self, q, k, v):
                    w = torch.softmax(q, dim=-1)
                    return F.scaled_dot_product_attention(w, k, v)
        """, line=[7, 8]),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.qualname(node.func)
        if not q or not (q == "torch" or q.startswith("torch.")):
            return
        entry = torch_table().get(q)  # the table MSG502's fix reads too: advice and fix agree
        if entry and entry.get("ms"):
            advice = f"use `{_short(entry['ms'])}`" + (f"; {entry['note']}" if entry.get("note") else "")
        elif entry:
            advice = entry.get("note") or "no direct equivalent"
        else:
            advice = "find the `mindspore.ops` / `mindspore.mint` equivalent"
        ctx.report(node, name=q, where=ctx.scope.short_name if ctx.scope else "graph", advice=advice,
                   fix=torch_call_fix(ctx, node, q))


# the device strings MindSpore's `Tensor.to(device)` accepts (its docstring: "Ascend", "npu",
# "cpu", "CPU", "meta"); measured on 2.10 CPU: "cuda", "cuda:0", "gpu", "GPU", "mps", "cpu:0"
# raise `ValueError: Failed to convert the value ... of input 'device' of 'to' to enum`
_MS_DEVICES = ("Ascend", "npu", "cpu", "CPU", "meta")


class TorchOnlyTensorMethod(Rule):
    code = "MSG503"
    fix_safety = FixSafety.UNSAFE  # drop the device (msgraphlint/fix/hostfixes.py)
    name = "torch-tensor-method"
    # a method the target's Tensor lacks fails in every mode: also run on PyNative-only modules
    modes = EVERY_MODE
    summary = ("`.cuda()`, `.cpu()`, `.detach()` or `.to(device)` on a tensor in graph-mode code; a method the "
               "target's Tensor lacks also in PyNative-only modules.")
    message = "`.{method}()` is a PyTorch Tensor method, not MindSpore's\n{why}."
    hint = "delete it: MindSpore places tensors with `mindspore.set_device(...)`; use `ops.stop_gradient(x)` for detach"
    severity = Severity.ERROR
    rationale = """
        MindSpore 2.10's `Tensor` has no `cuda`, `cpu` or `detach` methods (checked with
        `hasattr(mindspore.Tensor, ...)`), so these lines fail when the graph is
        compiled. Device placement is global (`mindspore.set_device("Ascend")`), and
        `x.detach()` becomes `ops.stop_gradient(x)`. `x.to(ms.float16)` is fine and not
        flagged, and so is a call guarded by `if hasattr(x, "detach"):` (it runs only where
        the method exists).

        `Tensor.to(device)` depends on the target (its catalog's `Tensor.to` overloads, from
        the wheel): 2.7.x's `to` only converts the dtype (`x.to("cpu")` raises `TypeError:
        _to(): argument 'dtype' (position 1) must be mstype, not str`, measured on 2.7.0), so
        any device argument is a leftover there. From 2.8.0 on `to` has a `device` overload:
        measured on 2.10 CPU, `x.to("CPU")`, `x.to("cpu")` and `x.to(y.device)` run in
        PyNative. In graph mode a device string MindSpore refuses is reported (`"cuda"`,
        `"cuda:0"`, `"gpu"`, `"mps"`: `ValueError: Failed to convert the value "cuda" of
        input 'device' of 'ToDevice' to enum`, in both modes; labeled fixture
        `api_pos_to_cuda_device`), and so is another tensor's `.device`
        (`mask.to(logits.device, ms.int32)`, as mindone writes it): it compiles, but graph
        mode reads `.device` through the interpreter fallback (7 PyExecute nodes, an
        AttributeError under STRICT: labeled fixture `api_pos_to_tensor_device`). A
        MindSpore device name is not reported: `x.to("CPU")` compiles to a device copy
        (`CopyToHost`), which the CPU backend has no kernel for (kernel select fails on a
        CPU target) and Ascend has; the device decides, not the code. A device held by a
        variable is not reported either (its value is unknown).

        Which methods are missing is read from the target release's catalog (`Tensor`'s
        methods, generated from its wheel): `cuda()`, `cpu()` and `detach()` exist in no
        release from 2.7.0 to 2.10, `requires_grad_()` is missing only in 2.7.0; a method
        the target's Tensor has is not reported. A missing method fails in every mode (on
        2.10 CPU `ms.Tensor([1.0]).detach()` raises `AttributeError` in PyNative too), so
        the rule declares `modes = EVERY_MODE` and also checks the Cell methods and
        functions of PyNative-only modules (mindformers' `mindformers/pynative/`, a module
        that sets only `PYNATIVE_MODE`), which the graph-only rules skip. There it reports
        only a receiver the inference is sure is a MindSpore tensor (`ctx.tensor(x).surely`:
        not a bare parameter, a PyTorch tensor or an object of the project's own class), not
        under `if hasattr(x, "detach"):`, and a `.to(...)` only with a device string MindSpore
        refuses (in both modes); another tensor's `.device` costs only in graph mode.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.stop_gradient(x)
                    return y.to(ms.float16)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x, device):
                    return x.to(device, ms.int32) + x.to("Ascend")
        """, note="MindSpore 2.8+ `Tensor.to` takes a device: a MindSpore device name, or one held by a variable"),
        Valid("""
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, loss):
                    if hasattr(loss, "detach"):
                        loss = loss.detach()
                    return loss
        """, note="guarded: runs only where the method exists"),
        Valid("""
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self, model):
                    super().__init__()
                    self.model = model.cpu()   # __init__ runs in Python

                def construct(self, x):
                    return x
        """),
        Valid("""
            import torch
            from mindspore import nn

            class Holder:
                def detach(self):
                    return self

            class Net(nn.Cell):
                def construct(self, x, loss):
                    y = x * 2
                    if hasattr(y, "detach"):
                        y = y.detach()
                    return y, torch.ones(2).detach(), Holder().detach(), loss.detach()
        """, note="a PyNative-only module (named `_pynative`): a guard, a PyTorch tensor, a project class's `detach`, "
                  "a parameter nothing shows to be a tensor", filename="net_pynative.py"),
    ]
    INVALID = [
        Invalid("""
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x):
                    x = x.cuda()
                    y = x.detach()
                    return y.to("cuda")
        """, line=[5, 6, 7]),
        Invalid("""
            from mindspore import nn, ops

            class Teacher(nn.Cell):
                def construct(self, query, key):
                    scores = ops.matmul(query, key.T)
                    return scores.detach()
        """, line=6, note="a PyNative-only module (named `_pynative`): the missing method fails in PyNative too",
                filename="teacher_pynative.py"),
    ]
    _WHY = {
        "cuda": "MindSpore tensors have no `cuda()`; the compile fails on this line",
        "cpu": "MindSpore tensors have no `cpu()`; the compile fails on this line",
        "detach": "MindSpore tensors have no `detach()`; use `ops.stop_gradient(x)`",
        "requires_grad_": "MindSpore {version} tensors have no `requires_grad_()`; the compile fails on this line",
    }
    # what to write instead, in the detail of a PyNative scope's finding
    _INSTEAD = {"cuda": "delete it (MindSpore places tensors with `mindspore.set_device`)",
                "cpu": "delete it, or `.asnumpy()` for the host value", "detach": "use `ops.stop_gradient(x)`",
                "requires_grad_": "set `requires_grad` on the Parameter"}

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or ctx.qualname(f.value):
            return
        if ctx.scope is not None and ctx.scope.mode == "pynative":
            self._pynative(node, f, ctx)
            return
        kind = ctx.kind(f.value)
        if not (kind.tensor_like or kind.value == "unknown"):
            return
        if f.attr in self._WHY and not node.args and not node.keywords:
            if self._guarded(node, f, ctx) or self._has_method(ctx, f.attr):
                return  # `if hasattr(loss, "detach"): loss = loss.detach()`: only runs where it exists
            ctx.report(node, method=f.attr, why=self._WHY[f.attr].format(version=ctx.catalog.version))
        elif f.attr == "to" and node.args and self._is_device(node.args[0], ctx):
            if not self._to_takes_device(ctx):
                ctx.report(node, message=f"`.to({ctx.segment(node.args[0])})` moves a tensor the PyTorch way\nIn MindSpore "
                           f"{ctx.catalog.version} `Tensor.to` only converts the dtype; devices are set globally with "
                           "`mindspore.set_device`.")
                return
            arg = node.args[0]
            if isinstance(arg, ast.Attribute) and arg.attr == "device" and ctx.is_tensor(arg.value):
                ctx.report(node, message=f"`.to({ctx.segment(arg)})` reads `.device` through the interpreter\nGraph mode reads a tensor's `.device` through "
                           "the interpreter fallback (PyExecute; an AttributeError under STRICT), and a graph's tensors "
                           "are on the device already: drop the device.", fix=to_device_fix(ctx, node))
            elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value not in _MS_DEVICES:
                ctx.report(node, message=f"`.to({arg.value!r})` is a PyTorch device: MindSpore refuses it\nMindSpore {ctx.catalog.version}'s "
                           f"`Tensor.to` takes a MindSpore device ({', '.join(map(repr, _MS_DEVICES))}) and refuses "
                           f"{arg.value!r} (ValueError).", fix=to_device_fix(ctx, node))

    def _pynative(self, node: ast.Call, f: ast.Attribute, ctx) -> None:
        """A Cell method or function of a PyNative-only module: only what fails in PyNative too
        (a method the target's Tensor lacks, a device string `Tensor.to` refuses), on a receiver
        the inference is sure is a MindSpore tensor, not under a `hasattr` guard."""
        missing = f.attr in self._WHY and not node.args and not node.keywords and not self._has_method(ctx, f.attr)
        refused = f.attr == "to" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
            and self._is_device(node.args[0], ctx) and node.args[0].value not in _MS_DEVICES
        if not (missing or refused) or not ctx.tensor(f.value).surely or self._guarded(node, f, ctx):
            return
        version = ctx.catalog.version
        if missing:
            ctx.report(node, method=f.attr,
                       why=f"MindSpore {version}'s Tensor has no `{f.attr}()`: the call raises AttributeError in "
                           f"PyNative too, where this PyNative-only module runs; {self._INSTEAD[f.attr]}")
            return
        arg = node.args[0].value
        what = (f"`Tensor.to` takes a MindSpore device ({', '.join(map(repr, _MS_DEVICES))}) and refuses {arg!r} "
                "(ValueError)" if self._to_takes_device(ctx) else "`Tensor.to` only converts the dtype (TypeError)")
        ctx.report(node, message=f"`.to({arg!r})` is a PyTorch device: MindSpore refuses it\nMindSpore {version}'s "
                   f"{what} in PyNative too, where this PyNative-only module runs.", fix=to_device_fix(ctx, node))

    @staticmethod
    def _has_method(ctx, name: str) -> bool:
        """The target release's Tensor (or Parameter) has the method (its catalog, from the wheel)."""
        return ctx.catalog.tensor_method(name) is not None or ctx.catalog.parameter_method(name) is not None

    @staticmethod
    def _guarded(node: ast.Call, f: ast.Attribute, ctx) -> bool:
        """Under ``if hasattr(<receiver>, "<method>"):``."""
        recv = dump(f.value)
        prev: ast.AST = node
        for anc in ctx.ancestors(node):
            if isinstance(anc, ast.If) and any(prev is b for b in anc.body):
                for t in ast.walk(anc.test):
                    if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "hasattr" \
                            and len(t.args) == 2 and dump(t.args[0]) == recv \
                            and isinstance(t.args[1], ast.Constant) and t.args[1].value == f.attr:
                        return True
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return False
            prev = anc
        return False

    @staticmethod
    def _to_takes_device(ctx) -> bool:
        """The target's `Tensor.to` has a `device` overload (its catalog, from the wheel)."""
        return any(p.get("name") == "device" for o in (ctx.catalog.tensor_overloads("to") or ())
                   for p in o.get("params", ()))

    @staticmethod
    def _is_device(arg, ctx) -> bool:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value.split(":")[0].lower() in ("cuda", "cpu", "npu", "gpu", "mps", "ascend", "meta")
        if isinstance(arg, ast.Name):
            return "device" in arg.id.lower()
        if isinstance(arg, ast.Attribute):
            return arg.attr == "device"
        return False


class TorchModuleBase(Rule):
    code = "MSG504"
    requires_text = ("forward", "torch")
    name = "torch-module-base"
    summary = "A class derives from `torch.nn.Module` and defines `construct`, or a Cell defines `forward` but no `construct`."
    message = "{what}\n{why}"
    hint = "derive from `mindspore.nn.Cell` and put the forward computation in `construct`"
    severity = Severity.ERROR
    scope = "module"
    rationale = """
        MindSpore calls `construct`, never `forward`. A migrated Cell that still defines
        only `forward` cannot be called (measured by the corpus review on 2.10: an
        AttributeError when the Cell is called), and a class that derives from
        `torch.nn.Module` with a `construct` is not compiled by MindSpore at all.
    """
    VALID = [
        Valid("""
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x):
                    return self.forward(x)

                def forward(self, x):
                    return x
        """, note="forward used as a helper of construct"),
        Valid("""
            import torch

            class TorchNet(torch.nn.Module):
                def forward(self, x):
                    return x
        """, note="plain PyTorch code"),
    ]
    INVALID = [
        Invalid("""
            import torch.nn as tnn
            import mindspore.nn as nn

            class Migrated(tnn.Module):
                def construct(self, x):
                    return x

            class Half(nn.Cell):
                def forward(self, x):
                    return x
        """, line=[4, 8]),
    ]

    def visit_ClassDef(self, node: ast.ClassDef, ctx) -> None:
        bases = [ctx.qualname(b) or "" for b in node.bases]
        methods = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if any(b.startswith("torch.nn.") and b.endswith("Module") for b in bases) and "construct" in methods:
            ctx.report(node, what=f"`{node.name}` derives from torch.nn.Module but defines `construct`: "
                                  "MindSpore will not compile it", why="", end_node=node.bases[-1])
        elif any(b in ("mindspore.nn.Cell",) for b in bases) and "forward" in methods and "construct" not in methods:
            ctx.report(node, what=f"Cell `{node.name}` defines `forward` but no `construct`",
                       why="MindSpore calls `construct`, so calling this Cell fails (AttributeError).",
                       end_node=node.bases[-1])


def _int_literal(e: ast.AST):
    if isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and isinstance(e.operand.value, int) and not isinstance(e.operand.value, bool):
        return -e.operand.value
    return None


class TorchTensorHabit(Rule):
    code = "MSG505"
    name = "torch-tensor-habit"
    fix_safety = FixSafety.SAFE  # swapaxes (safe); .size() -> .shape and other property calls (unsafe)
    summary = ("A PyTorch habit that means something else on a MindSpore Tensor: a property called as a method "
               "(`x.shape()`, `x.size()`), a two-axis `x.transpose(1, 2)`, or a keyword 2.10's signature lacks "
               "(`ops.softmax(x, dim=-1)`).")
    message = "{what}\n{why}."
    hint = "{advice}"
    severity = Severity.ERROR
    rationale = """
        The check reads MindSpore's real Tensor from the catalog (generated from 2.10:
        `tensor_methods`, with which names are properties), not a list of PyTorch names.

        * A property called as a method. `shape`, `dtype`, `ndim`, `size`, `T`, `itemsize`,
          `nbytes`, `strides`, `device`, `data`... are properties of a MindSpore Tensor:
          `x.shape()` calls a tuple. Measured on 2.10 CPU in a Cell's `construct`:
          `x.shape()[0]`, `x.size()`, `x.dtype()`, `x.ndim()` and `y.T()` each fail to
          compile with `ValueError: The object is not callable.` (PyNative: `TypeError`).
          `x.size()` is the commonest: in PyTorch it returns the shape, in MindSpore `size`
          is the element count (an int).
        * `x.transpose(a, b)` with two axes. In graph mode MindSpore's `Tensor.transpose`
          wants a permutation of every axis (PyTorch swaps two). Measured on 2.10 CPU: on a
          3-D tensor `x.transpose(1, 2)` and `x.transpose(-1, -2)` fail to compile with
          `ValueError: For Tensor.transpose, the number of axes must be equal to the
          dimension of Tensor, but got 2 in the number of axes.`, in a Cell's `construct`
          and in an `@ms.jit` function alike, while PyNative 2.10 accepts the same call
          and swaps the two axes: the code runs eagerly and breaks when compiled. On a 2-D tensor
          `transpose(1, 0)` and `transpose(-1, -2)` are whole permutations and compile.
          So only a pair that names an axis beyond the second (`2` and up, `-3` and
          below) is reported: the tensor then has at least 3 dimensions, and two axes
          cannot be all of them. `x.swapaxes(1, 2)` compiled and swaps like PyTorch.
          A pair in ascending order modulo 2 (`(-2, -1)`, `(0, 1)`, `(0, -1)`) is reported
          whatever the rank: on a 3-D or 4-D tensor it fails to compile as above (measured:
          `k.transpose(-2, -1)` of a 4-D value, `api_pos_transpose_negative_pair_rank4`), and
          on a 2-D tensor it is the identity permutation, so graph mode returns the tensor
          unswapped where PyNative swaps (measured: `ops.matmul(k, k.transpose(-2, -1))` of an
          (8, 4) `k` failed with `For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2],
          but got 4 and 8`, while `(-1, -2)` and `(1, 0)` compiled: `api_neg_transpose_negative_pair_rank2`).
        * A keyword the target's signature of a MindSpore function does not have (and no
          `**kwargs` takes), the PyTorch name most often: `ops.softmax(x, dim=-1)` fails with
          `RuntimeError: Got an unexpected keyword argument 'dim'` at both syntax levels
          (PyNative: a TypeError; `api_pos_softmax_dim_keyword`); `ops.softmax(x, axis=-1)`
          and `mint.nn.functional.softmax(x, dim=-1)` compile. The signatures are the
          catalog's (`params`, from `inspect.signature` of the release).

        Only receivers the value analysis knows as tensors are checked; a bare parameter
        with no tensor use in the body is not. Calls inside a `raise` are skipped: an error
        message under a compile-time shape check is compiled only when the branch is taken
        (found in mindocr: `raise ValueError(f"... {attn_weights.size()}")`).
    """
    VALID = [
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    b, n = x.shape[0], x.size
                    y = x.swapaxes(1, 2)
                    z = ops.transpose(x, (0, 2, 1))
                    w = x.sum(axis=-1).transpose(1, 0)
                    return y, z, w, x.reshape(b, -1) * n
        """, note="properties read as values; swapaxes; a full permutation; a two-axis permutation of a 2-D value"),
    ]
    INVALID = [
        Invalid("""
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x):
                    x = x * 2
                    b = x.size(0)
                    y = x.transpose(1, 2)
                    return y.reshape(b, -1), x.dtype()
        """, line=[6, 7, 8]),
    ]
    def _keyword(self, node: ast.Call, q: str, ctx) -> None:
        """``ops.softmax(x, dim=-1)``: a keyword (PyTorch's, most often) that the target's
        signature of the function lacks. Measured on 2.10 CPU: `RuntimeError: Got an unexpected
        keyword argument 'dim'` at the default level and under STRICT (PyNative: a TypeError)."""
        found = _keyword_habit(ctx.catalog, q, node.keywords)
        if found is None:
            return
        for anc in ctx.ancestors(node):
            if isinstance(anc, (ast.If, ast.IfExp)) and ctx.kind(anc.test).constant:
                return  # under a branch decided at compile time (`if self.size_name == "sizes":`, a
                # signature probe in mindcv's compatibility.py): the other release's spelling may be dead code
        kw, names, alt = found
        short = q.replace("mindspore.", "", 1)
        ctx.report(node, what=f"`{short}` has no parameter `{kw}` in MindSpore {ctx.catalog.version}",
                   why=f"It takes {', '.join('`' + n + '`' for n in names) or 'none by keyword'}: "
                       "the call fails in graph mode and in PyNative alike (`Got an unexpected keyword argument "
                       f"'{kw}'`)",
                   advice=f"pass `{alt}=` (MindSpore's name for it)" if alt else
                   f"use the function's own parameters (`{short}({', '.join(names)})`)",
                   fix=keyword_rename_fix(node, kw, alt) if alt else None)

    _FIX = {"shape": "read `x.shape` (a tuple): `x.shape[0]`", "size": "`x.shape` (or `x.shape[d]`) for the shape; "
            "`x.size` is the element count", "dtype": "read `x.dtype`", "ndim": "read `x.ndim`", "T": "read `x.T`"}

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if node.keywords and isinstance(f, (ast.Attribute, ast.Name)):
            q = ctx.qualname(f)
            if q is not None and q.startswith("mindspore."):
                self._keyword(node, q, ctx)
                return
        if not isinstance(f, ast.Attribute) or ctx.qualname(f.value):
            return
        if not ctx.kind(f.value).tensor_like or _guessed(ctx, f.value):
            return
        if up_the_chain(node, ctx, "under_raise", _raise_decides):
            return  # an error message under a shape check: compiled only if the branch is taken
        info = ctx.catalog.tensor_method(f.attr)
        if info is not None and info.get("property"):
            ctx.report(node, what=f"`{ctx.segment(f)}()` calls `{f.attr}`, a property of MindSpore's Tensor",
                       why="The graph fails to compile (`ValueError: The object is not callable.`)",
                       advice=self._FIX.get(f.attr, f"read `.{f.attr}` without calling it"),
                       fix=property_call_fix(ctx, node, f.attr))
            return
        if f.attr == "transpose" and len(node.args) == 2 and not node.keywords:
            axes = [_int_literal(a) for a in node.args]
            why = _transpose_pair_why(axes)
            if why is not None:
                a, b = axes
                ctx.report(node, what=f"`{ctx.segment(node)}` swaps two axes the PyTorch way", why=why,
                           advice=f"`x.swapaxes({a}, {b})` (or `mint.transpose(x, {a}, {b})`)",
                           fix=swapaxes_fix(node))


# PyTorch's keyword -> the name MindSpore's ops functions give the same parameter
_TORCH_KEYWORDS = {"dim": "axis", "keepdim": "keep_dims", "input": "x", "other": "y", "dims": "axis"}


def _keyword_habit(cat, q: str, keywords):
    """(keyword, the parameters the function takes, the one PyTorch's name stands for or None)
    for the first keyword of a call that the target release's signature of the MindSpore
    function ``q`` lacks (and no ``**kwargs`` takes); None when every keyword is accepted or
    the signature is not recorded."""
    from .version_api import _keywords
    if cat.function(q) is None:
        return None
    sig = _keywords(cat.params(q))
    if sig is None or sig[1]:
        return None
    names, _ = sig
    for kw in keywords:
        if kw.arg is not None and kw.arg not in names:
            if _in_another_release(cat, q, kw.arg):
                return None  # MSG514 reports a keyword another release's signature has
            alt = _TORCH_KEYWORDS.get(kw.arg)
            return kw.arg, sorted(names), (alt if alt in names else None)
    return None


def _in_another_release(cat, q: str, kw: str) -> bool:
    from msgraphlint.infer.catalog import get_catalog, known_versions
    from .version_api import _keywords
    for v in known_versions():
        if v != cat.version:
            sig = _keywords(get_catalog(v).params(q))
            if sig is not None and kw in sig[0]:
                return True
    return False


def _transpose_pair_why(axes) -> Optional[str]:
    """What graph mode does with ``x.transpose(a, b)`` (two int axes, read as a permutation of
    every axis), or None where it equals PyTorch's swap: ``(1, 0)``/``(-1, -2)`` of a 2-D tensor."""
    if None in axes:
        return None
    a, b = axes
    if any(v >= 2 or v <= -3 for v in axes):
        return ("PyNative swaps them, but in graph mode `Tensor.transpose` takes every axis and this tensor has at "
                "least 3: the graph fails to compile (`the number of axes must be equal to the dimension of Tensor`)")
    if a % 2 == 0 and b % 2 == 1:  # (0, 1), (-2, -1), (0, -1), (-2, 1): the identity of a 2-D tensor
        return ("PyNative swaps them, but in graph mode `Tensor.transpose` takes every axis: on a 2-D tensor "
                f"`({a}, {b})` is the identity permutation (nothing is swapped: the result differs from PyNative), "
                "on 3 or more dimensions the graph fails to compile (`the number of axes must be equal to the "
                "dimension of Tensor`)")
    return None


def _guessed(ctx, node: ast.AST) -> bool:
    from msgraphlint.infer.params import SHARED_USES
    return ctx.values is not None and SHARED_USES.guessed(ctx, node)


def _raise_decides(anc: ast.AST, prev: ast.AST):
    """``up_the_chain`` step: True under a ``raise`` (anywhere up to the module)."""
    return True if isinstance(anc, ast.Raise) else None
