"""Findings, fixes and severities: the values that flow from rules to reporters."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple


# the engine's own codes: an analysis that failed (a bug, an exhausted budget) and a file
# that cannot be parsed or decoded
INTERNAL_ERROR_CODE = "MSG000"
PARSE_ERROR_CODE = "MSG001"


class Severity(str, enum.Enum):
    """How bad a finding is. Maps onto SARIF levels and GitHub annotation kinds."""

    ERROR = "error"      # fails to compile, or silently computes something else
    WARNING = "warning"  # compiles, costs fusion / throughput / recompiles
    INFO = "info"        # advice; worth knowing, rarely wrong to ignore

    @property
    def sarif_level(self) -> str:
        return {"error": "error", "warning": "warning", "info": "note"}[self.value]


class FixSafety(str, enum.Enum):
    SAFE = "safe"      # meaning-preserving; applied by --fix
    UNSAFE = "unsafe"  # may change behaviour; applied only with --unsafe-fixes


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions: 1-based lines (ast's numbering), 0-based
    character columns (rules may build edits from ast's byte columns: ``RuleContext``
    converts them when the finding is reported)."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str
    cell: Optional[int] = None  # a notebook's: the cell (1-based) whose lines these are (notebook.localize)


@dataclass(frozen=True)
class Codemod:
    """A structural fix whose edit is computed only when it is applied (``--fix``, ``--diff``,
    an editor's code action): a libcst transform of ``msgraphlint.fix.codemods`` (``name``), the
    statement it rewrites (lines and character columns, as ``Edit``), and its arguments.
    ``check`` never imports libcst; the edit it yields is held to the same contract."""

    name: str
    line: int
    col: int
    end_line: int
    end_col: int
    args: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Fix:
    """A rewrite offered with a finding. ``proof``: what the rule proved to mark it safe
    (required for ``SAFE``, else the fix is demoted to unsafe); ``drops``: tokens of the
    replaced text the replacement intentionally loses (``print`` for ``print`` →
    ``ops.print_``); anything else dropped withholds the fix (``msgraphlint.fix.contract``)."""

    description: str
    edits: Tuple[Edit, ...]
    safety: FixSafety = FixSafety.SAFE
    proof: str = ""
    drops: Tuple[str, ...] = ()
    codemod: Optional[Codemod] = None  # its edit is added to ``edits`` when applied (``fixes.resolve``)


@dataclass(frozen=True)
class Finding:
    """One diagnostic. Lines are 1-based, columns 0-based (as in ``ast``);
    reporters convert to what their format wants.

    ``message`` is one short line saying what and where (ruff's message: what an editor's
    one-line view and every one-line format show); ``detail``, when there is more to say,
    is the rest: what happens in the graph, the compiler's words, the evidence (text
    below the header, JSON ``detail``, SARIF markdown, the LSP message's later lines).
    A rule writes both in one template, the title on its first line (``Rule.message``,
    ``ctx.report(message=...)``); ``full_message`` joins them again."""

    code: str
    name: str
    message: str
    path: str
    line: int
    col: int = 0
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    severity: Severity = Severity.WARNING
    hint: Optional[str] = None          # the native replacement, one line
    chain: Tuple[str, ...] = ()         # "called from GPTLayer.construct (model.py:84)", outermost first
    fix: Optional[Fix] = None
    source_line: Optional[str] = None   # the flagged line's text (for reporters and baselines)
    # rewrites for a person to choose from when the code has more than one reading (MSG510's
    # `nn.Dropout(0.1)`: `p=0.9` keeps what it does, `p=0.1` is what a PyTorch author meant).
    # Never applied by --fix, --unsafe-fixes or a fix-all: they apply ``fix`` only, which such
    # a finding leaves None; editors offer each as a code action.
    alternatives: Tuple[Fix, ...] = ()
    # a call-site finding (MSG004 reached-from-call): the finding it repeats at a call that
    # reaches it from another file, as (code, path, line, col); None for every other finding
    origin: Optional[Tuple[str, str, int, int]] = None
    # a notebook's finding: the cell (1-based among all its cells), ``line``/``end_line``
    # counted within that cell (``notebook.localize``); None for every other file
    cell: Optional[int] = None
    # the lines after ``message``: what happens in the graph and the evidence; None when the
    # title says it all
    detail: Optional[str] = None

    @property
    def full_message(self) -> str:
        """``message`` and, on the following lines, ``detail``."""
        return self.message + "\n" + self.detail if self.detail else self.message

    @property
    def sort_key(self):
        return (self.path, self.cell or 0, self.line, self.col, self.code)

    def with_(self, **changes) -> "Finding":
        from dataclasses import replace

        return replace(self, **changes)


def split_message(text: str) -> Tuple[str, Optional[str]]:
    """A message template or text → (the title line, the detail or None): the first line
    and the rest, each stripped; an empty rest is None."""
    title, _, rest = (text or "").partition("\n")
    rest = rest.strip()
    return title.strip(), rest or None


def format_message(template: str, fmt: Optional[dict] = None) -> Tuple[str, Optional[str]]:
    """A rule's message template filled in → (title, detail): split before it is filled in,
    so that a value with a line break (a source segment) cannot move the split; a line
    break inside a filled-in title is shown escaped by the reporters."""
    title, detail = split_message(template)
    if fmt:
        title = title.format(**fmt)
        detail = detail.format(**fmt).strip() or None if detail else None  # an empty part: no detail
    return title, detail


@dataclass
class FileResult:
    """Everything the runner learned about one file."""

    path: str
    findings: list = field(default_factory=list)
    unused_suppressions: list = field(default_factory=list)  # Finding objects (code MSG002)
    skipped: bool = False  # skip-file, or cheap pre-filter said no graph code
    lines: int = 0
    skip_reason: str = ""  # why it was skipped (shown by check -v)
