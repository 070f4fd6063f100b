"""Writing files without damaging anything: fixed sources and report files.

* :func:`replace_if_unchanged` (``check --fix``) writes a fixed source only if the file
  still holds exactly the bytes that were linted (else :class:`Changed`: the caller
  re-lints it). Symlinks are written through: the link's target gets the new text and the
  link stays a link. A file with more than one hard link is written in place (after the
  full text was first written to a temporary file next to it, so a full disk cannot leave
  it half written), so every link keeps seeing the same file. A read-only file, a
  read-only folder or any other failure is :class:`NotWritten` with the reason: the file
  is left as it was (permissions are never changed), and the run goes on.
* :func:`write_output` (``-o``/``--output-file``, ``--output FORMAT=FILE``) writes a
  report: ``-`` is stdout; a regular file (or a new path) is replaced atomically through
  a temporary file and rename, a symlink is resolved and its target written; a FIFO, a
  device, ``/dev/stdout``/``/dev/stderr`` or any other special file is opened and written
  directly, never replaced.

Concurrent ``--fix`` runs serialise on an advisory lock (``flock``) of the file being
replaced, and re-check, under that lock, that the path still names the inode they read.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import Optional


class Changed(Exception):
    """The file no longer holds the bytes that were linted."""


class NotWritten(Exception):
    """The file could not be written; ``reason`` says why (read-only file or folder, …)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _writable(st: os.stat_result, path: str) -> bool:
    """Permission to write, by the mode bits even for root (root ignores them, but a
    read-only file or folder is a statement by its owner that we respect)."""
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    return os.access(path, os.W_OK)


def _temp_next_to(path: str, data: bytes, like: Optional[os.stat_result]) -> str:
    """Write ``data`` to a new temporary file in ``path``'s folder (flushed to disk),
    with ``like``'s mode and owner, or the default mode for a new file."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".msgraphlint-", suffix=".tmp", dir=directory)
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


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks, the byte check still applies
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


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
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise Changed()  # replaced since we opened it (another --fix, an editor save)
        with os.fdopen(os.dup(fd), "rb") as fh:
            if fh.read() != expected:
                raise Changed()
        if not _writable(st, real):
            raise NotWritten("the file is read-only (its permissions were left as they are)")
        directory = os.path.dirname(real) or "."
        try:
            dst = os.stat(directory)
        except OSError as exc:
            raise NotWritten(f"cannot reach its folder: {exc.strerror}") from None
        if not _writable(dst, directory):
            raise NotWritten("its folder is read-only (a fix is written to a temporary file next to the file first)")
        try:
            tmp = _temp_next_to(real, data, st)
        except OSError as exc:
            raise NotWritten(f"cannot write a temporary file next to it: {exc.strerror}") from None
        try:
            if st.st_nlink > 1:
                # hard links: the new text is safely on disk in tmp; now write it in place
                # so that every link keeps naming the same file
                with open(real, "r+b") as out:
                    out.write(data)
                    out.truncate()
                    out.flush()
                    os.fsync(out.fileno())
            else:
                os.replace(tmp, real)
                tmp = ""
        except OSError as exc:
            raise NotWritten(f"cannot write it: {exc.strerror}") from None
        finally:
            if tmp:
                _unlink(tmp)
    finally:
        os.close(fd)  # releases the lock


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` (a regular file or a new path; symlinks are resolved)
    through a temporary file and rename, keeping an existing file's mode."""
    real = os.path.realpath(path)
    try:
        like: Optional[os.stat_result] = os.stat(real)
    except FileNotFoundError:
        like = None
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
