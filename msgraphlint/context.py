"""What a rule sees: ``RuleContext``. Rules ask questions here; they never walk types."""

from __future__ import annotations

import ast
from typing import Any, Callable, Optional, Sequence

from .parse.astutil import per_tree
from .findings import Finding, Fix, format_message
from .fix.contract import CONTRACT_LOG  # noqa: F401  (the contract's refusals; rules' fixes are checked here)
from .project.imports import ImportMap
from .project.scopes import GraphScope
from .parse.source import SourceError, SourceFile
from .infer.values import Kind, ScopeValues


# (rule code, path, line, reason) of every fix the contract withheld or demoted in this
# process: a rule that relies on it has a bug (tests/test_fix_contract.py keeps it empty
# over every rule example and fixture)


def _dotted_imports(tree: ast.AST) -> list:
    """The dotted modules (``a.b``) the ``import`` statements anywhere in ``tree`` name: a walk
    of the statement lists only (an ``import`` is never inside an expression)."""
    out: list = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if type(block) is list:
                for stmt in block:
                    if type(stmt) is ast.Import:
                        out.extend(a.name for a in stmt.names if "." in a.name)
                    else:
                        stack.append(stmt)
    return out


class RuleContext:
    def __init__(self, source: SourceFile, imports: Optional[ImportMap], target_version: str,
                 sink: Callable[[Finding, Optional[GraphScope], Any], None], index: Any = None) -> None:
        self.source = source
        self._index = index  # project.ProjectIndex of the run: answers source_of / tree_of
        self.path = source.path
        self.imports = imports or ImportMap()
        self.target_version = target_version
        self.scope: Optional[GraphScope] = None
        self.values: Optional[ScopeValues] = None
        self.rule: Any = None
        self._sink = sink
        self._parents: dict = {}
        self.class_info = None  # values.ClassInfo of the scope's class, when it has one
        self.graph_scopes: list = []  # (GraphScope, its def) of the module, for check_module hooks
        self.memo: dict = {}     # per-file memo for rules' own analyses (cleared with the context)
        self._qualnames: dict = {}
        self.func: Optional[ast.AST] = None  # the def of the scope being walked
        self._python_inputs: Optional[Callable[[], Any]] = None  # entries.Inputs of the module (engine)

    def release(self) -> None:
        """Forget the file (call it once the file's rules have run): rules memoise objects that
        hold this context (``memo``), reference cycles the collector, off during a run, would
        otherwise only free when the run ends (see ``ModuleEngine.release``)."""
        self.__dict__.clear()

    # questions ------------------------------------------------------------------
    @property
    def where(self) -> str:
        """The graph scope a finding is in, for messages (``Net.construct``), or "graph"."""
        return self.scope.short_name if self.scope is not None else "graph"

    def qualname(self, node: ast.AST) -> Optional[str]:
        """Dotted name an expression spells, MindSpore names normalised (``ms.ops.add`` → ``mindspore.ops.add``)."""
        key = id(node)
        try:
            return self._qualnames[key]
        except KeyError:
            q = self.imports.dotted(node)
            if q is not None and q.startswith("mindspore") and q in self.patched_mindspore:
                q = None  # the project rebinds it (`nn.Dropout = MyDropout`): not MindSpore's any more
            self._qualnames[key] = q
            return q

    @property
    def patched_mindspore(self) -> frozenset:
        """MindSpore names this file's project rebinds where its code runs
        (``ProjectIndex.mindspore_patches_for``)."""
        got = self.__dict__.get("_patched")
        if got is None:
            index = self._index
            if index is None or not hasattr(index, "has_mindspore_patches") or not index.has_mindspore_patches():
                got = frozenset()
            else:
                imported = per_tree(self.source.tree, "dotted_imports", _dotted_imports) \
                    if "import " in self.source.text else []
                got = index.mindspore_patches_for(self.path, imported)
            self._patched = got
        return got

    def kind(self, node: ast.AST) -> Kind:
        if self.values is None:
            return Kind.UNKNOWN
        return self.values.kind(node)

    def tensor(self, node: ast.AST):
        """Is ``node`` a tensor, how sure, and where does its value come from: an
        ``infer.TensorAnswer`` (``.surely``/``.maybe``/``.surely_not``, ``.provenance``,
        ``.folded``, ``.attr`` for a local bound to ``self.<attr>``). Ask this before
        reporting on a tensor: ``kind`` also calls a bare parameter, a Cell output and a
        folded constant a tensor (docs/RULE_AUTHORING.md, "Asking what a value is")."""
        from .infer.facade import tensor
        return tensor(self, node)

    def is_tensor(self, node: ast.AST) -> bool:
        return self.kind(node).tensor_like

    def is_parameter(self, node: ast.AST) -> bool:
        return self.kind(node) is Kind.PARAMETER

    def is_constant(self, node: ast.AST) -> bool:
        return self.kind(node).constant

    def is_host(self, node: ast.AST) -> bool:
        return self.kind(node) is Kind.HOST

    def is_cell(self, node: ast.AST) -> bool:
        return self.kind(node) in (Kind.CELL, Kind.CONTAINER)

    def is_mindspore(self, node: ast.AST, prefix: str = "mindspore") -> bool:
        q = self.qualname(node)
        return bool(q) and (q == prefix or q.startswith(prefix + "."))

    @property
    def catalog(self):
        cat = self.__dict__.get("_catalog")
        if cat is None:  # (asked at every attribute and call some rules visit)
            from .infer.catalog import get_catalog
            cat = self._catalog = get_catalog(self.target_version or None)  # the target's release
        return cat

    @property
    def called_from_python(self) -> bool:
        """The scope is a graph root (a Cell's ``construct``, a ``jit`` function) that plain
        Python code of this module calls: its own graph, whose output Python receives
        (``entries.py``). False for sub-cells and ``jit`` functions only called from graphs
        (inlined), and where no call is visible."""
        s = self.scope
        if s is None or s.chain or s.kind not in ("construct", "jit") or self.func is None or self._python_inputs is None:
            return False
        return id(self.func) in self._python_inputs().called

    def python_inputs(self):
        """``(params, self_attrs)`` of a graph entry: for each parameter, and each ``self.<attr>``
        its ``__init__`` sets from a parameter, the Python value host code of this module passes
        at each call (``entries.Value``: a literal display or a class instance, None when
        unknown); None when the scope is not an entry."""
        if not self.called_from_python:
            return None
        inputs = self._python_inputs()
        return inputs.params.get(id(self.func), {}), inputs.self_attrs.get(id(self.func), {})

    def python_literals(self) -> dict:
        """For a graph entry host code of this module calls: parameter -> the ``(line, value,
        receiver)`` of each call that writes a Python scalar or tuple literal for it
        (``net(x, 0.5)``; receiver: the Cell instance's construction call, None for a function);
        empty when the scope is not an entry."""
        if not self.called_from_python:
            return {}
        return self._python_inputs().literals.get(id(self.func), {})

    def source_of(self, path: str) -> Optional[SourceFile]:
        """Another file's source as this run sees it: an editor's unsaved buffer (or stdin)
        first, then what the run read, then the file decoded as any linted file (BOM, coding
        cookie), memoised for the run; None when it cannot be read or decoded. A rule never
        opens a file itself (tests/test_rules_read_pipeline.py)."""
        import os
        key = os.path.abspath(path)
        if key == os.path.abspath(self.path):
            return self.source
        if self._index is not None:
            return self._index.source_of(key)
        from .project.index import ProjectIndex  # a context without a run (tests): a throwaway index
        self._index = ProjectIndex()
        return self._index.source_of(key)

    def tree_of(self, path: str) -> Optional[ast.Module]:
        """The parsed tree of :meth:`source_of`'s source (the run's own tree when it parsed the
        file); None when the file cannot be read, decoded or parsed."""
        import os
        if os.path.abspath(path) == os.path.abspath(self.path):
            try:
                return self.source.tree
            except SourceError:
                return None
        if self._index is None:
            self.source_of(path)
        return self._index.tree_of(path)

    @property
    def in_graph(self) -> bool:
        return self.scope is not None

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self._parents.get(id(node))

    def ancestors(self, node: ast.AST):
        p = self.parent(node)
        while p is not None:
            yield p
            p = self.parent(p)

    def segment(self, node: ast.AST) -> str:
        return self.source.segment(node)

    # reporting ------------------------------------------------------------------
    def report(self, node: ast.AST, message: Optional[str] = None, *, hint: Optional[str] = None,
               fix: Optional[Fix] = None, end_node: Optional[ast.AST] = None,
               alternatives: Sequence[Fix] = (), **fmt: Any) -> None:
        """``alternatives``: rewrites for a person to choose from (``Finding.alternatives``;
        never applied by ``--fix``), held to the same contract as ``fix``."""
        end = end_node or node
        line = getattr(node, "lineno", 1)
        end_line = getattr(end, "end_lineno", None)
        self._emit(line, self._char_col(line, getattr(node, "col_offset", 0)) or 0,
                   end_line, self._char_col(end_line, getattr(end, "end_col_offset", None)) if end_line else None,
                   message, hint, fix, fmt, alternatives)

    def report_at(self, line: int, col: int = 0, message: Optional[str] = None, *,
                  end_line: Optional[int] = None, end_col: Optional[int] = None,
                  hint: Optional[str] = None, fix: Optional[Fix] = None,
                  alternatives: Sequence[Fix] = (), **fmt: Any) -> None:
        """Report at a position: ``col``/``end_col`` are *character* columns (convert ast's
        byte columns with :meth:`char_col`); a fix's edits are in ast's byte columns, as
        for :meth:`report`."""
        self._emit(line, col, end_line, end_col, message, hint, fix, fmt, alternatives)

    def char_col(self, line: int, col: Optional[int]) -> Optional[int]:
        """ast columns are UTF-8 byte offsets; findings and edits carry character offsets."""
        if col is None:
            return None
        text = self.source.line(line)
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", "replace"))

    _char_col = char_col

    def _checked_fix(self, fix: Optional[Fix]) -> Optional[Fix]:
        """The rule's fix in character columns, held to the fix contract (``fixes.check_fix``):
        withheld if it would drop text, demoted to unsafe if marked safe without a proof."""
        if fix is None:
            return None
        from dataclasses import replace

        from .fix.contract import check_fix
        edits = tuple(replace(e, col=self.char_col(e.line, e.col), end_col=self.char_col(e.end_line, e.end_col))
                      for e in fix.edits)
        cm = fix.codemod
        if cm is not None:  # its span in character columns too (the edit is computed when applied)
            cm = replace(cm, col=self.char_col(cm.line, cm.col), end_col=self.char_col(cm.end_line, cm.end_col))
        checked, why = check_fix(replace(fix, edits=edits, codemod=cm), self.source.text)
        if why is not None:
            CONTRACT_LOG.append((getattr(self.rule, "code", "?"), self.path, edits[0].line if edits else 0, why))
        return checked

    def _emit(self, line, col, end_line, end_col, message, hint, fix, fmt, alternatives=()) -> None:
        rule = self.rule
        fix = self._checked_fix(fix)
        alts = tuple(a for a in (self._checked_fix(a) for a in alternatives) if a is not None)
        # the template's first line is the title (Finding.message), the rest its detail
        text, detail = format_message(message or rule.message, fmt)
        hint_text = hint if hint is not None else rule.hint
        if hint_text and fmt:
            try:
                hint_text = hint_text.format(**fmt)
            except (KeyError, IndexError):
                pass
        finding = Finding(
            code=rule.code, name=rule.name, message=text, detail=detail, path=self.path, line=line, col=col,
            end_line=end_line, end_col=end_col, severity=rule.severity, hint=hint_text,
            chain=self.scope.chain if self.scope else (), fix=fix,
            source_line=self.source.line(line), alternatives=alts,
        )
        self._sink(finding, self.scope, rule)
