"""MSG510 dropout-keep-prob and MSG520 dropout-ignores-mode (field report, 5.1)."""

from __future__ import annotations

import ast

from msgraphlint.findings import Edit, Fix
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid

_FUNCTIONAL = frozenset({"mindspore.ops.dropout", "mindspore.mint.nn.functional.dropout",
                         "mindspore.ops.function.nn_func.dropout", "mindspore.nn.functional.dropout"})


class DropoutKeepProb(Rule):
    code = "MSG510"
    requires_text = ("Dropout",)
    name = "dropout-keep-prob"
    summary = "`nn.Dropout` given `keep_prob` (deprecated), or a positional rate that MindSpore reads as `keep_prob`."
    message = "{what}\n{why}"
    hint = "write `nn.Dropout(p=<drop probability>)`"
    severity = Severity.WARNING
    scope = "module"
    fix_safety = FixSafety.SAFE
    rationale = """
        MindSpore 2.10's signature is `nn.Dropout(keep_prob=0.5, p=None, dtype=...)`:
        `keep_prob` is the probability of KEEPING an element, is deprecated ("For
        Dropout, this parameter `keep_prob` will be deprecated, please use `p`
        instead", logged by 2.10) and documented to be removed. A positional argument
        still binds to `keep_prob`: `nn.Dropout(0.1)` — a PyTorch habit meaning "drop
        10%" — keeps 10% and drops 90% (measured: `nn.Dropout(0.9).keep_prob == 0.9`,
        `.p is None`; a training-mode `nn.Dropout(0.1)` zeroes 90% of a ones tensor,
        `nn.Dropout(p=0.1)` 10%). That case is an error; `keep_prob=` is a warning.

        Fix (safe, same behaviour): `keep_prob=k` → `p=1 - k` (a literal is folded:
        `keep_prob=0.9` → `p=0.1`). No fix in a branch of a version test (`if MS_VERSION
        <= "1.10.1":`, `if is_version_ge(ms.__version__, ...)` ... `else:`): that branch
        is for the releases before `p` existed (1.x), which reject `p=`.

        A positional `k` has two readings, and only its author knows which one is meant,
        so `--fix` and `--unsafe-fixes` leave it alone. The message names both, and the
        finding carries both as alternative fixes (`Finding.alternatives`, which nothing
        applies on its own): `p=1 - k` (`nn.Dropout(0.1)` → `p=0.9`) keeps what the code
        does today, drops 90%; `p=k` (`p=0.1`) is what a PyTorch author meant, drops
        10%, and changes training. Applying the first silently would also silence the
        warning on what is almost always a bug.

        A project that rebinds `nn.Dropout` to its own `p`-first class (`nn.Dropout =
        MyDropout`, in the module or one it imports) calls its own class: not reported.
    """
    VALID = [
        Valid("""
            from mindspore import nn
            drop = nn.Dropout(p=0.1)
        """),
        Valid("""
            import torch.nn as nn
            drop = nn.Dropout(0.1)
        """, note="PyTorch's Dropout"),
    ]
    INVALID = [
        Invalid("""
            from mindspore import nn
            drop = nn.Dropout(keep_prob=0.9)
        """, line=2, expected_fix="""
            from mindspore import nn
            drop = nn.Dropout(p=0.1)
        """),
        Invalid("""
            import mindspore.nn as nn
            drop = nn.Dropout(0.1)
        """, line=2, note="drops 90%: two readings, no automatic fix (p=0.9 keeps it, p=0.1 is PyTorch's)"),
        Invalid("""
            import mindspore.nn as nn
            def make(rate):
                return nn.Dropout(keep_prob=1.0 - rate)
        """, line=3, expected_fix="""
            import mindspore.nn as nn
            def make(rate):
                return nn.Dropout(p=1 - (1.0 - rate))
        """),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.qualname(node.func) != "mindspore.nn.Dropout":
            return
        kw = next((k for k in node.keywords if k.arg == "keep_prob"), None)
        if kw is not None:
            guard = _version_test(node, ctx)
            why = "`keep_prob` is the probability to keep; `p` is the probability to drop."
            if guard:
                why += (f" No fix: this branch runs under `{guard}`, for the MindSpore releases before"
                        " `p` existed (1.x), which reject `p=`.")
            ctx.report(kw, what="`keep_prob` is deprecated in MindSpore 2.x: use `p`", why=why,
                       fix=None if guard else self._fix(kw, kw.value, ctx, keyword=True))
        elif node.args and not any(k.arg == "p" for k in node.keywords):
            arg = node.args[0]
            val = ctx.segment(arg)
            keep = self._fix(arg, arg, ctx, keyword=False)
            meant = Fix(f"use p={val} (PyTorch's reading: drop {val}; changes what the code does)",
                        (Edit(arg.lineno, arg.col_offset, arg.end_lineno, arg.end_col_offset, f"p={val}"),),
                        FixSafety.UNSAFE)
            new = keep.edits[0].text
            k = _number(arg)
            if k is not None and 0 <= k <= 1:
                what = f"`nn.Dropout({val})` binds {val} to `keep_prob`: it drops {_pct(1 - k)}, not {_pct(k)}"
                why = (f"MindSpore reads it as `keep_prob`: it keeps {_pct(k)} and drops "
                       f"{_pct(1 - k)} of the values (PyTorch's `Dropout({val})` drops {_pct(k)}); write `p=` "
                       f"explicitly: `{new}` keeps what it does now (drops {_pct(1 - k)}), `p={val}` is what a "
                       f"PyTorch author meant (drops {_pct(k)}).")
            else:
                what = f"`nn.Dropout({val})` binds {val} to `keep_prob` in MindSpore"
                why = (f"It KEEPS {val} of the values "
                       f"(PyTorch's `Dropout({val})` drops {val}); write `p=` explicitly: `{new}` keeps what it does "
                       f"now, `p={val}` is what a PyTorch author meant.")
            # two readings: no `fix` (--fix / --unsafe-fixes would have to guess); both are offered
            ctx.report(arg, what=what, why=why, alternatives=(
                Fix(f"use {new} (keeps today's behaviour: MindSpore reads {val} as keep_prob)", keep.edits,
                    FixSafety.UNSAFE, drops=keep.drops), meant))

    @staticmethod
    def _fix(target, value, ctx, keyword: bool):
        drops = ("keep_prob",) if keyword else ()
        if _number(value) is not None:
            new = repr(round(1 - _number(value), 10))
            drops += (ctx.segment(value),)  # the literal is folded
        else:
            seg = ctx.segment(value)
            new = f"1 - {seg}" if isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"1 - ({seg})"
        return Fix("use p = 1 - keep_prob", (Edit(target.lineno, target.col_offset, target.end_lineno,
                                                  target.end_col_offset, f"p={new}"),), FixSafety.SAFE,
                   proof="MindSpore 2.10's Dropout computes p = 1 - keep_prob when p is not given (the same mask rate)",
                   drops=drops)


def _version_test(node: ast.AST, ctx):
    """The test of an enclosing `if` (or conditional expression) whose branch holds
    ``node`` and whose text names a version (`MS_VERSION <= "1.10.1"`,
    `is_version_ge(ms.__version__, "1.11.0")`), else None: code kept for other releases."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.If, ast.IfExp)) and child is not anc.test:
            text = " ".join(ctx.segment(anc.test).split())
            if "version" in text.lower():
                return text
        child = anc
    return None


def _number(node: ast.AST):
    """The value of an int or float literal, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _pct(x: float) -> str:
    return f"{round(x * 100, 6):g}%"


def _is_flag(node: ast.AST) -> bool:
    """``self.training``, ``is_training``, ``self.is_train``, ``config.training``: a mode flag."""
    name = node.attr if isinstance(node, ast.Attribute) else (node.id if isinstance(node, ast.Name) else "")
    return "train" in name.lower()


def _flag_true(test: ast.AST) -> bool:
    """The test holds only when the flag is true: ``flag``, ``flag and …``, ``flag is True``."""
    if _is_flag(test):
        return True
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_flag_true(v) for v in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_flag(test.left) \
            and isinstance(test.ops[0], (ast.Is, ast.Eq)) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is True:
        return True
    return False


def _flag_false(test: ast.AST) -> bool:
    """The test holds when the flag is false: ``not flag``, ``not flag or …``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _flag_true(test.operand)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_flag_false(v) for v in test.values)
    return False


def _exits(body) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _guarded_by_training_flag(node: ast.AST, ctx) -> bool:
    """The dropout only runs in training: under ``if self.training:`` / ``if is_training:``
    (or the ``else`` of ``if not self.training``), in ``… if self.training else x``, or after
    ``if not self.training: return x`` in the same block."""
    prev: ast.AST = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.If, ast.IfExp)):
            body = anc.body if isinstance(anc.body, list) else [anc.body]
            orelse = anc.orelse if isinstance(anc.orelse, list) else [anc.orelse]
            if any(prev is b for b in body) and _flag_true(anc.test):
                return True
            if any(prev is b for b in orelse) and _flag_false(anc.test):
                return True
        for field in ("body", "orelse"):
            block = getattr(anc, field, None)
            if isinstance(block, list) and any(prev is b for b in block):
                for stmt in block[:block.index(prev)]:
                    if isinstance(stmt, ast.If) and _flag_false(stmt.test) and _exits(stmt.body):
                        return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        prev = anc
    return False


class DropoutIgnoresMode(Rule):
    code = "MSG520"
    name = "dropout-ignores-mode"
    summary = "Functional dropout in `construct` without `training=self.training` keeps dropping in evaluation."
    message = "`{name}(...)` defaults to training=True: it drops at evaluation too\nIt keeps dropping at evaluation time."
    hint = "pass `training=self.training` (or use an `nn.Dropout` sub-Cell, which follows `set_train`)"
    severity = Severity.WARNING
    fix_safety = FixSafety.UNSAFE
    rationale = """
        The field report (5.1) lost a day to "validation results do not match": the
        functional dropout does not know about `Cell.set_train(False)`. In MindSpore
        2.10 `ops.dropout(input, p=0.5, training=True, seed=None)` and
        `mint.nn.functional.dropout(input, p=0.5, training=True, inplace=False)` default
        to `training=True` (read from their signatures), so evaluation keeps zeroing
        activations. `self.training` is a compile-time constant in graph mode (no
        control flow is added).

        Fix (unsafe — it changes evaluation results, which is the point): append
        `training=self.training`.
    """
    VALID = [
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.dropout(x, p=0.1, training=self.training)
        """),
        Valid("""
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(p=0.1)

                def construct(self, x):
                    return self.drop(x)
        """, note="the Cell follows set_train"),
        Valid("""
            from mindspore import ops
            def augment(x):
                return ops.dropout(x, p=0.1)  # not graph code
        """),
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def __init__(self, is_training=True):
                    super().__init__()
                    self.is_training = is_training

                def construct(self, x):
                    if self.training:
                        x = ops.dropout(x, p=0.1)
                    if self.is_training and x.ndim > 1:
                        x = ops.dropout(x, p=0.1)
                    return x
        """, note="already guarded by the mode flag (a compile-time constant)"),
    ]
    INVALID = [
        Invalid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.dropout(x, p=0.1)
        """, line=5, expected_fix="""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.dropout(x, p=0.1, training=self.training)
        """),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.qualname(node.func)
        if q not in _FUNCTIONAL:
            return
        if any(k.arg == "training" for k in node.keywords) or len(node.args) >= 3 or any(
                k.arg is None for k in node.keywords):
            return
        if _guarded_by_training_flag(node, ctx):
            return
        fix = None
        if ctx.scope is not None and ctx.scope.class_name and node.end_lineno is not None:
            # insert before the closing parenthesis
            last = node.keywords[-1].value if node.keywords else (node.args[-1] if node.args else None)
            if last is not None:
                fix = Fix("pass training=self.training",
                          (Edit(last.end_lineno, last.end_col_offset, last.end_lineno, last.end_col_offset,
                                ", training=self.training"),), FixSafety.UNSAFE)
        short = ctx.segment(node.func)
        ctx.report(node, name=short, fix=fix)
