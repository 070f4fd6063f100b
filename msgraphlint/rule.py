"""The rule plugin API.

A rule is one class with its metadata, its docs and its own examples
(Fixit-style). The engine walks each module once and dispatches nodes to the
``visit_<NodeType>(self, node, ctx)`` methods that rules define. Rules ask the
shared analyses questions through ``ctx`` (``ctx.kind(expr)``,
``ctx.qualname(expr)``, ``ctx.is_tensor(expr)``…) and report with
``ctx.report(node, …)``; they never walk types themselves.

Where a rule looks:
* ``scope = "graph"`` (default): only nodes inside graph-mode scopes
  (``construct`` of Cells, ``jit`` functions, and the project helpers they reach);
* ``scope = "module"``: every node of every Python module (config calls, imports);
* ``scope = "yaml"``: YAML run configs; the rule implements ``check_yaml(doc, ctx)``.

In which execution modes a graph-scope rule's claim holds (``modes``, Fixit's/ruff's habit
of one metadata field): ``GRAPH_ONLY`` (default: a fallback, a Switch, an in-place copy, a
``print`` are graph-compiler facts) or ``EVERY_MODE`` (the code fails in PyNative too: a
Tensor method the target release's Tensor does not have). Only rules that ask are also
run on the Cell methods and functions of PyNative-only modules (``ModuleSummary.pynative_only``;
``scopes.pynative_scopes``), where ``ctx.scope.mode == "pynative"``.

Third-party packs expose a module (or list of Rule classes) under the
``msgraphlint.rules`` entry-point group; the built-in rules are loaded the same way.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from .findings import FixSafety, Severity

__all__ = ["Rule", "Valid", "Invalid", "Severity", "FixSafety", "GRAPH_ONLY", "EVERY_MODE"]


@dataclass(frozen=True)
class Valid:
    """Code the rule must not flag (a look-alike that is fine in graph mode)."""

    code: str
    note: str = ""
    filename: str = "example.py"

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")


@dataclass(frozen=True)
class Invalid:
    """Code the rule must flag, at exactly these 1-based lines (of the dedented
    source). ``expected_fix`` (optional) is the whole source after ``--fix``
    (``--unsafe-fixes`` for unsafe fixes)."""

    code: str
    line: Union[int, Sequence[int]]
    note: str = ""
    expected_fix: Optional[str] = None
    filename: str = "example.py"

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def lines(self) -> Tuple[int, ...]:
        return (self.line,) if isinstance(self.line, int) else tuple(self.line)

    @property
    def fixed_source(self) -> Optional[str]:
        if self.expected_fix is None:
            return None
        return textwrap.dedent(self.expected_fix).lstrip("\n")


ALL_CAPTURES: FrozenSet[str] = frozenset({"ast", "bytecode", "trace"})
# a rule whose claim is about what the ast parser builds (a Switch, PyExecute, a syntax error):
# it does not hold under `jit(capture_mode="bytecode"|"trace")`, which never parses the source
AST_CAPTURE: FrozenSet[str] = frozenset({"ast"})
# the execution modes a rule's claim holds in (``Rule.modes``): graph code only, or every mode
GRAPH_ONLY: FrozenSet[str] = frozenset({"graph"})
EVERY_MODE: FrozenSet[str] = frozenset({"graph", "pynative"})


class Rule:
    """Base class of every rule. Subclasses set the metadata below."""

    # identity -----------------------------------------------------------------
    code: ClassVar[str] = ""            # stable, e.g. "MSG201"
    name: ClassVar[str] = ""            # kebab-case, e.g. "print-in-graph"
    summary: ClassVar[str] = ""         # one line
    message: ClassVar[str] = ""         # default message; str.format(**kwargs of ctx.report)
    hint: ClassVar[Optional[str]] = None  # the native replacement, one line
    rationale: ClassVar[str] = ""       # docs: why, the measured MindSpore fact, what to do
    severity: ClassVar[Severity] = Severity.WARNING
    # default selection (ruff-style): None = on unless the severity is INFO (advice, not a
    # defect); set True/False to decide explicitly. ``select = ["ALL"]`` or the rule's code
    # turns an off-by-default rule on.
    default: ClassVar[Optional[bool]] = None
    default_reason: ClassVar[str] = ""  # why a rule is off by default (docs, `msgraphlint rules`)
    # the tier (README "Default selection"): "defect" (on: fails, computes something else, or a
    # measured cost), "deprecation" (on: something the target MindSpore itself marks deprecated
    # or has removed; one line naming the replacement, gated by the target), or "advice" (off:
    # informational). None: "advice" when the severity is INFO, else "defect".
    tier: ClassVar[Optional[str]] = None
    fix_safety: ClassVar[Optional[FixSafety]] = None  # None: the rule offers no fix
    mindspore: ClassVar[str] = ">=2.0"  # PEP 440 specifier: versions the rule applies to
    scope: ClassVar[str] = "graph"      # "graph" | "module" | "yaml"
    options: ClassVar[Dict[str, Any]] = {}  # per-rule options and their defaults
    option_types: ClassVar[Dict[str, type]] = {}  # an option's type where its default (None) does not say
    requires_text: ClassVar[Tuple[str, ...]] = ()  # visit only files whose text contains one of these
    # the capture modes of the graph scope (GraphScope.capture_mode) whose code the rule's claim is
    # about; the engine does not run a graph-scope rule in a scope captured another way
    captures: ClassVar[FrozenSet[str]] = ALL_CAPTURES
    # the execution modes a graph-scope rule's claim holds in: GRAPH_ONLY (default), or EVERY_MODE
    # for code that fails in PyNative too; only rules with "pynative" here see the PyNative scopes
    # (the Cell methods and functions of PyNative-only modules, ``scopes.pynative_scopes``), with
    # ``ctx.scope.mode == "pynative"``. Module and YAML rules see every file whatever this says.
    modes: ClassVar[FrozenSet[str]] = GRAPH_ONLY
    references: ClassVar[Tuple[str, ...]] = ()

    VALID: ClassVar[List[Valid]] = []
    INVALID: ClassVar[List[Invalid]] = []

    def __init__(self, options: Optional[Dict[str, Any]] = None) -> None:
        merged = dict(self.options)
        merged.update(options or {})
        self.opts = merged

    # hooks ----------------------------------------------------------------------
    # def visit_<NodeType>(self, node, ctx) -> None   (any ast node type)
    # def leave_scope(self, scope, ctx) -> None         (after a graph scope was walked)
    # def check_module(self, ctx) -> None               (once per Python module, after the walk)
    # def check_yaml(self, doc, ctx) -> None            (scope = "yaml")

    # docs -----------------------------------------------------------------------
    @classmethod
    def family(cls) -> str:
        return cls.code[:4] + "xx" if len(cls.code) >= 4 else cls.code

    @classmethod
    def on_by_default(cls) -> bool:
        """Whether the default selection (no ``select`` given) includes this rule."""
        if cls.default is not None:
            return bool(cls.default)
        return cls.rule_tier() != "advice"

    @classmethod
    def rule_tier(cls) -> str:
        """``defect``, ``deprecation`` or ``advice`` (see ``tier``)."""
        if cls.tier is not None:
            return cls.tier
        return "advice" if cls.severity is Severity.INFO else "defect"

    @classmethod
    def default_note(cls) -> str:
        """One sentence for the docs: whether the rule is on by default, and why."""
        if cls.on_by_default():
            return "On by default."
        why = cls.default_reason or "informational: the finding is advice, not a defect"
        return (f"Off by default ({why}); enable it with `extend-select = [\"{cls.code}\"]`, "
                f"`--extend-select {cls.code}` or `select = [\"ALL\"]`.")

    @classmethod
    def fixable(cls) -> bool:
        return cls.fix_safety is not None

    @staticmethod
    def template_for_docs(text: str) -> str:
        """A message or hint template as docs show it: ``{name}`` fields (filled per finding)
        become ``<name>``, ``{{``/``}}`` become braces."""
        import re
        import string
        out = []
        try:
            parts = list(string.Formatter().parse(text))
        except ValueError:
            return text
        names = [name for _lit, name, _spec, _conv in parts if name is not None]
        if not names or not all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
            return text  # literal braces (a dict display), not a template
        for literal, name, _spec, _conv in parts:
            out.append(literal)
            if name is not None:
                out.append(f"<{name}>")
        return "".join(out)

    @classmethod
    def docs(cls) -> str:
        """Markdown docs built from the metadata (``msgraphlint explain``)."""
        out = [f"# {cls.code} {cls.name}", "", cls.summary, ""]
        out += [f"Severity: {cls.severity.value}. Applies to MindSpore {cls.mindspore}.",
                f"Fix: {cls.fix_safety.value if cls.fix_safety else 'none'}.", "", cls.default_note(), ""]
        if cls.rationale:
            out += [textwrap.dedent(cls.rationale).strip(), ""]
        if cls.hint:
            out += ["## Use instead", "", cls.template_for_docs(cls.hint), ""]
        if cls.INVALID:
            out += ["## Flagged", ""]
            for ex in cls.INVALID[:2]:
                out += ["```python", ex.source.rstrip(), "```", ""]
        if cls.VALID:
            out += ["## Not flagged", ""]
            for ex in cls.VALID[:2]:
                out += ["```python", ex.source.rstrip(), "```", ""]
        if cls.references:
            out += ["## References", ""] + [f"- {r}" for r in cls.references] + [""]
        return "\n".join(out).rstrip() + "\n"

    @classmethod
    def help_uri(cls) -> Optional[str]:
        """The rule's page (docs/rules/CODE.md, generated from this metadata): the
        ``Documentation`` URL declared in pyproject.toml's ``[project.urls]``, or
        ``MSGRAPHLINT_DOCS_URL`` when set, so a fork can point code scanning at its own host.
        A plugin rule (not in msgraphlint_rules) has no page there: its own ``help_url``
        when it sets one, else None (SARIF and the editor then link nothing)."""
        own = getattr(cls, "help_url", None)
        if own:
            return own
        if cls.__module__.split(".")[0] != "msgraphlint_rules":
            return None
        from .urls import docs_base_url
        return f"{docs_base_url()}{cls.code}.md"
