"""``check --watch``: lint, then lint again whenever a file of the run changes (ruff's
``--watch``), until interrupted.

What is watched: the files the run lints, the other files of their projects it read for
context (a helper's module outside the named paths: its edit changes the caller's
call-site findings, MSG004), the configuration files that apply, and the folders that
were walked (a file created or deleted changes its folder). Changes are seen by polling
``os.stat`` (size, mtime, inode, ctime) every :data:`POLL_S` seconds: no dependency, and
an editor's save through a rename is seen like a write.

What is kept between runs: one :class:`~msgraphlint.project.files.ContextCache` (the
context files' summaries and import lines, and the project walks), so a re-run reads again
only what changed; with the result cache on (the default), the named files that did not
change and whose inputs did not change are answered from it.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Dict, Iterable, Optional, Sequence

from ..project.files import ContextCache, stat_key

#: seconds between two polls
POLL_S = 0.3
#: configuration files whose change re-runs (their settings may change every file)
CONFIG_NAMES = ("pyproject.toml", "msgraphlint.toml", ".msgraphlint.toml", ".gitignore")


def snapshot(files: Iterable[str], folders: Iterable[str]) -> Dict[str, Optional[tuple]]:
    """The stat key of each file and folder (None: it does not exist)."""
    out: Dict[str, Optional[tuple]] = {}
    for p in list(files) + list(folders):
        if p not in out:
            out[p] = stat_key(p)
    return out


def watched(paths: Sequence[str], linted: Iterable[str], context_cache: ContextCache,
            extra: Iterable[str] = ()) -> tuple:
    """(files, folders) to poll after a run over ``paths`` that linted ``linted``."""
    files = [os.path.abspath(f) for f in linted]
    files += [os.path.abspath(f) for f in context_cache.phase1]
    files += [os.path.abspath(f) for f in context_cache.mentions]
    files += [os.path.abspath(f) for f in extra]
    roots = {os.path.abspath(p) for p in paths if os.path.isdir(p)}
    folders = set(roots)
    for f in list(files):
        d = os.path.dirname(f)
        while d not in folders:  # each folder between a file and the folder named
            folders.add(d)
            if not any(d.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
                break
            d = os.path.dirname(d)
    for d in sorted(folders):  # a configuration file created beside the files, or edited
        files.extend(os.path.join(d, n) for n in CONFIG_NAMES)
    return files, sorted(folders)


def wait_for_change(before: Dict[str, Optional[tuple]], poll: float = POLL_S,
                    sleep: Callable[[float], None] = time.sleep) -> list:
    """Block until a stat key differs from ``before``; the paths that changed."""
    while True:
        sleep(poll)
        now = snapshot(before, ())
        changed = [p for p, k in now.items() if before.get(p) != k]
        if changed:
            return changed


def loop(paths: Sequence[str], run: Callable[[ContextCache], object], report: Callable[[object], None],
         linted_of: Callable[[object], Iterable[str]], note: Callable[[str], None],
         poll: float = POLL_S, rounds: Optional[int] = None) -> None:
    """Run, report, wait for a change, and again (``rounds``: stop after that many runs;
    None: until interrupted). ``run(context_cache)`` lints, ``report(result)`` prints it."""
    cache = ContextCache()
    n = 0
    while True:
        cache.walks.clear()  # a file created since: the next walk finds it
        result = run(cache)
        report(result)
        n += 1
        if rounds is not None and n >= rounds:
            return
        files, folders = watched(paths, linted_of(result), cache)
        before = snapshot(files, folders)
        note("watching for file changes (Ctrl-C to stop)")
        changed = wait_for_change(before, poll)
        time.sleep(min(poll, 0.1))  # an editor writing a file in several steps: let it finish
        shown = ", ".join(os.path.relpath(p) for p in changed[:3]) + (" ..." if len(changed) > 3 else "")
        note(f"changed: {shown}; linting again")
