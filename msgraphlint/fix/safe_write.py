"""Writing files without damaging anything: fixed sources and report files.

Every write leaves a file holding either its old bytes or its new bytes, never a mix,
also on a full disk.

* :func:`replace_if_unchanged` (``check --fix``, ``--add-noqa``) writes a fixed source
  only if the file still holds exactly the bytes that were linted (else :class:`Changed`:
  the caller re-lints it). Symlinks are written through: the link's target gets the new
  text and the link stays a link. A read-only file, a read-only folder, a full disk or
  any other failure is :class:`NotWritten` with the reason: the file is left as it was
  (permissions are never changed), and the run goes on.

  - A file with one link: the new text is written to a temporary file next to it (flushed
    to disk) and *exchanged* with the file in one step (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``). What was swapped out is then compared with the linted bytes: if
    an editor saved in between (by rename or in place), it is swapped back and the call
    is :class:`Changed`, so the editor's save is never lost. An editor that saves after
    the exchange replaces or rewrites our file: its save wins. Where the exchange is not
    available (another OS, a file system without it) the file is compared once more and
    the temporary file renamed over it.
  - A file with more than one hard link is written in place, so every link keeps naming
    the same file: the space for the new text is reserved first (``fallocate`` with
    ``FALLOC_FL_KEEP_SIZE``, which changes nothing the file holds); if it cannot be
    reserved the call is :class:`NotWritten` and the file untouched. Then a write lease
    (``F_SETLEASE``) makes anyone else's ``open()`` of the file wait until the write is
    done, so an editor saving in place saves after us (its save wins); the file is
    compared once more and written. A write that fails anyway is undone (the old bytes
    written back into the blocks they came from), and if the path was replaced (an editor
    saving by rename) meanwhile, our write to the old file is undone and the call is
    :class:`Changed`. Without a lease (the file is open elsewhere, not ours, another OS),
    an in-place save in the instant between that last comparison and the write is lost.
    On copy-on-write file systems (btrfs, ZFS) a reservation does not promise room for
    overwriting blocks in place.

* :func:`write_atomic` (baselines, cache entries) and :func:`write_output`
  (``-o``/``--output-file``, ``--output FORMAT=FILE``: a report; ``-`` is stdout) replace
  a regular file (or create a new path) through a temporary file and rename; a symlink
  is resolved and its target written; a FIFO, a device, ``/dev/stdout``/``/dev/stderr``
  or any other special file is opened and written directly, never replaced. A write that
  fails (a full disk) raises ``OSError`` with the file as it was.

Temporary files are named ``.msgraphlint-<tag>-<pid>-<random>.tmp`` (``tag``: this
machine, boot and pid namespace). SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back while
one exists, so an interrupted run removes it before it stops. A run killed outright
(SIGKILL, a crash) cannot; the next write into that folder removes its leftovers: files of
exactly that pattern whose tag is ours and whose process is gone, or (another machine's,
or an older version's ``.msgraphlint-XXXXXXXX.tmp``) that are more than a day old. Nothing
else is ever removed.

Concurrent ``--fix`` runs serialise on an advisory lock (``flock``) of the file being
replaced, and re-check, under that lock, that the path still names the inode they read.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import signal
import socket
import stat
import sys
import tempfile
import time
from typing import Iterator, List, Optional, Set


class Changed(Exception):
    """The file no longer holds the bytes that were linted."""


class NotWritten(Exception):
    """The file could not be written; ``reason`` says why (read-only file or folder, …)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _between(stage: str) -> None:
    """A seam for tests: called with ``"compared"`` right after the file was found to hold
    the linted bytes, and ``"swap"`` right before the exchange (or the in-place write)."""


# --- temporary files: names, leftovers ---------------------------------------------------

PREFIX = ".msgraphlint-"
SUFFIX = ".tmp"
STALE_AGE_S = 24 * 3600  # a temp file of another machine or an older version this old is a leftover
_NAME = re.compile(r"\.msgraphlint-([0-9a-f]{8})-([0-9]+)-[A-Za-z0-9_]{8}\.tmp\Z")
_LEGACY = re.compile(r"\.msgraphlint-[a-z0-9_]{8}\.tmp\Z")  # before pids were in the name
_tag: Optional[str] = None
_swept: Set[str] = set()


def _machine_tag() -> str:
    """8 hex digits naming this machine, boot and pid namespace: a pid in a temp file's
    name means this process only where the tag is ours."""
    global _tag
    if _tag is None:
        parts = [socket.gethostname()]
        try:
            with open("/proc/sys/kernel/random/boot_id") as fh:
                parts.append(fh.read().strip())
        except OSError:
            pass
        try:
            parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
        except OSError:
            pass
        _tag = hashlib.sha256("\0".join(parts).encode("utf-8", "replace")).hexdigest()[:8]
    return _tag


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    except OSError:
        return True
    return True


def remove_stale_temps(directory: str) -> List[str]:
    """Remove the temporary files runs killed outright left in ``directory`` (see the
    module docstring for which files those are). Returns the names removed; never raises."""
    removed: List[str] = []
    now = time.time()
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(PREFIX) and name.endswith(SUFFIX)):
            continue
        m = _NAME.match(name)
        if m is None and not _LEGACY.match(name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or (euid not in (None, 0) and st.st_uid != euid):
            continue
        old = now - max(st.st_mtime, st.st_ctime) > STALE_AGE_S
        if m is not None and m.group(1) == _machine_tag():
            pid = int(m.group(2))
            stale = pid != os.getpid() and not _alive(pid)
        else:
            stale = old
        if stale:
            try:
                os.unlink(entry.path)
                removed.append(name)
            except OSError:
                pass
    return removed


def _sweep_once(directory: str) -> None:
    key = os.path.abspath(directory)
    if key not in _swept:
        _swept.add(key)
        remove_stale_temps(directory)


_HELD = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back the signals that end a run while a temporary file exists; they are
    delivered (and end the run) once it is gone."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    old = None
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _temp_next_to(path: str, data: bytes, like: Optional[os.stat_result]) -> str:
    """Write ``data`` to a new temporary file in ``path``'s folder (flushed to disk),
    with ``like``'s mode and owner, or the default mode for a new file."""
    directory = os.path.dirname(path) or "."
    _sweep_once(directory)
    fd, tmp = tempfile.mkstemp(prefix=f"{PREFIX}{_machine_tag()}-{os.getpid()}-", suffix=SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if like is not None:
            os.chmod(tmp, stat.S_IMODE(like.st_mode))
            try:
                os.chown(tmp, like.st_uid, like.st_gid)
            except OSError:
                pass
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(path: str, dir_fd: Optional[int] = None) -> None:
    try:
        os.unlink(path, dir_fd=dir_fd)
    except OSError:
        pass


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks, the byte check still applies
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


# --- Linux system calls through ctypes ---------------------------------------------------

_libc = None
_RENAME_EXCHANGE = 2
_FALLOC_FL_KEEP_SIZE = 1
_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


def _c():
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                lib = ctypes.CDLL(None, use_errno=True)
                if hasattr(lib, "renameat2"):
                    lib.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                              ctypes.c_uint]
                if hasattr(lib, "fallocate"):
                    lib.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
                _libc = (lib, ctypes)
            except (OSError, AttributeError):  # pragma: no cover
                _libc = False
    return _libc


def _can_exchange() -> bool:
    c = _c()
    return bool(c) and hasattr(c[0], "renameat2") and all(
        f in os.supports_dir_fd for f in (os.open, os.stat, os.unlink, os.rename))


def _exchange(dir_fd: int, a: str, b: str) -> bool:
    """Swap the names ``a`` and ``b`` in the folder ``dir_fd`` atomically. False where
    this OS or file system cannot; raises OSError for any other failure."""
    c = _c()
    if not c or not hasattr(c[0], "renameat2"):
        return False
    lib, ctypes = c
    if lib.renameat2(dir_fd, os.fsencode(a), dir_fd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in _UNSUPPORTED:
        return False
    raise OSError(err, os.strerror(err))


def _reserve(fd: int, length: int) -> Optional[bool]:
    """Allocate the blocks ``[0, length)`` of the open file without changing its size or
    bytes. True when reserved, None where the OS or file system cannot; raises OSError
    (ENOSPC, EDQUOT, …) when there is no room."""
    c = _c()
    if not c or not hasattr(c[0], "fallocate") or length <= 0:
        return None if length > 0 else True
    lib, ctypes = c
    if lib.fallocate(fd, _FALLOC_FL_KEEP_SIZE, 0, length) == 0:
        return True
    err = ctypes.get_errno()
    if err in _UNSUPPORTED:
        return None
    raise OSError(err, os.strerror(err))


# --- replacing a linted file ---------------------------------------------------------------

def _read_fd(fd: int) -> bytes:
    """The whole file, from its start (the fd's offset moves)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _pwrite_all(fd: int, data: bytes) -> None:
    """``data`` over the file from its start (the fd's offset moves)."""
    os.lseek(fd, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _holds(fd: int, expected: bytes) -> bool:
    """The open file holds ``expected`` (and did not change while it was read)."""
    before = os.fstat(fd)
    if before.st_size != len(expected):
        return False
    same = _read_fd(fd) == expected
    after = os.fstat(fd)
    return same and (before.st_mtime_ns, before.st_ctime_ns, before.st_size) == (
        after.st_mtime_ns, after.st_ctime_ns, after.st_size)


def _ident(st: os.stat_result):
    return (st.st_dev, st.st_ino)


def replace_if_unchanged(path: str, expected: bytes, data: bytes) -> None:
    """Replace the contents of ``path`` with ``data`` if it still holds ``expected``.

    Raises :class:`Changed` when it does not, :class:`NotWritten` when it cannot be
    written; in both cases the file is untouched."""
    real = os.path.realpath(path)  # through symlinks: the link stays, its target changes
    try:
        fd = os.open(real, os.O_RDONLY)
    except FileNotFoundError:
        raise Changed() from None
    except OSError as exc:
        raise NotWritten(f"cannot open it: {exc.strerror}") from None
    try:
        _lock(fd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotWritten("not a regular file")
        try:
            now = os.stat(real)
        except OSError:
            raise Changed() from None
        if _ident(now) != _ident(st):
            raise Changed()  # replaced since we opened it (another --fix, an editor save)
        if _read_fd(fd) != expected:
            raise Changed()
        if not _writable(st, real):
            raise NotWritten("the file is read-only (its permissions were left as they are)")
        directory = os.path.dirname(real) or "."
        try:
            dst = os.stat(directory)
        except OSError as exc:
            raise NotWritten(f"cannot reach its folder: {exc.strerror}") from None
        if not _writable(dst, directory):  # respected for hard links too, though they need no temp file
            raise NotWritten("its folder is read-only (a fix is written to a temporary file next to the file first)")
        _between("compared")
        if st.st_nlink > 1:
            _sweep_once(directory)
            os.close(fd)  # releases the lock: _write_in_place takes it again on its own descriptor
            fd = -1
            _write_in_place(real, st, expected, data)
        else:
            _swap_in(real, directory, st, expected, data)
    finally:
        if fd >= 0:
            os.close(fd)  # releases the lock


def _writable(st: os.stat_result, path: str) -> bool:
    """Permission to write, by the mode bits even for root (root ignores them, but a
    read-only file or folder is a statement by its owner that we respect)."""
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def _swap_in(real: str, directory: str, st: os.stat_result, expected: bytes, data: bytes) -> None:
    """One link: temp file, exchange, check what was swapped out (module docstring)."""
    target = os.path.basename(real)
    with _signals_held():
        if not _can_exchange():
            try:
                tmp = _temp_next_to(real, data, st)
            except OSError as exc:
                raise NotWritten(f"cannot write a temporary file next to it: {exc.strerror}"
                                 " (the file was left as it was)") from None
            _between("swap")
            _replace_fallback(real, tmp, st, expected)
            return
        try:
            dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as exc:
            raise NotWritten(f"cannot reach its folder: {exc.strerror}") from None
        try:
            try:
                tmp = _temp_next_to(real, data, st)
            except OSError as exc:
                raise NotWritten(f"cannot write a temporary file next to it: {exc.strerror}"
                                 " (the file was left as it was)") from None
            name = os.path.basename(tmp)
            try:
                ours_fd = os.open(name, os.O_RDONLY, dir_fd=dir_fd)  # pins our inode (its number stays ours)
            except OSError as exc:
                _unlink(name, dir_fd)
                raise NotWritten(f"cannot reopen its temporary file: {exc.strerror}") from None
            try:
                ours = _ident(os.fstat(ours_fd))
                _between("swap")
                try:
                    swapped = _exchange(dir_fd, name, target)
                except FileNotFoundError:  # removed since the comparison
                    _unlink(name, dir_fd)
                    raise Changed() from None
                except OSError as exc:
                    _unlink(name, dir_fd)
                    raise NotWritten(f"cannot write it: {exc.strerror}") from None
                if not swapped:
                    _replace_fallback(real, tmp, st, expected)
                    return
                # `name` now holds what `target` held an instant ago: the linted file, or an
                # editor's save that landed since the comparison
                try:
                    old_fd: Optional[int] = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=dir_fd)
                except OSError:
                    old_fd = None  # a symlink, or gone: not the linted file
                try:
                    try:
                        linted = old_fd is not None and _ident(os.fstat(old_fd)) == _ident(st) and _holds(old_fd, expected)
                    except OSError:
                        linted = False  # cannot tell: put it back
                    if linted:
                        _unlink(name, dir_fd)
                        return
                    _put_back(dir_fd, name, target, ours)
                finally:
                    if old_fd is not None:
                        os.close(old_fd)
                raise Changed()
            finally:
                os.close(ours_fd)
        finally:
            os.close(dir_fd)


def _lident(dir_fd: int, name: str):
    try:
        return _ident(os.stat(name, dir_fd=dir_fd, follow_symlinks=False))
    except FileNotFoundError:
        return None


def _put_back(dir_fd: int, tmp: str, target: str, ours) -> None:
    """After an exchange found an editor's save: leave the newest save at ``target`` and
    remove ``tmp``. Editors' saves land only at ``target``, so after each exchange ``tmp``
    holds the newest save unless it holds what we had just put at ``target`` (or ours)."""
    real_has = ours          # what our last exchange put at target
    newest_at_tmp = True     # tmp holds what target held right before: the newest save
    for _ in range(64):
        if _lident(dir_fd, target) != real_has:
            newest_at_tmp = False  # a save (or a removal) landed at target since: it wins
        if not newest_at_tmp:
            _unlink(tmp, dir_fd)  # ours, or a save superseded by the one at target
            return
        at_tmp = _lident(dir_fd, tmp)
        try:
            if not _exchange(dir_fd, tmp, target):  # pragma: no cover - it worked a moment ago
                break
        except FileNotFoundError:  # target removed meanwhile: the removal wins
            _unlink(tmp, dir_fd)
            return
        except OSError:
            break
        now_at_tmp = _lident(dir_fd, tmp)
        newest_at_tmp = now_at_tmp not in (real_has, ours)  # a save landed right before the exchange
        real_has = at_tmp
    # cannot settle it: keep what tmp holds under a name no sweep removes
    try:
        os.rename(tmp, f"{target}.msgraphlint-kept-{os.getpid()}", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except OSError:
        pass


def _replace_fallback(real: str, tmp: str, st: os.stat_result, expected: bytes) -> None:
    """No exchange here: compare once more and rename the temp file over the file."""
    try:
        now = os.stat(real)
        with open(real, "rb") as fh:
            same = _ident(now) == _ident(st) and fh.read() == expected
    except OSError:
        same = False
    if not same:
        _unlink(tmp)
        raise Changed()
    try:
        os.replace(tmp, real)
    except OSError as exc:
        _unlink(tmp)
        raise NotWritten(f"cannot write it: {exc.strerror}") from None


def _write_in_place(real: str, st: os.stat_result, expected: bytes, data: bytes) -> None:
    """More than one hard link: reserve, lease, compare once more, write in place (docstring)."""
    with _signals_held():
        try:
            wfd = os.open(real, os.O_RDWR)
        except OSError as exc:
            raise NotWritten(f"cannot open it for writing: {exc.strerror}") from None
        try:
            _lock(wfd)  # the only descriptor of ours on the file: a lease needs that
            if _ident(os.fstat(wfd)) != _ident(st):
                raise Changed()
            try:
                reserved = _reserve(wfd, len(data))
            except OSError as exc:
                _release(wfd, st)
                raise NotWritten(f"cannot reserve the space for it: {exc.strerror}"
                                 " (the file was left as it was)") from None
            if reserved is None:  # no fallocate here: go by the free space
                need = len(data) - st.st_blocks * 512
                try:
                    vfs = os.fstatvfs(wfd)
                    free = vfs.f_bavail * vfs.f_frsize
                except OSError:
                    free = need + (1 << 20)
                if need > 0 and free < need + (1 << 20):
                    raise NotWritten("not enough free space to write it in place (the file was left as it was)")
            leased = _take_lease(wfd)
            try:
                try:
                    now: Optional[os.stat_result] = os.stat(real)
                except OSError:
                    now = None
                if now is None or _ident(now) != _ident(st) or not _holds(wfd, expected):
                    _release(wfd, st)
                    raise Changed()
                _between("swap")
                try:
                    _pwrite_all(wfd, data)
                    os.ftruncate(wfd, len(data))
                    os.fsync(wfd)
                except OSError as exc:
                    undone = _undo(wfd, expected)
                    raise NotWritten(f"cannot write it: {exc.strerror}"
                                     + (" (its old text was written back)" if undone else "")) from None
            finally:
                if leased:
                    _drop_lease(wfd)
            try:
                now = os.stat(real)
            except OSError:
                now = None
            if now is None or _ident(now) != _ident(st):
                _undo(wfd, expected)  # an editor's save replaced the path meanwhile: it wins
                raise Changed()
        finally:
            os.close(wfd)


def _take_lease(fd: int) -> bool:
    """A write lease (Linux): until it is dropped, anyone else's open() of the file (an
    editor about to save in place) waits. The kernel tells the holder with a signal: SIGURG,
    whose default is to be ignored. False where it cannot be had (another descriptor of the
    file is open, not the file's owner, another OS): the write goes on without it."""
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
        return True
    except (ImportError, AttributeError, OSError, ValueError):
        return False


def _drop_lease(fd: int) -> None:
    try:
        import fcntl
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except (ImportError, AttributeError, OSError, ValueError):  # pragma: no cover
        pass


def _release(wfd: int, st: os.stat_result) -> None:
    """Free blocks a reservation left past the end of the (unchanged) file."""
    try:
        now = os.fstat(wfd)
        if now.st_size == st.st_size and now.st_blocks > st.st_blocks:
            os.ftruncate(wfd, now.st_size)
    except OSError:
        pass


def _undo(wfd: int, expected: bytes) -> bool:
    try:
        _pwrite_all(wfd, expected)
        os.ftruncate(wfd, len(expected))
        os.fsync(wfd)
        return True
    except OSError:
        return False


# --- reports, baselines, cache entries -----------------------------------------------------

def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (a regular file or a new path; symlinks are resolved)
    through a temporary file and rename, keeping an existing file's mode. On failure
    (``OSError``: a full disk, a read-only folder) the file is as it was."""
    real = os.path.realpath(path)
    try:
        like: Optional[os.stat_result] = os.stat(real)
    except FileNotFoundError:
        like = None
    with _signals_held():
        tmp = _temp_next_to(real, data, like)
        try:
            os.replace(tmp, real)
        except BaseException:
            _unlink(tmp)
            raise


_STD_STREAMS = {"/dev/stdout": "stdout", "/dev/stderr": "stderr"}


def write_output(text: str, path: Optional[str]) -> None:
    """Write a report to ``path``: ``None``/``-`` is stdout; special files are written
    directly; regular files are replaced atomically (see the module docstring)."""
    if path is None or path == "-":
        _to_stream(sys.stdout, text)
        return
    if path in _STD_STREAMS:
        _to_stream(getattr(sys, _STD_STREAMS[path]), text)
        return
    data = text.encode("utf-8")
    real = os.path.realpath(path)
    try:
        st: Optional[os.stat_result] = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(f"{path} is a folder")
        # FIFO, character or block device, socket-like path: write it as it is, never replace it
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(real, os.O_WRONLY | os.O_APPEND)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        finally:
            os.close(fd)
        return
    os.makedirs(os.path.dirname(real) or ".", exist_ok=True)
    write_atomic(real, data)


def _to_stream(stream, text: str) -> None:
    stream.write(text)
    if text and not text.endswith("\n"):
        stream.write("\n")
    stream.flush()
