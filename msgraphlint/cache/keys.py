"""Result-cache keys: the settings of a run and the transitive project imports of a
file (cache.py stores the entries)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict

from ..project import evidence, installed
from ..project.index import ModuleSummary, ProjectIndex

if TYPE_CHECKING:
    from ..settings import Settings


def settings_key(settings: Settings) -> str:
    from .. import __version__
    from .store import digest, rules_fingerprint
    opts = sorted((type(r).__name__, sorted(r.opts.items())) for r in settings.instances)
    return digest("settings", __version__, sorted(settings.selected), repr(opts), settings.target,
                  sorted(settings.config.cell_bases), rules_fingerprint(settings.rules.values()))


class DepsKeys:
    """Digest of the project modules a file imports, transitively (a module's base classes
    and helpers live there). The direct-import graph and each module's own digest are
    computed once per run; a file's key is the digest of its closure."""

    def __init__(self, index: ProjectIndex, digests: Dict[str, str]) -> None:
        self.index = index
        self.digests = digests
        self._direct: Dict[str, tuple] = {}
        self._own: Dict[str, str] = {}

    def _deps(self, mod: ModuleSummary) -> tuple:
        got = self._direct.get(mod.name)
        if got is None:
            out = set()
            for dotted in set(mod.imports.names.values()):
                parts = dotted.split(".")
                for cut in range(len(parts), 0, -1):
                    name = ".".join(parts[:cut])
                    if name in self.index.modules:
                        out.add(name)
                        break
            out.discard(mod.name)
            got = self._direct[mod.name] = tuple(sorted(out))
        return got

    def _digest_of(self, name: str) -> str:
        d = self._own.get(name)
        if d is None:
            path = self.index.modules[name].path
            d = self.digests.get(os.path.abspath(path))
            if d is None:
                try:
                    st = os.stat(path)
                    d = f"{st.st_size}:{st.st_mtime_ns}"
                except OSError:
                    d = "missing"
            self._own[name] = d
        return d

    def key(self, path: str) -> str:
        from .store import digest
        start = self.index.module_of_path(path)
        if start is None:
            return ""
        seen = {start.name}
        stack = [start.name]
        while stack:
            for dep in self._deps(self.index.modules.get(stack.pop()) or start):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        # the versions of the installed packages the file and its imports name (installed.py)
        versions = installed.deps_key(self.index, [self.index.modules.get(n) or start for n in seen], path)
        seen.discard(start.name)
        # what other modules pass to the file's graph entries (evidence.py): a caller's edit
        # re-lints the file when that changes, and only then
        return digest(sorted((n, self._digest_of(n)) for n in seen), versions, evidence.incoming_key(self.index, path))
