"""`check --fix` round trip over real notebooks: every byte outside the fixed cells'
sources must be the original's.

    .venv/bin/python benchmarks/notebook_roundtrip.py [FOLDER] [--unsafe-fixes]

(default FOLDER: ../shared/corpus/notebooks-mindspore-applications). The notebooks are
copied to a scratch folder, ``msgraphlint check --fix`` runs once over the copy, and each
notebook is compared with its original without msgraphlint's own notebook code:

* the fixed file is JSON, and ``json.loads`` of it equals the original's in everything
  but the ``source`` of code cells (outputs, metadata, key order of every object, the
  other cells);
* every line that differs between the two texts (``difflib`` opcodes over lines) lies
  inside a ``"source": [`` list, found by walking back up the original text to the
  nearest less-indented line that opens a list (nbformat's layout: one JSON string per
  line); a source written as one string is compared by its cell instead;
* the cells whose source changed still parse as Python once IPython lines are blanked
  (``ast.parse``; lines starting with ``%``/``!``, counted by the script itself), and a
  second ``--fix`` changes nothing.

With ``--add-noqa`` the run is ``check --add-noqa`` instead: the same byte checks, then a
plain ``check`` of the copy, whose exit code and remaining findings (by code) are printed;
only findings no comment can suppress (``MSG001``: a code cell that is not Python) may remain.

Prints one line per changed notebook and a summary; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "shared", "corpus", "notebooks-mindspore-applications")
_OPEN_LIST = re.compile(r'^(\s*)"([^"]+)": \[\s*$')


def _notebooks(root: str):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".ipynb"):
                yield os.path.relpath(os.path.join(d, f), root)


def _without_sources(nb):
    out = json.loads(json.dumps(nb))
    for c in out.get("cells", []):
        if c.get("cell_type") == "code":
            c.pop("source", None)
    return out


def _key_order(value, path="$"):
    """Every object's key order, as (path, keys)."""
    if isinstance(value, dict):
        yield path, list(value)
        for k, v in value.items():
            yield from _key_order(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _key_order(v, f"{path}[{i}]")


def _enclosing_key(lines, k):
    """The key of the list that line ``k`` (0-based) of a pretty-printed JSON text is in."""
    indent = len(lines[k]) - len(lines[k].lstrip())
    for j in range(k - 1, -1, -1):
        m = _OPEN_LIST.match(lines[j])
        if m and len(m.group(1)) < indent:
            return m.group(2)
        stripped = lines[j].strip()
        if stripped and len(lines[j]) - len(lines[j].lstrip()) < indent and not stripped.startswith('"'):
            return None
    return None


def _python(source: str) -> bool:
    lines = ["" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.split("\n")]
    try:
        ast.parse("\n".join(lines))
        return True
    except SyntaxError:
        return False


def check_pair(old_text: str, new_text: str):
    """(violations, changed code cells) of one notebook."""
    problems = []
    try:
        new = json.loads(new_text)
    except ValueError as exc:
        return [f"the fixed file is not JSON: {exc}"], 0
    old = json.loads(old_text)
    if _without_sources(old) != _without_sources(new):
        problems.append("something other than a code cell's source changed")
    if list(_key_order(old)) != list(_key_order(new)):
        problems.append("the key order of some object changed")
    changed = [i for i, (a, b) in enumerate(zip(old["cells"], new["cells"])) if a.get("source") != b.get("source")]
    a_lines, b_lines = old_text.split("\n"), new_text.split("\n")
    string_sources = any(isinstance(old["cells"][i].get("source"), str) for i in changed)
    if not string_sources:
        sm = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            for k in range(max(i1 - (1 if i1 == i2 else 0), 0), max(i2, i1 + 1)):
                if _enclosing_key(a_lines, min(k, len(a_lines) - 1)) != "source":
                    problems.append(f"line {k + 1} of the original changed outside a `source` list: {a_lines[k][:80]!r}")
                    break
    for i in changed:
        src = new["cells"][i]["source"]
        src = "".join(src) if isinstance(src, list) else src
        if not _python(src):
            problems.append(f"cell {i + 1} no longer parses as Python")
    return problems, len(changed)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default=DEFAULT)
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--add-noqa", action="store_true", help="check --add-noqa, then check: only MSG001 may remain")
    ap.add_argument("--keep", action="store_true", help="leave the scratch copy")
    args = ap.parse_args(argv)
    src = os.path.abspath(args.folder)
    scratch = tempfile.mkdtemp(prefix="nb-roundtrip-")
    copy = os.path.join(scratch, "nb")
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns(".git"))
    for d, dirs, files in os.walk(copy):  # a read-only corpus gives read-only copies
        for name in dirs + files:
            os.chmod(os.path.join(d, name), 0o755 if name in dirs else 0o644)
    names = list(_notebooks(copy))
    base = [sys.executable, "-m", "msgraphlint", "check", "--no-cache"]
    cmd = base + (["--add-noqa"] if args.add_noqa else ["--fix", "--exit-zero", "--output-format", "concise"])
    if args.unsafe_fixes:
        cmd.append("--unsafe-fixes")
    first = subprocess.run(cmd + ["."], cwd=copy, capture_output=True, text=True)
    fixed_line = next((ln for ln in (first.stdout + first.stderr).splitlines()
                       if ln.startswith(("Fixed", "Added"))), "")
    bad = changed_files = changed_cells = 0
    after_first = {}
    for rel in names:
        with open(os.path.join(src, rel), encoding="utf-8") as fh:
            old = fh.read()
        with open(os.path.join(copy, rel), encoding="utf-8") as fh:
            new = fh.read()
        after_first[rel] = new
        if old == new:
            continue
        changed_files += 1
        problems, cells = check_pair(old, new)
        changed_cells += cells
        print(f"{rel}: {cells} cell(s) changed" + (": " + "; ".join(problems) if problems else ", rest identical"))
        bad += bool(problems)
    if args.add_noqa:  # then a plain check: what no comment suppressed
        again = subprocess.run(base + ["--output-format", "json", "."], cwd=copy, capture_output=True, text=True)
        left = {}
        for f in json.loads(again.stdout)["findings"]:
            left[f["code"]] = left.get(f["code"], 0) + 1
        for line in first.stderr.splitlines():
            if "cannot hold a comment" in line or "not written" in line:
                print(f"add-noqa: {line}")
        moved = []
        print(f"{len(names)} notebooks, {changed_files} changed ({changed_cells} cells), "
              f"{bad} with bytes changed outside the changed cells' sources; "
              f"--add-noqa: {fixed_line or 'no Added line'} (rc {first.returncode}); "
              f"check afterwards: rc {again.returncode}, left {sum(left.values())} {dict(sorted(left.items()))}")
        unsuppressed = sum(n for c, n in left.items() if c != "MSG001")
    else:
        again = subprocess.run(cmd + ["."], cwd=copy, capture_output=True, text=True)
        moved = [rel for rel in names if open(os.path.join(copy, rel), encoding="utf-8").read() != after_first[rel]]
        for rel in moved:
            print(f"{rel}: changed again by a second --fix")
        print(f"{len(names)} notebooks, {changed_files} changed ({changed_cells} cells), "
              f"{bad} with bytes changed outside the fixed cells' sources, {len(moved)} changed by a second --fix; "
              f"first run: {fixed_line or 'no fix line'} (rc {first.returncode}), second run rc {again.returncode}")
        unsuppressed = 0
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print(f"scratch copy: {copy}")
    return 1 if bad or moved or unsuppressed or first.returncode == 2 else 0


if __name__ == "__main__":
    sys.exit(main())
