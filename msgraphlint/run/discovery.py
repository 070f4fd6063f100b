"""Paths → files to lint. Directories recurse (respecting ``exclude`` and
``.gitignore``); files named explicitly are always linted. Also the cheap
pre-filter that tells which files can hold graph-mode code."""

from __future__ import annotations

import functools
import io
import os
import re
import stat
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

from ..parse.source import display_path

if TYPE_CHECKING:
    import pathspec

PY_SUFFIXES = (".py", ".pyi")
YAML_SUFFIXES = (".yaml", ".yml")
NOTEBOOK_SUFFIX = ".ipynb"
from ..config import DEFAULT_INCLUDE  # noqa: E402  (what a directory walk lints: ruff's default `include`)


class DiscoveryError(Exception):
    pass


@functools.lru_cache(maxsize=4096)
def glob_regex(pattern: str) -> "re.Pattern[str]":
    """A glob as ruff reads `exclude`, `include` and `per-file-ignores` (Rust's globset, as
    ruff builds it): ``*`` and ``?`` match any character, ``/`` included; ``**/`` matches zero
    or more directories (``tests/**/*.py`` matches ``tests/x.py`` and ``tests/a/b/x.py``,
    ``**/x.py`` matches ``x.py``); a trailing ``/**`` matches everything below; ``[...]`` and
    ``[!...]`` are character classes, ``{a,b}`` alternatives, ``\\`` escapes the next character."""
    out, i, n, depth = [], 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            at_start = i == 0 or pattern[i - 1] == "/"
            if j - i >= 2 and at_start and j < n and pattern[j] == "/":
                out.append("(?:.*/)?")          # **/ : zero or more directories
                i = j + 1
                continue
            out.append(".*")
            i = j
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1:j]
            neg = body[:1] in ("!", "^")
            body = body[1:] if neg else body
            out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\").replace("^", "\\^") + "]")
            i = j + 1
        elif c == "{":
            depth += 1
            out.append("(?:")
            i += 1
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
            i += 1
        elif c == "," and depth:
            out.append("|")
            i += 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    if depth:  # an unclosed {: literal, as fnmatch would read it
        return re.compile(re.escape(pattern) + r"\Z", re.DOTALL)
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob_match(text: str, pattern: str) -> bool:
    return glob_regex(pattern).match(text) is not None


def _excluded(rel: str, name: str, patterns: Sequence[str]) -> bool:
    for pat in patterns:
        p = pat.rstrip("/")
        if glob_match(name, p) or glob_match(rel, p) or rel == p or rel.startswith(p + "/"):
            return True
    return False


@functools.lru_cache(maxsize=1)
def _pathspec():
    """(pathspec, the name of git's own semantics in it), imported when a ``.gitignore`` is
    first read (~25 ms of every process's start otherwise). pathspec >= 0.12 names the
    style "gitignore"; older releases "gitwildmatch"."""
    import pathspec
    try:
        pathspec.PathSpec.from_lines("gitignore", [])
        return pathspec, "gitignore"
    except Exception:  # pragma: no cover - older pathspec
        return pathspec, "gitwildmatch"


class _GitIgnores:
    """Nested .gitignore files, each applying below its own directory."""

    def __init__(self, warnings: Optional[List[str]] = None) -> None:
        self._cache: Dict[str, Optional["pathspec.PathSpec"]] = {}
        self._warnings = warnings if warnings is not None else []

    def spec(self, directory: str) -> Optional["pathspec.PathSpec"]:
        if directory not in self._cache:
            from .. import config
            path = os.path.join(directory, ".gitignore")
            spec = None
            if os.path.isfile(path):
                try:
                    with open(path, "rb") as fh:
                        raw = fh.read(config.MAX_CONFIG_BYTES + 1)
                    if len(raw) > config.MAX_CONFIG_BYTES:
                        self._warnings.append(f"{path}: not applied: over the {config.size_limit_text()} "
                                              "limit for configuration files")
                    else:
                        lines = io.StringIO(raw.decode("utf-8", "replace"), newline=None)  # as open() reads
                        pathspec, style = _pathspec()
                        spec = pathspec.PathSpec.from_lines(style, lines)
                except OSError as err:
                    self._warnings.append(f"{path}: not applied: cannot read: {err.strerror}")
            self._cache[directory] = spec
        return self._cache[directory]

    def ignored(self, path: str, is_dir: bool, bases: Sequence[str]) -> Optional[str]:
        """The .gitignore that ignores ``path``, or None."""
        for base in bases:
            spec = self.spec(base)
            if spec is None:
                continue
            rel = os.path.relpath(path, base).replace(os.sep, "/")
            if spec.match_file(rel + ("/" if is_dir else "")):
                return os.path.join(base, ".gitignore")
        return None


def _repo_top(start: str) -> Optional[str]:
    path = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _regular(path: str) -> bool:
    """A regular file (following symlinks). A FIFO or device named ``*.py`` would block
    the run on ``open``/``read``; such paths are skipped with a warning."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # vanished or unreadable: reading it reports MSG001 with the reason


def _special_warning(path: str) -> str:
    return f"{path}: skipped: not a regular file (a FIFO, socket or device)"


def discover(paths: Iterable[str], exclude: Sequence[str], root: str, respect_gitignore: bool = True,
             include_yaml: bool = True, warnings: Optional[List[str]] = None,
             skipped: Optional[List[Tuple[str, str]]] = None,
             include: Optional[Sequence[str]] = None) -> List[str]:
    """Files to lint, in a stable order. Raises DiscoveryError naming a missing path.
    Non-regular files and directories that cannot be listed are skipped; a message for
    each goes to ``warnings`` (and the directories to ``skipped`` too). Files and
    directories left out because a ``.gitignore`` ignores them go to ``skipped`` as
    (path, reason) (a directory once, with a trailing ``/``). ``include``: the globs a
    walked file must match (its name, or its path relative to ``root``; ruff's
    ``include``), default ``DEFAULT_INCLUDE``; YAML files are taken apart (``include_yaml``)."""
    if warnings is None:
        warnings = []
    out: List[str] = []
    seen = set()
    gi = _GitIgnores(warnings)
    suffixes = YAML_SUFFIXES if include_yaml else ()
    globs = list(DEFAULT_INCLUDE if include is None else include)
    plain = tuple(g[1:] for g in globs if g.startswith("*.") and not _MAGIC.search(g[1:]))  # "*.py": a suffix
    others = [g for g in globs if not (g.startswith("*.") and not _MAGIC.search(g[1:]))]
    for given in paths:
        if not os.path.exists(given):
            raise DiscoveryError(f"path does not exist: {given}")
        if not os.path.isdir(given) and not _regular(given):
            warnings.append(_special_warning(given))
            continue
        if os.path.isfile(given):
            ap = os.path.abspath(given)
            if ap not in seen:
                seen.add(ap)
                out.append(given)
            continue
        top = _repo_top(given) if respect_gitignore else None

        def unreadable(err: OSError) -> None:  # os.walk would skip the directory without a word
            where = err.filename or given
            why = f"cannot read the directory: {err.strerror or err}"
            warnings.append(f"{where}/: skipped: {why}")
            if skipped is not None:
                skipped.append((where + "/", why))

        for dirpath, dirnames, filenames in os.walk(given, onerror=unreadable):
            # .gitignore files from the repo top down to here
            bases: List[str] = []
            if top is not None:
                cur = os.path.abspath(dirpath)
                while True:
                    bases.append(cur)
                    if cur == top or os.path.dirname(cur) == cur:
                        break
                    cur = os.path.dirname(cur)
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                rel = os.path.relpath(os.path.abspath(full), root).replace(os.sep, "/")
                if _excluded(rel, d, exclude):
                    continue
                if top is not None:
                    by = gi.ignored(os.path.abspath(full), True, bases)
                    if by is not None:
                        if skipped is not None:
                            skipped.append((full + "/", f"gitignored (by {display_path(by)})"))
                        continue
                keep.append(d)
            dirnames[:] = keep
            for f in sorted(filenames):
                if not f.endswith(plain) and not f.endswith(suffixes) and not others:
                    continue
                full = os.path.join(dirpath, f)
                ap = os.path.abspath(full)
                rel = os.path.relpath(ap, root).replace(os.sep, "/")
                if not f.endswith(plain) and not f.endswith(suffixes) and \
                        not any(glob_match(f, g) or glob_match(rel, g) for g in others):
                    continue
                if _excluded(rel, f, exclude):
                    continue
                if top is not None:
                    by = gi.ignored(ap, False, bases)
                    if by is not None:
                        if skipped is not None:
                            skipped.append((full, f"gitignored (by {display_path(by)})"))
                        continue
                if not _regular(full):
                    warnings.append(_special_warning(full))
                    continue
                if ap not in seen:
                    seen.add(ap)
                    out.append(full)
    return out


def may_hold_graph_code(text: str) -> bool:
    """Cheap pre-filter: a module that never mentions mindspore, mindformers,
    construct or jit cannot define graph roots or MindSpore configuration (it can still be reached as a helper; the index loads
    it then)."""
    return "mindspore" in text or "construct" in text or "jit" in text or "mindformers" in text


def matches_any(path: str, globs: Iterable[str], root: str) -> bool:
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    name = os.path.basename(path)
    for g in globs:
        if glob_match(rel, g) or glob_match(name, g) or rel.startswith(g.rstrip("/") + "/"):
            return True
    return False


_MAGIC = re.compile(r"[*?[{\\]")


class GlobCodes:
    """``per-file-ignores`` compiled once per configuration: ``codes_for(path)`` is the
    codes of every glob that :func:`matches_any` matches ``path`` against (the same
    semantics: :func:`glob_regex` on the path relative to ``root`` or on the file name, or the glob
    names one of the path's parent directories), without trying each glob on each file.
    A glob without wildcards is a dictionary lookup (the path, the name, each parent
    prefix); a wildcard glob is indexed by its literal head (the text before its first
    wildcard), or, when that is empty, by its literal tail (after its last wildcard, for
    globs without ``[``): a path looks up its own heads and tails, one per distinct
    length, and only the globs found are matched (each compiled once, when first tried)."""

    def __init__(self, mapping: Dict[str, Sequence[str]], root: str) -> None:
        self.root = root
        self._codes: List[Sequence[str]] = []
        self._pattern: List[str] = []                    # normcase(glob)
        self._regex: List[Optional["re.Pattern[str]"]] = []
        self._literal: Dict[str, List[int]] = {}         # glob without wildcards -> globs
        self._dirs: Dict[str, List[int]] = {}            # glob.rstrip("/"): rel.startswith(it + "/")
        self._head: Dict[str, List[int]] = {}
        self._tail: Dict[str, List[int]] = {}
        self._always: List[int] = []                     # no literal head or tail ("*", "*a*")
        for i, (glob, codes) in enumerate(mapping.items()):
            pat = os.path.normcase(glob)
            self._codes.append(codes)
            self._pattern.append(pat)
            self._regex.append(None)
            self._dirs.setdefault(glob.rstrip("/"), []).append(i)
            m = _MAGIC.search(pat)
            if m is None:
                self._literal.setdefault(pat, []).append(i)
            elif m.start() > 0:
                self._head.setdefault(pat[:m.start()], []).append(i)
            else:
                tail = "" if any(ch in pat for ch in "[{\\") else re.split(r"[*?]", pat)[-1]
                if tail.startswith("/") and pat.endswith("**" + tail):
                    tail = tail[1:]  # "**/x.py" matches "x.py": zero directories
                (self._tail.setdefault(tail, []) if tail else self._always).append(i)
        self._head_lens = sorted({len(h) for h in self._head})
        self._tail_lens = sorted({len(t) for t in self._tail})

    def _matching(self, text: str, hits: set) -> None:
        cands: List[int] = list(self._always)
        for n in self._head_lens:
            if n > len(text):
                break
            cands.extend(self._head.get(text[:n], ()))
        for n in self._tail_lens:
            if n > len(text):
                break
            cands.extend(self._tail.get(text[-n:], ()))
        for i in cands:
            if i in hits:
                continue
            regex = self._regex[i]
            if regex is None:
                regex = self._regex[i] = glob_regex(self._pattern[i])
            if regex.match(text):
                hits.add(i)

    def codes_for(self, path: str) -> List[str]:
        rel = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        nrel, nname = os.path.normcase(rel), os.path.normcase(os.path.basename(path))
        hits: set = set()
        hits.update(self._literal.get(nrel, ()))
        hits.update(self._literal.get(nname, ()))
        i = rel.find("/")
        while i >= 0:
            hits.update(self._dirs.get(rel[:i], ()))
            i = rel.find("/", i + 1)
        self._matching(nrel, hits)
        if nname != nrel:
            self._matching(nname, hits)
        return list(dict.fromkeys(c for i in sorted(hits) for c in self._codes[i]))
