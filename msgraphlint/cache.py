"""The result cache: a warm run over an unchanged tree parses nothing.

Two levels, both content-addressed:
* per-file summaries (phase 1), keyed by the file's bytes, its module name and the
  tool version;
* per-file findings (phase 2), keyed by the file's bytes, the settings (selected
  rules and their options, target MindSpore version, Cell bases, tool and rule
  versions), the graph scopes found in the file (with their chains), and the bytes
  of every project module it imports, transitively (base classes, helper kinds).

Entries are pickles written to a temporary file and renamed into place, so
concurrent runs never see a torn entry; an unreadable entry is a miss. The cache
lives outside the linted tree: ``--cache-dir``, else ``$MSGRAPHLINT_CACHE_DIR``, else the config's
``cache-dir``, else ``$XDG_CACHE_HOME/msgraphlint`` (``~/.cache/msgraphlint``).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from typing import Any, Iterable, Optional

from . import __version__

FORMAT = 1


def default_dir(explicit: Optional[str] = None, configured: Optional[str] = None, root: str = ".") -> str:
    if explicit:
        return explicit
    env = os.environ.get("MSGRAPHLINT_CACHE_DIR")
    if env:
        return env
    if configured:
        return configured if os.path.isabs(configured) else os.path.join(root, configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "msgraphlint")


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, bytes):
            h.update(p)
        else:
            h.update(repr(p).encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


class ResultCache:
    def __init__(self, directory: str) -> None:
        self.dir = os.path.join(directory, f"v{FORMAT}-{__version__}")
        self.hits = 0
        self.misses = 0

    def _path(self, kind: str, key: str) -> str:
        return os.path.join(self.dir, kind, key[:2], key[2:] + ".pkl")

    def get(self, kind: str, key: str) -> Any:
        try:
            with open(self._path(kind, key), "rb") as fh:
                value = pickle.load(fh)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, kind: str, key: str, value: Any) -> None:
        path = self._path(kind, key)
        directory = os.path.dirname(path)
        try:
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written is only slower


def rules_fingerprint(rule_classes: Iterable[type]) -> str:
    """Changes when a rule's code changes (its module file's size and mtime)."""
    import sys

    parts = []
    for cls in rule_classes:
        mod = sys.modules.get(cls.__module__)
        path = getattr(mod, "__file__", None)
        try:
            st = os.stat(path) if path else None
        except OSError:
            st = None
        parts.append((cls.code, cls.__module__, st.st_size if st else 0, st.st_mtime_ns if st else 0))
    engine = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(engine)):
        if name.endswith(".py"):
            st = os.stat(os.path.join(engine, name))
            parts.append((name, st.st_size, st.st_mtime_ns))
    return digest(sorted(parts))
