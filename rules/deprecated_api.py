"""MSG513 deprecated-api: a MindSpore API that MindSpore itself marks deprecated.

The facts are MindSpore's: ``scripts/gen_catalog.py`` records what the installed MindSpore
marks deprecated (its ``@deprecated`` decorator, ``mark_deprecated`` modules, docstring
notices) with the version and the replacement MindSpore names, into the catalog's
``deprecated`` table. This rule only reads it.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from msgraphlint.findings import Edit, Fix
from msgraphlint.parse.astutil import walk_statements
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid

PREFILTER = True  # tests/test_deprecated_prefilter.py checks that the findings are the same without it
# names other rules own: MSG512 (legacy-profiler)
_OWNED = frozenset({"mindspore.Profiler"})


def _version(v: str):
    out = []
    for part in v.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    while len(out) < 3:
        out.append(0)
    return tuple(out)


class DeprecatedApi(Rule):
    code = "MSG513"
    name = "deprecated-api"
    summary = ("A MindSpore function, class, `ops.operations` primitive class, module or Tensor method that the "
               "target MindSpore itself marks deprecated, with the replacement MindSpore names.")
    message = "`{spelled}` is deprecated{since}: {use}\nMindSpore {target} warns when it is used."
    severity = Severity.WARNING
    tier = "deprecation"
    scope = "graph"   # Tensor methods are judged with graph value kinds; names in check_module, everywhere
    requires_text = ("mindspore",)
    fix_safety = FixSafety.SAFE
    rationale = """
        Part of the deprecation tier (on by default, with MSG620): what the target
        MindSpore itself marks deprecated, one line naming the replacement MindSpore names.

        MindSpore marks APIs deprecated in three ways, and the catalog records all of them
        from each release (`scripts/gen_catalog.py`, table `deprecated`):
        the `@deprecated(version, substitute)` decorator (MindSpore logs a warning when the
        API is used), `mark_deprecated(__name__, new_module)` at the top of a moved module
        (a warning on import), and the docstring notice ("This interface is deprecated and
        will be removed after version 2.9.0"). Only the first two are reported: they are
        the ones MindSpore warns about at run time. Docstring-only notices are not (2.10's
        docs mark even `ops.assign` and `nn.Momentum` deprecated, with no warning and no
        replacement named), nor are pending notices ("will be deprecated").

        What is reported: module functions and classes (`ops.batch_dot`, `nn.MatMul`), the
        primitive classes of `mindspore.ops.operations` in any spelling (`P.GatherV2()`,
        `P.TensorAdd()`), moved modules (at their import), and Tensor methods
        (`x.ptp(axis=1)`, `x.scatter_mul(...)`) on a value that is a Tensor: by graph value
        kinds in graph code, elsewhere when MindSpore made it where it is used
        (`ms.Tensor(...)`, a MindSpore function returning a tensor, a local bound to one).

        Measured on MindSpore 2.10 CPU (labeled fixtures `api_pos_deprecated_*`, which
        record MindSpore's warning lines): `ops.Unpack(axis=0)` logs `'Unpack' is
        deprecated from version 1.1 and will be removed in a future version, use 'Unstack'
        instead.` when the Cell is built, `P.TensorAdd()` `... use 'Add' instead.`,
        `P.GatherV2()` `... use 'Gather' instead.`, `x.ptp(axis=1)` `'Tensor.ptp' is
        deprecated from version 2.8.0 ...` when called; `ops.random_gamma` logs
        `'RandomGamma' is deprecated from version 2.10.0` when called. `ops.DynamicShape()`
        warns `use 'ops.shape' instead` and then does not compile in graph mode
        (`RuntimeError: Operator 'DynamicShape' is invalid`). The message names the
        replacement MindSpore itself names, never one of ours.

        Version gate: the rule follows `target-mindspore` (or the project's pin, see
        MSG514) and reads the target release's own catalog: what that release marks
        deprecated (measured: `ops.batch_dot` carries `@deprecated("2.8.0")` from 2.8.0 on,
        2.7.x does not mark it; `ops.tensor_scatter_mul` gets the decorator, since 2.9.0,
        only in 2.10.0, so a 2.8 or 2.9 target is not told). An API deprecated since a
        version newer than the target is not reported; an API whose deprecation carries no
        version is reported only for targets at or after its catalog's release.

        Fix: the rename to the replacement, when MindSpore names one in the same namespace
        and the spelling is `module.Name` (`P.TensorAdd` -> `P.Add`). Safe when the catalog
        records the same parameters for both (constructor, and for primitive classes the
        same number of inputs): `TensorAdd`/`Add`, `FastGelu`/`FastGeLU`, `Gelu`/`GeLU`,
        `Pack`/`Stack`, `ScatterNonAliasingAdd`/`TensorScatterAdd`, `accumulate_n`/`addn`
        (CI compiles and runs each safe fix of the examples in both modes). Unsafe when the
        replacement only adds optional parameters (`GatherV2` -> `Gather(batch_dims=0)`,
        `Unpack` -> `Unstack(num=None)`): same call, a signature that differs. No fix
        otherwise (`ops.Expand` -> `BroadcastTo` takes the shape in its constructor).
    """
    VALID = [
        Valid("""
            from mindspore import ops
            unstack = ops.Unstack(axis=0)
            y = ops.matmul(a, b)
        """, note="the replacements"),
        Valid("""
            from mindspore import ops
            from mindspore.context import ParallelMode
            x = ops.expand(a, shape)
            mode = ParallelMode.DATA_PARALLEL
        """, note="`ops.expand` is only announced ('will be deprecated'): pending notices are not reported"),
        Valid("""
            import numpy as np
            a = np.ones((2, 3))
            r = a.ptp(axis=1)
        """, note="`ptp` of a NumPy array, not of a Tensor"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.ops as ops
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.unpack = ops.Unpack(axis=0)
                    self.mm = nn.MatMul()

                def construct(self, x):
                    return self.mm(self.unpack(x)[0], x[1])
        """, line=[7, 8]),
        Invalid("""
            from mindspore.common.api import jit

            @jit
            def fn(x):
                return x * 2
        """, line=1, note="a moved module (mark_deprecated): MindSpore names the new spelling"),
        Invalid("""
            from mindspore import nn
            import mindspore.ops.operations as P

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.add = P.TensorAdd()

                def construct(self, x):
                    return self.add(x, x)
        """, line=7, note="a deprecated primitive class, same signature as its replacement: a safe rename",
                expected_fix="""
            from mindspore import nn
            import mindspore.ops.operations as P

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.add = P.Add()

                def construct(self, x):
                    return self.add(x, x)
        """),
        Invalid("""
            import mindspore.ops.operations as P
            gather = P.GatherV2()
        """, line=2, note="deprecated since 1.1; `Gather` adds `batch_dims=0`: an unsafe rename"),
        Invalid("""
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x):
                    return x.ptp(axis=1)
        """, line=5, note="a Tensor method MindSpore deprecates (since 2.8.0)"),
    ]

    # ------------------------------------------------------------------ graph code: Tensor methods
    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or f.attr not in _tensor_names(ctx.catalog):
            return
        if ctx.qualname(f.value) or not ctx.is_tensor(f.value):
            return
        self._check(ctx, f, f"mindspore.Tensor.{f.attr}", spelled=f"Tensor.{f.attr}")

    # ------------------------------------------------------------------ the whole module: names
    def check_module(self, ctx) -> None:
        cat = ctx.catalog
        lasts = _last_names(cat)
        methods = _tensor_names(cat)
        spans = [(fn.lineno, getattr(fn, "end_lineno", fn.lineno)) for _, fn in ctx.graph_scopes]
        names = ctx.imports.names
        if PREFILTER and not _may_report(ctx, cat, lasts, methods, names):
            return  # (MSG514 then walks the module only if its own text test says so)
        memo: dict = {}
        from .version_api import module_refs  # one walk for MSG513 and MSG514
        for node, scope, kind in module_refs(ctx.source.tree, names, cat):
            if kind == "attr":
                if node.attr in lasts:
                    dotted = ctx.imports.dotted(node, normalized=False)
                    if dotted is not None:
                        self._check_name(ctx, node, dotted)
            elif kind == "name":
                if node.id in names:
                    dotted = names[node.id]
                    if "." in dotted and dotted.rsplit(".", 1)[-1] in lasts:
                        self._check_name(ctx, node, dotted)
            elif kind == "call":
                f = node.func
                if f.__class__ is ast.Attribute and f.attr in methods and not any(a <= node.lineno <= b for a, b in spans) \
                        and not ctx.imports.dotted(f.value) and _made_tensor(f.value, scope, ctx, memo):
                    self._check(ctx, f, f"mindspore.Tensor.{f.attr}", spelled=f"Tensor.{f.attr}")
            elif kind == "importfrom":
                if not node.level and node.module and node.module.startswith("mindspore."):
                    entry = cat.deprecation(node.module)
                    if entry is not None and entry.get("kind") == "module":
                        self._check(ctx, node, node.module)
            else:  # import
                for a in node.names:
                    if a.name.startswith("mindspore."):
                        entry = cat.deprecation(a.name)
                        if entry is not None and entry.get("kind") == "module":
                            self._check(ctx, node, a.name)
                            break

    def _check_name(self, ctx, node: ast.AST, dotted: str) -> None:
        entry = ctx.catalog.deprecation(dotted)
        if entry is None or entry.get("kind") == "module":
            return  # a moved module is reported once, at its import
        self._check(ctx, node, dotted)

    def _check(self, ctx, node: ast.AST, dotted: str, spelled: Optional[str] = None) -> None:
        entry = _reportable(ctx, dotted)
        if entry is None:
            return
        cat = ctx.catalog
        since = entry.get("since")
        use = entry.get("use")
        if not use or use.startswith("mindspore._"):
            said = "MindSpore names no replacement"
        else:
            said = f"use `{_short(use)}`"
        if spelled is None:
            spelled = dotted if isinstance(node, (ast.Import, ast.ImportFrom)) else (ctx.segment(node) or dotted)
        fix = self._fix(ctx, node, dotted, use) if isinstance(node, ast.Attribute) and use else None
        ctx.report(node, spelled=spelled, since=f" since {since}" if since else "",
                   target=ctx.target_version or cat.version, use=said, fix=fix)

    @staticmethod
    def _fix(ctx, node: ast.Attribute, dotted: str, use: str) -> Optional[Fix]:
        """``module.Old`` -> ``module.New`` where MindSpore's replacement lives beside the
        deprecated name (see the rationale for when it is safe)."""
        cat = ctx.catalog
        if dotted.startswith("mindspore.Tensor.") or not use.startswith("mindspore."):
            return None
        old_canon, new_canon = cat.canonical(dotted), cat.canonical(use)
        if old_canon.rsplit(".", 1)[0] != new_canon.rsplit(".", 1)[0]:
            return None
        new_last = new_canon.rsplit(".", 1)[-1]
        parent = dotted.rsplit(".", 1)[0]
        if not new_last.isidentifier() or not cat.exists(f"{parent}.{new_last}") or not cat.exists(new_canon):
            return None
        old_p, new_p = _params(cat.params(old_canon)), _params(cat.params(new_canon))
        if old_p is None or new_p is None:
            return None
        old_in, new_in = cat.primitive_inputs(old_canon), cat.primitive_inputs(new_canon)
        same_inputs = (old_in is None) == (new_in is None) and (old_in is None or len(old_in) == len(new_in))
        if old_p == new_p and same_inputs:
            safety, proof = FixSafety.SAFE, (f"the catalog records the same parameters for `{_short(old_canon)}` and "
                                             f"`{_short(new_canon)}` ({', '.join(old_p) or 'none'})")
        elif new_p[:len(old_p)] == old_p and all(p.endswith("=") for p in new_p[len(old_p):]) and same_inputs:
            safety, proof = FixSafety.UNSAFE, ""
        else:
            return None
        end_line, end_col = node.end_lineno, node.end_col_offset
        start = end_col - len(node.attr.encode("utf-8"))
        return Fix(f"use `{_short(new_canon)}`", (Edit(end_line, start, end_line, end_col, new_last),), safety,
                   proof=proof, drops=(node.attr,))


def _short(name: str) -> str:
    for long, short in (("mindspore.ops.", "ops."), ("mindspore.nn.", "nn."), ("mindspore.mint.", "mint."),
                        ("mindspore.Tensor.", "Tensor.")):
        if name.startswith(long):
            return short + name[len(long):]
    return name


def _params(text: Optional[str]) -> Optional[tuple]:
    """The parameter names a catalog ``params`` string lists (``"axis="`` kept with its ``=``
    to say optional); None when unknown or when it takes ``*args``/``**kwargs``."""
    if text is None:
        return None
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    if any(p.startswith("*") for p in parts):
        return None
    return parts


_MEMO: dict = {}


def _reportable(ctx, dotted: str) -> Optional[dict]:
    """The catalog's entry for ``dotted`` when :meth:`DeprecatedApi._check` reports it (a
    deprecated or removed name MindSpore warns about, deprecated by the target), else None."""
    if not dotted.startswith("mindspore.") or dotted in _OWNED:
        return None
    cat = ctx.catalog
    entry = cat.deprecation(dotted)
    if entry is None or entry.get("status") not in ("deprecated", "removed") or entry.get("name") in _OWNED:
        return None
    target = _version(ctx.target_version or cat.version)
    since = entry.get("since")
    if since and target < _version(since):
        return None
    if not since and target < _version(cat.version)[:2] + (0,):
        return None
    src = entry.get("source", "")
    if "decorator" not in src and "module" not in src:
        return None  # documented only: MindSpore 2.10 does not warn (see the rationale)
    return entry


def _reported_by_name(ctx, dotted: str) -> bool:
    """``_check_name(ctx, node, dotted)`` reports (a moved module is reported at its import)."""
    entry = ctx.catalog.deprecation(dotted)
    return entry is not None and entry.get("kind") != "module" and _reportable(ctx, dotted) is not None


def _moved_parts(cat) -> Optional[list]:
    """Per module ``cat`` records as moved (``mark_deprecated``), its components after the
    first, each of which an import of it (or of a module under it) spells after a dot; None
    when one of them is a top-level name (no text test then)."""
    key = ("mv", id(cat))
    got = _MEMO.get(key)
    if got is None or got[0] is not cat:
        mods = [k for k, v in cat._deprecated.items() if v.get("kind") == "module"]
        got = _MEMO[key] = (cat, [frozenset(k.split(".")[1:]) for k in mods] if all("." in k for k in mods) else None)
    return got[1]


def _tensor_names(cat) -> frozenset:
    """Tensor method names the catalog ``cat`` records as deprecated by MindSpore's decorator."""
    key = ("m", id(cat))
    got = _MEMO.get(key)
    if got is None:
        got = _MEMO[key] = frozenset(
            k.rsplit(".", 1)[-1] for k, v in cat._deprecated.items()
            if k.startswith("mindspore.Tensor.") and "decorator" in v.get("source", "")
            and v.get("status") in ("deprecated", "removed"))
    return got


def _last_names(cat) -> frozenset:
    """The last components of the names ``cat`` records as deprecated (not moved modules,
    which are reported at their import): a cheap pre-test before resolving a dotted chain."""
    from .version_api import deprecated_last_names
    return deprecated_last_names(cat)


def _may_report(ctx, cat, lasts: frozenset, methods: frozenset, names: dict) -> bool:
    """Whether ``check_module``'s walk can report anything: an import of a moved module, an
    imported name that is reported, an attribute spelled with a deprecated name whose
    receiver the text shows as an imported chain that is reported, or does not show plainly
    (:func:`_chain_reported`), or a deprecated Tensor method's name; only names reported for
    the target count (:func:`_reported_lasts`). Else the walk is skipped (all but 17 of the 654
    modules of mindcv, mindocr, mindyolo and mindformers that name MindSpore: `self.eps`,
    `ops.cast` of a docstring-only notice, `Default: 1.0.` then `eps` in a docstring). A text
    that is not ASCII is read in its NFKC form, as Python reads identifiers."""
    from .version_api import attr_names, identifier_text
    text = identifier_text(ctx.source.text)
    for dotted in names.values():
        if "." in dotted and dotted.rsplit(".", 1)[-1] in lasts and _reported_by_name(ctx, dotted):
            return True
    attrs = attr_names(text)
    if not attrs.isdisjoint(_reported_methods(ctx, cat, methods)):
        return True
    hits = attrs.intersection(_reported_lasts(ctx, cat, lasts))
    if hits and _chain_reported(ctx, text, _reported_lasts(ctx, cat, lasts), names):
        return True
    moved = _moved_parts(cat)
    if moved is not None and not any(parts <= attrs for parts in moved):
        return False  # an import of a moved module (or of one under it) spells its parts after dots
    for node in walk_statements(ctx.source.tree.body):
        if isinstance(node, ast.ImportFrom):
            modules = [node.module] if not node.level and node.module else []
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        else:
            continue
        for m in modules:
            entry = cat.deprecation(m) if m.startswith("mindspore.") else None
            if entry is not None and entry.get("kind") == "module":
                return True
    return False


def _reported_lasts(ctx, cat, lasts: frozenset) -> frozenset:
    """The names of ``lasts`` that end a name :func:`_reported_by_name` accepts for this target:
    the last components of the deprecated names :func:`_reportable` accepts, and of the exact
    aliases ``cat.canonical`` maps to one of them (the only way the name looked up can end
    otherwise than the spelled one); per catalog and target. (`ops.cast`, a docstring-only
    notice, and names deprecated after the target are not among them.)"""
    key = ("r", id(cat), ctx.target_version)
    got = _MEMO.get(key)
    if got is None or got[0] is not cat:
        rep = {k for k, v in cat._deprecated.items() if v.get("kind") != "module" and _reportable(ctx, k) is not None}
        ends = {k.rsplit(".", 1)[-1] for k in rep} | {a.rsplit(".", 1)[-1] for a, t in cat._aliases.items() if t in rep}
        got = _MEMO[key] = (cat, lasts.intersection(ends))
    return got[1]


def _reported_methods(ctx, cat, methods: frozenset) -> frozenset:
    """The names of ``methods`` (deprecated Tensor methods) :func:`_reportable` accepts for this
    target as ``mindspore.Tensor.<name>``, the only spelling check_module reports them by."""
    key = ("rm", id(cat), ctx.target_version)
    got = _MEMO.get(key)
    if got is None or got[0] is not cat:
        got = _MEMO[key] = (cat, frozenset(m for m in methods if _reportable(ctx, f"mindspore.Tensor.{m}") is not None))
    return got[1]


def _chain_reported(ctx, text: str, hits: frozenset, names: dict) -> bool:
    """Whether an attribute ``.<name>`` of the text (``name`` in ``hits``) may be an
    ``Attribute`` node whose dotted name ``check_module`` reports: its receiver, read back
    from the dot, is a chain of names whose root the import map names and whose dotted name
    is reported, or a receiver the text does not show plainly (a chain broken over lines,
    after a bracket, or longer than 300 characters), which the walk then judges. A receiver
    rooted at another name (``self.eps``, ``cfg.padding``) has no dotted name."""
    from .version_api import NO_CHAIN, after_dot, chain_root
    for m in after_dot(hits).finditer(text):  # (one search compiled per catalog: any of them is a hit)
        got = chain_root(text, m.start())
        if got is None:
            return True  # a receiver the text does not show plainly: the walk judges it
        if got is not NO_CHAIN and got[0] in names and _reported_by_name(ctx, names[got[0]] + got[1] + "." + m.group(1)):
            return True
    return False


def _made_tensor(e: ast.AST, scope: ast.AST, ctx, memo: dict) -> bool:
    from .version_api import ApiNotInTarget
    inst = _MEMO.get("api")
    if inst is None:
        inst = _MEMO["api"] = ApiNotInTarget()
    return inst._made_tensor(e, scope, ctx, memo, 0)
