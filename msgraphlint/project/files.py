"""The rest of the project, for a run that lints only some of its files.

pre-commit passes the staged files, an editor its open buffers, a user ``check model.py``:
what those files are (a helper is graph code because another file's ``construct`` calls
it; a Cell's parameter kinds come from the script that calls it; a helper's print is
reported at the call that reaches it, MSG004) must not depend on which files were named.
So a run also reads the other files of each named file's project, as ``check`` on the
project's folder would find them (:func:`context_files`), summarises them and takes them
into the project index; their findings are not reported (a helper reached from a named
file is checked, to report at the call).

A project is the nearest folder above a file holding ``pyproject.toml``, ``setup.py`` or
``.git``, else the file's import root (its first ancestor without ``__init__.py``). Two
bounds: an installed package (a folder beside ``*.dist-info``: a ``site-packages``, an
unpacked wheel) is its own project, and so is a folder the enclosing repository's
``.gitignore`` ignores (a download cache, a build copy): a run over one of them never reads
the repository around it. What a repository ignores is never context of its project, also
with ``respect-gitignore = false`` (that setting is about what is linted).

Cost. Of the project's files only those that can matter are summarised: the files that
import a named file, directly or through others (a caller imports its helper's module by
name: ``from src.utils import helper``, ``from . import utils``, ``import src.utils as
u``; a package's ``__init__`` re-exports by name), and the files the named files import,
directly or through others. What else a caller imports is read by name when it is needed,
as for any module (``ProjectIndex._load``): a graph root can make a named file's helper
graph code only by a chain of calls, and the file that makes the last call imports the
named file. ``importlib.import_module`` of a computed name is not followed; files that
import nothing of the named files, and that they do not import, are left unparsed. Reading the texts costs about a tenth of parsing them; a folder the walk of the
named paths already covered is not walked again. :class:`ContextCache` keeps what was
read (keyed by each file's size, mtime and inode) between runs of one process: the
language server's analyses, ``--fix`` passes.
"""

from __future__ import annotations

import os
import re
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..run.discovery import YAML_SUFFIXES, _repo_top
from .index import PROJECT_MARKERS, module_name_for

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# an import statement, at any indentation (also inside a function; and, harmlessly, in a
# string): `import a.b as c, d`, `from .a import (b, c)` over several lines
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?P<mod>[.\w]+)[ \t]+import[ \t]*(?P<names>\([^)]*\)|[^\n#;]*)"
                     r"|import[ \t]+(?P<plain>[^\n#;]+))", re.M)
#: a walk of the project is reused this long by the language server (files created meanwhile are
#: seen on the next walk)
WALK_TTL_S = 2.0


def project_root(path: str, memo: Optional[Dict[str, str]] = None) -> str:
    """The folder whose files form ``path``'s project (see the module docstring): the nearest
    folder above it holding ``pyproject.toml``, ``setup.py`` or ``.git``, with two bounds.
    An installed tree is its own project: a folder holding ``*.dist-info`` is a
    ``site-packages`` (or an unpacked wheel), and a package in it is the project of its files
    (an installed package is never part of the repository it happens to sit in). A folder
    the enclosing repository's ``.gitignore`` ignores (a download cache, a build copy, a
    virtual environment) is no part of that repository's project. Without a marker (or
    beyond a bound) the project is the file's import root."""
    memo = {} if memo is None else memo
    start = os.path.dirname(os.path.abspath(path))
    seen = []
    d = start
    found = None
    while True:
        if d in memo:
            found = memo[d]
            break
        parent = os.path.dirname(d)
        if parent != d and _installed_tree(parent):
            found = d  # the top-level package of an installation
            seen.append(d)
            break
        if _installed_tree(d):
            break  # a top-level module of an installation: its import root
        seen.append(d)
        if any(os.path.exists(os.path.join(d, m)) for m in PROJECT_MARKERS):
            if os.path.exists(os.path.join(d, ".git")) and _ignored_below(d, start, *_ignores(d, memo)):
                break
            found = d
            break
        if parent == d:
            break
        d = parent
    if found is None:
        found = module_name_for(path)[1]
        memo[start] = found  # only this folder: its siblings may have other import roots
        return found
    for x in seen:
        memo[x] = found
    return found


def _ignores(top: str, memo: dict) -> tuple:
    """The ``(_GitIgnores, answers)`` of the repository at ``top``, kept in ``memo``."""
    key = ("gitignore", top)
    got = memo.get(key)
    if got is None:
        from ..run.discovery import _GitIgnores
        got = memo[key] = (_GitIgnores(), {})
    return got


def _installed_tree(folder: str) -> bool:
    """``folder`` holds a ``*.dist-info`` (a site-packages, an unpacked wheel)."""
    try:
        with os.scandir(folder) as it:
            return any(e.name.endswith(".dist-info") for e in it)
    except OSError:
        return False


def _ignored_below(top: str, folder: str, gi=None, memo: Optional[Dict[str, bool]] = None) -> bool:
    """``folder`` (below the repository top ``top``) or a folder between them is ignored by
    a ``.gitignore`` of the repository (git's nested ``.gitignore`` semantics, as discovery
    applies them). ``gi``/``memo``: a ``discovery._GitIgnores`` and answers per folder, shared
    by the calls for one repository."""
    if gi is None:
        from ..run.discovery import _GitIgnores
        gi = _GitIgnores()
    memo = {} if memo is None else memo
    if folder == top or os.path.dirname(folder) == folder or not folder.startswith(top.rstrip(os.sep) + os.sep):
        return False
    got = memo.get(folder)
    if got is None:
        parent = os.path.dirname(folder)
        got = _ignored_below(top, parent, gi, memo)
        if not got:
            bases = []
            d = parent
            while True:  # nearest .gitignore first, up to the top
                bases.append(d)
                if d == top or os.path.dirname(d) == d:
                    break
                d = os.path.dirname(d)
            got = gi.ignored(folder, True, bases) is not None
        memo[folder] = got
    return got


def _too_wide(root: str) -> bool:
    """A marker in the home folder (a dotfiles repository) or at ``/`` does not make the
    whole disk one project."""
    return root == os.path.abspath(os.path.expanduser("~")) or os.path.dirname(root) == root


class ContextCache:
    """What :func:`context_files` and the runner read about context files, kept between
    runs of one process: each file's mentions, its phase-1 result (summary, no tree), keyed
    by ``(size, mtime_ns, inode)``, and each project walk for :data:`WALK_TTL_S`."""

    def __init__(self, ttl: float = WALK_TTL_S) -> None:
        self.ttl = ttl
        self.walks: Dict[str, Tuple[float, List[str]]] = {}
        self.mentions: Dict[str, Tuple[tuple, frozenset, bool]] = {}  # path -> (stat key, modules it imports, _)
        self.phase1: Dict[str, Tuple[tuple, object]] = {}
        self.lazy: Dict[Tuple[str, str], Tuple[tuple, object]] = {}  # (path, module) -> (stat key, summary)
        self.scopes: Dict[str, dict] = {}  # path -> scope cache of a file checked, not reported (runner)
        self.sources: Dict[str, Tuple[tuple, object]] = {}  # path -> (stat key, SourceFile) of such a file

    def walk(self, root: str, compute: Callable[[], List[str]]) -> List[str]:
        got = self.walks.get(root)
        now = time.monotonic()
        if got is not None and now - got[0] < self.ttl:
            return got[1]
        files = compute()
        self.walks[root] = (now, files)
        return files

    def get_phase1(self, path: str):
        got = self.phase1.get(path)
        key = stat_key(path)
        return got[1] if got is not None and key is not None and got[0] == key else None

    def put_phase1(self, path: str, result) -> None:
        key = stat_key(path)
        if key is not None:
            self.phase1[path] = (key, result)


    def scopes_of(self, path: str) -> dict:
        """The per-scope findings cache of a file checked but not reported (its keys hold the
        scope's text and everything else its findings depend on)."""
        if path not in self.scopes and len(self.scopes) >= 256:
            self.scopes.clear()
        return self.scopes.setdefault(path, {})

    def source_of(self, path: str, shown: str):
        """The SourceFile of a file checked but not reported, read once while its stat is
        unchanged (its tree, parsed when it is first checked, is kept on it): the last 16
        files of up to 2 MB; None when it cannot be read or decoded (the caller reads it then,
        inside the file's isolation)."""
        key = stat_key(path)
        if key is None:
            return None
        got = self.sources.get(path)
        if got is not None and got[0] == key:
            return got[1]
        if key[0] > 2_000_000:
            return None
        from ..parse.source import SourceError, SourceFile
        try:
            with open(path, "rb") as fh:
                src = SourceFile.from_bytes(shown, fh.read())
        except (OSError, SourceError, ValueError):
            return None
        self.sources[path] = (key, src)
        if len(self.sources) > 16:
            self.sources.pop(next(iter(self.sources)))
        return src

    def get_lazy(self, path: str, module: str):
        """The summary of a module the index loaded by name in an earlier run, if its file is unchanged."""
        got = self.lazy.get((path, module))
        return got[1] if got is not None and got[0] == stat_key(path) else None

    def put_lazy(self, path: str, module: str, summary) -> None:
        key = stat_key(path)
        if key is not None:
            if len(self.lazy) >= 4096:
                self.lazy.clear()
            self.lazy[(path, module)] = (key, summary)


def stat_key(path: str) -> Optional[tuple]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _dotted(text: str) -> List[str]:
    return re.findall(r"[A-Za-z_][\w.]*", text)


def _mentions(path: str, module: str, is_package: bool, text_of: Callable[[str], Optional[str]],
              cache: Optional[ContextCache], dynamic: bool) -> frozenset:
    """The modules a file's import statements may name, as dotted names: ``import a.b`` names
    ``a.b``; ``from a import b`` names ``a`` and ``a.b`` (``b`` may be a submodule); a
    relative import is made absolute against the file's own package."""
    key = None if dynamic or cache is None else stat_key(path)
    if key is not None:
        got = cache.mentions.get(path)
        if got is not None and got[0] == key:
            return got[1]
    text = text_of(path)
    out: Set[str] = set()
    if text is not None and "import" in text:
        package = module.split(".") if is_package else module.split(".")[:-1]
        for m in _IMPORT.finditer(text):
            mod = m.group("mod")
            if mod is None:
                out.update(n for n in _dotted(m.group("plain")) if n != "as")
                continue
            dots = len(mod) - len(mod.lstrip("."))
            if dots:
                base = package[:len(package) - dots + 1] if dots - 1 <= len(package) else []
                rest = mod[dots:]
                mod = ".".join(base + ([rest] if rest else []))
            if not mod:
                continue
            out.add(mod)
            out.update(f"{mod}.{n}" for n in _IDENT.findall(m.group("names")) if n != "as")
    got = frozenset(out)
    if key is not None:
        cache.mentions[path] = (key, got, False)
    return got


def _spellings(name: str, root: str) -> Set[str]:
    """The names an import may give a module: its name from its import root, and that name
    under the folders above the root (up to three: a namespace ``src`` folder is its files'
    import root, and ``from src.utils import helper`` in the script beside it names
    ``utils``), as the index's lazy loader looks for modules (``ProjectIndex._search_roots``)."""
    out = {name}
    parts = root.replace(os.sep, "/").rstrip("/").split("/")
    for k in range(1, 4):
        prefix = parts[len(parts) - k:]
        if len(prefix) < k or not all(p.isidentifier() for p in prefix):
            break
        out.add(".".join(prefix + [name]))
    return out


def connected(seeds: Sequence[str], candidates: Sequence[str], text_of: Callable[[str], Optional[str]],
              cache: Optional[ContextCache] = None, dynamic: Iterable[str] = ()) -> List[str]:
    """The ``candidates`` connected to ``seeds`` by "imports the other's module" (see the
    module docstring), in the order of ``candidates``. ``dynamic``: paths whose text is not
    the file's (editor buffers), never answered from ``cache``."""
    dyn = set(dynamic)
    files = list(dict.fromkeys(list(seeds) + list(candidates)))
    names: Dict[str, str] = {}
    packages: Dict[str, bool] = {}
    spelled: Dict[str, Set[str]] = {}
    for f in files:
        names[f], root, packages[f] = module_name_for(f)
        spelled[f] = _spellings(names[f], root)
    by_stem: Dict[str, List[str]] = {}
    for f in files:
        by_stem.setdefault(_stem(names[f]), []).append(f)
    said: Dict[str, List[str]] = {}          # file -> files it imports
    imported_by: Dict[str, List[str]] = {}   # file -> files importing it
    for f in files:
        out = []
        for n in _mentions(f, names[f], packages[f], text_of, cache, f in dyn):
            for g in by_stem.get(_stem(n), ()):
                if g != f and n in spelled[g]:
                    out.append(g)
                    imported_by.setdefault(g, []).append(f)
        said[f] = out
    reached = _closure(seeds, imported_by) | _closure(seeds, said)
    seed_set = set(seeds)
    return [f for f in candidates if f in reached and f not in seed_set]


def _closure(seeds: Sequence[str], edges: Dict[str, List[str]]) -> Set[str]:
    reached = set(seeds)
    todo = list(seeds)
    while todo:
        for g in edges.get(todo.pop(), ()):
            if g not in reached:
                reached.add(g)
                todo.append(g)
    return reached


def context_files(linted: Sequence[str], paths: Sequence[str], discover_root: Callable[[str], List[str]],
                  text_of: Callable[[str], Optional[str]], cache: Optional[ContextCache] = None,
                  dynamic: Iterable[str] = ()) -> Tuple[List[str], List[str]]:
    """(every file of the linted files' projects that ``check`` on the project folder would
    find and that was not named, in walk order; the roots walked). ``discover_root(root)``
    is that walk (``runner.plan_paths`` of the folder). Projects a named folder already
    covers are not walked again. ``linted``: the run's Python files that exist on disk."""
    memo: dict = {}
    roots: List[str] = []
    for f in linted:
        r = project_root(f, memo)
        if r not in roots and not _too_wide(r):
            roots.append(r)
    given = [os.path.abspath(p) for p in paths if os.path.isdir(p)]
    roots = [r for r in roots if not any(r == g or r.startswith(g.rstrip(os.sep) + os.sep) for g in given)]
    seen = {os.path.abspath(f) for f in linted}
    out: List[str] = []
    for r in roots:
        files = cache.walk(r, lambda r=r: discover_root(r)) if cache is not None else discover_root(r)
        top = _repo_top(r)
        if top is not None and _ignored_below(top, r, *_ignores(top, memo)):
            top = None  # a project the repository ignores (project_root): not the repository's
        for f in files:
            a = os.path.abspath(f)
            if top is not None and _ignored_below(top, os.path.dirname(a), *_ignores(top, memo)):
                continue  # what the repository ignores is no context (also with respect-gitignore = false)
            if a not in seen:
                seen.add(a)
                out.append(f)
    return out, roots


def is_python(path: str) -> bool:
    return not path.endswith(YAML_SUFFIXES)
