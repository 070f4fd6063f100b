"""Applying fixes to files on disk: the fix loop of ``check --fix`` / ``--diff``.

1. Every file of the run that has an eligible fix is read once (its bytes are the
   *snapshot*), and the whole run is linted again with the snapshots' text, so the fixes
   applied are exactly those computed for those bytes, with the full project index (a
   helper reached from another file's ``construct`` is graph code here too).
2. Fixes are applied in memory and the whole run re-linted, until nothing more applies
   (``max_passes``): findings that depend on other files stay, and ``--fix`` twice is a
   no-op across files.
3. A file is written only if it still holds its snapshot (``safe_write``); if it changed
   meanwhile (another ``--fix``, an editor save), it is read and fixed again from its new
   bytes (up to ``max_rounds`` times), never patched with edits computed for other text.
   A file that cannot be written (read-only file or folder, …) gets a finding
   ``MSG003 fix-not-written`` and the run goes on.

Symlinked files are fixed through the link: the target's text changes, the link stays
(each real file is fixed once however many links name it). Hard links are kept.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Dict, List, Set, Tuple

from . import runner
from .findings import FileResult, Finding, Severity
from .fixes import FileFix, FixError, eligible, encode_like, fix_text
from .runner import RunResult
from .safe_write import Changed, NotWritten, replace_if_unchanged
from .source import SourceError, SourceFile

NOT_WRITTEN_CODE = "MSG003"
NOT_WRITTEN_NAME = "fix-not-written"


@dataclass
class _Snapshot:
    path: str
    data: bytes
    source: SourceFile  # decoded from data: encoding, BOM and newline style to write back


def _fixable(fr: FileResult, unsafe: bool) -> bool:
    return any(eligible(f, unsafe) for f in fr.findings)


def _snapshot(path: str) -> _Snapshot:
    with open(path, "rb") as fh:
        data = fh.read()
    source = SourceFile.from_bytes(path, data)
    return _Snapshot(path, data, source)


class _MemoryCache:
    """The result cache of the fix passes, in memory: a file whose text and dependencies
    did not change since the previous pass is not linted again (the runner's cache keys:
    the file's text, its graph scopes and call sites, the modules it imports)."""

    def __init__(self) -> None:
        self.entries: Dict[Tuple[str, str], object] = {}

    def get(self, kind: str, key: str):
        return self.entries.get((kind, key))

    def put(self, kind: str, key: str, value) -> None:
        self.entries[(kind, key)] = value


def _lint(paths: List[str], settings, texts: Dict[str, str], cache=None) -> Dict[str, FileResult]:
    """Re-lint ``paths`` with one project index; ``settings`` is one Settings for all, or a
    function giving each path its own (hierarchical configuration, as `check` linted it)."""
    if not paths:
        return {}
    if callable(settings):
        by_path = {p: settings(p) for p in paths}
        settings = runner.PerFile(by_path[paths[0]], by_path, default_cache=cache)
    result = runner._run_files(list(paths), settings, 1, dict(texts), cache)
    return {p: fr for p, fr in zip(paths, result.files)}


def _not_written(path: str, reason: str) -> Finding:
    return Finding(code=NOT_WRITTEN_CODE, name=NOT_WRITTEN_NAME, path=path, line=1, col=0,
                   severity=Severity.ERROR,
                   message=f"the fixes for this file were not written: {reason}",
                   hint="make the file writable and run --fix again, or apply the fixes by hand (--diff shows them)")


def _fix_round(paths: List[str], settings, snaps: Dict[str, _Snapshot], unsafe: bool, max_passes: int,
               errors: List[str], links: Dict[str, str],
               cache: "_MemoryCache") -> Tuple[Dict[str, FileResult], Dict[str, Tuple[str, int]]]:
    """Fix the snapshots in memory, re-linting the whole run after each pass. Returns the
    findings of the final texts and {path: (fixed text, fixes applied)} of changed files.
    ``links`` maps other names of a snapshot's file to the snapshot's path."""
    current = {p: s.source.text for p, s in snaps.items()}
    applied: Dict[str, int] = {p: 0 for p in snaps}
    stuck: Set[str] = set()

    def texts() -> Dict[str, str]:
        out = dict(current)
        out.update({other: current[first] for other, first in links.items() if first in current})
        return out

    results = _lint(paths, settings, texts(), cache)
    for _ in range(max_passes):
        progress = False
        for p, snap in snaps.items():
            if p in stuck:
                continue
            fr = results[p]
            if not _fixable(fr, unsafe):
                continue
            src = SourceFile(snap.source.path, current[p], snap.source.encoding, snap.source.bom, snap.source.newline)
            try:
                ff = fix_text(src, fr.findings, unsafe)
            except FixError as exc:
                errors.append(str(exc))
                stuck.add(p)
                continue
            if ff.changed:
                current[p] = ff.fixed
                applied[p] += ff.applied
                progress = True
        if not progress:
            break
        results = _lint(paths, settings, texts(), cache)
    changed = {p: (current[p], applied[p]) for p, s in snaps.items() if current[p] != s.source.text}
    return results, changed


def fix_paths(result: RunResult, *, unsafe: bool = False, write: bool = True, max_passes: int = 10,
              max_rounds: int = 3):
    """Apply fixes to the files of a finished run (see the module docstring). Returns
    (RunResult of the findings that remain, list of FileFix with changes, error messages)."""
    settings = result.settings_for  # each file keeps the settings of its own configuration
    paths = [fr.path for fr in result.files if fr.path not in result.missing]
    by_path = {fr.path: fr for fr in result.files}
    errors: List[str] = []
    todo = [fr.path for fr in result.files if _fixable(fr, unsafe)]
    if not todo:
        return dataclasses.replace(result, files=list(result.files), errors=errors), [], errors
    fixes: Dict[str, FileFix] = {}
    cache = _MemoryCache()
    not_written: Dict[str, str] = {}
    final: Dict[str, FileResult] = dict(by_path)
    seen_real: Dict[str, str] = {}
    links: Dict[str, str] = {}
    attempted: Set[str] = set()
    for round_no in range(max_rounds):
        snaps: Dict[str, _Snapshot] = {}
        for p in todo:
            real = os.path.realpath(p)
            first = seen_real.setdefault(real, p)
            if first != p:
                links[p] = first  # another name of a file fixed under its first name
                continue
            try:
                snaps[p] = _snapshot(p)
            except (OSError, SourceError) as exc:
                errors.append(f"{p}: cannot fix: {exc}")
        results, changed = _fix_round(paths, settings, snaps, unsafe, max_passes, errors, links, cache)
        final.update(results)
        retry: List[str] = []
        for p, (text, n) in changed.items():
            snap = snaps[p]
            ff = FileFix(p, snap.source.text, text, n, snap.source)
            if not write:
                fixes[p] = ff
                continue
            try:
                replace_if_unchanged(p, snap.data, encode_like(snap.source, text))
            except Changed:
                retry.append(p)
                continue
            except NotWritten as exc:
                not_written[p] = exc.reason
                continue
            fixes[p] = ff
        attempted.update(snaps)
        # a fix in one file can make another file fixable (a helper that becomes graph code):
        # fix it too, so that a second --fix changes nothing
        late = [p for p in paths if p not in attempted and p not in links and _fixable(final[p], unsafe)]
        if not retry and not (late and write):
            break
        if not retry:
            todo = late
            continue
        if round_no + 1 == max_rounds:
            for p in retry:
                errors.append(f"{p}: changed on disk while it was being fixed ({max_rounds} times); left as it is")
            final.update(_lint(paths, settings, {}, cache))  # report what is on disk now
            break
        for p in retry:
            seen_real.pop(os.path.realpath(p), None)
        todo = retry + late
    if not_written:  # those files keep their text: report what is on disk
        final.update(_lint(paths, settings, {}, cache))
    files: List[FileResult] = []
    for p in [fr.path for fr in result.files]:
        fr = final[p]
        if p in not_written:
            fr.findings = sorted(list(fr.findings) + [_not_written(fr.path, not_written[p])], key=lambda f: f.sort_key)
        files.append(fr)
    return dataclasses.replace(result, files=files, errors=errors), [fixes[p] for p in paths if p in fixes], errors


__all__ = ["fix_paths", "NOT_WRITTEN_CODE", "NOT_WRITTEN_NAME"]
