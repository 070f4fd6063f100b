"""MSG108 at the call: the calls a module's plain Python code makes to a
Cell or jit function whose ``x and y`` joins two of its own parameters, with what each argument
is at that call. One Cell used with Python numbers at one call and with tensors of different
dtypes at another has merged (unknown) parameter kinds in its own scope, so the call that
passes unjoinable values is where the failure can be shown.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Tuple

from msgraphlint.parse.astutil import per_tree, walk_outside_defs
from msgraphlint.project.scopes import _all_classes
from msgraphlint.infer.dtypes import TENSOR_MAKERS, constructed_dtype

from .joins import line_text, stores, Val, clash

# `x and y` / `x or y` between two bare names (not attributes, calls or subscripts)
_BARE_BOOLOP = re.compile(r"(?<![\w.\])\]])\b[A-Za-z_]\w*\s+(?:and|or)\s+[A-Za-z_]\w*\b(?!\s*[.(\[])")


def _exprs_on(body, lines) -> Iterator[ast.AST]:
    """The expression nodes of the statements in ``body`` (not in nested defs) that start on
    one of ``lines``, walking only those statements' own expressions."""
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field, value in ast.iter_fields(st):
            if field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(x for x in value if isinstance(x, ast.stmt))
                stack.extend(st2 for h in value if isinstance(h, ast.ExceptHandler) for st2 in h.body)
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.expr) and any(i in lines for i in range(item.lineno, (item.end_lineno or item.lineno) + 1)):
                    yield from walk_outside_defs(item)


def parameter_joins(ctx) -> Dict[int, Tuple[str, List[str], List[Tuple[ast.BoolOp, List[str]]]]]:
    """id(Cell class or jit function) -> (name, parameters, the ``and``/``or`` expressions of
    its ``construct``/body whose operands are all parameters it never rebinds), over the
    module's root graph scopes."""
    out = {}
    for scope, func in ctx.graph_scopes:
        if scope.chain or scope.kind not in ("construct", "jit"):
            continue
        if scope.kind == "construct":
            owner = next((c for c in per_tree(ctx.source.tree, "all_classes", _all_classes).get(scope.class_name or "", [])
                          if any(item is func for item in c.body)), None)
            if owner is None:
                continue
            label = f"{owner.name}.construct"
        else:
            if scope.class_name or not isinstance(func, ast.FunctionDef):
                continue
            owner, label = func, func.name
        params = [a.arg for a in func.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        end = func.end_lineno or func.lineno
        seg = "\n".join(ctx.source.lines[func.lineno - 1:end])  # (one test of the def's text first)
        if " and " not in seg and " or " not in seg:
            continue
        hits = {i for i in range(func.lineno, end + 1)
                if (" and " in (t := ctx.source.line(i)) or " or " in t) and _BARE_BOOLOP.search(t)}
        if not hits:
            continue  # no `name and name` in the text: no walk
        joins = [(n, [v.id for v in n.values]) for n in _exprs_on(func.body, hits)
                 if isinstance(n, ast.BoolOp) and all(isinstance(v, ast.Name) and v.id in params for v in n.values)]
        if joins:
            stored = stores(func)  # a parameter rebound before the `and` is not the caller's value
            joins = [(n, names) for n, names in joins if not any(v in stored for v in names)]
        if joins:
            out[id(owner)] = (label, params, joins)
    return out


class CallSites:
    """The calls a module's plain Python code makes to entries with parameter joins, with what
    each argument is at that call (a literal, ``Tensor(...)`` with its dtype, a name bound to
    one earlier in the same function)."""

    def __init__(self, ctx, entries) -> None:
        self.ctx = ctx
        self.entries = entries
        self.sites: Dict[int, list] = {}

    def scan(self, body, visible: Dict[str, int], outer_env: Dict[str, object]) -> None:
        visible = dict(visible)
        for st in body:
            if isinstance(st, (ast.ClassDef, ast.FunctionDef)) and id(st) in self.entries:
                visible[st.name] = id(st)
        env: Dict[str, object] = {}  # name -> entry id (an instance) or a Val
        self._stmts(body, visible, env)
        self._report()

    def _stmts(self, body, visible, env) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if id(st) not in self.entries:
                    self.scan(st.body, visible, env)
                continue
            if isinstance(st, ast.ClassDef):
                continue
            nested = [getattr(st, f, None) or [] for f in ("body", "orelse", "finalbody")]
            nested += [h.body for h in getattr(st, "handlers", [])]
            for field, value in ast.iter_fields(st):
                if field in ("body", "orelse", "finalbody", "handlers"):
                    continue
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        for n in walk_outside_defs(item):
                            if isinstance(n, ast.Call):
                                self._call(n, visible, env)
            if isinstance(st, ast.Assign):
                self._assign(st, visible, env)
            for inner in nested:
                self._stmts(inner, visible, env)

    def _assign(self, st: ast.Assign, visible, env) -> None:
        if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
            for t in st.targets:
                for m in ast.walk(t):
                    if isinstance(m, ast.Name):
                        env.pop(m.id, None)
            return
        v, name = st.value, st.targets[0].id
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and visible.get(v.func.id) is not None \
                and not _is_jit_entry(self.entries[visible[v.func.id]]):
            env[name] = visible[v.func.id]
            return
        val = self._arg(v, env)
        if val is None:
            env.pop(name, None)
        else:
            env[name] = val

    def _arg(self, e: ast.AST, env) -> Optional[Val]:
        if isinstance(e, ast.Constant) and type(e.value) in (int, float, bool, str):
            return Val(type(e.value).__name__, e)
        if isinstance(e, ast.Name):
            v = env.get(e.id)
            return v if isinstance(v, Val) else None
        if isinstance(e, ast.Call) and self.ctx.qualname(e.func) in TENSOR_MAKERS:
            return Val("tensor", e, constructed_dtype(e, self.ctx.qualname))
        return None

    def _call(self, call: ast.Call, visible, env) -> None:
        f = call.func
        eid = None
        if isinstance(f, ast.Name):
            target = env.get(f.id)
            if isinstance(target, int):
                eid = target
            elif f.id in visible and _is_jit_entry(self.entries[visible[f.id]]):
                eid = visible[f.id]
        elif isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id in visible:
            eid = visible[f.func.id]
        if eid is None or any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
            return
        _label, params, _joins = self.entries[eid]
        bound = {p: self._arg(a, env) for p, a in zip(params, call.args)}
        self.sites.setdefault(eid, []).append((call, bound))

    def _report(self) -> None:
        for eid, sites in list(self.sites.items()):
            label, params, joins = self.entries[eid]
            kinds = {tuple((p, (v.cls, v.dtype) if v else None) for p, v in sorted(b.items())) for _c, b in sites}
            if len(kinds) < 2:
                continue  # one kind of call: the scope's own analysis (leave_scope) reports it
            for call, bound in sites:
                for node, names in joins:
                    vals = [bound.get(n) for n in names]
                    if vals[0] is None or vals[0].cls != "tensor":
                        continue
                    c = next((clash(vals[0], v) for v in vals[1:] if clash(vals[0], v) is not None), None)
                    if c is None:
                        continue
                    self.ctx.report(
                        call, message=(
                            f"this call passes {c[0].describe()} and {c[1].describe()}, which `{label}` cannot join\n"
                            f"`{line_text(self.ctx, call)}` passes {c[0].describe()} (`{line_text(self.ctx, c[0].node)}`) "
                            f"and {c[1].describe()} (`{line_text(self.ctx, c[1].node)}`) to `{label}`, whose "
                            f"`{line_text(self.ctx, node)}` (line {node.lineno}) picks one by the tensor's truth: "
                            f"MindSpore cannot join them, so this call fails to compile (`TypeError: Cannot join "
                            f"the return values of different branches`); other calls of `{label}` pass other kinds"))
                    break
            del self.sites[eid]


def _is_jit_entry(entry) -> bool:
    return not entry[0].endswith(".construct")
