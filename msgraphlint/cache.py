"""The result cache: a warm run over an unchanged tree parses nothing.

Two levels, both content-addressed (keys: ``cachekeys.py`` and ``filework.phase1``):
* per-file summaries (phase 1), keyed by the file's bytes, its module name and the
  tool version;
* per-file findings (phase 2), keyed by the file's bytes, the settings (selected
  rules and their options, target MindSpore version, Cell bases, tool and rule
  versions), the graph scopes found in the file (with their chains), and the bytes
  of every project module it imports, transitively (base classes, helper kinds).
Neither key depends on ``--jobs``: a cache written by ``--jobs 2`` serves ``--jobs 1``.

A cache that cannot hurt: entries are JSON, never pickle (a writable cache folder is
not a way to run code), decoded only into a fixed list of msgraphlint's own data
classes. Each entry starts with a header line naming the format, the entry's kind and
key and the SHA-256 of its payload. An entry that cannot be read, is truncated or
corrupt, has another format, or answers another key is a miss: it is removed and
logged (``msgraphlint.cache`` logger, shown with ``-v``), never an error. Entries are
written to a temporary file and renamed into place, so concurrent runs never see a
torn entry.

The cache lives outside the linted tree: ``--cache-dir``, else ``$MSGRAPHLINT_CACHE_DIR``,
else the config's ``cache-dir``, else ``$XDG_CACHE_HOME/msgraphlint`` (``~/.cache/msgraphlint``).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import logging
import os
import tempfile
from typing import Any, Dict, Iterable, Optional

from . import __version__

FORMAT = 2  # 1: pickle entries (ignored; they live under v1-*)
MAGIC = b"msgraphlint-cache"
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # larger is not ours: a miss

log = logging.getLogger("msgraphlint.cache")


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


# the JSON codec ----------------------------------------------------------------------
# Scalars and lists are themselves; everything else is an object with one tag:
# {"t": [...]} tuple, {"s": [...]} set, {"z": [...]} frozenset, {"d": {...}} str-keyed dict,
# {"m": [[k, v], ...]} other dict, {"e": "Class", "v": value} enum, {"c": "Class", "f": {...}} object.

_CLASSES: Dict[str, type] = {}


def _classes() -> Dict[str, type]:
    """The only types an entry may decode into (msgraphlint's own data classes)."""
    if not _CLASSES:
        from .filework import Phase2
        from .findings import Edit, Finding, Fix, FixSafety, Severity
        from .imports import ImportMap
        from .project import CallEdge, ClassSummary, FuncSummary, ModuleSummary
        from .suppressions import Suppression, SuppressionMap

        for cls in (Phase2, Edit, Finding, Fix, FixSafety, Severity, ImportMap, CallEdge, ClassSummary,
                    FuncSummary, ModuleSummary, Suppression, SuppressionMap):
            _CLASSES[cls.__name__] = cls
    return _CLASSES


_FIELDS: Dict[type, tuple] = {}


def _fields(cls: type) -> tuple:
    got = _FIELDS.get(cls)
    if got is None:
        if dataclasses.is_dataclass(cls):
            got = tuple(f.name for f in dataclasses.fields(cls))
        else:
            got = tuple(getattr(cls, "__slots__", ()))
        _FIELDS[cls] = got
    return got


class _NotCacheable(TypeError):
    pass


def encode(value: Any) -> Any:
    if value is None or value.__class__ in (bool, int, float, str):
        return value
    cls = value.__class__
    if cls is list:
        return [encode(v) for v in value]
    if cls is tuple:
        return {"t": [encode(v) for v in value]}
    if cls is set or cls is frozenset:
        return {"s" if cls is set else "z": [encode(v) for v in sorted(value, key=repr)]}
    if cls is dict:
        if all(k.__class__ is str for k in value):
            return {"d": {k: encode(v) for k, v in value.items()}}
        return {"m": [[encode(k), encode(v)] for k, v in value.items()]}
    name = cls.__name__
    if _classes().get(name) is not cls:
        raise _NotCacheable(f"{cls.__module__}.{name} is not a cacheable type")
    if isinstance(value, enum.Enum):
        return {"e": name, "v": value.value}
    return {"c": name, "f": {f: encode(getattr(value, f)) for f in _fields(cls)}}


def decode(data: Any) -> Any:
    if data is None or data.__class__ in (bool, int, float, str):
        return data
    if data.__class__ is list:
        return [decode(v) for v in data]
    if data.__class__ is not dict or len(data) not in (1, 2):
        raise ValueError("not an encoded value")
    if "c" in data:
        cls = _classes()[data["c"]]
        raw = data["f"]
        names = _fields(cls)
        if raw.__class__ is not dict or set(raw) != set(names):
            raise ValueError(f"fields of {cls.__name__} do not match")
        obj = cls.__new__(cls)
        for f in names:
            object.__setattr__(obj, f, decode(raw[f]))  # frozen data classes too
        return obj
    if "e" in data:
        return _classes()[data["e"]](data["v"])
    (tag, items), = data.items()
    if tag == "t":
        return tuple(decode(v) for v in items)
    if tag == "s":
        return {decode(v) for v in items}
    if tag == "z":
        return frozenset(decode(v) for v in items)
    if tag == "d":
        return {str(k): decode(v) for k, v in items.items()}
    if tag == "m":
        return {decode(k): decode(v) for k, v in items}
    raise ValueError(f"unknown tag {tag!r}")


# the store ---------------------------------------------------------------------------

class ResultCache:
    def __init__(self, directory: str) -> None:
        self.dir = os.path.join(directory, f"v{FORMAT}-{__version__}")
        self.hits = 0
        self.misses = 0
        self.dropped = 0  # corrupt or foreign entries removed

    def _path(self, kind: str, key: str) -> str:
        return os.path.join(self.dir, kind, key[:2], key[2:] + ".json")

    def _header(self, kind: str, key: str, payload: bytes) -> bytes:
        return b"%s %d %s %s %s\n" % (MAGIC, FORMAT, kind.encode(), key.encode(), hashlib.sha256(payload).hexdigest().encode())

    def get(self, kind: str, key: str) -> Any:
        path = self._path(kind, key)
        try:
            with open(path, "rb") as fh:
                blob = fh.read(MAX_ENTRY_BYTES + 1)
        except OSError:  # absent (the usual miss) or unreadable
            self.misses += 1
            return None
        try:
            head, sep, payload = blob.partition(b"\n")
            if not sep or len(blob) > MAX_ENTRY_BYTES:
                raise ValueError("truncated or oversized")
            if head != self._header(kind, key, payload)[:-1]:
                raise ValueError("header, key or checksum does not match")
            value = decode(json.loads(payload.decode("ascii")))
        except Exception as exc:  # noqa: BLE001 - whatever is wrong with an entry, it is a miss
            self._drop(path, exc)
            self.misses += 1
            return None
        self.hits += 1
        return value

    def _drop(self, path: str, why: BaseException) -> None:
        self.dropped += 1
        log.info("cache: dropped unusable entry %s (%s: %s)", path, type(why).__name__, str(why)[:200])
        try:
            os.unlink(path)
        except OSError:
            pass

    def put(self, kind: str, key: str, value: Any) -> None:
        try:
            payload = json.dumps(encode(value), separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError, RecursionError) as exc:  # not cacheable: only slower
            log.info("cache: not storing a %s entry (%s)", kind, exc)
            return
        path = self._path(kind, key)
        directory = os.path.dirname(path)
        try:
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(self._header(kind, key, payload))
                    fh.write(payload)
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
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
