"""Applying fixes to files on disk: the fix loop of ``check --fix`` / ``--diff``.

1. Every file of the run that has an eligible fix is read once (its bytes are the
   *snapshot*). When every Python file of the run still holds the bytes the run linted
   (``RunResult.contents``: the SHA-256 of what it read), the run's own findings are those
   of the snapshots' text and the first pass applies them; otherwise (a file edited since,
   or bytes the run did not record) the whole run is linted again with the snapshots' text.
   Either way the fixes applied are exactly those computed for those bytes, with the full
   project index (a helper reached from another file's ``construct`` is graph code here too).
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

Fixes are bound to their file by identity, never by position: each re-lint's results are
matched to the files by the path every result carries (``runner.results_by_path``), and
the fixes applied to a file are only those of findings that name that file. A result
missing for a file, or a fixable finding naming another file, is a bug: that file gets an
internal-error finding (``MSG000``) and nothing is written to it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Dict, List, Set, Tuple

from ..cache.snapshot import sha_of
from ..run import runner
from ..parse.source import notebook_source
from ..run.discovery import YAML_SUFFIXES
from ..run.filework import INTERNAL_ERROR_CODE
from ..findings import FileResult, Finding, Severity
from .contract import FileFix, FixError, eligible, encode_like, fix_text
from ..run.runner import PairingError, RunResult
from .safe_write import Changed, NotWritten, replace_if_unchanged
from ..parse.source import SourceError, SourceFile, display_path

NOT_WRITTEN_CODE = "MSG003"
NOT_WRITTEN_NAME = "fix-not-written"


@dataclass
class _Snapshot:
    path: str
    data: bytes
    source: SourceFile  # decoded from data: encoding, BOM and newline style to write back


def _text_of(source: SourceFile) -> str:
    """The text a file's fixes change: a notebook's JSON text, any other file's source."""
    return source.notebook.raw if source.notebook is not None else source.text


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
    return runner.results_by_path(paths, result.files)  # by each result's own path: Python files come first


def _as_linted(result: RunResult, paths: List[str], snaps: Dict[str, _Snapshot], links: Dict[str, str],
               settings, cache) -> "Dict[str, FileResult] | None":
    """The run's own results as the first pass's findings, when they are those of the texts
    the passes start from: every Python file of the run (snapshot or not) holds the bytes the
    run linted, by their SHA-256 (``RunResult.contents``; a file it has none for, as a replayed
    or in-memory one, is unknown). YAML files are linted again (they depend on no other file
    and cost little). None: lint again (a file changed since, or is unknown or unreadable)."""
    contents = getattr(result, "contents", None) or {}
    for p in paths:
        if p.endswith(YAML_SUFFIXES):
            continue
        want = contents.get(display_path(p))
        if not want:
            return None
        snap = snaps.get(links.get(p, p))
        if snap is not None:
            data = snap.data
        else:  # a file without fixes: its bytes still shape the index the findings came from
            try:
                with open(p, "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
        if sha_of(data) != want:
            return None
    own = {fr.path: fr for fr in result.files}
    if any(display_path(p) not in own for p in paths):
        return None
    out = {p: own[display_path(p)] for p in paths if not p.endswith(YAML_SUFFIXES)}
    yaml = [p for p in paths if p.endswith(YAML_SUFFIXES)]
    out.update(_lint(yaml, settings, {p: _text_of(s.source) for p, s in snaps.items() if p in yaml}, cache))
    return out


def _foreign(path: str, fr: FileResult, unsafe: bool) -> str:
    """Why the fixes of ``fr`` must not be applied to ``path`` ("" when they may): the
    result, or one of its fixable findings, belongs to another file."""
    own = display_path(path)
    if fr.path != own:
        return f"the result linted for {fr.path} was paired with {own}"
    other = next((f.path for f in fr.findings if eligible(f, unsafe) and f.path != own), None)
    return f"a fix computed for {other} was offered for {own}" if other is not None else ""


def _not_written(path: str, reason: str) -> Finding:
    return Finding(code=NOT_WRITTEN_CODE, name=NOT_WRITTEN_NAME, path=path, line=1, col=0,
                   severity=Severity.ERROR,
                   message=f"the fixes for this file were not written: {reason}",
                   hint="make the file writable and run --fix again, or apply the fixes by hand (--diff shows them)")


def _internal(path: str, reason: str) -> Finding:
    return Finding(code=INTERNAL_ERROR_CODE, name="internal-error", path=display_path(path), line=1, col=0,
                   severity=Severity.ERROR,
                   message=f"internal error while fixing this file ({reason}); none of its fixes were written",
                   hint="this is a bug in msgraphlint: please report it with the files (or reduced copies), "
                        "`msgraphlint --version` and the Python version")


def _fix_round(paths: List[str], settings, snaps: Dict[str, _Snapshot], unsafe: bool, max_passes: int,
               errors: List[str], links: Dict[str, str], cache: "_MemoryCache",
               foreign: Dict[str, str], first: "Dict[str, FileResult] | None" = None,
               ) -> Tuple[Dict[str, FileResult], Dict[str, Tuple[str, int]]]:
    """Fix the snapshots in memory, re-linting the whole run after each pass. Returns the
    findings of the final texts and {path: (fixed text, fixes applied)} of changed files.
    ``links`` maps other names of a snapshot's file to the snapshot's path; a file whose
    result belongs to another file is recorded in ``foreign`` and left unchanged.
    ``first``: the findings of the snapshots' texts when they are known (``_as_linted``),
    else the first pass lints them."""
    current = {p: _text_of(s.source) for p, s in snaps.items()}
    applied: Dict[str, int] = {p: 0 for p in snaps}
    stuck: Set[str] = set()

    def texts() -> Dict[str, str]:
        out = dict(current)
        out.update({other: current[first] for other, first in links.items() if first in current})
        return out

    results = first if first is not None else _lint(paths, settings, texts(), cache)
    for _ in range(max_passes):
        progress = False
        for p, snap in snaps.items():
            if p in stuck:
                continue
            fr = results[p]
            if not _fixable(fr, unsafe):
                continue
            why = _foreign(p, fr, unsafe)
            if why:
                foreign[p] = why
                stuck.add(p)
                continue
            if snap.source.notebook is not None:  # its JSON text: the cells are fixed and spliced back
                src = notebook_source(snap.source.path, current[p])
                src.bom = snap.source.bom
            else:
                src = SourceFile(snap.source.path, current[p], snap.source.encoding, snap.source.bom,
                                 snap.source.newline)
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
    changed = {p: (current[p], applied[p]) for p, s in snaps.items()
               if current[p] != _text_of(s.source) and p not in foreign}
    return results, changed


def fix_paths(result: RunResult, *, unsafe: bool = False, write: bool = True, max_passes: int = 10,
              max_rounds: int = 3):
    """Apply fixes to the files of a finished run (see the module docstring). Returns
    (RunResult of the findings that remain, list of FileFix with changes, error messages)."""
    paths = list(dict.fromkeys(fr.path for fr in result.files if fr.path not in result.missing))
    errors: List[str] = []
    if not any(_fixable(fr, unsafe) for fr in result.files):
        return dataclasses.replace(result, files=list(result.files), errors=errors), [], errors
    state = _FixState(result.files)
    try:
        _fix_rounds(state, paths, result.settings_for, [fr.path for fr in result.files if _fixable(fr, unsafe)],
                    unsafe, write, max_passes, max_rounds, errors, result)
    except PairingError as exc:  # a bug: no file gets fixes that might be another file's
        for p in paths:
            if p not in state.fixes and p not in state.not_written and _fixable(state.final[p], unsafe):
                state.foreign.setdefault(p, str(exc))
    for p, why in state.foreign.items():
        errors.append(f"{p}: internal error while fixing: {why}; nothing was written")
    files: List[FileResult] = []
    linted = {fr.path: fr for fr in result.files}
    for p in [fr.path for fr in result.files]:
        fr = linted[p] if p in state.foreign else state.final[p]  # a foreign file: the findings it was linted with
        extra = ([_not_written(fr.path, state.not_written[p])] if p in state.not_written else []) + \
                ([_internal(p, state.foreign[p])] if p in state.foreign else [])
        if extra:
            fr = dataclasses.replace(fr, findings=sorted(list(fr.findings) + extra, key=lambda f: f.sort_key))
        files.append(fr)
    return (dataclasses.replace(result, files=files, errors=errors), [state.fixes[p] for p in paths if p in state.fixes],
            errors)


class _FixState:
    """What the rounds of one fix_paths call have done so far."""

    def __init__(self, files: List[FileResult]) -> None:
        self.final: Dict[str, FileResult] = {fr.path: fr for fr in files}  # the findings to report
        self.fixes: Dict[str, FileFix] = {}        # written (or, for --diff, computed)
        self.not_written: Dict[str, str] = {}      # path -> why (MSG003)
        self.foreign: Dict[str, str] = {}          # path -> the result paired with it was another file's (MSG000)


def _fix_rounds(state: _FixState, paths: List[str], settings, todo: List[str], unsafe: bool, write: bool,
                max_passes: int, max_rounds: int, errors: List[str], linted: "RunResult | None" = None) -> None:
    cache = _MemoryCache()
    final, fixes, not_written = state.final, state.fixes, state.not_written
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
        # the first round's snapshots are most often the bytes the run linted: its findings stand
        first = _as_linted(linted, paths, snaps, links, settings, cache) if round_no == 0 and linted else None
        results, changed = _fix_round(paths, settings, snaps, unsafe, max_passes, errors, links, cache, state.foreign,
                                      first)
        final.update(results)
        retry: List[str] = []
        for p, (text, n) in changed.items():
            snap = snaps[p]
            ff = FileFix(p, _text_of(snap.source), text, n, snap.source)
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


__all__ = ["fix_paths", "NOT_WRITTEN_CODE", "NOT_WRITTEN_NAME"]
