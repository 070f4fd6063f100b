"""GitHub Actions workflow commands, one annotation per finding::

    ::error file=model.py,line=12,col=9,endLine=12,endColumn=17,title=MSG201 print-in-graph::print() is not supported

* the command is ``error`` / ``warning`` / ``notice`` for
  ``Severity.ERROR`` / ``WARNING`` / ``INFO``;
* ``col`` and ``endColumn`` are 1-based; ``endLine`` is written when the
  finding has an end (``endLine`` = ``line`` for a one-line span), ``endColumn``
  when its end column is known;
* escaping is GitHub's (``toolkit/packages/core/src/command.ts``): in the
  message ``%`` → ``%25``, ``\\r`` → ``%0D``, ``\\n`` → ``%0A``; in property
  values also ``:`` → ``%3A`` and ``,`` → ``%2C``; before that, every other control
  character, bidi control and undecodable byte of a file name is shown as
  ``\\x1b`` / ``\\u202e`` / ``\\xe9`` (``_common.safe_text``), as in the text format.

A notebook's annotation has ``line`` within its cell and ``(cell N)`` in its title.
No summary line: output is empty when there are no findings.
"""

from __future__ import annotations

from typing import List, Mapping, Optional

from ..findings import FileResult, Finding, Severity
from ._common import all_findings, safe_text

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    text = safe_text(text, keep_newlines=True)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    # (numbers need no escaping)
    props = [("file", escape_property(finding.path)), ("line", str(finding.line)), ("col", str(finding.col + 1))]
    if finding.end_line is not None or finding.end_col is not None:
        props.append(("endLine", str(finding.end_line if finding.end_line is not None else finding.line)))
    if finding.end_col is not None:
        props.append(("endColumn", str(finding.end_col + 1)))
    # a notebook's: `line` counts within the cell, which the title names (ruff's `cell 3`)
    cell = f" (cell {finding.cell})" if finding.cell is not None else ""
    props.append(("title", escape_property(f"{finding.code} {finding.name}{cell}")))
    prop_text = ",".join(f"{key}={value}" for key, value in props)
    return f"::{COMMANDS[Severity(finding.severity)]} {prop_text}::{escape_data(finding.message)}"


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, **_options) -> str:
    return "".join(annotation(f) + "\n" for f in all_findings(results))
