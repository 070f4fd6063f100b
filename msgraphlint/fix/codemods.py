"""Structural fixes: libcst transforms, one per fix, computed only when a fix is applied.

A rule that can offer a structural rewrite decides *whether* it may (and whether it is
safe) on the ast it already has, with the ``*_fix`` helpers below, and reports a
``Fix`` whose ``codemod`` names the transform and the statement it rewrites
(``findings.Codemod``). ``check`` stops there: libcst is never imported and no file is
parsed twice. When the fix is applied (``fixes.resolve``: ``--fix``, ``--diff``, an
editor's code action), :func:`apply_codemod` parses only that statement's lines with
libcst, transforms the one node, and returns the ``Edit`` that replaces those lines; the
edit is held to the fix contract like a text fix (nothing dropped but the declared
tokens, the fixed file must compile). libcst keeps what it does not touch as it was:
whitespace, parentheses, comments inside the kept expressions; comments of the removed
lines are carried to the new statement (the contract checks that none is lost). The
rest of the file is not touched, so its encoding, BOM and line endings stay.

Transforms:

* ``where-if`` (MSG101): ``if c: y = a`` [``else: y = b``] → ``y = ops.where(c, a, b)``
  (``b`` is ``y`` without an ``else``).
* ``where-return`` (MSG101): ``if c: return a`` then ``return b`` (or ``else: return b``) →
  ``return ops.where(c, a, b)``.
* ``where-ifexp`` (MSG103): ``a if c else b`` → ``ops.where(c, a, b)``.

When each is safe (what the semantic harness, tests/test_fix_semantics.py, compiles
before and after in graph mode and PyNative) is decided by :func:`select_proof`: the
condition is a one-element tensor (a full reduction compared with a number), both values
are side-effect-free elementwise expressions (``+ - *``, ``/`` by a non-zero number,
unary ``-``) of the same names, so ``ops.where`` gives them one shape, and both promote
to float alike (an integer tensor would otherwise become float). Anything else that
fits the shape of the rewrite gets the same fix as unsafe, with the condition in its
description.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..findings import Codemod, Edit, Fix, FixSafety
from ..parse.astutil import per_tree
from ..parse.source import split_lines

# ---------------------------------------------------------------------------------------
# the ast side (used by rules while checking; no libcst here)

_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "all", "any", "prod", "amax", "amin"})
_CMP = (ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.Eq, ast.NotEq)


def _number(e: ast.AST) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) in (int, float)


def _full_reduction(e: ast.AST) -> bool:
    """``t.sum()``, ``t.max()``, ... with no axis: a one-element tensor."""
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _REDUCTIONS
            and not e.args and not e.keywords)


def scalar_condition(e: ast.AST) -> bool:
    """A condition that is a one-element boolean tensor: ``ops.where`` broadcasts it, as
    the ``if`` decided on its one value (an elementwise mask would instead select per
    element where the ``if`` raised)."""
    if isinstance(e, ast.BoolOp):  # `c1 and c2` of one-element conditions: ops.logical_and/or (both evaluated)
        return all(scalar_condition(v) for v in e.values)
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], _CMP):
        left, right = e.left, e.comparators[0]
        return (_full_reduction(left) and (_number(right) or _full_reduction(right))) or \
            (_number(left) and _full_reduction(right))
    return isinstance(e, ast.Call) and _full_reduction(e) and e.func.attr in ("all", "any")


def _leaves(e: ast.AST) -> Optional[Tuple[frozenset, bool]]:
    """(the names an elementwise, side-effect-free expression reads, whether it makes a
    float of an integer tensor), or None when it is anything else."""
    if isinstance(e, ast.Name):
        return frozenset({e.id}), False
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        return frozenset({"self." + e.attr}), False
    if isinstance(e, ast.Constant) and type(e.value) in (int, float):
        return frozenset(), isinstance(e.value, float)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _leaves(e.operand)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        if isinstance(e.op, ast.Div) and not (_number(e.right) and ast.literal_eval(e.right) != 0):
            return None  # x / y: where's gradient through the other branch can be inf * 0
        a, b = _leaves(e.left), _leaves(e.right)
        if a is None or b is None:
            return None
        return a[0] | b[0], a[1] or b[1] or isinstance(e.op, ast.Div)
    return None


def _all_tensors(ctx, exprs) -> bool:
    """Every name the values read is known as a tensor (a Python number stays one with the
    ``if``; ``ops.where`` would make it a tensor: ``a = 0; if c: a = a + 1; a is 1``)."""
    for e in exprs:
        for n in ast.walk(e):
            if isinstance(n, ast.Name) and getattr(n, "lineno", None) is not None or \
                    isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
                if not ctx.kind(n).tensor_like:
                    return False
    return True


def select_proof(cond: ast.AST, a: ast.AST, b: ast.AST, ctx=None) -> Tuple[str, str]:
    """(proof, "") when ``ops.where(cond, a, b)`` keeps the branch's meaning, else ("", the
    condition under which it does)."""
    if not scalar_condition(cond):
        return "", "the condition is one element (an elementwise mask selects per element)"
    la, lb = _leaves(a), _leaves(b)
    if la is None or lb is None:
        return "", ("both values have one shape and dtype, and computing both has no side effect "
                    "(ops.where evaluates both branches)")
    if la[0] != lb[0] or not la[0]:
        return "", "both values have one shape (ops.where broadcasts them)"
    if ctx is not None and not _all_tensors(ctx, (a, b)):
        return "", "the values are tensors (ops.where makes a Python number a tensor)"
    if la[1] != lb[1]:
        return "", "the tensor is a float (one branch makes an integer tensor float, ops.where promotes both)"
    return ("one-element condition; both values elementwise and side-effect free over the same names "
            f"({', '.join(sorted(la[0]))}), promoting alike"), ""


def _not_selectable(*exprs: ast.AST) -> bool:
    """Whether evaluating ``exprs`` unconditionally (as ops.where does, both sides) could do
    more than compute a value: a yield, an await, a walrus binding, or a lambda."""
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.Lambda))
               for e in exprs for n in ast.walk(e))


def _no_tensor(*values: ast.AST) -> bool:
    """Whether a value can never be an ``ops.where`` operand: ``None``, a string, bytes,
    ``...``, an f-string, a dict or set display. ``ops.where(c, None, t)`` raises TypeError
    in both modes (measured on 2.10: "Failed calling Select with input=None"), where the
    ``if`` assigned None (found in mindone's idefics2: ``if not mint.any(~m): m = None``)."""
    return any(isinstance(v, ast.Constant) and (v.value is None or v.value is Ellipsis
                                                or isinstance(v.value, (str, bytes)))
               or isinstance(v, (ast.JoinedStr, ast.Dict, ast.Set, ast.DictComp, ast.SetComp)) for v in values)


def _python_bool(test: ast.AST) -> bool:
    """A condition that PyNative evaluates to a Python bool (``not t``, also inside
    ``and``/``or``): ``ops.where(not mint.any(~m), a, b)`` raises TypeError in PyNative
    ("Failed calling Select with condition=bool", measured on 2.10 CPU; graph mode folds it)."""
    if isinstance(test, ast.BoolOp):
        return any(_python_bool(v) for v in test.values)
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)


def _unselectable(test: ast.AST, *values: ast.AST) -> bool:
    """Whether ``ops.where(test, *values)`` cannot stand for the branch: evaluating them could
    do more than compute a value, a value is never a tensor, or PyNative sees a Python bool."""
    return _not_selectable(test, *values) or _no_tensor(*values) or _python_bool(test)


def ops_binding(ctx) -> Tuple[Optional[str], Tuple[Edit, ...]]:
    """The module's name for ``mindspore.ops`` and the edits that bind it: () when the module
    imports it; an inserted ``from mindspore import ops`` after the top-level imports when
    no name ``ops`` is used; (None, ()) when neither. Computed once per module (a rule asks
    at every fixable ``if``; a walk of the whole module each time is quadratic)."""
    return per_tree(ctx.source.tree, "ops_binding", lambda _tree: _ops_binding(ctx))


def _ops_binding(ctx) -> Tuple[Optional[str], Tuple[Edit, ...]]:
    for local, q in ctx.imports.names.items():
        if q == "mindspore.ops" and "." not in local:
            return local, ()
    tree = ctx.source.tree
    if any(isinstance(n, ast.Name) and n.id == "ops" or isinstance(n, (ast.FunctionDef, ast.ClassDef)) and
           n.name == "ops" or isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == "ops"
           for n in ast.walk(tree)):
        return None, ()
    last = 0
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            last = stmt.end_lineno
        elif last:
            break
    if not last or last >= len(ctx.source.lines):
        return None, ()
    line = split_lines(ctx.source.text, keepends=True)[last - 1]
    newline = line[len(line.rstrip("\r\n")):] or "\n"  # the file's own line ending
    return "ops", (Edit(last + 1, 0, last + 1, 0, "from mindspore import ops" + newline),)


def _block_of(ctx, node: ast.stmt) -> Optional[List[ast.stmt]]:
    parent = ctx.parent(node)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is node for s in block):
            return block
    return None


def _bound_before(ctx, node: ast.stmt, name: str) -> bool:
    """``name`` holds a value when ``node`` runs: a parameter of the function, or assigned by
    an earlier plain statement of the same block."""
    func = ctx.func
    if func is not None and name in {a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}:
        return True
    block = _block_of(ctx, node)
    if block is None:
        return False
    for stmt in block:
        if stmt is node:
            return False
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return True
        if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == name and (not isinstance(stmt, ast.AnnAssign) or stmt.value is not None):
            return True
    return False


def _single_assign(body: List[ast.stmt]) -> Optional[Tuple[str, ast.expr]]:
    if len(body) == 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 \
            and isinstance(body[0].targets[0], ast.Name):
        return body[0].targets[0].id, body[0].value
    return None


def _statement_of(ctx, node: ast.AST) -> Optional[ast.stmt]:
    for anc in [node] + list(ctx.ancestors(node)):
        if isinstance(anc, ast.stmt):
            return anc
    return None


def _starts_line(ctx, stmt: ast.stmt) -> bool:
    """The statement is alone on its lines (no ``a = 1; if ...`` before or ``; b`` after)."""
    first = ctx.source.line(stmt.lineno)
    last = ctx.source.line(stmt.end_lineno)
    before = first.encode("utf-8")[:stmt.col_offset].decode("utf-8", "replace")
    after = last.encode("utf-8")[stmt.end_col_offset:].decode("utf-8", "replace").strip()
    return not before.strip() and (not after or after.startswith("#"))


def _fix(description: str, proof: str, condition: str, cm: Codemod, edits: Tuple[Edit, ...],
         drops: Tuple[str, ...] = ("if", "else"), test: Optional[ast.AST] = None) -> Fix:
    """``drops``: the keywords of the branch the select replaces (and the else branch's
    target, which the one assignment names once), and the ``and``/``or`` of ``test`` that
    become ``ops.logical_and``/``logical_or``."""
    if test is not None:
        drops = drops + tuple(("and" if isinstance(n.op, ast.And) else "or")
                              for n in ast.walk(test) if isinstance(n, ast.BoolOp) for _ in n.values[1:])
    if proof:
        return Fix(description, edits, FixSafety.SAFE, proof=proof, drops=drops, codemod=cm)
    return Fix(f"{description} (unsafe: the same only when {condition})", edits, FixSafety.UNSAFE, drops=drops,
               codemod=cm)


def _single_return(body: List[ast.stmt]) -> Optional[ast.expr]:
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None \
            and not isinstance(body[0].value, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.JoinedStr)) \
            and not (isinstance(body[0].value, ast.Constant) and type(body[0].value.value) not in (int, float)):
        return body[0].value
    return None


def _where_return_fix(ctx, node: ast.If, a: ast.expr) -> Optional[Fix]:
    """``if c: return a`` + ``[else:] return b`` → ``return ops.where(c, a, b)``."""
    if node.orelse:
        b = _single_return(node.orelse)
        end: ast.stmt = node
    else:
        block = _block_of(ctx, node)
        i = next((k for k, s in enumerate(block or []) if s is node), None)
        if i is None or i + 1 >= len(block):
            return None
        b = _single_return([block[i + 1]])
        end = block[i + 1]
        if b is not None and not _starts_line(ctx, end):
            return None
    if b is None or _unselectable(node.test, a, b):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    proof, condition = select_proof(node.test, a, b, ctx)
    cm = Codemod("where-return", node.lineno, node.col_offset, end.end_lineno, end.end_col_offset, (ops,))
    return _fix(f"`return {ops}.where(cond, a, b)`: select instead of branching", proof, condition, cm, imports,
                ("if", "else", "return") if node.orelse else ("if", "return"), test=node.test)


def _guards(test: ast.AST) -> bool:
    """The condition may guard the values' evaluation (`m is not None and ...`, `a or b`):
    ``ops.where`` evaluates both values, so `m.unsqueeze(1)` would run on None (found in
    mindone's zamba: `if mask is not None and not mint.all(mask == 1): h = h * mask...`)."""
    if isinstance(test, ast.BoolOp) and scalar_condition(test):
        return False  # each operand a reduction compared with a number: evaluating them all guards nothing
    return any(isinstance(n, ast.BoolOp) or isinstance(n, ast.Compare) and
               any(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops) for n in ast.walk(test))


def where_if_fix(ctx, node: ast.If) -> Optional[Fix]:
    """MSG101: ``if c: y = a [else: y = b]`` → ``y = ops.where(c, a, b)``; ``if c: return a``
    then ``return b`` → ``return ops.where(c, a, b)``."""
    if not _starts_line(ctx, node) or _guards(node.test):
        return None
    ret = _single_return(node.body)
    if ret is not None:
        return _where_return_fix(ctx, node, ret)
    body = _single_assign(node.body)
    if body is None:
        return where_aug_fix(ctx, node)
    name, a = body
    if node.orelse:
        other = _single_assign(node.orelse)
        if other is None or other[0] != name or ctx.source.line(node.orelse[0].lineno).lstrip().startswith("elif"):
            return None
        b: ast.expr = other[1]
    else:
        if not _bound_before(ctx, node, name):
            return None  # without an else the name keeps its value: it must have one
        b = ast.Name(id=name, ctx=ast.Load())
    if _unselectable(node.test, a, b):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    proof, condition = select_proof(node.test, a, b, ctx)
    cm = Codemod("where-if", node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, (ops,))
    return _fix(f"`{name} = {ops}.where(cond, ...)`: select instead of branching", proof, condition, cm, imports,
                ("if", "else", name) if node.orelse else ("if",), test=node.test)


def where_ifexp_fix(ctx, node: ast.IfExp) -> Optional[Fix]:
    """MSG103: ``a if c else b`` → ``ops.where(c, a, b)``. Not for a conditional inside another
    (``a if c else b if d else e``): the chain's outermost one has the fix, and asking at every
    link would walk the chain once per link (quadratic: a 3,000-link chain ran out of budget)."""
    if isinstance(ctx.parent(node), ast.IfExp):
        return None
    stmt = _statement_of(ctx, node)
    if _guards(node.test) or stmt is None or isinstance(stmt, (ast.If, ast.While, ast.For, ast.With, ast.Try, ast.FunctionDef,
                                         ast.AsyncFunctionDef, ast.ClassDef)) or not _starts_line(ctx, stmt):
        return None
    if _unselectable(node.test, node.body, node.orelse):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    proof, condition = select_proof(node.test, node.body, node.orelse, ctx)
    rel_line = node.lineno - stmt.lineno + 1
    cm = Codemod("where-ifexp", stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset,
                 (ops, str(rel_line), str(ctx.char_col(node.lineno, node.col_offset))))
    return _fix(f"`{ops}.where(cond, a, b)`: select instead of branching", proof, condition, cm, imports,
                test=node.test)


# ---------------------------------------------------------------------------------------
# the libcst side (imported only when a structural fix is applied)

def _snippet(cm: Codemod, text: str) -> Optional[Tuple[str, str, List[str]]]:
    """(the codemod's statement lines, dedented; their indent; the original lines)."""
    lines = split_lines(text, keepends=True)
    if cm.end_line > len(lines):
        return None
    chunk = lines[cm.line - 1:cm.end_line]
    indent = chunk[0][:len(chunk[0]) - len(chunk[0].lstrip(" \t"))]
    out = []
    for ln in chunk:
        if ln.startswith(indent):
            out.append(ln[len(indent):])
        elif not ln.strip():
            out.append(ln.lstrip(" \t"))
        else:
            return None  # a continuation line outside the indent (a string): leave it alone
    return "".join(out), indent, chunk


def apply_codemod(cm: Codemod, text: str) -> Optional[Edit]:
    """The edit of a codemod for ``text``: its statement's lines, rewritten by the transform;
    None when the statement no longer has the shape the transform rewrites."""
    import libcst as cst

    got = _snippet(cm, text)
    if got is None:
        return None
    snippet, indent, chunk = got
    try:
        module = cst.parse_module(snippet)
    except cst.ParserSyntaxError:
        return None
    new = TRANSFORMS[cm.name](module, cm)
    if new is None:
        return None
    code = new.code
    last = chunk[-1]
    last_text = last.rstrip("\r\n")
    had_end = len(last_text) != len(last)
    nl = new.default_newline
    if had_end and code.endswith(nl):
        code = code[:-len(nl)]
    out = "".join((indent + ln if ln.strip() else ln) for ln in split_lines(code, keepends=True))
    return Edit(cm.line, 0, cm.end_line, len(last_text), out)


def _comments(node) -> list:
    import libcst as cst

    found: list = []

    class V(cst.CSTVisitor):
        def visit_Comment(self, c) -> None:
            found.append(c)

    node.visit(V())
    return found


def _where_call(ops: str, args, lpar=(), rpar=()):
    import libcst as cst

    return cst.Call(func=cst.Attribute(value=cst.Name(ops), attr=cst.Name("where")),
                    args=[cst.Arg(value=a) for a in args], lpar=lpar, rpar=rpar)


def _where_if(module, cm: Codemod):
    import libcst as cst

    if len(module.body) != 1 or not isinstance(module.body[0], cst.If):
        return None
    node = module.body[0]

    def assign(block):
        if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
            return None
        line = block.body[0]
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        st = line.body[0]
        if not isinstance(st, cst.Assign) or len(st.targets) != 1 or not isinstance(st.targets[0].target, cst.Name):
            return None
        return st.targets[0].target.value, st.value

    got = assign(node.body)
    if got is None:
        return None
    name, a = got
    if node.orelse is None:
        b = cst.Name(name)
    else:
        if not isinstance(node.orelse, cst.Else):
            return None
        other = assign(node.orelse.body)
        if other is None or other[0] != name:
            return None
        b = other[1]
    kept = {id(c) for e in (node.test, a, b) for c in _comments(e)}
    header = node.body.header.comment
    moved = [c for c in _comments(node) if id(c) not in kept and c is not header]
    test = node.test.with_changes(lpar=[], rpar=[]) if _bare_parens(node.test) else node.test
    call = _where_call(cm.args[0], [_logical(cm.args[0], test), a, b])
    stmt = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=call)],
        leading_lines=[cst.EmptyLine(indent=True, comment=c) for c in moved],
        trailing_whitespace=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  " if header else ""),
                                                   comment=header, newline=node.body.header.newline))
    return module.with_changes(body=[stmt])


def _where_return(module, cm: Codemod):
    import libcst as cst

    def ret(block):
        if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
            return None
        return _return_of(block.body[0])

    body = module.body
    if not body or not isinstance(body[0], cst.If):
        return None
    node = body[0]
    a = ret(node.body)
    if node.orelse is None:
        b = _return_of(body[1]) if len(body) == 2 else None
    else:
        b = ret(node.orelse.body) if isinstance(node.orelse, cst.Else) and len(body) == 1 else None
    if a is None or b is None:
        return None
    kept = {id(c) for e in (node.test, a, b) for c in _comments(e)}
    header = node.body.header.comment
    moved = [c for c in _comments(module) if id(c) not in kept and c is not header]
    test = node.test.with_changes(lpar=[], rpar=[]) if _bare_parens(node.test) else node.test
    stmt = cst.SimpleStatementLine(
        body=[cst.Return(value=_where_call(cm.args[0], [_logical(cm.args[0], test), a, b]))],
        leading_lines=[cst.EmptyLine(indent=True, comment=c) for c in moved],
        trailing_whitespace=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  " if header else ""),
                                                   comment=header, newline=node.body.header.newline))
    return module.with_changes(body=[stmt])


def _return_of(line):
    import libcst as cst

    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Return) \
            and line.body[0].value is not None:
        return line.body[0].value
    return None


def _logical(ops: str, test):
    """``a and b`` / ``a or b`` (one-element conditions, ``scalar_condition``) →
    ``ops.logical_and(a, b)`` / ``ops.logical_or(a, b)``, nested for longer chains; any other test as it is."""
    import libcst as cst

    if not isinstance(test, cst.BooleanOperation):
        return test
    name = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
    left = _logical(ops, test.left)
    right = _logical(ops, test.right)
    return cst.Call(func=cst.Attribute(value=cst.Name(ops), attr=cst.Name(name)),
                    args=[cst.Arg(value=left), cst.Arg(value=right)], lpar=test.lpar, rpar=test.rpar)


def _bare_parens(e) -> bool:
    """``if (cond):``: one pair of parentheses that only wrapped the condition."""
    return len(getattr(e, "lpar", ())) == 1 and len(getattr(e, "rpar", ())) == 1 and not _comments(e)


def _where_ifexp(module, cm: Codemod):
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    ops, rel_line, col = cm.args[0], int(cm.args[1]), int(cm.args[2])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    indent_cols = cm.col  # every line of the statement was dedented by its indent
    hits = []

    class T(cst.CSTTransformer):
        def leave_IfExp(self, original, updated):
            pos = positions.get(original)
            if pos is not None and pos.start.line == rel_line and pos.start.column == col - indent_cols:
                hits.append(original)
                return _where_call(ops, [_logical(ops, updated.test), updated.body, updated.orelse], updated.lpar,
                                   updated.rpar)
            return updated

    new = module.visit(T())
    return new if len(hits) == 1 else None


TRANSFORMS = {"where-if": _where_if, "where-ifexp": _where_ifexp, "where-return": _where_return}


# ---------------------------------------------------------------------------------------
# one-token text fixes (PyTorch spellings with a mechanical MindSpore one): plain edits,
# computed while checking like any text fix (no libcst)

# PyTorch keyword -> MindSpore's names for the same parameter (tried in turn)
_KEYWORDS = {"dim": ("axis",), "axis": ("dim",), "keepdim": ("keepdims", "keep_dims"),
             "keepdims": ("keepdim", "keep_dims"), "keep_dims": ("keepdims", "keepdim"),
             "max_value": ("max",), "min_value": ("min",)}

_TORCH_KEYWORDS = frozenset({"dim", "keepdim", "max_value", "min_value"})


def keyword_fix(node: ast.Call, overloads, matches) -> Optional[Fix]:
    """MSG506: the fewest keyword renames (``dim`` → ``axis``, ``keepdim`` → ``keepdims``)
    that make the call match one of MindSpore's overloads (``matches(over, args, keywords)``
    is None when it accepts them); None when no rename does, or when renames of the same
    count reach different overloads (which one was meant is the author's choice)."""
    import itertools

    kws = [k for k in node.keywords if k.arg is not None]
    if not kws or len(kws) > 4 or any(getattr(k, "lineno", None) is None for k in kws):
        return None
    choices = [[k.arg] + list(_KEYWORDS.get(k.arg, ())) for k in kws]
    best: Optional[Tuple[float, tuple, int]] = None
    ambiguous = False
    for names in itertools.product(*choices):
        if len(set(names)) != len(names):
            continue
        renamed = [ast.keyword(arg=n, value=k.value) for n, k in zip(names, kws)]
        hit = [i for i, over in enumerate(overloads) if matches(over, node.args, renamed) is None]
        if not hit:
            continue
        # renaming PyTorch's names (dim, keepdim) is preferred to renaming MindSpore's
        cost = sum((1 if k.arg in _TORCH_KEYWORDS else 1.5) for n, k in zip(names, kws) if n != k.arg)
        if best is None or cost < best[0]:
            best, ambiguous = (cost, names, hit[0]), False
        elif cost == best[0] and hit[0] != best[2]:
            ambiguous = True
    if best is None or ambiguous or best[0] == 0:
        return None
    edits = tuple(Edit(k.lineno, k.col_offset, k.lineno, k.col_offset + len(k.arg), n)
                  for n, k in zip(best[1], kws) if n != k.arg)
    shown = ", ".join(f"`{k.arg}=` → `{n}=`" for n, k in zip(best[1], kws) if n != k.arg)
    return Fix(f"rename {shown} (unsafe: the same only when the keyword meant PyTorch's parameter of that name; "
               "the call fails to compile as written, so there is no behaviour to compare)",
               edits, FixSafety.UNSAFE, drops=tuple(k.arg for n, k in zip(best[1], kws) if n != k.arg))


def property_call_fix(ctx, node: ast.Call, attr: str) -> Optional[Fix]:
    """MSG505: ``x.size()`` → ``x.shape``, ``x.size(d)`` → ``x.shape[d]``, ``x.dtype()`` →
    ``x.dtype``: PyTorch's meaning in MindSpore's spelling. Unsafe: the call fails to compile
    as written (graph mode and PyNative), so no run can compare the two."""
    f = node.func
    if node.keywords or len(node.args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if attr == "size":
        new = "shape"
    elif attr in ("shape", "dtype", "ndim", "T") and not node.args:
        new = attr
    else:
        return None
    if f.end_lineno != node.end_lineno:
        return None
    name_col = f.end_col_offset - len(f.attr)
    if node.args:
        a = node.args[0]
        if a.end_lineno != node.end_lineno:
            return None
        edits = (Edit(f.end_lineno, name_col, f.end_lineno, f.end_col_offset, new),
                 Edit(node.end_lineno, f.end_col_offset, a.lineno, a.col_offset, "["),
                 Edit(a.end_lineno, a.end_col_offset, node.end_lineno, node.end_col_offset, "]"))
        shown = f"`.{new}[{ctx.segment(a)}]`"
    else:
        edits = (Edit(f.end_lineno, name_col, node.end_lineno, node.end_col_offset, new),)
        shown = f"`.{new}`"
    return Fix(f"read {shown} (unsafe: PyTorch's meaning of `.{attr}()`; the call fails to compile as written, "
               "so there is no behaviour to compare)", edits, FixSafety.UNSAFE,
               drops=(attr,) if new != attr else ())


def swapaxes_fix(node: ast.Call) -> Optional[Fix]:
    """MSG505: ``x.transpose(a, b)`` (two axes, the PyTorch way) → ``x.swapaxes(a, b)``: what
    PyNative already computes; graph mode fails to compile the original. Safe: the
    semantic harness compares PyNative before with both modes after."""
    f = node.func
    if f.end_lineno is None:
        return None
    col = f.end_col_offset - len("transpose")
    edits = (Edit(f.end_lineno, col, f.end_lineno, f.end_col_offset, "swapaxes"),)
    axes = [ast.literal_eval(a) if _number(a) else None for a in node.args]
    if any(isinstance(a, int) and (a >= 2 or a <= -3) for a in axes):
        return Fix("`swapaxes(a, b)`: swap the two axes as PyTorch's `transpose(a, b)` does", edits, FixSafety.SAFE,
                   proof="PyNative's Tensor.transpose(a, b) swaps the two axes, as Tensor.swapaxes(a, b) does in both "
                         "modes (an axis beyond the second: graph mode fails to compile the original)",
                   drops=("transpose",))
    # (0, 1), (-2, -1): on a 2-D tensor graph mode compiles the original as the identity permutation
    return Fix("`swapaxes(a, b)`: swap the two axes as PyTorch's `transpose(a, b)` does (unsafe: the same only "
               "when the code runs in PyNative or the tensor has 3+ dimensions; on a 2-D tensor graph mode's "
               "`transpose(a, b)` leaves it unswapped)", edits, FixSafety.UNSAFE, drops=("transpose",))


def inplace_method_fix(node: ast.Call, plain: str, proof: Optional[str]) -> Optional[Fix]:
    """MSG205: ``y.mul_(v)`` whose tensor is not read again → ``y.mul(v)`` (the returned value
    is the same; only the write into ``y`` is gone). Safe with the no-alias proof."""
    f = node.func
    if f.end_lineno is None:
        return None
    col = f.end_col_offset - len(f.attr)
    edits = (Edit(f.end_lineno, col, f.end_lineno, f.end_col_offset, plain),)
    if proof:
        return Fix(f"`.{plain}()`: the out-of-place form (the tensor is not read again)", edits, FixSafety.SAFE,
                   proof=f"the tensor is not read after the write; {proof}", drops=(f.attr,))
    return Fix(f"`.{plain}()`: the out-of-place form (unsafe: the same only when nothing else holds the tensor)",
               edits, FixSafety.UNSAFE, drops=(f.attr,))


def rebind_fix(ctx, node: ast.Call, plain: str) -> Optional[Fix]:
    """MSG202: the statement ``x.add_(v)`` on an input → ``x = x.add(v)``: what PyNative
    computes, in both modes. Unsafe: graph mode no longer writes into the caller's tensor."""
    f = node.func
    stmt = ctx.parent(node)
    if isinstance(stmt, ast.Assign) and stmt.value is node and isinstance(f.value, ast.Name) \
            and f.end_lineno is not None and ctx.func is not None \
            and not _loads_after(ctx.func, frozenset({f.value.id}), node.end_lineno) and not _in_loop(ctx, node):
        # `y = x.mul_(v)`, x not read again: `y = x.mul(v)` (the value assigned is the same)
        col = f.end_col_offset - len(f.attr)
        return Fix(f"`.{plain}()`: the out-of-place form (unsafe: the same only when the caller does not rely on "
                   "graph mode writing into its tensor; PyNative never does)",
                   (Edit(f.end_lineno, col, f.end_lineno, f.end_col_offset, plain),), FixSafety.UNSAFE, drops=(f.attr,))
    if not isinstance(stmt, ast.Expr) or not isinstance(f.value, ast.Name) or f.end_lineno is None \
            or not _starts_line(ctx, stmt):
        return None
    col = f.end_col_offset - len(f.attr)
    name = f.value.id
    return Fix(f"`{name} = {name}.{plain}(…)` (unsafe: the same only when the caller does not rely on graph mode "
               "writing into its tensor; PyNative never does)",
               (Edit(stmt.lineno, stmt.col_offset, stmt.lineno, stmt.col_offset, f"{name} = "),
                Edit(f.end_lineno, col, f.end_lineno, f.end_col_offset, plain)), FixSafety.UNSAFE, drops=(f.attr,))


# ---------------------------------------------------------------------------------------
# graph-mode rewrites of unsupported syntax and Python-object outputs (MSG410, MSG414):
# the ast side decides while checking; text edits where one statement changes, libcst
# transforms (``loop-else``, ``try-finally``, ``with-null``) where a block moves

def _line_end(ctx, line: int) -> Tuple[int, str]:
    """(the byte length of ``line`` without its ending, the ending)."""
    full = split_lines(ctx.source.text, keepends=True)[line - 1]
    body = full.rstrip("\r\n")
    return len(body.encode("utf-8")), full[len(body):]


def _remove_statement(ctx, stmt: ast.stmt) -> Optional[Tuple[Edit, ...]]:
    """Edits that remove a statement alone on its lines, keeping a trailing comment as a
    comment line; ``pass`` when it is its block's only statement. None when it shares a line."""
    if not _starts_line(ctx, stmt):
        return None
    block = _block_of(ctx, stmt)
    if block is None:
        return None
    last = ctx.source.line(stmt.end_lineno)
    tail = last.encode("utf-8")[stmt.end_col_offset:].decode("utf-8", "replace")
    if len(block) == 1:
        return (Edit(stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset, "pass"),)
    if tail.strip():  # a comment: it stays, on its own line
        comment_col = stmt.end_col_offset + len(tail.encode("utf-8")) - len(tail.lstrip().encode("utf-8"))
        return (Edit(stmt.lineno, stmt.col_offset, stmt.end_lineno, comment_col, ""),)
    return (Edit(stmt.lineno, 0, stmt.end_lineno + 1, 0, ""),)


def _loads_after(func: ast.AST, names: frozenset, line: int) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Store)
               and n.lineno > line for n in ast.walk(func))


def _in_loop(ctx, node: ast.AST) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.For, ast.While, ast.AsyncFor)):
            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
    return False


def _enclosing_def(ctx, node: ast.AST) -> Optional[ast.AST]:
    return next((a for a in ctx.ancestors(node) if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def del_fix(ctx, node: ast.Delete) -> Optional[Fix]:
    """MSG410 ``del``: of locals never read again → the statement removed (graph mode frees
    intermediates itself); ``del xs[k]`` of a list with a constant index → ``xs = xs[:k] + xs[k + 1:]``."""
    func = _enclosing_def(ctx, node)
    if func is None or len(node.targets) != 1 and not all(isinstance(t, ast.Name) for t in node.targets):
        return None
    if all(isinstance(t, ast.Name) for t in node.targets):
        names = frozenset(t.id for t in node.targets)
        declared = {n for s in ast.walk(func) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
        assigned = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if names & declared or not names <= assigned or _in_loop(ctx, node) or _loads_after(func, names, node.end_lineno):
            return None
        edits = _remove_statement(ctx, node)
        if edits is None:
            return None
        shown = ", ".join(sorted(names))
        return Fix(f"remove `del {shown}` (the name is not read again; graph mode frees it itself, PyNative when the "
                   "function returns)", edits,
                   FixSafety.SAFE, drops=("del",) + tuple(t.id for t in node.targets),
                   proof=f"`{shown}`: a local of this function, not read after the `del` and not in a loop")
    t = node.targets[0]
    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and _number(t.slice)
            and isinstance(ast.literal_eval(t.slice), int)) or not _starts_line(ctx, node) or \
            not _is_list(ctx, func, t.value.id, node):
        return None
    k = ast.literal_eval(t.slice)
    name = t.value.id
    if k == -1:
        new = f"{name} = {name}[:-1]"
    elif k == 0:
        new = f"{name} = {name}[1:]"
    else:
        new = f"{name} = {name}[:{k}] + {name}[{k + 1}:]"
    return Fix(f"`{new}`: a new list without the item (unsafe: the same only when no other name holds the list; "
               "`del` changes it in place)", (Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new),),
               FixSafety.UNSAFE, drops=("del",) + (("0",) if k == 0 else ()))


def _is_list(ctx, func: ast.AST, name: str, before: ast.stmt) -> bool:
    """``name`` is bound in ``func`` only by list displays or list comprehensions (before ``before``)."""
    binds = [n for n in ast.walk(func) if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                                        for t in n.targets)]
    others = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    return bool(binds) and len(others) == len(binds) and all(
        isinstance(b.value, (ast.List, ast.ListComp)) and b.lineno < before.lineno for b in binds)


def set_fix(ctx, node: ast.AST) -> Optional[Fix]:
    """MSG410 set display / set comprehension → a tuple / a list comprehension. Unsafe: a
    tuple keeps duplicates and its order and has no set operations."""
    if node.lineno != node.end_lineno:
        return None
    line = ctx.source.line(node.lineno).encode("utf-8")
    if line[node.col_offset:node.col_offset + 1] != b"{" or line[node.end_col_offset - 1:node.end_col_offset] != b"}":
        return None
    cond = ("the same only when the code uses no set operation and relies neither on the elements being distinct "
            "nor on their order")
    if isinstance(node, ast.Set):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        close = ",)" if len(node.elts) == 1 else ")"
        edits = (Edit(node.lineno, node.col_offset, node.lineno, node.col_offset + 1, "("),
                 Edit(node.end_lineno, node.end_col_offset - 1, node.end_lineno, node.end_col_offset, close))
        if len(node.elts) == 1:  # `{a,}`: the comma is kept by the edit's text
            src = ctx.segment(node)
            if src.rstrip("} ").endswith(","):
                edits = edits[:1] + (Edit(node.end_lineno, node.end_col_offset - 1, node.end_lineno,
                                          node.end_col_offset, ")"),)
        return Fix(f"a tuple instead of the set (unsafe: {cond})", edits, FixSafety.UNSAFE)
    edits = (Edit(node.lineno, node.col_offset, node.lineno, node.col_offset + 1, "["),
             Edit(node.end_lineno, node.end_col_offset - 1, node.end_lineno, node.end_col_offset, "]"))
    return Fix(f"a list comprehension instead of the set comprehension (unsafe: {cond})", edits, FixSafety.UNSAFE)


def walrus_fix(ctx, node: ast.NamedExpr) -> Optional[Fix]:
    """MSG410 ``if (n := e) > k:`` → ``n = e`` on the line before, ``if (n) > k:``: the
    value is computed first either way. Only where the walrus is what the ``if`` test
    evaluates first (the test itself, a comparison's left side or ``not``), in an ``if``
    (not an ``elif``, a loop or a comprehension) alone on its line."""
    parent = ctx.parent(node)
    if not isinstance(node.target, ast.Name) or node.lineno != node.end_lineno:
        return None
    stmt = parent
    if isinstance(parent, ast.Compare) and parent.left is node or isinstance(parent, ast.UnaryOp) \
            and isinstance(parent.op, ast.Not):
        stmt = ctx.parent(parent)
        test = parent
    else:
        test = node
    if not isinstance(stmt, ast.If) or stmt.test is not test or not _starts_line(ctx, stmt) \
            or not ctx.source.line(stmt.lineno).lstrip().startswith("if") or _not_selectable(node.value) \
            or any(isinstance(n, ast.NamedExpr) for n in ast.walk(stmt.test) if n is not node):
        return None
    name = node.target.id
    value = ctx.segment(node.value)
    _, nl = _line_end(ctx, stmt.lineno)
    indent = ctx.source.line(stmt.lineno)[:len(ctx.source.line(stmt.lineno)) - len(ctx.source.line(stmt.lineno).lstrip())]
    line = ctx.source.line(node.lineno).encode("utf-8")
    a, b = node.col_offset, node.end_col_offset
    if line[a - 1:a] == b"(" and line[b:b + 1] == b")":  # `(n := e)`: the parentheses only grouped the walrus
        a, b = a - 1, b + 1
    edits = (Edit(stmt.lineno, 0, stmt.lineno, 0, f"{indent}{name} = {value}{nl or chr(10)}"),
             Edit(node.lineno, a, node.end_lineno, b, name))
    return Fix(f"`{name} = …` before the `if`", edits, FixSafety.SAFE,
               proof="the assignment expression is the first thing the `if` test evaluates: the same value, bound "
                     "at the same point")


def import_fix(ctx, node: ast.AST) -> Optional[Fix]:
    """MSG410 an ``import`` inside a graph function → at the top of the module. Safe for a
    standard-library module the module binds nowhere else; unsafe otherwise (the import
    then runs when the module loads)."""
    import sys

    tree = ctx.source.tree
    func = _enclosing_def(ctx, node)
    if func is None or not _starts_line(ctx, node) or getattr(node, "level", 0) or node.lineno != node.end_lineno:
        return None
    bound = [a.asname or a.name.split(".")[0] for a in node.names]
    if any(a.name == "*" for a in node.names):
        return None
    if any(isinstance(n, ast.Name) and n.id in bound and isinstance(n.ctx, ast.Store) for n in ast.walk(tree)) or \
            any(isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.name in bound
                for n in ast.walk(tree)):
        return None
    top = {(a.asname or a.name.split(".")[0], a.name) for s in tree.body if isinstance(s, ast.Import) for a in s.names}
    other = [(a.asname or a.name.split(".")[0]) for s in ast.walk(tree) if isinstance(s, (ast.Import, ast.ImportFrom))
             and s is not node for a in s.names]
    here = {(a.asname or a.name.split(".")[0], a.name) for a in node.names}
    removal = _remove_statement(ctx, node)
    if removal is None:
        return None
    module = node.module if isinstance(node, ast.ImportFrom) else None
    roots = {(module or a.name).split(".")[0] for a in node.names}
    stdlib = roots <= set(getattr(sys, "stdlib_module_names", ()))
    if isinstance(node, ast.Import) and here <= top:
        edits = removal  # the module imports it already
    else:
        if any(b in other for b in bound):
            return None  # bound by another import elsewhere: leave the choice to the author
        last = 0
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                last = stmt.end_lineno
            elif last or not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                break
        if not last or last >= node.lineno:
            return None
        _, nl = _line_end(ctx, last)
        text = ctx.segment(node)
        edits = (Edit(last + 1, 0, last + 1, 0, text + (nl or "\n")),) + removal
    what = f"move `{ctx.segment(node)}` to the top of the module"
    if stdlib:
        return Fix(what, edits, FixSafety.SAFE, drops=("import",) if len(edits) == len(removal) else (),
                   proof="a standard-library module bound by no other name in the module: importing it when the "
                         "module loads binds the same module")
    return Fix(f"{what} (unsafe: the same only when importing it when the module loads has no other effect)", edits,
               FixSafety.UNSAFE, drops=("import",) if len(edits) == len(removal) else ())


def async_fix(ctx, node: ast.AsyncFunctionDef) -> Optional[Fix]:
    """MSG410 ``async def`` with no ``await``/``async for``/``async with`` → ``def``. Unsafe:
    a caller that awaits it, or uses the coroutine, sees a plain value."""
    if any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith, ast.Yield, ast.YieldFrom))
           for s in node.body for n in ast.walk(s)):
        return None
    line = ctx.source.line(node.lineno).encode("utf-8")
    if line[node.col_offset:node.col_offset + 6] != b"async ":
        return None
    end = node.col_offset + 6 + len(line[node.col_offset + 6:]) - len(line[node.col_offset + 6:].lstrip())
    return Fix("`def`: a plain function (unsafe: the same only when no caller awaits it or uses it as a coroutine; "
               "graph mode calls it as a plain function)", (Edit(node.lineno, node.col_offset, node.lineno, end, ""),),
               FixSafety.UNSAFE, drops=("async",))


def _no_break(loop: ast.AST) -> bool:
    """No ``break`` of this loop (nested loops and defs have their own)."""
    stack = list(loop.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Break):
            return False
        if isinstance(n, (ast.For, ast.While, ast.AsyncFor)):
            stack.extend(n.orelse)  # a nested loop's else belongs to this loop
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return True


def _escapes(body: List[ast.stmt]) -> bool:
    """A return, break, continue or yield in ``body`` (outside nested defs)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Raise)):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def loop_else_fix(ctx, node: ast.AST) -> Optional[Fix]:
    """MSG410 ``for``/``while`` … ``else`` whose loop never breaks → the ``else`` block after
    the loop (without a ``break`` it always runs once the loop ends)."""
    if not _no_break(node) or not _starts_line(ctx, node):
        return None
    cm = Codemod("loop-else", node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    return Fix("the `else` block after the loop (the loop has no `break`, so it always runs)", (), FixSafety.SAFE,
               proof="the loop has no `break`: its `else` block runs exactly when the loop ends, as the statements "
                     "after it do", drops=("else",), codemod=cm)


def try_finally_fix(ctx, node: ast.Try) -> Optional[Fix]:
    """MSG410 ``try: A finally: B`` (no handler) → ``A`` then ``B``: the same when ``A`` does
    not raise. Safe when ``A`` cannot leave early (no return/break/continue/raise/yield)
    and ``B`` only binds local names (after an exception nothing sees them)."""
    if node.handlers or node.orelse or not node.finalbody or _escapes(node.body) or _escapes(node.finalbody) \
            or not _starts_line(ctx, node):
        return None
    cm = Codemod("try-finally", node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    local = all(isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets)
                or isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) for s in node.finalbody) and \
        not any(isinstance(n, ast.Call) for s in node.finalbody for n in ast.walk(s))
    what = "the `try` body, then the `finally` block"
    if local:
        return Fix(what, (), FixSafety.SAFE, drops=("try", "finally"), codemod=cm,
                   proof="the body cannot leave early and the finally block only binds local names: without an "
                         "exception both run in order; after one, the call fails either way and nothing sees them")
    return Fix(f"{what} (unsafe: the same only when the body raises no exception; after one the finally block "
               "would not run)", (), FixSafety.UNSAFE, drops=("try", "finally"), codemod=cm)


_NULL_CMS = frozenset({"contextlib.nullcontext"})


def with_null_fix(ctx, node: ast.With) -> Optional[Fix]:
    """MSG410 ``with contextlib.nullcontext():`` (no ``as``) → its body: the context manager
    does nothing."""
    if len(node.items) != 1 or node.items[0].optional_vars is not None or not _starts_line(ctx, node):
        return None
    e = node.items[0].context_expr
    if not (isinstance(e, ast.Call) and not e.args and not e.keywords and ctx.qualname(e.func) in _NULL_CMS):
        return None
    cm = Codemod("with-null", node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    return Fix("the `with` block's body (`contextlib.nullcontext()` does nothing)", (), FixSafety.SAFE,
               proof="contextlib.nullcontext() enters and exits doing nothing", drops=("with", "contextlib",
                                                                                      "nullcontext"), codemod=cm)


def tuple_output_fix(ctx, value: ast.expr, why: str) -> Optional[Fix]:
    """MSG414 a returned Python list → a tuple (``[a, b]`` → ``(a, b)``, ``xs`` →
    ``tuple(xs)``): a tuple of constants or tensors is a native graph output. Unsafe: the
    Python caller gets a tuple where it got a list."""
    if "list" not in why or "holding" in why or isinstance(value, (ast.Tuple, ast.Dict, ast.Set)):
        return None
    cond = ("the same only when the Python caller uses the result as a sequence (indexing, iteration, `len`); "
            "a tuple is not a list for `append` or `==` with a list")
    if isinstance(value, ast.List):
        if any(isinstance(e, ast.Starred) for e in value.elts) or not value.elts:
            return None
        src = ctx.segment(value)
        close = ",)" if len(value.elts) == 1 and not src.rstrip("] \n").endswith(",") else ")"
        edits = (Edit(value.lineno, value.col_offset, value.lineno, value.col_offset + 1, "("),
                 Edit(value.end_lineno, value.end_col_offset - 1, value.end_lineno, value.end_col_offset, close))
        return Fix(f"return a tuple (unsafe: {cond})", edits, FixSafety.UNSAFE)
    edits = (Edit(value.lineno, value.col_offset, value.lineno, value.col_offset, "tuple("),
             Edit(value.end_lineno, value.end_col_offset, value.end_lineno, value.end_col_offset, ")"))
    return Fix(f"return `tuple(…)` (unsafe: {cond})", edits, FixSafety.UNSAFE)


# the libcst transforms of this block

def _moved_comments(*lines) -> list:
    import libcst as cst

    return [cst.EmptyLine(indent=True, comment=c) for c in lines if c is not None]


def _loop_else(module, cm: Codemod):
    import libcst as cst

    if len(module.body) != 1 or not isinstance(module.body[0], (cst.For, cst.While)) or module.body[0].orelse is None:
        return None
    loop = module.body[0]
    orelse = loop.orelse
    if not isinstance(orelse.body, cst.IndentedBlock):
        return None
    stmts = list(orelse.body.body)
    carried = [ln for ln in orelse.leading_lines if ln.comment is not None]
    carried += _moved_comments(orelse.body.header.comment)
    carried += [ln for ln in orelse.body.footer if ln.comment is not None]
    if not stmts:
        return None
    stmts[0] = stmts[0].with_changes(leading_lines=carried + list(stmts[0].leading_lines))
    return module.with_changes(body=[loop.with_changes(orelse=None)] + stmts)


def _try_finally(module, cm: Codemod):
    import libcst as cst

    if len(module.body) != 1 or not isinstance(module.body[0], cst.Try):
        return None
    node = module.body[0]
    if node.handlers or node.orelse or node.finalbody is None or not isinstance(node.body, cst.IndentedBlock) \
            or not isinstance(node.finalbody.body, cst.IndentedBlock):
        return None
    first = list(node.body.body)
    second = list(node.finalbody.body.body)
    if not first or not second:
        return None
    head = [ln for ln in node.leading_lines] + _moved_comments(node.body.header.comment)
    first[0] = first[0].with_changes(leading_lines=head + list(first[0].leading_lines))
    mid = [ln for ln in node.body.footer if ln.comment is not None] + \
        [ln for ln in node.finalbody.leading_lines if ln.comment is not None] + \
        _moved_comments(node.finalbody.body.header.comment)
    second[0] = second[0].with_changes(leading_lines=mid + list(second[0].leading_lines))
    tail = [ln for ln in node.finalbody.body.footer if ln.comment is not None]
    return module.with_changes(body=first + second, footer=tail + list(module.footer))


def _with_null(module, cm: Codemod):
    import libcst as cst

    if len(module.body) != 1 or not isinstance(module.body[0], cst.With) \
            or not isinstance(module.body[0].body, cst.IndentedBlock):
        return None
    node = module.body[0]
    stmts = list(node.body.body)
    if not stmts:
        return None
    head = list(node.leading_lines) + _moved_comments(node.body.header.comment)
    stmts[0] = stmts[0].with_changes(leading_lines=head + list(stmts[0].leading_lines))
    tail = [ln for ln in node.body.footer if ln.comment is not None]
    return module.with_changes(body=stmts, footer=tail + list(module.footer))


TRANSFORMS.update({"loop-else": _loop_else, "try-finally": _try_finally, "with-null": _with_null})


# ---------------------------------------------------------------------------------------
# MSG304: the call sites' Python floats wrapped in ``ms.mutable`` (text edits in this file)

def mutable_binding(ctx) -> Optional[str]:
    """How this module spells ``mindspore.mutable`` (``ms.mutable``, ``mutable``), or None."""
    for local, q in ctx.imports.names.items():
        if q == "mindspore.mutable" and "." not in local:
            return local
    for local, q in ctx.imports.names.items():
        if q == "mindspore" and "." not in local:
            return f"{local}.mutable"
    return None


def mutable_fix(ctx, param: str, sites) -> Optional[Fix]:
    """MSG304 ``net(x, 0.5)`` and ``net(x, 0.75)`` → ``net(x, ms.mutable(0.5))``, …: one graph for
    every value. ``sites``: the ``(line, value)`` of each host call that passes a Python float;
    each must be one float literal argument of a call on that line. Unsafe: the graph then
    sees a variable scalar, not a constant."""
    spell = mutable_binding(ctx)
    if spell is None or not sites or any(type(v) is not float for _, v in sites):
        return None
    lines = {line for line, _ in sites}
    by_line: dict = {}
    for n in ast.walk(ctx.source.tree):
        if isinstance(n, ast.Call) and n.lineno in lines:
            for a in list(n.args) + [k.value for k in n.keywords]:
                if isinstance(a, ast.Constant) and type(a.value) is float and a.lineno in lines:
                    by_line.setdefault(a.lineno, []).append(a)
    edits = []
    for line, v in sorted(set(sites)):
        hits = [a for a in by_line.get(line, []) if a.value == v]
        if len(hits) != 1:
            return None  # none or several on the line: which one is the parameter's is not certain
        a = hits[0]
        edits += [Edit(a.lineno, a.col_offset, a.lineno, a.col_offset, f"{spell}("),
                  Edit(a.end_lineno, a.end_col_offset, a.end_lineno, a.end_col_offset, ")")]
    return Fix(f"pass `{param}` as `{spell}(…)` at the {len(sites)} calls: one graph for all values (unsafe: the "
               "same only when the graph uses the value as a number in arithmetic; a mutable value is a variable "
               "scalar, so a branch on it, or a shape or size made from it, is no longer a compile-time constant)",
               tuple(edits), FixSafety.UNSAFE)


def parameter_update_fix(ctx, node: ast.Call, plain: str) -> Optional[Fix]:
    """MSG202 the statement ``self.p.add_(v)`` on a Parameter → ``ops.assign(self.p, self.p.add(v))``:
    the update graph mode makes, in both modes (the rule's hint). Unsafe: PyNative, which left
    the Parameter unchanged, now updates it."""
    f = node.func
    stmt = ctx.parent(node)
    if not isinstance(stmt, ast.Expr) or len(node.args) != 1 or node.keywords or f.end_lineno is None \
            or isinstance(node.args[0], ast.Starred) or not _starts_line(ctx, stmt) or node.lineno != node.end_lineno:
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    target = ctx.segment(f.value)
    arg = ctx.segment(node.args[0])
    new = f"{ops}.assign({target}, {target}.{plain}({arg}))"
    return Fix(f"`{new}` (unsafe: PyNative then updates the Parameter too, as graph mode does; the same only "
               "when the code meant the in-place update)",
               (Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new),) + imports,
               FixSafety.UNSAFE, drops=(f.attr,))


def comprehension_loops_fix(ctx, node: ast.AST) -> Optional[Fix]:
    """MSG410 ``xs = [e for a in A for b in B]`` (``{k: v for ...}``) → nested ``for`` loops that
    ``append`` (set items) into ``xs = []`` (``{}``), same order. Only for a one-line
    assignment statement to a name, with loop variables that are plain names not used
    elsewhere in the function (the loops leave them bound; the comprehension did not)."""
    stmt = ctx.parent(node)
    func = _enclosing_def(ctx, node)
    if not isinstance(node, (ast.ListComp, ast.DictComp)) or func is None or not isinstance(stmt, ast.Assign) \
            or stmt.value is not node or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) \
            or stmt.lineno != stmt.end_lineno or not _starts_line(ctx, stmt) or _not_selectable(node):
        return None
    name = stmt.targets[0].id
    loop_vars = []
    for g in node.generators:
        if not isinstance(g.target, ast.Name) or g.is_async:
            return None
        loop_vars.append(g.target.id)
    inside = {id(n) for n in ast.walk(node)}
    if len(set(loop_vars)) != len(loop_vars) or name in loop_vars or any(
            isinstance(n, ast.Name) and n.id in loop_vars and id(n) not in inside for n in ast.walk(func)) \
            or any(isinstance(n, ast.Name) and n.id == name for g in node.generators for n in ast.walk(g)):
        return None
    line = ctx.source.line(stmt.lineno)
    indent = line[:len(line) - len(line.lstrip())]
    _, nl = _line_end(ctx, stmt.lineno)
    nl = nl or "\n"
    out = [f"{name} = {'[]' if isinstance(node, ast.ListComp) else '{}'}"]
    depth = 0
    for g in node.generators:
        out.append("    " * depth + f"for {g.target.id} in {ctx.segment(g.iter)}:")
        depth += 1
        for cond in g.ifs:
            out.append("    " * depth + f"if {ctx.segment(cond)}:")
            depth += 1
    if isinstance(node, ast.ListComp):
        out.append("    " * depth + f"{name}.append({ctx.segment(node.elt)})")
    else:
        out.append("    " * depth + f"{name}[{ctx.segment(node.key)}] = {ctx.segment(node.value)}")
    text = (nl + indent).join(out)
    return Fix("nested `for` loops instead of the comprehension with two `for` clauses (the same elements in the "
               "same order; the loop variables stay bound after it, and no other code of the function uses them)",
               (Edit(stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset, text),), FixSafety.SAFE,
               proof="the loops run the comprehension's clauses in its order and add each element as it did; the "
                     "loop variables are not used elsewhere in the function")


_AUG_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def where_aug_fix(ctx, node: ast.If) -> Optional[Fix]:
    """MSG101 ``if c: x += v`` (no else) → ``x = ops.where(c, x + (v), x)``. Unsafe: ``+=`` on a
    tensor may write into it in place (MSG204), which the select does not; and the select's
    own condition (``select_proof``)."""
    if node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.AugAssign):
        return None
    st = node.body[0]
    if not isinstance(st.target, ast.Name) or type(st.op) not in _AUG_OPS or not _starts_line(ctx, st):
        return None
    name = st.target.id
    if not _bound_before(ctx, node, name) or _not_selectable(node.test, st.value) or _python_bool(node.test):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    a = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=st.op, right=st.value)
    _, condition = select_proof(node.test, a, ast.Name(id=name, ctx=ast.Load()), ctx)
    why = (f"nothing else (the caller, for an input) holds `{name}`'s tensor "
           f"(`{_AUG_OPS[type(st.op)]}=` may write into it in place)")
    cm = Codemod("where-aug", node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, (ops,))
    desc = f"`{name} = {ops}.where(cond, ...)`: select instead of branching"
    return Fix(f"{desc} (unsafe: the same only when {why}" + (f", and {condition})" if condition else ")"),
               imports, FixSafety.UNSAFE, drops=("if",) + tuple(("and" if isinstance(n.op, ast.And) else "or")
                                                              for n in ast.walk(node.test) if isinstance(n, ast.BoolOp)
                                                              for _ in n.values[1:]), codemod=cm)


def _where_aug(module, cm: Codemod):
    import libcst as cst

    if len(module.body) != 1 or not isinstance(module.body[0], cst.If) or module.body[0].orelse is not None:
        return None
    node = module.body[0]
    block = node.body
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1 \
            or not isinstance(block.body[0], cst.SimpleStatementLine) or len(block.body[0].body) != 1:
        return None
    line = block.body[0]
    st = line.body[0]
    ops_map = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
               cst.DivideAssign: cst.Divide}
    if not isinstance(st, cst.AugAssign) or not isinstance(st.target, cst.Name) or type(st.operator) not in ops_map:
        return None
    name = st.target.value
    right = st.value
    if not isinstance(right, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)):
        right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    a = cst.BinaryOperation(left=cst.Name(name), operator=ops_map[type(st.operator)](), right=right)
    kept = {id(c) for e in (node.test, st.value) for c in _comments(e)}
    header = block.header.comment
    trailing = line.trailing_whitespace.comment
    moved = [c for c in _comments(node) if id(c) not in kept and c is not header and c is not trailing]
    if trailing is not None:
        moved.append(trailing)
    test = node.test.with_changes(lpar=[], rpar=[]) if _bare_parens(node.test) else node.test
    call = _where_call(cm.args[0], [_logical(cm.args[0], test), a, cst.Name(name)])
    stmt = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=call)],
        leading_lines=list(node.leading_lines) + [cst.EmptyLine(indent=True, comment=c) for c in moved],
        trailing_whitespace=cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  " if header else ""),
                                                   comment=header, newline=block.header.newline))
    return module.with_changes(body=[stmt])


TRANSFORMS["where-aug"] = _where_aug


def where_elif_fix(ctx, node: ast.If) -> Optional[Fix]:
    """MSG101 ``elif c: y = a`` + ``else: y = b`` (the last link of a chain) → ``else: y =
    ops.where(c, a, b)``: the earlier links stay ``if``s (compile-time ones or not)."""
    if len(node.orelse) != 1 or not _single_assign(node.body) or not _single_assign(node.orelse) \
            or ctx.source.line(node.orelse[0].lineno).lstrip().startswith("elif") or _guards(node.test):
        return None
    name, a = _single_assign(node.body)
    other, b = _single_assign(node.orelse)
    if other != name or _unselectable(node.test, a, b):
        return None
    top, depth = node, 0
    while True:
        parent = ctx.parent(top)
        if not (isinstance(parent, ast.If) and len(parent.orelse) == 1 and parent.orelse[0] is top
                and ctx.source.line(top.lineno).lstrip().startswith("elif")):
            break
        top, depth = parent, depth + 1
    if depth == 0 or not _starts_line(ctx, top):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    proof, condition = select_proof(node.test, a, b, ctx)
    cm = Codemod("where-elif", top.lineno, top.col_offset, top.end_lineno, top.end_col_offset, (ops, str(depth)))
    return _fix(f"`else: {name} = {ops}.where(cond, ...)`: select instead of the last `elif`", proof, condition, cm,
                imports, ("elif", name), test=node.test)


def _where_elif(module, cm: Codemod):
    import libcst as cst

    depth = int(cm.args[1])
    if len(module.body) != 1 or not isinstance(module.body[0], cst.If):
        return None

    def assign(block):
        if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1 \
                or not isinstance(block.body[0], cst.SimpleStatementLine) or len(block.body[0].body) != 1:
            return None
        st = block.body[0].body[0]
        if not isinstance(st, cst.Assign) or len(st.targets) != 1 or not isinstance(st.targets[0].target, cst.Name):
            return None
        return st.targets[0].target.value, st.value, block.body[0]

    def rewrite(node, k):
        if not isinstance(node, cst.If) or not isinstance(node.orelse, cst.If):
            return None
        if k > 1:
            inner = rewrite(node.orelse, k - 1)
            return None if inner is None else node.with_changes(orelse=inner)
        link = node.orelse
        if not isinstance(link.orelse, cst.Else):
            return None
        got, other = assign(link.body), assign(link.orelse.body)
        if got is None or other is None or got[0] != other[0]:
            return None
        name, a, line_a = got
        _, b, line_b = other
        kept = {id(c) for e in (link.test, a, b) for c in _comments(e)}
        moved = [c for c in _comments(link) if id(c) not in kept and c is not link.body.header.comment]
        test = link.test.with_changes(lpar=[], rpar=[]) if _bare_parens(link.test) else link.test
        stmt = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))],
                             value=_where_call(cm.args[0], [_logical(cm.args[0], test), a, b]))],
            leading_lines=[cst.EmptyLine(indent=True, comment=c) for c in moved],
            trailing_whitespace=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  " if link.body.header.comment else ""),
                comment=link.body.header.comment, newline=link.body.header.newline))
        return node.with_changes(orelse=cst.Else(body=cst.IndentedBlock(body=[stmt]), leading_lines=link.leading_lines))

    new = rewrite(module.body[0], depth)
    return None if new is None else module.with_changes(body=[new])


TRANSFORMS["where-elif"] = _where_elif


# ---------------------------------------------------------------------------------------
# MSG203: a subscript write on a local tensor → the pure form (``ops.select_scatter``)

def _int_index(e: ast.AST) -> Optional[int]:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        k = _int_index(e.operand)
        return None if k is None else -k
    return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None


def _number_literal(e: ast.AST) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
        return isinstance(e, ast.Constant) and type(e.value) in (int, float)
    return isinstance(e, ast.Constant) and type(e.value) in (int, float, bool)


def select_axis(index: ast.AST) -> Optional[Tuple[int, int]]:
    """(axis, index) of a subscript that picks one position along one axis: ``y[k]``
    (``y[k, :]``), ``y[:, k]`` (``y[:, :, k]``, ``y[:, k, :]``) and ``y[..., k]``, ``k`` an int
    literal; None for anything else (slices, two indices, tensors, names)."""
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    if len(parts) == 2 and isinstance(parts[0], ast.Constant) and parts[0].value is Ellipsis:
        k = _int_index(parts[1])
        return None if k is None else (-1, k)
    full = [isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None for p in parts]
    picks = [i for i, p in enumerate(parts) if not full[i]]
    if len(picks) != 1:
        return None
    k = _int_index(parts[picks[0]])
    return None if k is None else (picks[0], k)


_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}


def scatter_write_fix(ctx, stmt: ast.stmt, sub: ast.Subscript, proof: Optional[str]) -> Optional[Fix]:
    """MSG203: ``y[:, k] = c`` → ``y = ops.select_scatter(y, ops.full_like(y[:, k], c), 1, k)``.

    Graph mode compiles the subscript write into a new tensor already (TensorScatterUpdate):
    the pure form is what graph mode computes, whatever else holds ``y``. PyNative writes into
    ``y``'s tensor, which every other reference sees (an alias, a container, a view, the
    caller's tensor); the new tensor leaves them unchanged. Measured on 2.10 CPU, in both
    modes, ``y`` float32/int32/bool/float16 of rank 2 and 3, ``k`` 0, 1, -1 and out of range,
    ``c`` 0, 1.5, -1, True, 1e6: the same values and dtype (``full_like`` casts ``c`` as the
    write does: 1.5 into int32 is 1, 1e6 into float16 inf), the same IndexError out of range.
    Safe only with ``proof`` (nothing else references ``y``'s tensor); unsafe otherwise, and
    unsafe for a value that is not a number literal (``select_scatter`` needs exactly the
    selected shape and dtype, where the write broadcasts and casts) and for ``y[k] += v``."""
    if not (isinstance(sub.value, ast.Name) and stmt.end_lineno is not None):
        return None
    if isinstance(stmt, ast.Assign):
        if len(stmt.targets) != 1 or stmt.targets[0] is not sub:
            return None
    elif isinstance(stmt, ast.AugAssign):
        if stmt.target is not sub or type(stmt.op) not in _AUG:
            return None
    else:
        return None
    where = select_axis(sub.slice)
    name = sub.value.id
    picked, value = ctx.segment(sub), ctx.segment(stmt.value)
    if where is None or not picked or not value:
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    axis, k = where
    if isinstance(stmt, ast.AugAssign):
        v = value if isinstance(stmt.value, (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call)) \
            else f"({value})"
        src, cond = f"{picked} {_AUG[type(stmt.op)]} {v}", (
            f"`{picked} {_AUG[type(stmt.op)]} {v}` keeps `{name}`'s dtype (`select_scatter` raises on another dtype, "
            "where the write casts)")
    elif _number_literal(stmt.value):
        src, cond = f"{ops}.full_like({picked}, {value})", ""
    elif not ctx.tensor(stmt.value).surely:
        # `y[..., -1] = constant` with `constant = np.log(...)`, or a helper's `tail_bound=5.0`:
        # `select_scatter` of a number itself raises TypeError (src must be a Tensor) in both
        # modes; `full_like` casts a number as the write does (measured on 2.10 CPU, numpy
        # float64 into float32/float16/int32). A value that is maybe a tensor is written so too,
        # under the same condition (`full_like` refuses a tensor or a sequence of values).
        src, cond = f"{ops}.full_like({picked}, {value})", (
            f"`{value}` is a number (a sequence is broadcast by the write and refused by `full_like`)")
    else:
        src, cond = value, (f"`{value}` has exactly the shape and dtype of `{picked}` (the write broadcasts and "
                            "casts it; `select_scatter` raises otherwise)")
    text = f"{name} = {ops}.select_scatter({name}, {src}, {axis}, {k})"
    edits = (Edit(stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset, text),) + tuple(imports)
    desc = f"`{name} = {ops}.select_scatter({name}, …, {axis}, {k})`: a new tensor, as graph mode builds"
    if not cond and proof:
        return Fix(desc, edits, FixSafety.SAFE,
                   proof=f"{proof}; `select_scatter` of `full_like` gives the written values and dtype in both modes "
                         "(measured on MindSpore 2.10)")
    if not cond:
        cond = (f"nothing else holds `{name}`'s tensor: PyNative's write changes every other reference to it (an "
                "alias, a container, a view), the new tensor does not (graph mode's write never did)")
    return Fix(f"{desc} (unsafe: the same only when {cond})", edits, FixSafety.UNSAFE)
