"""The default, human-readable output, in the style of ruff's ``full`` format::

    model.py:12:9: MSG201 [*] `print()` in graph-mode code
      In Net.construct it is compiled into a Print op with no source line that runs on every
      step.
       |
    12 |         print(x)
       |         ^^^^^^^^ MSG201
       |
       = help: use ops.Print
       = note: called from Net.construct (model.py:4)

    Found 1 error (1 fixable).

* the header is ``path:line:col: CODE [*] message`` with a 1-based column (a notebook's
  ``nb.ipynb:cell 3:4:5: ...``: the cell, then the line within it, as ruff prints it);
  ``[*]`` appears only when ``--fix`` would apply the finding's fix (a safe fix, or
  any fix with ``--unsafe-fixes``), as in ruff;
* ``Finding.detail`` (what happens in the graph, the evidence) follows on lines indented
  by two spaces, wrapped at 88 columns;
* the snippet (only when ``Finding.source_line`` is known) has a line-number
  gutter and carets under the flagged span; a span that runs onto later lines
  is underlined to the end of its first line; a span of unknown end gets one
  caret; tabs are shown as 4-column tab stops;
* ``= help:`` is the hint, ``= note:`` one line per call-chain entry, outermost first;
* findings are separated by a blank line and followed by the summary,
  ``Found N error(s) (M fixable).`` or ``All checks passed!``, plus
  ``K hidden fixes can be enabled with the `--unsafe-fixes` option.`` when some
  findings only have an unsafe fix.

``statistics=True`` prints ``count  CODE  [*] name`` rows instead, most frequent
first (``[*]``: some of them are fixable), then the summary.
Colour (``color=True``) uses ``click.style``; off by default.

Paths, messages, hints, notes and source lines are shown through ``safe_path`` /
``safe_text`` (``_common``): control characters, bidi controls and undecodable bytes
as ``\\x1b`` / ``\\u202e`` / ``\\xe9``, the carets under the escaped text; every finding
line starts with its path or the gutter, never with ``::``.
"""

from __future__ import annotations

import textwrap
import unicodedata
from typing import List, Mapping, Optional

import click

from ..findings import FileResult, Finding, Severity
from ._common import all_findings, fix_applicable, hint_for, safe_path, safe_text, statistics_rows, summary_line

TAB_WIDTH = 4
DETAIL_WIDTH = 88  # the detail's lines are wrapped at this many columns


def _style(text: str, color: bool, **kw) -> str:
    return click.style(text, **kw) if color else text


def _width(text: str) -> int:
    """Terminal columns taken by ``text`` (East Asian wide/fullwidth count 2)."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def header(finding: Finding, *, color: bool = False, unsafe_fixes: bool = False) -> str:
    """``path:line:col: CODE [*] message`` (1-based column)."""
    sep = _style(":", color, fg="cyan")
    cell = f"cell {finding.cell}" + sep if finding.cell is not None else ""  # a notebook's: ruff's `nb.ipynb:cell 3:4:5:`
    loc = (_style(safe_path(finding.path), color, bold=True) + sep + cell + str(finding.line) + sep
           + str(finding.col + 1) + sep)
    code = _style(finding.code, color, fg="red", bold=True)
    fix = " " + _style("[*]", color, fg="cyan") if fix_applicable(finding, unsafe_fixes) else ""
    return f"{loc} {code}{fix} {safe_text(finding.message)}"


def _underline_span(finding: Finding, src: str):
    """(start, end) character offsets of the underline within ``src``."""
    start = min(max(finding.col, 0), len(src))
    if finding.end_line is not None and finding.end_line > finding.line:
        end = len(src.rstrip())  # multi-line span: to the end of the first line
    elif finding.end_col is not None:
        end = min(finding.end_col, len(src))
    else:
        end = start + 1
    return start, max(end, start)


def snippet(finding: Finding, *, color: bool = False) -> List[str]:
    """The gutter/source/caret block, or [] when the source line is unknown."""
    if finding.source_line is None:
        return []
    src = finding.source_line.rstrip("\r\n")
    start, end = _underline_span(finding, src)
    escaped = safe_text(src)
    if escaped != src:  # escaped per character: the escaped prefixes measure where the carets go
        start, end = len(safe_text(src[:start])), len(safe_text(src[:end]))
        src = escaped
    shown = src.expandtabs(TAB_WIDTH)
    indent = _width(src[:start].expandtabs(TAB_WIDTH))
    carets = max(1, _width(src[:end].expandtabs(TAB_WIDTH)) - indent)

    number = str(finding.line)
    pad = " " * len(number)
    bar = _style("|", color, fg="blue", bold=True)
    underline = _style("^" * carets + " " + finding.code, color,
                       fg="red" if finding.severity is Severity.ERROR else "yellow", bold=True)
    return [
        f"{pad} {bar}",
        f"{_style(number, color, fg='blue', bold=True)} {bar} {shown}".rstrip(),
        f"{pad} {bar} {' ' * indent}{underline}",
        f"{pad} {bar}",
    ]


def detail_lines(finding: Finding, width: int = DETAIL_WIDTH) -> List[str]:
    """``Finding.detail`` below the header, indented by two spaces and wrapped at ``width``
    columns (a detail's own line breaks are kept), each line escaped (``safe_text``)."""
    if not finding.detail:
        return []
    out: List[str] = []
    for part in finding.detail.splitlines():
        part = safe_text(part.strip())
        if part:
            out += textwrap.wrap(part, width=width, initial_indent="  ", subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False) or ["  " + part]
    return out


def render_finding(finding: Finding, rules: Mapping[str, type], *, color: bool = False,
                   unsafe_fixes: bool = False) -> List[str]:
    lines = [header(finding, color=color, unsafe_fixes=unsafe_fixes)]
    lines += detail_lines(finding)
    lines += snippet(finding, color=color)
    pad = " " * len(str(finding.line))
    eq = _style("=", color, fg="blue", bold=True)
    hint = hint_for(finding, rules)
    if hint:
        lines.append(f"{pad} {eq} {_style('help', color, bold=True)}: {safe_text(hint)}")
    for entry in finding.chain:
        lines.append(f"{pad} {eq} {_style('note', color, bold=True)}: {safe_text(entry)}")
    return lines


def statistics_table(findings: List[Finding], *, color: bool = False, unsafe_fixes: bool = False) -> str:
    """``count  CODE  [*] name`` rows, most frequent first (ties by code; ``[*]`` when
    ``--fix`` can fix some of them), then the summary line with the total and the
    fixable count; or ``All checks passed!`` when there is nothing to count."""
    rows = statistics_rows(findings, unsafe_fixes)
    if not rows:
        return "All checks passed!\n"
    count_w = max(len(str(r[0])) for r in rows)
    code_w = max(len(r[1]) for r in rows)
    out = []
    for count, code, name, fixable in rows:
        code_cell = _style(code.ljust(code_w), color, fg="red", bold=True)
        mark = _style("[*]", color, fg="cyan") if fixable else "   "
        out.append(f"{str(count).rjust(count_w)}  {code_cell}  {mark} {safe_text(name)}")
    out.append(_style(summary_line(findings, unsafe_fixes), color, bold=True))
    return "\n".join(out) + "\n"


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, unsafe_fixes: bool = False, **_options) -> str:
    findings = all_findings(results)
    if statistics:
        return statistics_table(findings, color=color, unsafe_fixes=unsafe_fixes)
    blocks = ["\n".join(render_finding(f, rules, color=color, unsafe_fixes=unsafe_fixes)) for f in findings]
    summary = summary_line(findings, unsafe_fixes)
    if findings:
        summary = _style(summary, color, bold=True)
    else:
        summary = _style(summary, color, fg="green", bold=True)
    return "".join(block + "\n\n" for block in blocks) + summary + "\n"
