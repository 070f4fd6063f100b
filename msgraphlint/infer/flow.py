"""Small analyses shared by the MSG2xx rules.

``Origins`` answers, for one graph-scope function, which *tensor object* a local name
holds at a statement: a parameter of the scope (``"in:x"``: the caller's tensor) or a
value created at some position (``"new:LINE:COL"``). ``y = x`` copies the origin (an
alias), anything else makes a new one; augmented assignment keeps it (graph mode writes
in place). Branches merge (a name may hold several origins); loop bodies are walked
twice. It is computed on demand, once per scope, in one pass over the function.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional

Env = Dict[str, FrozenSet[str]]
_EMPTY: FrozenSet[str] = frozenset()


def _own_exprs(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions a statement evaluates itself (not those of nested statement bodies)."""
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, ast.expr):
                yield item
            elif isinstance(item, ast.withitem):
                yield item.context_expr


def _loads(expr: ast.AST) -> Iterator[ast.Name]:
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            yield n
        elif isinstance(n, ast.Lambda):
            continue
        else:
            stack.extend(ast.iter_child_nodes(n))


class Origins:
    def __init__(self, func: ast.AST) -> None:
        self.func = func
        self.before: Dict[int, Env] = {}  # id(stmt) -> names' origins just before it
        self.stmts: Dict[int, ast.stmt] = {}
        self.loops: Dict[int, ast.stmt] = {}  # id(stmt) -> innermost enclosing loop
        args = func.args  # type: ignore[attr-defined]
        names = [a.arg for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)]
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                names.append(extra.arg)
        self.params: FrozenSet[str] = frozenset(n for n in names if n not in ("self", "cls"))
        env: Env = {n: frozenset({"in:" + n}) for n in self.params}
        self._loop: Optional[ast.stmt] = None
        self._carried: Dict[int, Env] = {}  # id(loop) -> what its body produced last time
        body = func.body if isinstance(func.body, list) else []  # type: ignore[attr-defined]
        self._block(body, env)

    # queries ----------------------------------------------------------------------
    def of(self, stmt: ast.stmt, name: str) -> FrozenSet[str]:
        return self.before.get(id(stmt), {}).get(name, _EMPTY)

    def inputs(self, stmt: ast.stmt, name: str) -> List[str]:
        """The scope parameters whose tensor ``name`` may hold at ``stmt``."""
        return sorted(o[3:] for o in self.of(stmt, name) if o.startswith("in:"))

    def aliases(self, stmt: ast.stmt, name: str) -> List[str]:
        """Other names that hold the same tensor as ``name`` just before ``stmt``."""
        env = self.before.get(id(stmt), {})
        mine = env.get(name, _EMPTY)
        return sorted(n for n, o in env.items() if n != name and o & mine) if mine else []

    def read_later(self, stmt: ast.stmt, name: str, include_self: bool) -> List[str]:
        """Names that hold the tensor ``name`` holds at ``stmt`` and are read by a
        statement that runs after ``stmt`` (later in the function, or anywhere in the same
        loop body: the next iteration).

        ``include_self=False`` (``+=``, subscript writes): only the names that already
        shared the tensor before ``stmt``, ``name`` excluded — a name bound to it
        afterwards sees the written value in both modes. ``include_self=True`` (in-place
        methods, which PyNative does not apply): any name, ``name`` included."""
        mine = self.of(stmt, name)
        if not mine:
            return []
        allowed = None if include_self else set(self.aliases(stmt, name))
        if allowed is not None and not allowed:
            return []
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        start = (stmt.lineno, stmt.col_offset)
        loop = self.loops.get(id(stmt))
        found = set()
        for sid, other in self.stmts.items():
            if sid == id(stmt):
                continue
            pos = (other.lineno, other.col_offset)
            later = pos >= end
            if not later and loop is not None:
                later = (loop.lineno, loop.col_offset) <= pos < start
            if not later:
                continue
            env = self.before.get(sid, {})
            for expr in _own_exprs(other):
                for n in _loads(expr):
                    if (allowed is None or n.id in allowed) and env.get(n.id, _EMPTY) & mine:
                        found.add(n.id)
        return sorted(found)

    # the walk ---------------------------------------------------------------------
    def _block(self, body, env: Env) -> Env:
        for stmt in body:
            self._stmt(stmt, env)
        return env

    @staticmethod
    def _merge(env: Env, *branches: Env) -> None:
        names = set(env)
        for b in branches:
            names |= set(b)
        for n in names:
            acc = env.get(n, _EMPTY)
            for b in branches:
                acc |= b.get(n, _EMPTY)
            env[n] = acc

    def _bind(self, target: ast.AST, value: Optional[ast.AST], env: Env) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, ast.Name):
                env[target.id] = env.get(value.id, frozenset({"g:" + value.id}))
            else:
                node = value if value is not None else target
                env[target.id] = frozenset({f"new:{node.lineno}:{node.col_offset}"})
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                    and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts):
                snapshot = dict(env)  # the right side is evaluated first: `a, b = b, a`
                for t, v in zip(target.elts, value.elts):
                    if isinstance(t, ast.Name) and isinstance(v, ast.Name):
                        env[t.id] = snapshot.get(v.id, frozenset({"g:" + v.id}))
                    else:
                        self._bind(t, v, env)
            else:
                for t in target.elts:
                    self._bind(t.value if isinstance(t, ast.Starred) else t, None, env)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None, env)

    @staticmethod
    def _stored(targets, stmt: ast.stmt, env: Env) -> None:
        """``x[i] = v``: graph mode builds a new tensor and rebinds ``x`` to it (names
        that shared the old tensor keep the old one)."""
        todo = list(targets)
        while todo:
            t = todo.pop()
            if isinstance(t, ast.Subscript):
                root = t.value
                while isinstance(root, ast.Subscript):
                    root = root.value
                if isinstance(root, ast.Name):
                    env[root.id] = frozenset({f"set:{stmt.lineno}:{stmt.col_offset}"})
            elif isinstance(t, (ast.Tuple, ast.List)):
                todo.extend(t.elts)
            elif isinstance(t, ast.Starred):
                todo.append(t.value)

    def _loop_body(self, stmt, env: Env, bind_target: bool) -> Env:
        """A loop body, walked twice the first time the loop is reached (the second pass
        lets names rebound in the body reach its top), once on every later visit (an
        enclosing loop's second pass): that pass starts from the entry merged with what the
        body produced last time, which is what a second pass would start from. So nested
        loops cost linear time in their depth, not 2 ** depth."""
        saved, self._loop = self._loop, stmt
        inner = dict(env)
        carried = self._carried.get(id(stmt))
        if carried is not None:
            self._merge(inner, carried)
        if bind_target:
            self._bind(stmt.target, None, inner)
        a = self._block(stmt.body, inner)
        if carried is None:
            self._merge(a, env)
            if bind_target:
                self._bind(stmt.target, None, a)
            a = self._block(stmt.body, a)  # second pass: names rebound in the body reach its top
        self._carried[id(stmt)] = dict(a)
        self._loop = saved
        return a

    def _record(self, stmt: ast.stmt, env: Env) -> None:
        sid = id(stmt)
        prev = self.before.get(sid)
        snap = dict(env)
        if prev is not None:  # second pass over a loop body: keep what the first pass saw
            self._merge(snap, prev)
        self.before[sid] = snap
        self.stmts[sid] = stmt
        if self._loop is not None:
            self.loops.setdefault(sid, self._loop)

    def _stmt(self, stmt: ast.stmt, env: Env) -> None:
        self._record(stmt, env)
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                self._bind(t, stmt.value, env)
            self._stored(stmt.targets, stmt, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._bind(stmt.target, stmt.value, env)
                self._stored([stmt.target], stmt, env)
        elif isinstance(stmt, ast.AugAssign):
            # `x += y`: graph mode writes into the same tensor, the origin is kept;
            # `x[i] += y` is a subscript store (below)
            self._stored([stmt.target], stmt, env)
        elif isinstance(stmt, ast.If):
            # an `elif` chain of any length, without recursing per link: every branch
            # starts from the same environment (tests bind nothing) and all are merged
            branches = []
            while True:
                branches.append(self._block(stmt.body, dict(env)))
                if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                    stmt = stmt.orelse[0]
                    self._record(stmt, env)
                    continue
                branches.append(self._block(stmt.orelse, dict(env)))
                break
            env.clear()
            for b in branches:
                self._merge(env, b)
        elif isinstance(stmt, ast.While):
            a = self._loop_body(stmt, env, bind_target=False)
            b = self._block(stmt.orelse, dict(env))
            self._merge(env, a, b)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            a = self._loop_body(stmt, env, bind_target=True)
            b = self._block(stmt.orelse, dict(env))
            self._merge(env, a, b)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, None, env)
            self._block(stmt.body, env)
        elif isinstance(stmt, ast.Try) or (hasattr(ast, "TryStar") and isinstance(stmt, getattr(ast, "TryStar"))):
            a = self._block(stmt.body, dict(env))
            hs = [self._block(h.body, dict(env)) for h in stmt.handlers]
            self._merge(env, a, *hs)
            self._block(stmt.orelse, env)
            self._block(stmt.finalbody, env)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            env[stmt.name] = frozenset({f"new:{stmt.lineno}:{stmt.col_offset}"})
        elif hasattr(ast, "Match") and isinstance(stmt, getattr(ast, "Match")):
            bs = [self._block(c.body, dict(env)) for c in stmt.cases]
            self._merge(env, *bs)


def scope_function(node: ast.AST, ctx) -> Optional[ast.AST]:
    """The graph-scope function being walked (the root of ``ctx``'s parent chain). Every node
    the walk has recorded a parent for leads up to the same root, so the root is found once
    per walk (an ``elif`` chain thousands long asks once per statement)."""
    parents = ctx._parents
    if id(node) not in parents:  # the root itself, or a node the walk has not reached: no ancestors
        return None
    held = ctx.memo.get("scope_function")
    if held is None or held[0] is not parents:
        top = node
        for anc in ctx.ancestors(node):
            top = anc
        held = ctx.memo["scope_function"] = (parents, top)
    top = held[1]
    return top if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def statement_of(node: ast.AST, ctx) -> Optional[ast.stmt]:
    if isinstance(node, ast.stmt):
        return node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.stmt):
            return anc
    return None


class OriginsCache:
    """One ``Origins`` per scope function, built on first use."""

    def __init__(self) -> None:
        self._func: Optional[ast.AST] = None
        self._origins: Optional[Origins] = None

    def get(self, node: ast.AST, ctx) -> Optional[Origins]:
        func = scope_function(node, ctx)
        if func is None:
            return None
        if self._func is not func:
            self._func, self._origins = func, Origins(func)
        return self._origins


def class_node(ctx) -> Optional[ast.ClassDef]:
    """The ``ClassDef`` (in this file) of the scope being walked."""
    scope = ctx.scope
    if scope is None or not scope.class_name:
        return None
    memo = getattr(ctx, "memo", None)
    key = ("class_node", scope.class_name, scope.class_key, scope.lineno)
    if memo is not None and key in memo:
        return memo[key]  # (asked for every `self.<attr>(...)` call of a scope)
    from msgraphlint.project.scopes import class_def_of
    found = class_def_of(ctx.source.tree, scope)
    if memo is not None:
        memo[key] = found
    return found


def self_attr_values(cls: ast.ClassDef, ctx, skip=()) -> Dict[str, List[ast.expr]]:
    """``self.<attr> = value`` assignments in a class's methods (minus ``skip`` methods),
    following same-file base classes by name. Memoised per file (``ctx.memo``)."""
    key = ("self_attr_values", id(cls), tuple(skip))
    memo = getattr(ctx, "memo", None)
    if memo is not None and key in memo:
        return memo[key]
    from msgraphlint.parse.astutil import per_tree, walk_statements

    out: Dict[str, List[ast.expr]] = {}
    seen = set()
    todo = [cls]
    classes = per_tree(ctx.source.tree, "top_classes_by_name",
                       lambda tree: {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)})
    while todo:
        c = todo.pop()
        if c.name in seen:
            continue
        seen.add(c.name)
        for item in c.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) or item.name in skip:
                continue
            for node in walk_statements(item.body):  # assignments are statements
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                else:
                    continue
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        out.setdefault(t.attr, []).append(value)
        for b in c.bases:
            if isinstance(b, ast.Name) and b.id in classes:
                todo.append(classes[b.id])
    if memo is not None:
        memo[key] = out
    return out
