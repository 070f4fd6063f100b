"""The run snapshot: a warm run over an unchanged tree stats its files and loads the
findings it reports, and parses, summarises and checks nothing.

One result-cache entry (kind ``run``) per invocation: its key is what the run is asked
(the working folder, each file in the order the run lists it with its module name,
every file's settings: the rules, their options, the target, the configuration, the
tool and rule versions); its payload is what the run read (every file of the project
index with its stat signature and the SHA-256 of its bytes, the modules the index loaded
by name as well, and the versions of the installed packages the files import) and what
it reported (every file's findings as the runner hands them to the reporters, and the
run's warnings). A later run with the same key stats each file: a file whose signature
is the stored one has the stored bytes; any other is read and hashed. When every
digest and every package version is the stored one, the stored results are the
run's; otherwise the run goes on as before (the per-file entries), and the snapshot
gives the files whose signature still matches their digest without reading them.

A signature is ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``, taken with
``fstat`` before the bytes are read. It stands for the bytes only when both times were
at least :data:`RACY_NS` older than the clock when the file was opened: a write after
the read then sets a later ``ctime`` (which no program can set back), whatever the file
system's timestamp granularity (coarse kernel ticks, FAT's 2 s), so an edit that keeps
the size and puts the ``mtime`` back is still seen. A file changed within that margin of
a run is hashed again by the next one (git's "racily clean" entries).

A run with an internal error (MSG000: a budget, a bug) stores no snapshot.
"""

from __future__ import annotations

import hashlib
import os
import stat as _stat
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ..findings import Finding

#: a signature stands for the bytes only when its mtime and ctime are this much older than
#: the clock when the file was opened (file system clocks are coarse: ticks, FAT's 2 s)
RACY_NS = 3_000_000_000


@dataclass
class SnapFile:
    """A file the run read: its absolute path, its stat signature ("" when it was too
    recent to stand for its bytes) and the SHA-256 of its bytes ("" when it could not be read)."""
    path: str
    stat: str
    sha: str


@dataclass
class StoredResult:
    """A file's result as the runner hands it to the reporters (``findings.FileResult``)."""
    path: str
    findings: List[Finding]
    unused_suppressions: List[Finding]
    skipped: bool
    lines: int
    skip_reason: str


@dataclass
class RunSnapshot:
    inputs: List[SnapFile]
    #: (the ``python`` setting, "" for the running interpreter; top-level package; its key)
    installed: List[Tuple[str, str, str]]
    results: List[StoredResult]
    warnings: List[str]


def signature(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def sha_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_signed(path: str) -> Tuple[bytes, str]:
    """(the file's bytes, its signature, or "" when the signature cannot stand for them).
    Raises OSError."""
    now = time.time_ns()
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        data = fh.read()
    return data, trusted_signature(st, now, len(data))


def trusted_signature(st: os.stat_result, opened_ns: int, size: int) -> str:
    """``st``'s signature if it can stand for the bytes read after ``opened_ns`` (see the
    module's docstring), else ""."""
    if not _stat.S_ISREG(st.st_mode) or st.st_size != size:
        return ""
    limit = opened_ns - RACY_NS
    if st.st_mtime_ns >= limit or st.st_ctime_ns >= limit:
        return ""
    return signature(st)


def current_stat(path: str) -> str:
    """The file's signature now ("" when it cannot be stat'ed)."""
    try:
        return signature(os.stat(path))
    except (OSError, ValueError):
        return ""


def known_digests(snap: Optional[RunSnapshot]) -> Dict[str, str]:
    """abs path -> SHA-256 for the snapshot's files whose signature is unchanged."""
    out: Dict[str, str] = {}
    if snap is None:
        return out
    for f in snap.inputs:
        if f.stat and f.sha and current_stat(f.path) == f.stat:
            out[f.path] = f.sha
    return out


def validate(snap: RunSnapshot, package_key) -> Optional[List[SnapFile]]:
    """The snapshot's inputs as they are now (signatures renewed where a file was hashed
    again and is old enough now) if every file has its stored digest and every package
    its stored key; None otherwise. ``package_key(python, top)``."""
    now: List[SnapFile] = []
    for f in snap.inputs:
        sig = current_stat(f.path)
        if f.stat and sig == f.stat:
            now.append(f)
            continue
        try:
            data, signed = read_signed(f.path)
        except (OSError, ValueError):
            if f.sha:
                return None
            now.append(f)
            continue
        if sha_of(data) != f.sha:
            return None
        now.append(SnapFile(f.path, signed, f.sha))
    for python, top, key in snap.installed:
        try:
            if package_key(python or None, top) != key:
                return None
        except Exception:  # noqa: BLE001 - cannot tell: the run goes on without the snapshot
            return None
    return now


def input_of(path: str) -> SnapFile:
    """A file the run did not read itself (a YAML run config, a module loaded by name)."""
    ap = os.path.abspath(path)
    try:
        data, signed = read_signed(ap)
    except (OSError, ValueError):
        return SnapFile(ap, "", "")
    return SnapFile(ap, signed, sha_of(data))
