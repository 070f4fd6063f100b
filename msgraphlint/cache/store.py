"""The result cache: a warm run over an unchanged tree parses nothing.

Three levels. The run snapshot (kind ``run``, ``snapshot.py``): what one invocation read
(each file's stat signature and SHA-256) and reported, so a run over an unchanged tree
stats its files and reads one entry. Below it, two content-addressed levels (keys:
``keys.py`` and ``filework.phase1``), for the files of a run that changed:
* per-file summaries (phase 1), keyed by the SHA-256 of the file's bytes (known from its
  stat signature when the snapshot has it), its module name and the tool version;
* per-file findings (phase 2), keyed by the file's bytes, the settings (selected
  rules and their options, target MindSpore version, Cell bases, tool and rule
  versions), the graph scopes found in the file (with their chains), the bytes
  of every project module it imports, transitively (base classes, helper kinds), and
  what other modules' calls pass to its graph entries (``evidence.incoming_key``).
Neither key depends on ``--jobs``: a cache written by ``--jobs 2`` serves ``--jobs 1``.

A cache that cannot hurt: entries are JSON, never pickle (a writable cache folder is
not a way to run code). Each entry starts with a header line naming the format, the
entry's kind and key and the SHA-256 of its payload; after the checksum the payload is
decoded against the kind's schema, field by field (:data:`KINDS`: the type hints of
msgraphlint's own data classes; ints are 0..2**31-1): a wrong type, a missing or extra
field, a list where a dict belongs, another class, an unknown enum value fails the
entry. An entry that cannot be read, is truncated or corrupt, has another format,
answers another key or has the wrong shape is a miss: it is removed and logged
(``msgraphlint.cache.store`` logger, shown with ``-v``), never an error. Entries are written
to a temporary file and renamed into place (the rename replaces the entry's own path,
never a symlink's target), so concurrent runs never see a torn entry, and a write that
fails (a full disk) removes its temporary file and is a logged miss.

The cache lives outside the linted tree: ``--cache-dir``, else ``$MSGRAPHLINT_CACHE_DIR``,
else the config's ``cache-dir``, else ``$XDG_CACHE_HOME/msgraphlint`` (``~/.cache/msgraphlint``).
A folder msgraphlint creates for it is marked as msgraphlint's (``CACHEDIR.TAG`` naming
msgraphlint, and a ``.gitignore`` of ``*``); a folder that existed already is used as it
is and never marked. ``msgraphlint clean`` (:func:`remove_cache`) removes only a marked
folder, without following symlinks or crossing into another file system.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import logging
import os
import stat
import tempfile
import typing
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .. import __version__

FORMAT = 2  # 1: pickle entries (ignored; they live under v1-*)
MAGIC = b"msgraphlint-cache"
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # larger is not ours: a miss
MAX_INT = 2 ** 31 - 1  # every int of an entry is a line, a column or a count: 0..MAX_INT

# the marker of a cache folder msgraphlint created (https://bford.info/cachedir/)
TAG_NAME = "CACHEDIR.TAG"
TAG_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
TAG_TEXT = (TAG_SIGNATURE + b"\n# This file is a cache directory tag created by msgraphlint.\n"
            b"# For information about cache directory tags, see https://bford.info/cachedir/\n")
TAG_OWNER = b"created by msgraphlint"
GITIGNORE_TEXT = b"# Automatically created by msgraphlint.\n*\n"

log = logging.getLogger("msgraphlint.cache.store")


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
        from ..project.evidence import ArgSite
        from ..run.phases import Phase2
        from ..findings import Codemod, Edit, Finding, Fix, FixSafety, Severity
        from ..project.imports import ImportMap
        from ..project.index import CallEdge, ClassSummary, FuncSummary, ModuleSummary
        from ..suppress.inline import Suppression, SuppressionMap
        from .snapshot import RunSnapshot, SnapFile, StoredResult

        for cls in (ArgSite, Phase2, Codemod, Edit, Finding, Fix, FixSafety, Severity, ImportMap, CallEdge, ClassSummary,
                    FuncSummary, ModuleSummary, Suppression, SuppressionMap, RunSnapshot, SnapFile, StoredResult):
            _CLASSES[cls.__name__] = cls
    return _CLASSES


def _hints(cls: type) -> Dict[str, Any]:
    """The field types of a cacheable class, in field order (ImportMap has slots, no hints)."""
    if cls.__name__ == "ImportMap":
        return {"names": Dict[str, str]}
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


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


class BadShape(ValueError):
    """An entry whose payload is not what its kind holds (after a valid checksum)."""


def _bad(what: str, data: Any) -> BadShape:
    shown = repr(data)
    return BadShape(f"expected {what}, got {shown[:60] + '...' if len(shown) > 60 else shown}")


Decoder = Callable[[Any], Any]


def _dec_int(d: Any) -> int:
    if d.__class__ is not int or not 0 <= d <= MAX_INT:
        raise _bad(f"an int 0..{MAX_INT}", d)
    return d


def _dec_str(d: Any) -> str:
    if d.__class__ is not str:
        raise _bad("a str", d)
    return d


def _dec_bool(d: Any) -> bool:
    if d.__class__ is not bool:
        raise _bad("a bool", d)
    return d


def _tagged(d: Any, tag: str, what: str, items_class: type) -> Any:
    if d.__class__ is not dict or len(d) != 1 or tag not in d:
        raise _bad(what, d)
    items = d[tag]
    if items.__class__ is not items_class:
        raise _bad(what, d)
    return items


def _optional(inner: Decoder) -> Decoder:
    return lambda d: None if d is None else inner(d)


def _list(inner: Decoder) -> Decoder:
    def dec(d: Any) -> list:
        if d.__class__ is not list:
            raise _bad("a list", d)
        return [inner(v) for v in d]
    return dec


def _var_tuple(inner: Decoder) -> Decoder:
    return lambda d: tuple(inner(v) for v in _tagged(d, "t", "a tuple", list))


def _fixed_tuple(inners: Tuple[Decoder, ...]) -> Decoder:
    n = len(inners)

    def dec(d: Any) -> tuple:
        items = _tagged(d, "t", f"a tuple of {n}", list)
        if len(items) != n:
            raise _bad(f"a tuple of {n}", d)
        return tuple(f(v) for f, v in zip(inners, items))
    return dec


def _set(inner: Decoder, frozen: bool) -> Decoder:
    tag, what = ("z", "a frozenset") if frozen else ("s", "a set")
    make = frozenset if frozen else set
    return lambda d: make(inner(v) for v in _tagged(d, tag, what, list))


def _dict(key: Decoder, value: Decoder) -> Decoder:
    def dec(d: Any) -> dict:
        if d.__class__ is dict and len(d) == 1:
            if "d" in d and d["d"].__class__ is dict:  # JSON object: str keys (an int-keyed dict only if empty)
                return {key(k): value(v) for k, v in d["d"].items()}
            if "m" in d and d["m"].__class__ is list:
                out = {}
                for pair in d["m"]:
                    if pair.__class__ is not list or len(pair) != 2:
                        raise _bad("a [key, value] pair", pair)
                    out[key(pair[0])] = value(pair[1])
                return out
        raise _bad("a dict", d)
    return dec


def _enum(cls: type) -> Decoder:
    name = cls.__name__
    values = {m.value: m for m in cls}  # type: ignore[attr-defined]

    def dec(d: Any) -> Any:
        if d.__class__ is not dict or len(d) != 2 or d.get("e") != name:
            raise _bad(f"a {name}", d)
        v = d.get("v")
        if v.__class__ is not str or v not in values:
            raise _bad(f"a {name} value", v)
        return values[v]
    return dec


def _object(cls: type) -> Decoder:
    name = cls.__name__
    fields: List[Tuple[str, Decoder]] = []  # compiled on first use

    def dec(d: Any) -> Any:
        if d.__class__ is not dict or len(d) != 2 or d.get("c") != name:
            raise _bad(f"a {name}", d)
        raw = d.get("f")
        if not fields:
            fields.extend((f, _decoder(t)) for f, t in _hints(cls).items())
        if raw.__class__ is not dict or len(raw) != len(fields):
            raise _bad(f"the fields of {name}", raw)
        obj = cls.__new__(cls)
        for f, fdec in fields:
            if f not in raw:
                raise BadShape(f"{name} has no field {f!r}")
            try:
                object.__setattr__(obj, f, fdec(raw[f]))  # frozen data classes too
            except BadShape as exc:
                raise BadShape(f"{name}.{f}: {exc}") from None
        return obj
    return dec


_DECODERS: Dict[Any, Decoder] = {}


def _decoder(tp: Any) -> Decoder:
    """The decoder of a type hint: checks the encoded value's shape field by field."""
    got = _DECODERS.get(tp)
    if got is None:
        got = _DECODERS[tp] = _make_decoder(tp)
    return got


def _make_decoder(tp: Any) -> Decoder:
    if tp is int:
        return _dec_int
    if tp is str:
        return _dec_str
    if tp is bool:
        return _dec_bool
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _optional(_decoder(rest[0]))
    elif origin is list:
        return _list(_decoder(args[0]))
    elif origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _var_tuple(_decoder(args[0]))
        return _fixed_tuple(tuple(_decoder(a) for a in args))
    elif origin in (set, frozenset):
        return _set(_decoder(args[0]), origin is frozenset)
    elif origin is dict:
        return _dict(_decoder(args[0]), _decoder(args[1]))
    elif isinstance(tp, type) and _classes().get(tp.__name__) is tp:
        return _enum(tp) if issubclass(tp, enum.Enum) else _object(tp)
    raise TypeError(f"the cache has no schema for {tp!r}")  # a new field type: teach _make_decoder


def _kinds() -> Dict[str, Any]:
    from ..run.phases import Phase2
    from ..findings import Finding
    from ..project.index import ModuleSummary
    from .snapshot import RunSnapshot

    return {
        # phase 1: (summary, parse error, lines, may hold graph code)
        "p1": Tuple[Optional[ModuleSummary], Optional[Finding], int, bool],
        # phase 2: the file's findings, call-site findings and suppressions
        "p2": Phase2,
        # a whole run: what it read and what it reported (snapshot.py)
        "run": RunSnapshot,
    }


KINDS: Dict[str, Any] = {}  # kind -> the type hint its entries decode into (filled on first use)


def decode(data: Any, kind: str) -> Any:
    """Decode an entry's JSON payload as ``kind`` holds it; :class:`BadShape` if it does not."""
    if not KINDS:
        KINDS.update(_kinds())
    return _decoder(KINDS[kind])(data)


# the folder --------------------------------------------------------------------------

def _write_new(path: str, data: bytes) -> None:
    from ..fix.safe_write import write_atomic

    write_atomic(path, data)


def prepare_dir(directory: str) -> bool:
    """Make sure the cache folder exists; one msgraphlint creates gets its marker
    (``CACHEDIR.TAG``, ``.gitignore``). An existing folder is used as it is (never
    marked: it may hold anything). False if it cannot be made (the run goes on uncached)."""
    try:
        parent = os.path.dirname(os.path.abspath(directory))
        os.makedirs(parent, exist_ok=True)
        os.mkdir(directory)
    except FileExistsError:
        return os.path.isdir(directory)
    except OSError as exc:
        log.info("cache: cannot create the cache folder %s (%s); the run goes on without a cache", directory, exc)
        return False
    try:
        _write_new(os.path.join(directory, ".gitignore"), GITIGNORE_TEXT)
        _write_new(os.path.join(directory, TAG_NAME), TAG_TEXT)
    except OSError as exc:
        # an unmarked folder of ours could never be cleaned: take it back, try again next run
        for name in (TAG_NAME, ".gitignore"):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass
        try:
            os.rmdir(directory)
        except OSError:
            pass
        log.info("cache: cannot mark the new cache folder %s (%s); the run goes on without a cache", directory, exc)
        return False
    return True


def _read_tag(dir_fd: int) -> Optional[bytes]:
    """The marker's text, if the folder holds a regular CACHEDIR.TAG (never through a link)."""
    try:
        fd = os.open(TAG_NAME, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def is_ours(tag: Optional[bytes]) -> bool:
    return tag is not None and tag.startswith(TAG_SIGNATURE) and TAG_OWNER in tag


class NotACache(Exception):
    """``clean`` refused: the folder is not (provably) msgraphlint's cache; nothing was deleted."""


def _older_layout(names: Iterable[str]) -> List[str]:
    import re

    return sorted(n for n in names if re.fullmatch(r"v\d+-[\w.+-]*", n) or n == "verify")


def remove_cache(directory: str) -> List[str]:
    """Remove msgraphlint's cache folder ``directory``. Raises :class:`NotACache` (deleting
    nothing) unless it is a real folder (not a symlink) holding msgraphlint's marker.
    Deletes only inside it: symlinks are removed, never followed; a folder on another file
    system (a mount point) is left. Returns what could not be removed (empty: all gone)."""
    path = os.path.abspath(directory)
    if os.path.islink(path):
        raise NotACache(f"{path} is a symbolic link (to {os.path.realpath(path)}); clean does not follow "
                        f"links: run it with --cache-dir on the folder itself")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise NotACache(f"{path} cannot be opened as a folder ({exc.strerror})") from None
    try:
        tag = _read_tag(fd)
        if not is_ours(tag):
            names = os.listdir(fd)
            old = _older_layout(names)
            if tag is None and old and all(n in old or n == ".gitignore" for n in names):
                raise NotACache(f"{path} looks like an unmarked msgraphlint cache (it holds {', '.join(old)}: "
                                f"written by an older msgraphlint, before cache folders were marked with "
                                f"{TAG_NAME}, or by `verify`); nothing was deleted: if it is one, delete it "
                                f"by hand (rm -r {path})")
            why = f"its {TAG_NAME} was not written by msgraphlint" if tag is not None \
                else f"it has no {TAG_NAME} written by msgraphlint"
            raise NotACache(f"refusing to remove {path}: it is not a msgraphlint cache folder ({why}); "
                            f"nothing was deleted")
        left: List[str] = []
        _empty(fd, path, os.fstat(fd).st_dev, left, keep=TAG_NAME)
        if not left:
            try:
                os.unlink(TAG_NAME, dir_fd=fd)  # last: an interrupted clean can run again
            except OSError as exc:
                left.append(f"{os.path.join(path, TAG_NAME)} ({exc.strerror})")
    finally:
        os.close(fd)
    if not left:
        try:
            os.rmdir(path)
        except OSError as exc:
            left.append(f"{path} ({exc.strerror})")
    return left


def _empty(dir_fd: int, where: str, dev: int, left: List[str], keep: str = "") -> None:
    """Delete everything inside the open folder ``dir_fd`` (fd-relative: a folder renamed or
    swapped for a link meanwhile is never followed)."""
    for name in os.listdir(dir_fd):
        if name == keep:
            continue
        shown = os.path.join(where, name)
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(name, dir_fd=dir_fd)  # files, and symlinks themselves
                continue
            if st.st_dev != dev:
                left.append(f"{shown} (another file system is mounted there)")
                continue
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
            try:
                now = os.fstat(sub)
                if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                    left.append(f"{shown} (changed while it was being removed)")
                    continue
                _empty(sub, shown, dev, left)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=dir_fd)
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):  # gone already (a concurrent clean): fine
                left.append(f"{shown} ({exc.strerror})")


# the store ---------------------------------------------------------------------------

class ResultCache:
    def __init__(self, directory: str) -> None:
        self.root = directory
        self.dir = os.path.join(directory, f"v{FORMAT}-{__version__}")
        self.hits = 0
        self.misses = 0
        self.dropped = 0  # corrupt, foreign or wrongly shaped entries removed
        self.write_failures = 0
        self._ready: Optional[bool] = None  # the folder exists (and is marked if we made it)

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
            value = decode(json.loads(payload.decode("ascii")), kind)
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
        if self._ready is None:
            self._ready = prepare_dir(self.root)
        if not self._ready:
            return
        path = self._path(kind, key)
        try:
            replace_file(path, self._header(kind, key, payload) + payload)
        except OSError as exc:  # a cache that cannot be written is only slower
            self.write_failures += 1
            (log.info if self.write_failures == 1 else log.debug)(
                "cache: could not write entry %s (%s); a miss, the run goes on", path, exc)


def replace_file(path: str, data: bytes, prefix: str = ".tmp-") -> None:
    """Write ``data`` to ``path`` inside the cache: a temporary file beside it, then a rename
    over the path itself (a planted symlink is replaced, never followed); nothing is left
    behind when it fails. No fsync: a torn entry fails its checksum and is a miss.
    Raises OSError."""
    directory = os.path.dirname(path)
    tmp = ""
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = ""
    finally:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass


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
    engine = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the msgraphlint package
    for folder, dirs, names in os.walk(engine):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                parts.append((os.path.relpath(os.path.join(folder, name), engine), st.st_size, st.st_mtime_ns))
    return digest(sorted(parts))
