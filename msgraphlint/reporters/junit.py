"""JUnit XML (ruff's ``junit`` format), which CI systems (GitLab, Jenkins, Azure) show as
test results::

    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites name="msgraphlint" tests="2" failures="2" errors="0">
      <testsuite name="model.py" tests="2" failures="2" errors="0">
        <testcase name="msgraphlint.MSG201" classname="model.py" line="12" column="9">
          <failure message="print() is not supported in graph mode">line 12, col 9, print() ...</failure>
        </testcase>

One ``testsuite`` per file with findings, one ``testcase`` with a ``failure`` per finding
(a notebook's: ``cell`` attribute, lines within the cell). A run without findings is one
passing testcase, "No errors found". Always well-formed XML 1.0: text and attributes are
escaped, control characters, bidi controls and undecodable bytes are shown as ``\\x1b``
(``_common.safe_text``; in element text line breaks too, so no output line starts with what
a message holds), and characters XML cannot hold at all (U+FFFE, U+FFFF) dropped.
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import List, Mapping, Optional

from ..findings import FileResult, Finding
from ._common import all_findings, safe_text

# not allowed anywhere in XML 1.0 (after safe_text, which leaves \t and \n: both allowed)
_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: Optional[str], keep_newlines: bool = False) -> str:
    return _XML_INVALID.sub("", safe_text(text or "", keep_newlines=keep_newlines))


def escape(data: str) -> str:
    # xml.sax.saxutils is imported when a JUnit report is written: it imports urllib.request
    # (http.client, email, ssl), 25 ms of every run's start-up otherwise
    from xml.sax.saxutils import escape as _escape
    return _escape(data)


def quoteattr(data: str, entities: Mapping[str, str]) -> str:
    from xml.sax.saxutils import quoteattr as _quoteattr
    return _quoteattr(data, entities)


def _attr(text: str) -> str:
    # an attribute keeps a message's line breaks as character references: still one line of XML
    return quoteattr(_clean(text, keep_newlines=True), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _case(f: Finding) -> List[str]:
    cell = f' cell="{f.cell}"' if f.cell is not None else ""
    where = (f"cell {f.cell}, " if f.cell is not None else "") + f"line {f.line}, col {f.col + 1}"
    # the detail as the failure's text after the title (one line: `&#10;` would start a log line)
    detail = escape(_clean(": " + " ".join(f.detail.split()))) if f.detail else ""
    return [f'    <testcase name={_attr("msgraphlint." + f.code)} classname={_attr(f.path)} '
            f'line="{f.line}" column="{f.col + 1}"{cell}>',
            f'      <failure message={_attr(f.message)}>{escape(_clean(f"{where}, {f.message}"))}{detail}</failure>',
            "    </testcase>"]


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, **_options) -> str:
    findings = all_findings(results)
    n = len(findings)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="msgraphlint" tests="{max(n, 1)}" failures="{n}" errors="0">']
    if not findings:
        out += ['  <testsuite name="msgraphlint" tests="1" failures="0" errors="0">',
                '    <testcase name="No errors found" classname="msgraphlint"/>', "  </testsuite>"]
    for path, group in groupby(findings, key=lambda f: f.path):
        cases = list(group)
        out.append(f'  <testsuite name={_attr(path)} tests="{len(cases)}" failures="{len(cases)}" errors="0">')
        for f in cases:
            out += _case(f)
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"
