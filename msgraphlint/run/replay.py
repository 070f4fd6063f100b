"""A run replayed from its snapshot (``cache/snapshot.py``): the runner's side.

``Slot.open`` finds the snapshot of an invocation (one project index of a run: its files,
context files, their settings, the working folder); ``Slot.replay`` gives its results when
every file the run read still has its stored bytes and every installed package its
version, and otherwise the digests of the files whose stat signature still matches
(``known``: phase 1 then finds their summaries without reading them). The run fills
``inputs`` as it reads (``note_phase1``, ``note_index``) and ``store`` writes the new
snapshot."""

from __future__ import annotations

import os
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..cache.snapshot import (RunSnapshot, SnapFile, StoredResult, input_of, known_digests, signature,
                              validate)
from ..findings import INTERNAL_ERROR_CODE, FileResult


def _settings_part(s) -> str:
    from ..cache.keys import settings_key
    from ..cache.store import digest
    # the rules, their options, the target, cell bases, tool and rule versions (the per-file
    # entries' key), and all the rest of the configuration: per-file-ignores, excludes, `python`
    return digest(settings_key(s), repr(s.config.describe()), s.file_budget, s.file_budget_per_mb)


class Slot:
    """The snapshot of one project index of a run, in the result cache ``cache``."""

    def __init__(self, cache, key: str) -> None:
        self.cache = cache
        self.key = key
        self.found: Optional[RunSnapshot] = None
        self.known: Dict[str, Tuple[str, str]] = {}  # abs path -> (signature, SHA-256), unchanged files
        self.inputs: Dict[str, SnapFile] = {}
        self.installed: Set[Tuple[str, str, str]] = set()
        self.complete = True  # False: something the run read cannot be recorded; store nothing

    @classmethod
    def open(cls, group: Sequence[str], ctx: Sequence[str], settings_of, caches: Dict[str, object],
             context: bool) -> Optional["Slot"]:
        """The slot of these files, or None when they do not share one result cache."""
        from ..cache.store import digest
        from ..project.index import module_name_for
        from .discovery import YAML_SUFFIXES

        files = list(group) + list(ctx)
        if not files:
            return None
        cache = caches.get(files[0])
        if cache is None or any(caches.get(f) is not cache for f in files):
            return None
        parts: List[object] = [os.getcwd(), bool(context), len(group)]
        memo: Dict[int, str] = {}
        for f in files:
            s = settings_of(f)
            sk = memo.get(id(s))
            if sk is None:
                sk = memo[id(s)] = _settings_part(s)
            parts.append((f, None if f.endswith(YAML_SUFFIXES) else module_name_for(f), sk))
        slot = cls(cache, digest("run", parts))
        slot.found = cache.get("run", slot.key)
        return slot

    def replay(self) -> Optional[Tuple[List[FileResult], List[str]]]:
        """The stored results and warnings when nothing the run read has changed, else None
        (and ``known`` is filled)."""
        snap = self.found
        if snap is None:
            return None
        from ..cache import runcache
        runcache.new_run()  # package versions as they are now, not as an earlier run of this process saw them
        now = validate(snap, self._package_key)
        if now is None:
            self.known = known_digests(snap)
            return None
        if now != snap.inputs:  # files hashed again (a recent write, a copy): their new signatures
            self.cache.put("run", self.key, RunSnapshot(now, snap.installed, snap.results, snap.warnings))
        files = [FileResult(r.path, list(r.findings), list(r.unused_suppressions), r.skipped, r.lines, r.skip_reason)
                 for r in snap.results]
        return files, list(snap.warnings)

    def _package_key(self, python: Optional[str], top: str) -> str:
        from ..project import installed
        return installed.environment(python, self._store()).package_key(top)

    def _store(self) -> Optional[str]:
        from ..project.installed import STORE_NAME
        d = getattr(self.cache, "dir", None)
        return os.path.join(d, STORE_NAME) if d else None

    # recording ---------------------------------------------------------------------
    def digests_for(self, files: Iterable[str]) -> Dict[str, str]:
        """path -> SHA-256 of those of ``files`` whose signature is unchanged (phase1's ``content``)."""
        out: Dict[str, str] = {}
        for f in files:
            got = self.known.get(os.path.abspath(f))
            if got is not None:
                out[f] = got[1]
        return out

    def note_phase1(self, results) -> None:
        for r in results:
            ap = os.path.abspath(r.path)
            if not r.content:  # not read by phase 1 (an error, a budget): read here
                self.inputs[ap] = input_of(ap)
                continue
            signed = r.signed
            if not signed:
                known = self.known.get(ap)
                if known is not None and known[1] == r.content:
                    signed = known[0]
            self.inputs[ap] = SnapFile(ap, signed, r.content)

    def note_paths(self, paths: Iterable[str]) -> None:
        """Files the run read besides its own (YAML run configs, modules loaded by name,
        other files rules read, configuration files)."""
        for p in paths:
            ap = os.path.abspath(p)
            if ap not in self.inputs:
                self.inputs[ap] = input_of(ap)

    def note_installed(self, triples: Iterable[Tuple[str, str, str]]) -> None:
        self.installed.update(triples)

    def store(self, files: Sequence[FileResult], warnings: Sequence[str], settings: Iterable[object]) -> None:
        if not self.complete or any(x.code == INTERNAL_ERROR_CODE for fr in files for x in fr.findings):
            return
        config_files = set()
        for s in settings:
            cfg = getattr(s, "config", None)
            for p in ([cfg.path] if cfg is not None and cfg.path else []) + list(getattr(cfg, "extends", ()) or ()):
                config_files.add(p)
        self.note_paths(sorted(config_files))
        snap = RunSnapshot(list(self.inputs.values()), sorted(self.installed),
                           [StoredResult(fr.path, list(fr.findings), list(fr.unused_suppressions), fr.skipped,
                                         fr.lines, fr.skip_reason) for fr in files], list(warnings))
        self.cache.put("run", self.key, snap)


def index_reads(index) -> Tuple[List[str], List[Tuple[str, str, str]]]:
    """What a project index read besides the run's files: the paths of its modules (those
    loaded by name among them) and the files rules read through it (``source_of``); and
    (``python`` setting, top-level package, ``package==version``) of the installed packages
    its modules import (``installed.deps_key``)."""
    from ..project import installed

    inst = getattr(index, "installed", None)
    triples: Set[Tuple[str, str, str]] = set()
    for mod in list(index.modules.values()):
        keys = installed.deps_key(index, [mod], mod.path)
        if not keys:
            continue
        python = ""
        if inst is not None:
            python = (inst.by_path.get(os.path.abspath(mod.path), inst.default) if inst.by_path else inst.default) or ""
        for k in keys:
            triples.add((python, k.split("==", 1)[0], k))
    paths = {os.path.abspath(m.path) for m in list(index.modules.values())}
    paths.update(getattr(index, "_read_here", ()) or ())
    return sorted(paths), sorted(triples)


__all__ = ["Slot", "index_reads", "signature"]
