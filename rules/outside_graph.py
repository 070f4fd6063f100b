"""MSG540 tokenizer-in-graph and MSG541 generator-dataset-single-worker (field report, 6.1)."""

from __future__ import annotations

import ast

from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid

_STR_METHODS = frozenset({"encode", "decode", "batch_encode", "batch_decode", "tokenize", "convert_tokens_to_ids",
                          "convert_ids_to_tokens", "encode_plus", "batch_encode_plus"})


def _tokenizer_node(node: ast.AST):
    """The part of a call's receiver chain whose name mentions `tokenizer`, or None."""
    while isinstance(node, ast.Attribute):
        if "tokenizer" in node.attr.lower():
            return node
        node = node.value
    return node if isinstance(node, ast.Name) and "tokenizer" in node.id.lower() else None


def _names_tokenizer(node: ast.AST) -> bool:
    return _tokenizer_node(node) is not None


class TokenizerInGraph(Rule):
    code = "MSG540"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tokenizer-in-graph"
    summary = "A tokenizer is called inside graph-mode code."
    message = ("tokenizer call in graph code ({where}) cannot be compiled\n"
               "Tokenization is Python string work that cannot be compiled into the graph.")
    hint = "tokenize offline or in the dataset pipeline (`dataset.map(operations=tokenize, num_parallel_workers=N)`) and feed token ids"
    severity = Severity.ERROR
    rationale = """
        The field report (6.1) saw training speed halve because `construct` called a
        tokenizer. Graph mode cannot compile string processing: MindSpore 2.10 either
        rejects it or runs it through the interpreter fallback (PyExecute), which cuts
        the graph and runs Python on every step (see MSG401). Tokenize before the model:
        offline, or as a dataset `map` operation with parallel workers. A receiver whose
        name mentions `tokenizer` (a local, a parameter or `self.tokenizer`) is what is
        recognised; calls in `__init__` and outside graph code are fine, and so is a
        receiver that is a Cell: vision transformers call their convolutional patch
        embedding a "Tokenizer" (CCT's `self.tokenizer = Tokenizer(...)`, a Cell of
        `Conv2d`/`MaxPool2d`), and calling it is a sub-Cell call that compiles into the
        graph (labeled fixture `fallback_neg_conv_tokenizer_cell`: no fallback node).
    """
    VALID = [
        Valid("""
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self, tokenizer):
                    super().__init__()
                    self.pad_id = tokenizer.pad_token_id  # __init__: Python
                    self.vocab = len(tokenizer.encode("hello"))

                def construct(self, ids):
                    return ids * 2
        """),
        Valid("""
            from mindspore import nn

            class Tokenizer(nn.Cell):
                def __init__(self, channels, dim):
                    super().__init__()
                    self.conv = nn.Conv2d(channels, dim, 3)
                    self.pool = nn.MaxPool2d(3, 2)

                def construct(self, x):
                    return self.pool(self.conv(x)).flatten(start_dim=2).swapaxes(1, 2)

            class CCT(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tokenizer = Tokenizer(3, 64)

                def construct(self, x):
                    return self.tokenizer(x)
        """, note="a convolutional patch 'Tokenizer' Cell (Compact Convolutional Transformer): a sub-Cell"),
    ]
    INVALID = [
        Invalid("""
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self, tokenizer):
                    super().__init__()
                    self.tokenizer = tokenizer

                def construct(self, text):
                    ids = self.tokenizer(text)
                    more = self.tokenizer.encode(text)
                    return ids
        """, line=[9, 10]),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        tok = _tokenizer_node(f)
        if tok is not None and (not isinstance(f, ast.Attribute) or f.attr in _STR_METHODS
                                or "tokenizer" in f.attr.lower()):
            if ctx.is_cell(tok):
                return  # a Cell named Tokenizer (a convolutional patch tokenizer): a sub-Cell call
            ctx.report(node, where=ctx.scope.short_name if ctx.scope else "graph code")


class GeneratorDatasetSingleWorker(Rule):
    code = "MSG541"
    default = False
    default_reason = "informational: whether one worker starves the device depends on how heavy the source is, which the code does not show"
    requires_text = ("GeneratorDataset",)
    name = "generator-dataset-single-worker"
    summary = "`GeneratorDataset` over a Python source without `num_parallel_workers` (informational)."
    message = ("`GeneratorDataset` without `num_parallel_workers`: {default} worker(s)\n"
               "The Python source runs in {default} worker(s); a heavy source starves the device.")
    hint = "pass `num_parallel_workers=N` (and `python_multiprocessing=True` for CPU-heavy Python sources)"
    severity = Severity.INFO
    scope = "module"
    rationale = """
        The field report (6.1) gets its data loading out of the critical path with
        `num_parallel_workers` and prefetching. `mindspore.dataset.GeneratorDataset`
        runs the Python source with its default number of workers (1 in 2.10's
        signature) unless told otherwise. Informational (off by default): a light source
        is fine, and the code rarely shows how heavy the source is. An outside review of
        real code found most findings (702) in dataset unit tests on toy generators, which
        is advice at best: sources already in memory (a list, a comprehension, `range`,
        a NumPy array) and calls inside `test_*` functions or `Test*` classes are not
        reported.
    """
    VALID = [
        Valid("""
            import mindspore.dataset as ds
            data = ds.GeneratorDataset(source, ["ids"], num_parallel_workers=8)
        """),
        Valid("""
            import numpy as np
            import mindspore.dataset as ds

            def test_batch():
                def gen():
                    for i in range(4):
                        yield (np.array([i]),)
                data = ds.GeneratorDataset(gen, ["x"]).batch(2)
                assert data.get_dataset_size() == 2
        """, note="a unit test of the pipeline on a toy generator"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.dataset as ds
            data = ds.GeneratorDataset(source, column_names=["ids"], shuffle=True)
        """, line=2),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.qualname(node.func) != "mindspore.dataset.GeneratorDataset":
            return
        if any(k.arg in ("num_parallel_workers", None) for k in node.keywords) or len(node.args) >= 6:
            return
        source = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "source"), None)
        if source is not None and _in_memory(source, ctx):
            return  # data already in memory: nothing for more workers to do
        if _in_unit_test(node, ctx):
            return  # a unit test of the pipeline on a toy source
        ctx.report(node, default=1)


_IN_MEMORY_CALLS = ("numpy.", "range", "list", "zip")


def _in_memory(source: ast.AST, ctx) -> bool:
    """A literal, a comprehension, ``range``/``zip``/``list(...)``, or a NumPy array: the
    items are already computed; the one worker only indexes them."""
    if isinstance(source, (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp, ast.Constant)):
        return True
    if isinstance(source, ast.Call):
        q = ctx.qualname(source.func) or (source.func.id if isinstance(source.func, ast.Name) else "")
        return q.startswith(_IN_MEMORY_CALLS)
    return False


def _in_unit_test(node: ast.AST, ctx) -> bool:
    """Inside a pytest/unittest test function (``def test_…``) or a ``Test…`` class: the
    evidence review found these build toy generators to test the pipeline itself."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and anc.name.startswith("test"):
            return True
        if isinstance(anc, ast.ClassDef) and anc.name.startswith("Test"):
            return True
    return False
