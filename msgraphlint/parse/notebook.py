"""Jupyter notebooks (``.ipynb``) as ruff lints them.

A notebook is linted as one Python module: its code cells joined in order, each ending
with a line break (graph scopes, caller evidence and imports cross cells as they do when
the notebook runs top to bottom). Lines that are IPython rather than Python are masked
line for line, so every other line and column stays where it is: line magics (``%timeit
f(x)``, ``x = %time f()``), shell escapes (``!pip install ...``, ``files = !ls``), help
(``obj?``, ``?obj``) become ``pass`` at their indentation (a backslash continuation of
one is masked too); a cell magic (``%%time``, ``%%capture``...) that runs its body as
Python masks its first line only, any other cell magic (``%%bash``, ``%%writefile``...)
the whole cell. A line starting with ``%`` inside brackets or a string (``a\\n % b``) is
Python and left alone. A notebook whose kernel language (``metadata.kernelspec.language``,
else ``metadata.language_info.name``) is not Python is not linted; the run names it.

Positions: findings are computed on the joined text; the runner turns them into the
cell's own numbering (``localize``): ``Finding.cell`` is the 1-based index of the cell
among all cells of the notebook (markdown cells count, as in ruff's ``cell 3``), ``line``
the line within the cell; fix edits carry their cell too.

Writing back (``apply_fixes``): edits are applied to the original source of their cell
(masking keeps lines, so the positions are the same; an edit touching a masked line is
refused), and only the ``source`` value of each changed cell is replaced in the file's
text, character for character: outputs, metadata, key order, indentation and the other
cells stay byte-identical. The notebook is never loaded and dumped as a whole. A new
``source`` list keeps the original's layout (indentation, one JSON string per line) and
reuses the original JSON spelling of every line that did not change.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Tuple

from .text import SourceError, split_lines

SUFFIX = ".ipynb"

# cell magics whose body IPython runs as Python (the first line is masked, the body linted)
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}

_WS = re.compile(r"[ \t\n\r]*")
_DEC = json.JSONDecoder()
_ASSIGN_ESCAPE = re.compile(r"^[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


# the JSON text, with the spans of what we write back ---------------------------------

def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()


def _value_end(text: str, i: int) -> Tuple[object, int]:
    return _DEC.raw_decode(text, i)


def _object_spans(text: str, i: int) -> Dict[str, Tuple[int, int]]:
    """{key: (start, end) of its value} of the JSON object starting at ``text[i]``."""
    if text[i] != "{":
        raise ValueError(f"expected an object at offset {i}")
    out: Dict[str, Tuple[int, int]] = {}
    i = _skip(text, i + 1)
    if text[i] == "}":
        return out
    while True:
        key, i = _DEC.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] != ":":
            raise ValueError(f"expected ':' at offset {i}")
        start = _skip(text, i + 1)
        _, end = _value_end(text, start)
        out[key] = (start, end)
        i = _skip(text, end)
        if text[i] == "}":
            return out
        if text[i] != ",":
            raise ValueError(f"expected ',' or '}}' at offset {i}")
        i = _skip(text, i + 1)


def _array_spans(text: str, i: int) -> List[Tuple[int, int]]:
    if text[i] != "[":
        raise ValueError(f"expected an array at offset {i}")
    out: List[Tuple[int, int]] = []
    i = _skip(text, i + 1)
    if text[i] == "]":
        return out
    while True:
        _, end = _value_end(text, i)
        out.append((i, end))
        i = _skip(text, end)
        if text[i] == "]":
            return out
        if text[i] != ",":
            raise ValueError(f"expected ',' or ']' at offset {i}")
        i = _skip(text, i + 1)


# masking -----------------------------------------------------------------------------

def _is_escape(stripped: str) -> bool:
    if not stripped or stripped.startswith("#"):
        return False
    if stripped[0] in "%!?":
        return True
    if stripped.endswith("?") and "#" not in stripped and not stripped.endswith(("'?", '"?')):
        return True  # `obj?`, `obj??`: help
    return bool(_ASSIGN_ESCAPE.match(stripped))


def _scan(line: str, depth: int, quote: Optional[str]) -> Tuple[int, Optional[str], bool]:
    """Bracket depth and the open triple-quoted string after ``line``; whether it ends
    with a backslash continuation."""
    i, n = 0, len(line)
    while i < n:
        if quote is not None:
            j = line.find(quote, i)
            while j > 0 and (len(line[:j]) - len(line[:j].rstrip("\\"))) % 2:  # an escaped quote
                j = line.find(quote, j + 1)
            if j < 0:
                return depth, quote, False
            i, quote = j + len(quote), None
            continue
        c = line[i]
        if c == "#":
            break
        if c in "\"'":
            triple = line[i:i + 3]
            if triple in ('"""', "'''"):
                quote = triple
                i += 3
                continue
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, quote, line.rstrip("\r\n").endswith("\\") and quote is None


def mask(source: str) -> Tuple[str, List[int]]:
    """The cell's source with its IPython lines masked (same number of lines), and the
    0-based numbers of the masked lines."""
    lines = split_lines(source, keepends=True)
    first = next((k for k, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(None, 1)[0] if lines[first].strip()[2:] else ""
        if name not in PYTHON_CELL_MAGICS:
            masked = ["\n" if ln.endswith(("\n", "\r")) else "" for ln in lines]
            return "".join(masked), list(range(len(lines)))
    out: List[str] = []
    masked_at: List[int] = []
    depth, quote, cont, in_escape = 0, None, False, False
    for k, ln in enumerate(lines):
        body = ln.rstrip("\r\n")
        end = ln[len(body):]
        stripped = body.strip()
        if in_escape or (depth == 0 and quote is None and not cont and _is_escape(stripped)):
            indent = body[:len(body) - len(body.lstrip())]
            out.append((indent + "pass" if not in_escape else "") + end)
            masked_at.append(k)
            in_escape = body.endswith("\\")
            continue
        depth, quote, cont = _scan(ln, depth, quote)
        out.append(ln)
    return "".join(out), masked_at


# the notebook ------------------------------------------------------------------------

@dataclass
class CodeCell:
    index: int                  # 0-based among all cells
    source: str                 # the original source
    start: int                  # first line in the joined text (1-based)
    lines: int                  # lines it takes there
    span: Optional[Tuple[int, int]]  # of its "source" value in the file's text
    masked: List[int] = field(default_factory=list)  # 0-based lines masked


@dataclass
class Notebook:
    raw: str                    # the file's text (without a BOM)
    cells: List[CodeCell]
    language: Optional[str]
    text: str                   # the code cells joined, masked
    bom: bool = False
    # code cells that are not Python (a directory tree pasted into a code cell): (cell 1-based,
    # line in it, column, message); each is blank in ``text``, so the other cells are linted
    errors: List[Tuple[int, int, int, str]] = field(default_factory=list)

    @property
    def is_python(self) -> bool:
        return self.language is None or self.language.lower() in ("python", "python3", "ipython")

    def locate(self, line: int) -> Tuple[Optional[CodeCell], int]:
        """(the cell holding ``line`` of the joined text, the line within it)."""
        starts = [c.start for c in self.cells if c.lines]
        cells = [c for c in self.cells if c.lines]
        k = bisect.bisect_right(starts, line) - 1
        if k < 0:
            return None, line
        cell = cells[k]
        return cell, line - cell.start + 1


def parse(raw: str, path: str = "") -> Notebook:
    """The notebook in ``raw`` (its JSON text). Raises SourceError when it is no notebook."""
    bom = raw.startswith("\ufeff")
    if bom:
        raw = raw[1:]
    try:
        json.loads(raw)  # the whole file must be JSON (json's message names the line)
        top = _object_spans(raw, _skip(raw, 0))
        if "cells" not in top:
            raise SourceError("not a Jupyter notebook of format 4 or later (no `cells` list)")
        meta = json.loads(raw[slice(*top["metadata"])]) if "metadata" in top else {}
        cells: List[CodeCell] = []
        errors: List[Tuple[int, int, int, str]] = []
        line = 1
        parts: List[str] = []
        for index, (a, b) in enumerate(_array_spans(raw, top["cells"][0])):
            members = _object_spans(raw, a)
            kind = json.loads(raw[slice(*members["cell_type"])]) if "cell_type" in members else None
            if kind != "code":
                continue
            span = members.get("source")
            value = json.loads(raw[slice(*span)]) if span else ""
            source = "".join(value) if isinstance(value, list) else value
            if not isinstance(source, str):
                raise ValueError(f"cell {index + 1}: `source` is not text")
            masked, at = mask(source)
            if masked and not masked.endswith(("\n", "\r")):
                masked += "\n"
            n = len(split_lines(masked))
            bad = _syntax_error(masked)
            if bad is not None:  # IPython compiles each cell on its own: so does this
                errors.append((index + 1,) + bad)
                masked = "\n" * n
            cells.append(CodeCell(index, source, line, n, span, at))
            parts.append(masked)
            line += n
    except SourceError:
        raise
    except (ValueError, IndexError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise SourceError(f"not a valid Jupyter notebook: {str(exc)[:200]}") from None
    language = None
    if isinstance(meta, dict):
        ks, li = meta.get("kernelspec"), meta.get("language_info")
        language = (ks.get("language") if isinstance(ks, dict) else None) or \
                   (li.get("name") if isinstance(li, dict) else None)
        if not isinstance(language, str):
            language = None
    return Notebook(raw, cells, language, "".join(parts), bom, errors)


def _syntax_error(text: str) -> Optional[Tuple[int, int, str]]:
    """(line, column, message) when one cell's text does not parse, else None."""
    import ast
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 1, max((exc.offset or 1) - 1, 0), exc.msg
    except (ValueError, RecursionError, MemoryError) as exc:
        return 1, 0, f"cannot parse: {exc}"
    return None


def cell_error_findings(nb: Notebook, path: str) -> list:
    """MSG001 for each code cell that is not Python (the other cells were checked)."""
    from ..findings import PARSE_ERROR_CODE, Finding, Severity

    by_index = {c.index + 1: c for c in nb.cells}
    out = []
    for cell, line, col, msg in nb.errors:
        lines = split_lines(by_index[cell].source)
        out.append(Finding(code=PARSE_ERROR_CODE, name="parse-error", path=path, line=line, col=col, cell=cell,
                           severity=Severity.ERROR, message=f"cannot analyse this cell: syntax error: {msg}",
                           hint="make the cell Python (or a markdown or raw cell); the other cells were checked",
                           source_line=lines[line - 1] if 0 < line <= len(lines) else None))
    return out


# positions ---------------------------------------------------------------------------

def _chain_entry(entry: str, path: str, nb: Notebook) -> str:
    def sub(m: "re.Match[str]") -> str:
        cell, line = nb.locate(int(m.group(1)))
        return f"{path}:cell {cell.index + 1}:{line}" if cell is not None else m.group(0)
    return re.sub(re.escape(path) + r":(\d+)", sub, entry)


def localize(finding, nb: Notebook):
    """The finding in the numbering of its cell (``cell``, lines within the cell)."""
    if getattr(finding, "cell", None) is not None:
        return finding
    cell, line = nb.locate(finding.line)
    if cell is None:
        return finding
    end_line = None
    if finding.end_line is not None:
        end_cell, end_line = nb.locate(finding.end_line)
        if end_cell is not cell:
            end_line = cell.lines
    fix = finding.fix
    if fix is not None:
        fix = replace(fix, edits=tuple(cell_edit(e, nb) for e in fix.edits))
    alternatives = tuple(replace(a, edits=tuple(cell_edit(e, nb) for e in a.edits)) for a in finding.alternatives)
    chain = tuple(_chain_entry(c, finding.path, nb) for c in finding.chain)
    return replace(finding, cell=cell.index + 1, line=line, end_line=end_line, fix=fix,
                   alternatives=alternatives, chain=chain)


def cell_edit(e, nb: Notebook):
    if e.cell is not None:
        return e
    cell, line = nb.locate(e.line)
    end_cell, end_line = nb.locate(e.end_line)
    if cell is None:
        return e
    if end_cell is not cell:  # an edit across cells cannot be written back: left as it is (refused)
        return replace(e, cell=-1)
    return replace(e, cell=cell.index + 1, line=line, end_line=end_line)


# writing back ------------------------------------------------------------------------

class NotebookFixError(Exception):
    pass


def _ensure_ascii(raw: str) -> bool:
    return not any(ord(ch) > 127 for ch in raw) and bool(re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", raw))


def _source_token(raw: str, span: Tuple[int, int], new: str, ensure_ascii: bool) -> str:
    old_tok = raw[span[0]:span[1]]
    old = json.loads(old_tok)
    if isinstance(old, str):
        return json.dumps(new, ensure_ascii=ensure_ascii)
    parts = split_lines(new, keepends=True) if new else []
    if not parts:
        return "[]"
    elems = _array_spans(raw, span[0])
    spelled: Dict[str, str] = {}
    for a, b in elems:
        spelled.setdefault(json.loads(raw[a:b]), raw[a:b])
    if len(elems) >= 1:
        prefix = raw[span[0] + 1:elems[0][0]]
        suffix = raw[elems[-1][1]:span[1] - 1]
        sep = raw[elems[0][1]:elems[1][0]] if len(elems) >= 2 else "," + prefix
    else:  # `[]`: the layout nbformat writes, at the key's indentation
        line_start = raw.rfind("\n", 0, span[0]) + 1
        indent = len(raw[line_start:span[0]]) - len(raw[line_start:span[0]].lstrip(" "))
        unit = 1
        m = re.match(r"\{\n( +)", raw)
        if m:
            unit = len(m.group(1))
        prefix, suffix = "\n" + " " * (indent + unit), "\n" + " " * indent
        sep = "," + prefix
    toks = [spelled.get(p) or json.dumps(p, ensure_ascii=ensure_ascii) for p in parts]
    return "[" + prefix + sep.join(toks) + suffix + "]"


def splice(nb: Notebook, sources: Dict[int, str]) -> str:
    """The file's text with the ``source`` of each cell in ``sources`` (0-based cell index
    → new source) replaced; every other character is the original's."""
    ea = _ensure_ascii(nb.raw)
    by_index = {c.index: c for c in nb.cells}
    out = nb.raw
    for index in sorted(sources, key=lambda i: by_index[i].span[0], reverse=True):
        cell = by_index[index]
        if cell.span is None:
            raise NotebookFixError(f"cell {index + 1} has no `source` to write")
        out = out[:cell.span[0]] + _source_token(nb.raw, cell.span, sources[index], ea) + out[cell.span[1]:]
    return out


def cell_diff(path: str, old_raw: str, new_raw: str) -> str:
    """ruff's notebook diff: one unified diff per changed code cell, named
    ``path:cell N``."""
    old, new = parse(old_raw, path), parse(new_raw, path)
    before = {c.index: c.source for c in old.cells}
    out: List[str] = []
    for c in new.cells:
        a = before.get(c.index, "")
        if a != c.source:
            name = f"{path}:cell {c.index + 1}"
            import difflib  # (a diff is asked for by --diff only)
            out.append("".join(difflib.unified_diff(split_lines(a, keepends=True), split_lines(c.source, keepends=True),
                                                    fromfile=name, tofile=name)))
    return "".join(x if x.endswith("\n") else x + "\n" for x in out)
