"""Applying fixes to a text, and the contract every fix must keep.

Positions: ``Edit`` lines are ast's (1-based; only ``\\n``, ``\\r\\n`` and ``\\r`` end a
line: ``source.split_lines``), columns are 0-based *character* offsets, the same unit as
``Finding.col`` and as every output format (JSON, SARIF). Rules build edits from ast
node positions (UTF-8 byte columns); ``RuleContext`` converts them once, when the
finding is reported, and checks the contract there (:func:`check_fix`).

The contract, checked for every fix (``check_fix``):

* **a fix never drops text**: every name, number, string word, comment and ``*``/``**``
  of the replaced text appears in the replacement, except the tokens the fix declares
  in ``Fix.drops`` (``print`` → ``ops.print_`` drops ``print``). A fix that would drop
  anything else (an argument, ``**kwargs``, a comment) is withheld.
* **a safe fix carries its proof**: ``Fix.proof`` names what the rule proved (for MSG204:
  the name has no alias, and the literal cannot change the dtype). A fix marked safe
  without one is demoted to unsafe.

``apply_edits`` splices non-overlapping edits into the original text, keeping its
encoding, BOM and line endings; ``fix_text`` refuses a result that no longer compiles
(``compile()``: the parser and the symbol-table checks). The semantic harness (tests/test_fix_semantics.py) compiles and
runs every safe fix before and after on MindSpore, in graph mode and PyNative.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..findings import Edit, Finding, Fix, FixSafety
from ..parse.source import SourceFile, line_starts, split_lines


# (rule or codemod, path, line, why) of every fix the contract refused: the tests read it
# (context.CONTRACT_LOG is the same list)
CONTRACT_LOG: list = []


class FixError(Exception):
    pass


def eligible(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.safety is FixSafety.SAFE)


def _offset(starts: List[int], size: int, line: int, col: int) -> int:
    if line - 1 >= len(starts) - 1:
        return size
    return min(starts[line - 1] + col, starts[line] if line < len(starts) else size)


def apply_edits(text: str, edit_groups: Sequence[Sequence[Edit]]) -> Tuple[str, int]:
    """Apply groups of edits (one group per fix, all-or-nothing); a group that overlaps
    an already accepted one is skipped. Columns are character offsets. Returns (new
    text, groups applied)."""
    starts = line_starts(text)  # (one text's starts are remembered: one text gets many edits)
    size = len(text)
    accepted: List[Tuple[int, int, str]] = []
    applied = 0
    for group in edit_groups:
        spans = [(_offset(starts, size, e.line, e.col), _offset(starts, size, e.end_line, e.end_col), e.text)
                 for e in group]
        if any(a > b for a, b, _ in spans):
            continue
        if any(not (b <= s or a >= t) or (a == b == s == t) for a, b, _ in spans for s, t, _ in accepted):
            continue
        accepted.extend(spans)
        applied += 1
    out = text
    for a, b, new in sorted(accepted, key=lambda x: (x[0], x[1]), reverse=True):
        out = out[:a] + new + out[b:]
    return out, applied


def replaced_text(text: str, edit: Edit) -> str:
    """The text an edit replaces (character columns)."""
    starts = line_starts(text)
    a = _offset(starts, len(text), edit.line, edit.col)
    b = _offset(starts, len(text), edit.end_line, edit.end_col)
    return text[a:b]


# the contract ---------------------------------------------------------------------------

_TOKEN = re.compile(r"#[^\r\n]*|\.?\d[\w.]*|\w+|\*\*|\*")


def tokens(text: str) -> Counter:
    """Names, numbers, words (also inside strings), comments and stars of a piece of code."""
    return Counter(m.group().rstrip() for m in _TOKEN.finditer(text))


def dropped(fix: Fix, text: str) -> List[str]:
    """Tokens of the replaced text that the replacement loses and the fix does not declare."""
    old: Counter = Counter()
    new: Counter = Counter()
    for e in fix.edits:
        old += tokens(replaced_text(text, e))
        new += tokens(e.text)
    lost = old - new - Counter(fix.drops)
    return sorted(lost)


def check_fix(fix: Fix, text: str) -> Tuple[Optional[Fix], Optional[str]]:
    """Hold a fix (character columns, for ``text``) to the contract: (the fix to offer,
    or None to withhold it; why it was changed, or None)."""
    lost = dropped(fix, text)
    if lost:
        return None, "it would drop " + ", ".join(f"`{t}`" for t in lost)
    if fix.safety is FixSafety.SAFE and not fix.proof:
        return replace(fix, safety=FixSafety.UNSAFE), "marked safe without a proof"
    return fix, None


def check_parses(text: str, path: str) -> None:
    """The fixed text must compile: ``compile()`` parses it and also runs the symbol-table
    checks ``ast.parse`` skips (``return`` outside a function, a ``nonlocal`` with no
    binding, ...)."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not ours to judge
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        where = f" at line {exc.lineno}" if getattr(exc, "lineno", None) else ""
        raise FixError(f"{path}: the fixed text does not compile ({getattr(exc, 'msg', exc)}{where}); nothing was written")


def encode_like(source: SourceFile, text: str) -> bytes:
    data = text.encode(source.encoding)
    return (codecs.BOM_UTF8 + data) if source.bom else data


@dataclass
class FileFix:
    path: str
    original: str
    fixed: str
    applied: int
    source: SourceFile

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        if self.source is not None and self.source.notebook is not None:  # ruff's: one diff per changed cell
            from ..parse.notebook import cell_diff
            return cell_diff(self.path, self.original, self.fixed)
        import difflib  # (a diff is asked for by --diff only)
        return "".join(difflib.unified_diff(split_lines(self.original, keepends=True), split_lines(self.fixed, keepends=True),
                                            fromfile=f"a/{self.path}", tofile=f"b/{self.path}"))


def resolve(fix: Fix, text: str, path: str = "") -> Optional[Fix]:
    """``fix`` with its codemod's edit computed for ``text`` (``msgraphlint.fix.codemods``: libcst
    is imported here, when a structural fix is applied, never by ``check``) and held to the
    contract like any fix; None when the transform no longer applies or the contract
    withholds its edit. A fix without a codemod is returned as it is."""
    if fix.codemod is None:
        return fix
    from .codemods import apply_codemod
    edit = apply_codemod(fix.codemod, text)
    if edit is None:
        return None
    checked, why = check_fix(replace(fix, edits=tuple(fix.edits) + (edit,), codemod=None), text)
    if why is not None:
        CONTRACT_LOG.append((fix.codemod.name, path, edit.line, why))
    return checked


def with_resolved_codemods(results: Sequence, overrides: Optional[Dict[str, bytes]] = None) -> list:
    """``results`` with each structural fix's edits computed (``resolve``), for the output
    formats that print edits (JSON, JSON lines, SARIF): while checking, a codemod fix has
    none (libcst runs only when a fix is asked for). Only files with such a fix are read and
    parsed; a fix whose transform no longer applies keeps its empty edits (it is counted as
    the text summary counts it). ``overrides``: path -> bytes read instead of the file (stdin)."""
    out = []
    for fr in results:
        if not any(f.fix is not None and f.fix.codemod is not None for f in fr.findings):
            out.append(fr)
            continue
        try:
            data = (overrides or {}).get(fr.path)
            source = SourceFile.from_bytes(fr.path, data) if data is not None else SourceFile.read(fr.path)
        except (OSError, ValueError, Exception):  # noqa: BLE001 - unreadable now: the edits stay unknown
            out.append(fr)
            continue
        findings = []
        for f in fr.findings:
            if f.fix is not None and f.fix.codemod is not None:
                try:
                    done = (_resolved_in_notebook(f.fix, source.notebook, fr.path) if source.notebook is not None
                            else resolve(f.fix, source.text, fr.path))
                except Exception:  # noqa: BLE001 - a transform's failure never takes the report down
                    done = None
                if done is not None and done.edits:
                    f = replace(f, fix=done)
            findings.append(f)
        out.append(replace(fr, findings=findings))
    return out


def fix_text(source: SourceFile, findings: Iterable[Finding], unsafe: bool = False) -> FileFix:
    if source.notebook is not None:  # the fixed cells' sources spliced into the JSON text (msgraphlint.parse.notebook)
        return fix_notebook(source, findings, unsafe)
    fixes = [f.fix for f in sorted(findings, key=lambda f: f.sort_key) if eligible(f, unsafe)]
    if any(fx.codemod is not None for fx in fixes):
        fixes = [r for r in (resolve(fx, source.text, source.path) for fx in fixes)
                 if r is not None and (unsafe or r.safety is FixSafety.SAFE)]
    groups = [fx.edits for fx in fixes]
    fixed, applied = apply_edits(source.text, groups)
    if fixed != source.text:
        check_parses(fixed, source.path)
    return FileFix(source.path, source.text, fixed, applied, source)


# notebooks: each cell's edits applied to its own source, spliced into the JSON text -----

def _resolved_in_notebook(fix, nb, path: str):
    """``fix`` with a codemod's edit (computed on the joined text, then put in its cell's
    numbering); None when it no longer applies."""
    if getattr(fix, "codemod", None) is None:
        return fix
    from ..parse.notebook import cell_edit

    done = resolve(replace(fix, edits=()), nb.text, path)
    if done is None:
        return None
    return replace(done, edits=tuple(fix.edits) + tuple(cell_edit(e, nb) for e in done.edits))


def apply_notebook_fixes(nb, findings: Sequence, unsafe: bool, path: str) -> Tuple[str, int]:
    """The notebook's text with the eligible fixes of ``findings`` (localized) applied, and
    how many were. Each cell's edits go to its original source; a fix that touches a
    masked line or spans cells is skipped; each changed cell must compile (``FixError``)."""
    from ..parse.notebook import mask, parse, splice

    by_cell: Dict[int, List] = {}
    cells = {c.index + 1: c for c in nb.cells}
    for f in sorted(findings, key=lambda f: f.sort_key):
        if not eligible(f, unsafe):
            continue
        fix = _resolved_in_notebook(f.fix, nb, path)
        if fix is None or not (unsafe or fix.safety is FixSafety.SAFE) or not fix.edits:
            continue
        edits = fix.edits
        owners = {e.cell for e in edits}
        if len(owners) != 1 or None in owners or -1 in owners:
            continue  # an edit in no cell or across cells: not written
        cell = cells.get(next(iter(owners)))
        if cell is None or any(k in cell.masked for e in edits for k in range(e.line - 1, e.end_line)):
            continue
        by_cell.setdefault(cell.index, []).append(edits)
    new_sources: Dict[int, str] = {}
    applied = 0
    for index, groups in by_cell.items():
        cell = cells[index + 1]
        fixed, n = apply_edits(cell.source, groups)
        if fixed != cell.source:
            new_sources[index] = fixed
            applied += n
    if not new_sources:
        return nb.raw, 0
    new_raw = splice(nb, new_sources)
    for cell in parse(new_raw, path).cells:  # each changed cell compiles on its own, as IPython compiles it
        if cell.index in new_sources:        # (a `from __future__` import may open any cell)
            check_parses(mask(cell.source)[0], f"{path}:cell {cell.index + 1}")
    return new_raw, applied


def fix_notebook(source: SourceFile, findings: Sequence, unsafe: bool = False):
    """:func:`fix_text` for a notebook: a FileFix of its JSON text."""
    nb = source.notebook
    fixed, applied = apply_notebook_fixes(nb, findings, unsafe, source.path)
    return FileFix(source.path, nb.raw, fixed, applied, source)
