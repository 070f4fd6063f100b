"""``check --add-noqa``: append ``# noqa: CODE`` to every line holding a finding, as
ruff does, so a legacy code base starts clean and new findings stand out.

A finding is suppressed by a comment on its first line (suppressions.py), so the
comment goes there. An existing ``# noqa: A`` on the line gets the new codes added
(a wrong-case spelling of one, ``msg201``, is replaced: codes match exactly); a bare
``# noqa`` already silences everything. A line whose end lies inside a
multi-line string or after a backslash continuation cannot hold a comment: those
findings are counted as not suppressed and listed. The result must still parse, and
is written atomically in the file's own encoding and line endings, and only if the
file still holds the bytes that were linted. A YAML run config gets the comment at the
end of the flagged line, written only if the document still parses to the same events.
"""

from __future__ import annotations

import io
import tokenize
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..findings import FileResult
from ..suppress.inline import parse_noqa

SKIP_CODES = ("MSG001", "MSG002")  # the file does not parse / a stale suppression itself


def uncommentable_lines(text: str) -> Set[int]:
    """1-based lines whose end is inside a string token or continued with a backslash."""
    out: Set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] < tok.end[0] and tok.type != tokenize.NL and tok.type != tokenize.NEWLINE:
                out.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    for n, line in enumerate(text.splitlines(), 1):
        if line.rstrip().endswith("\\") and "#" not in line:
            out.add(n)
    return out


def add_to_line(line: str, codes: List[str]) -> str:
    """``line`` (without its newline) with ``codes`` added to its noqa comment."""
    body = line.rstrip()
    hash_at = _comment_start(body)
    if hash_at is not None:
        d = parse_noqa(body, hash_at)
        if d is not None:
            if d.codes is None:
                return line  # a bare noqa silences everything already
            # the codes already there stay as written (other tools' too), except a wrong-case
            # spelling of a code being added (`msg201` suppresses nothing: it becomes MSG201)
            have = [c for c in d.codes if c in codes or c.upper() not in codes]
            merged = have + [c for c in codes if c not in have]
            rest = body[d.end:]
            if rest and not rest[0].isspace():
                rest = " " + rest
            return body[:d.start] + "# noqa: " + ", ".join(merged) + rest
    return f"{body}  # noqa: {', '.join(codes)}"


def _comment_start(line: str):
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line + "\n").readline):
            if tok.type == tokenize.COMMENT:
                return tok.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


def add_noqa(results: List[FileResult]) -> Tuple[int, List[str]]:
    """Add the comments to the files of ``results``; returns (directives added, problems)."""
    from .contract import FixError, check_parses, encode_like
    from .safe_write import Changed, NotWritten, replace_if_unchanged
    from ..parse.source import SourceError, SourceFile

    import os

    added = 0
    problems: List[str] = []
    # a call-site finding (MSG004) repeats a finding of another file; once that one has its
    # noqa, the call site reports nothing, and a comment there would be stale (MSG002)
    silenced = {(os.path.abspath(f.path), f.line, f.code) for fr in results for f in fr.findings
                if f.code not in SKIP_CODES and f.origin is None and f.cell is None}
    for fr in results:
        # (cell, line) -> codes; the cell is None except in a notebook, whose lines count within their cell
        wanted: Dict[Tuple[Optional[int], int], List[str]] = {}
        for f in fr.findings:
            if f.code in SKIP_CODES:
                continue
            if f.origin is not None and (os.path.abspath(f.origin[1]), f.origin[2], f.origin[0]) in silenced:
                continue
            codes = wanted.setdefault((f.cell, f.line), [])
            if f.code not in codes:
                codes.append(f.code)
        if not wanted:
            continue
        try:
            with open(fr.path, "rb") as fh:
                data = fh.read()
            source = SourceFile.from_bytes(fr.path, data)
        except (OSError, SourceError) as exc:
            problems.append(f"{fr.path}: cannot add noqa: {exc}")
            continue
        if source.notebook is not None:  # per cell line, spliced into the cells' sources (msgraphlint.parse.notebook)
            n_file, text = _add_noqa_cells(source.notebook, fr.path, wanted, problems)
        elif fr.path.endswith((".yaml", ".yml")):  # a run config: YAML comments, the data unchanged
            n_file, text = _add_noqa_yaml(fr.path, source.text, {line: c for (_, line), c in wanted.items()}, problems)
        else:
            n_file, text = _comment_lines(source.text, {line: c for (_, line), c in wanted.items()}, fr.path,
                                          problems)
            if n_file:
                try:
                    check_parses(text, fr.path)
                except FixError as exc:
                    problems.append(f"{fr.path}: noqa comments not written: {exc}")
                    continue
        if not n_file:
            continue
        try:  # only over the bytes that were linted: a file changed meanwhile is left alone
            replace_if_unchanged(fr.path, data, encode_like(source, text))
        except Changed:
            problems.append(f"{fr.path}: changed on disk while noqa comments were added; left as it is")
            continue
        except NotWritten as exc:
            problems.append(f"{fr.path}: noqa comments not written: {exc.reason}")
            continue
        added += n_file
    return added, problems


def _comment_lines(text: str, wanted: Dict[int, List[str]], where: str, problems: List[str],
                   masked: Sequence[int] = (), tokens: Optional[str] = None) -> Tuple[int, str]:
    """The one per-line loop, for a Python file and for a notebook cell: ``text`` with the
    codes of each 1-based line in ``wanted`` added to its noqa comment; (lines changed, the
    new text). A line that cannot hold a comment (inside a string, after a backslash, one of
    the ``masked`` 0-based IPython lines, past the end) is a problem, named ``where:LINE``.
    ``tokens``: the text to tokenize for that (a cell's source with its IPython lines masked)."""
    lines = text.split("\n")
    blocked = uncommentable_lines(text if tokens is None else tokens)
    n = 0
    for line_no, codes in sorted(wanted.items()):
        if line_no in blocked or line_no - 1 in masked or not 1 <= line_no <= len(lines):
            why = "an IPython line" if line_no - 1 in masked else "inside a string or after a backslash"
            problems.append(f"{where}:{line_no}: cannot hold a comment ({why}); not suppressed: {', '.join(codes)}")
            continue
        old = lines[line_no - 1]
        cr = "\r" if old.endswith("\r") else ""
        new = add_to_line(old[:-1] if cr else old, codes) + cr
        if new != old:
            lines[line_no - 1] = new
            n += 1
    return n, "\n".join(lines) if n else text


def _yaml_comment_start(line: str):
    """Where a YAML comment starts on ``line``: a ``#`` at the start or after whitespace,
    outside single and double quotes; None when there is none."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"" and (i == 0 or line[i - 1] in " \t:-[{,"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return None


def _add_noqa_yaml(path: str, text: str, wanted: Dict[int, List[str]], problems: List[str]) -> Tuple[int, str]:
    """``# noqa: CODE`` at the end of each YAML line that holds a finding (merged into a
    ``# noqa`` already there). Written only when the document still parses to the same events
    (a ``#`` inside a block scalar would be text, not a comment): else nothing, and a problem."""
    import yaml

    lines = text.split("\n")
    n = 0
    for line_no, codes in sorted(wanted.items()):
        if not 1 <= line_no <= len(lines):
            continue
        old = lines[line_no - 1]
        cr = "\r" if old.endswith("\r") else ""
        body = (old[:-1] if cr else old).rstrip()
        at = _yaml_comment_start(body)
        d = parse_noqa(body, at) if at is not None else None
        if d is not None:
            if d.codes is None:
                continue
            have = [c for c in d.codes if c in codes or c.upper() not in codes]
            merged = have + [c for c in codes if c not in have]
            rest = body[d.end:]
            new = body[:d.start] + "# noqa: " + ", ".join(merged) + (" " + rest if rest and not rest[0].isspace() else rest)
        else:
            new = f"{body}  # noqa: {', '.join(codes)}"
        if new + cr != old:
            lines[line_no - 1] = new + cr
            n += 1
    if not n:
        return 0, text
    new_text = "\n".join(lines)
    def events(t: str) -> list:  # the parse events, not the data: linear in the text (aliases unexpanded)
        return [(type(e).__name__, getattr(e, "anchor", None), getattr(e, "tag", None), getattr(e, "value", None),
                 getattr(e, "style", None) if isinstance(e, yaml.ScalarEvent) else None)
                for e in yaml.parse(t, Loader=yaml.SafeLoader)]

    try:
        same = events(new_text) == events(text)
    except yaml.YAMLError:
        same = False
    if not same:
        problems.append(f"{path}: noqa comments not written: they would change the YAML document's data")
        return 0, text
    return n, new_text


def _add_noqa_cells(nb, path: str, wanted: Dict[Tuple[Optional[int], int], List[str]],
                    problems: List[str]) -> Tuple[int, str]:
    """``--add-noqa`` for a notebook: (comments added, the new file text). ``wanted``:
    (cell, line within it) -> codes; each cell's lines get them by :func:`_comment_lines`,
    and only the changed cells' sources are spliced in (``notebook.splice``)."""
    from .contract import FixError, check_parses
    from ..parse.notebook import mask, splice

    cells = {c.index + 1: c for c in nb.cells}
    new_sources: Dict[int, str] = {}
    added = 0
    for cell_no in sorted({c for c, _ in wanted if c is not None}):
        cell = cells.get(cell_no)
        if cell is None:
            continue
        n, text = _comment_lines(cell.source, {line: codes for (c, line), codes in wanted.items() if c == cell_no},
                                 f"{path}:cell {cell_no}", problems, cell.masked, mask(cell.source)[0])
        if not n:
            continue
        try:
            check_parses(mask(text)[0], f"{path}:cell {cell_no}")
        except FixError as exc:
            problems.append(f"{path}: noqa comments not written: {exc}")
            return 0, nb.raw
        new_sources[cell.index] = text
        added += n
    return added, (splice(nb, new_sources) if new_sources else nb.raw)
