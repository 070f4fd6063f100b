"""Pylint's parseable format, one line per finding (ruff's ``pylint`` format)::

    model.py:12: [MSG201] print() is not supported in graph mode

``line`` is 1-based; a notebook's finding has ``line`` within its cell and ``(cell N)``
after the message. A message's later lines join the first with spaces; control
characters, bidi controls and undecodable bytes are escaped as in the text format
(``_common.safe_text``). No summary: empty output when there are no findings.
"""

from __future__ import annotations

from typing import List, Mapping, Optional

from ..findings import FileResult, Finding
from ._common import all_findings, safe_path, safe_text


def line(finding: Finding) -> str:
    message = " ".join(part.strip() for part in finding.message.splitlines() if part.strip())
    cell = f" (cell {finding.cell})" if finding.cell is not None else ""
    return f"{safe_path(finding.path)}:{finding.line}: [{finding.code}] {safe_text(message)}{cell}"


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, **_options) -> str:
    return "".join(line(f) + "\n" for f in all_findings(results))
