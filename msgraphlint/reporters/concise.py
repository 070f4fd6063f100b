"""One line per finding, ruff's ``concise`` format::

    model.py:12:9: MSG201 [*] print() is not supported in graph mode

(1-based column; ``[*]`` only when ``--fix`` would apply the finding's fix), then
the same summary as the text format. ``statistics=True`` prints the text format's
``count  CODE  [*] name`` table.
"""

from __future__ import annotations

from typing import List, Mapping, Optional

from ..findings import FileResult
from ._common import all_findings, summary_line
from .text import header, statistics_table


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, unsafe_fixes: bool = False, **_options) -> str:
    findings = all_findings(results)
    if statistics:
        return statistics_table(findings, color=color, unsafe_fixes=unsafe_fixes)
    lines = [header(f, color=color, unsafe_fixes=unsafe_fixes) for f in findings]
    lines.append(summary_line(findings, unsafe_fixes))
    return "\n".join(lines) + "\n"
