"""Script-level setup: MSG550 checkpoint-parallel-mismatch, MSG560 graph-mode-never-set
(field report, 6.3 and 4.1)."""

from __future__ import annotations

import ast
import re
from msgraphlint.parse.astutil import unparse, walk
from msgraphlint.rule import Invalid, Rule, Severity, Valid

_LOADS = frozenset({"mindspore.load_checkpoint", "mindspore.train.serialization.load_checkpoint",
                    "mindspore.load_param_into_net"})
_TRANSFORMS = ("transform_checkpoints", "load_distributed_checkpoint", "transform_checkpoint_by_rank",
               "load_segmented_checkpoints", "unified_safetensors", "merge_sliced_parameter", "load_parallel_checkpoint",
               "convert_checkpoint", "src_strategy", "strategy_ckpt")
_SHARDED_MODE = re.compile(r"(?i)(?<![a-z_])(semi_)?auto_parallel(?![a-z_])")
_TRAIN_CALLS = frozenset({"mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell",
                          "mindspore.value_and_grad", "mindspore.ops.value_and_grad", "mindspore.grad",
                          "mindspore.train.Model", "mindspore.Model"})


class CheckpointParallelMismatch(Rule):
    code = "MSG550"
    default = False
    default_reason = "informational: the checkpoint may already be sharded or converted elsewhere"
    requires_text = ("load_checkpoint", "load_param_into_net")
    name = "checkpoint-parallel-mismatch"
    summary = "`load_checkpoint` in a script that sets (semi-)auto parallel mode, with no distributed checkpoint transform (informational)."
    message = ("checkpoint loaded in a {mode} script without a distributed transform\n"
               "Without a distributed-checkpoint transform, a single-device checkpoint's shapes will not match the "
               "sharded parameters.")
    hint = "convert first (`mindspore.transform_checkpoints(...)` / MindFormers' checkpoint transform) or load with `mindspore.load_distributed_checkpoint`"
    severity = Severity.INFO
    scope = "module"
    rationale = """
        The field report (6.3): "initialising multi-device training from a single-device
        checkpoint: parameter shapes don't match, a pile of errors". Under tensor
        parallelism each device holds a slice; a full checkpoint must be transformed to
        the sharding strategy first. Only scripts that both set `parallel_mode` to
        semi-auto/auto parallel and call `load_checkpoint`/`load_param_into_net` are
        considered, and any mention of a transform API silences the rule, so
        single-device scripts are never flagged.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            params = ms.load_checkpoint("model.ckpt")
        """, note="single-device script"),
        Valid("""
            import mindspore as ms
            from mindspore import ParallelMode
            ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)
            ms.load_checkpoint("m.ckpt")
        """, note="data parallel: every device holds the whole model (found in mindyolo)"),
        Valid("""
            import mindspore as ms
            ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
            ms.transform_checkpoints("src", "dst", "rank", "src.ckpt", "dst.ckpt")
            params = ms.load_checkpoint("dst/rank_0/checkpoint_0.ckpt")
        """),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
            params = ms.load_checkpoint("gpt_single_device.ckpt")
        """, line=3),
    ]

    def check_module(self, ctx) -> None:
        text = ctx.source.text
        if "load_checkpoint" not in text and "load_param_into_net" not in text:
            return
        if "parallel_mode" not in text or any(t in text for t in _TRANSFORMS):
            return
        mode = None
        for node in walk(ctx.source.tree):  # the value given to parallel_mode=, not any mention
            if isinstance(node, ast.keyword) and node.arg == "parallel_mode":
                m = _SHARDED_MODE.search(ctx.segment(node.value))
                if m:
                    mode = m.group(0)
                    break
        if mode is None:
            return
        for node in walk(ctx.source.tree):
            if isinstance(node, ast.Call) and ctx.qualname(node.func) in _LOADS:
                ctx.report(node, mode=mode.lower().replace("_", "-"))
                return


class GraphModeNeverSet(Rule):
    code = "MSG560"
    default = False
    default_reason = "informational: PyNative is a legitimate choice (debugging, dynamic models); the finding is advice"
    requires_text = ("__main__",)
    name = "graph-mode-never-set"
    summary = "A training script never switches to GRAPH_MODE nor uses `jit` (informational)."
    message = ("this script trains in PyNative mode: no GRAPH_MODE, no `jit`\n"
               "It trains a model but never sets GRAPH_MODE or uses `jit`: MindSpore 2.x runs it in PyNative mode, "
               "without graph compilation or kernel fusion.")
    hint = "`mindspore.set_context(mode=mindspore.GRAPH_MODE)` before building the network, or decorate the train step with `@mindspore.jit`"
    severity = Severity.INFO
    scope = "module"
    rationale = """
        MindSpore 2.x defaults to PYNATIVE_MODE. The field report (4.1) stresses that
        `mode=ms.GRAPH_MODE` "is the key line that turns the static graph on, the
        premise of every optimisation after it": without it (or `@jit`), no graph is
        compiled and no fusion happens. Only modules that run as scripts (an
        `if __name__ == "__main__":` block) and build a training step
        (`TrainOneStepCell`, `value_and_grad`, `Model`) are considered.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import nn
            ms.set_context(mode=ms.GRAPH_MODE)
            if __name__ == "__main__":
                step = nn.TrainOneStepCell(net, opt)
        """),
        Valid("""
            import mindspore as ms

            @ms.jit
            def train_step(x):
                return grad_fn(x)

            if __name__ == "__main__":
                grad_fn = ms.value_and_grad(forward, None, weights)
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            def build(net, opt):
                return nn.TrainOneStepCell(net, opt)  # a library module, not a script
        """),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            def main(args):
                ms.set_context(mode=args.mode)
                step = nn.TrainOneStepCell(net, opt)

            if __name__ == "__main__":
                main(parse_args())
        """, note="the mode comes from the run config"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            def main():
                step = nn.TrainOneStepCell(net, opt)
                step(x, y)

            if __name__ == "__main__":
                main()
        """, line=5),
    ]

    def check_module(self, ctx) -> None:
        text = ctx.source.text
        if "__main__" not in text or _sets_mode(text):
            return
        tree = ctx.source.tree
        if not any(isinstance(n, ast.If) and "__main__" in ctx.segment(n.test) for n in tree.body):
            return
        train = next((n for n in walk(tree) if isinstance(n, ast.Call) and ctx.qualname(n.func) in _TRAIN_CALLS), None)
        if train is None or _mode_from_config(tree, ctx) or _imported_module_sets_mode(ctx):
            return
        ctx.report(train)


_MODE_TEXT = re.compile(r"mode\s*=\s*0\b")


def _sets_mode(text: str) -> bool:
    return "GRAPH_MODE" in text or "jit" in text or bool(_MODE_TEXT.search(text))


def _mode_from_config(tree: ast.Module, ctx) -> bool:
    """The mode comes from the run's configuration: ``set_context(mode=args.mode)`` (any
    value that is not a literal), ``set_context(**cfg)``, or a context builder that reads a
    config (MindFormers' ``build_context(config)``, ``init_context(...)``)."""
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        q = ctx.qualname(node.func) or ""
        last = q.rsplit(".", 1)[-1] if q else (node.func.attr if isinstance(node.func, ast.Attribute) else
                                               getattr(node.func, "id", ""))
        if last in ("set_context", "set_mode"):
            for kw in node.keywords:
                if kw.arg is None or (kw.arg == "mode" and not isinstance(kw.value, ast.Constant)
                                      and "PYNATIVE" not in (ctx.segment(kw.value) or "")):
                    return True
        elif last in ("build_context", "init_context", "set_context_from_config", "init_env", "context_init") \
                and (node.args or node.keywords):
            return True
    return False


def _imported_module_sets_mode(ctx) -> bool:
    """A project module this script imports sets GRAPH_MODE (or uses jit, or takes the mode
    from a config): found next to the script or above it, one import level deep."""
    import os
    here = os.path.dirname(os.path.abspath(ctx.path))
    roots = [here]
    for _ in range(3):
        parent = os.path.dirname(roots[-1])
        if parent == roots[-1]:
            break
        roots.append(parent)
    seen = set()
    for dotted in ctx.imports.names.values():
        if dotted.startswith(("mindspore", "numpy", "os", "sys")):
            continue
        parts = dotted.split(".")
        for n in (len(parts), len(parts) - 1):  # `pkg.mod` or `pkg.mod.func`
            if n < 1:
                continue
            rel = os.path.join(*parts[:n])
            for root in roots:
                for cand in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
                    if cand in seen or not os.path.isfile(cand):
                        continue
                    seen.add(cand)
                    src = ctx.source_of(cand)  # an editor's unsaved buffer first, decoded as any linted file
                    if src is None:
                        continue
                    other = src.text
                    if _sets_mode(other):
                        return True
                    if "set_context" in other or "context" in other:
                        tree = ctx.tree_of(cand)
                        if tree is not None and _mode_from_config(tree, _NameOnly()):
                            return True
    return False


class _NameOnly:
    """A stand-in context for another module: names are read as written."""

    @staticmethod
    def qualname(node):
        return None

    @staticmethod
    def segment(node):
        return unparse(node)
