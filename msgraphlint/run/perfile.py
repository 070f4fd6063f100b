"""The settings of each file of a run. With hierarchical configuration the files of one
run (and one project index) may fall under different configuration files: each file
keeps its own rule selection, rule options, target version, ``cell-bases``,
``per-file-ignores`` and result cache, while cross-module analysis spans them all."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Tuple

from ..engine.dispatch import Dispatch

if TYPE_CHECKING:
    from ..settings import Settings


#: the dispatch table of a settings object's rule instances, kept across runs in one process
#: (the language server analyses each edit with the same settings: one table, not one per
#: edit); a table holds only what the rules declare, nothing of a run
_DISPATCHES: Dict[int, Tuple[Any, Dispatch]] = {}


def _dispatch_of(settings: "Settings") -> Dispatch:
    hit = _DISPATCHES.get(id(settings))
    if hit is not None and hit[0] is settings:
        return hit[1]
    got = Dispatch(settings.instances)
    if len(_DISPATCHES) >= 16:
        _DISPATCHES.pop(next(iter(_DISPATCHES)))
    _DISPATCHES[id(settings)] = (settings, got)
    return got


class PerFile:
    """``settings(path)``: the Settings of a file of the run (``default`` for any other
    path: an in-memory buffer, a module loaded only to resolve a name, unless ``resolve``
    (a path's own settings, the run's SettingsResolver) is given). ``cache(path)``: the
    result cache of its configuration (None: no cache)."""

    def __init__(self, default: "Settings", by_path: Optional[Dict[str, "Settings"]] = None,
                 caches: Optional[Dict[str, Any]] = None, default_cache: Any = None,
                 resolve=None) -> None:
        self.default = default
        self.resolve = resolve
        self.by_path = dict(by_path or {})
        self.caches = dict(caches or {})
        self.default_cache = default_cache
        # path -> SHA-256 of the files whose bytes the run knows from their stat signature
        # (the run's snapshot, run/replay.py): phase 1 finds their summaries without reading them
        self.known: Dict[str, str] = {}
        self._dispatch: Dict[int, Dispatch] = {}
        self._by_abs: Optional[Dict[str, "Settings"]] = None
        self._ignores: Dict[int, Any] = {}  # id(settings) -> (GlobCodes, resolved selector memo)
        unique: Dict[int, "Settings"] = {id(default): default}
        for s in self.by_path.values():
            unique.setdefault(id(s), s)
        self.all: List["Settings"] = list(unique.values())

    def __getstate__(self):  # sent to worker processes under spawn: no memoised Dispatch
        state = dict(self.__dict__)
        state["_dispatch"] = {}
        state["_by_abs"] = None
        state["_ignores"] = {}
        state["resolve"] = None
        return state

    @property
    def uniform(self) -> bool:
        """One Settings object for every file (no per-file lookups needed)."""
        return len(self.all) == 1

    def __call__(self, path: str) -> "Settings":
        got = self.by_path.get(path)
        if got is None:
            if self.resolve is None:
                return self.default
            try:
                got = self.resolve(path)
            except Exception:  # noqa: BLE001 - a module read only by name: a broken config there is not ours
                got = self.default
            self.by_path[path] = got
            self._by_abs = None
            if all(s is not got for s in self.all):
                self.all.append(got)
        return got

    def cache(self, path: str):
        return self.caches.get(path, self.default_cache)

    @property
    def any_cache(self) -> bool:
        return self.default_cache is not None or any(c is not None for c in self.caches.values())

    def dispatch(self, settings: "Settings") -> Dispatch:
        got = self._dispatch.get(id(settings))
        if got is None:
            got = self._dispatch[id(settings)] = _dispatch_of(settings)
        return got

    @property
    def yaml(self) -> bool:
        """Some file's settings have a rule that reads YAML run configs."""
        return any(self.dispatch(s).yaml for s in self.all)

    def ignored(self, path: str) -> Tuple[str, ...]:
        """The code prefixes ``per-file-ignores`` of the file's settings drop for ``path``
        (resolved selectors, for ``code.startswith``). The globs are compiled once per
        configuration and run (discovery.GlobCodes)."""
        settings = self(path)
        if not settings.config.per_file_ignores:
            return ()
        got = self._ignores.get(id(settings))
        if got is None:
            from .discovery import GlobCodes
            got = self._ignores[id(settings)] = (GlobCodes(settings.config.per_file_ignores, settings.config.root), {})
        globs, resolved = got
        out = []
        for code in globs.codes_for(path):
            sel = resolved.get(code)
            if sel is None:
                from ..engine.registry import resolve_selector
                sel = resolved[code] = resolve_selector(code)
            out.append(sel)
        return tuple(out)

    def of_abs(self, abs_path: Optional[str]) -> "Settings":
        if self._by_abs is None:
            self._by_abs = {os.path.abspath(p): s for p, s in self.by_path.items()}
        return self._by_abs.get(os.path.abspath(abs_path), self.default) if abs_path else self.default

    def cell_bases(self):
        """``cell-bases`` for scopes.CellResolver: one set when every file agrees, else a
        function of a module's path (a module outside the run: the union of all)."""
        sets = {frozenset(s.config.cell_bases) for s in self.all}
        if len(sets) == 1:
            return next(iter(sets))
        union: FrozenSet[str] = frozenset().union(*sets)
        by_abs = {os.path.abspath(p): frozenset(s.config.cell_bases) for p, s in self.by_path.items()}

        def of(path: Optional[str]) -> FrozenSet[str]:
            return by_abs.get(os.path.abspath(path), union) if path else union
        return of
