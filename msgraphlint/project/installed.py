"""Installed third-party packages, read and never imported.

A base class, a ``self.<attr> = Cls(...)`` constructor or a called function that names
something outside the linted project and outside mindspore (mindformers, mindcv, mindnlp,
mindone, ...) is looked up in the environment the project runs in: the ``python``
setting's environment, whose search path is computed from its layout
(:func:`environment_search_path`: ``pyvenv.cfg``, ``lib/python3.X/site-packages``, the path
lines of ``.pth`` files, the base interpreter's site-packages with
``include-system-site-packages``; a conda or system prefix's site-packages), because
nothing a configuration file names is ever executed; else the ``sys.path`` of the
interpreter running msgraphlint. Modules are
located with ``importlib.machinery.PathFinder`` over that path and parsed with astroid;
names are followed through imports, relative imports, ``__init__.py`` re-exports, star
imports and aliases (``Base = Other``). Nothing is executed: astroid's own module loading
(which may import C extensions or live modules) is replaced, while msgraphlint reads, by
this module's loader, which refuses everything that is not a ``.py`` file on that path, and
refuses ``mindspore`` itself (its names are judged by the API catalog, its sources never
opened) and the standard library.

Answers: a class is ``"cell"`` (its bases reach ``mindspore.nn.Cell`` through any depth of
installed classes), ``"not-cell"`` (every base resolved to a non-Cell) or ``"unknown"``; a
function returns ``"tensor"``/``"const"``/``"none"``/``"host"`` when every ``return`` says
so cheaply (a MindSpore op or ``Tensor(...)``, a literal, another such function), else
``"unknown"``. Failing to read a package (not installed, not source, a syntax error, an
astroid error, a file over :data:`MAX_FILE_BYTES`, the per-run :data:`MAX_MODULES` /
:data:`MAX_SECONDS` budget spent) is ``"unknown"``, never an error of the run.

Answers are kept per ``package==version`` (the dist-info version read with
``importlib.metadata`` on that path; a package without one, or an editable install, by the
sizes and times of its files): in memory for the process and, when the run has a result
cache, in ``installed.json`` of the cache folder, a JSON map ``{"package==version":
{"dotted.name": answer}}``. Answers that crossed into another installed package stay in
memory for the run only. ``cachekeys`` puts the ``package==version`` of every installed
package a file's modules import into the file's key, so an upgrade re-lints it.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import threading
import time
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from ..cache import runcache

class _Log:
    """``logging.getLogger("msgraphlint.project.installed")``, imported when first used (a
    run that reads no installed package does not import ``logging``)."""

    def __getattr__(self, name: str):
        import logging
        return getattr(logging.getLogger("msgraphlint.project.installed"), name)


log = _Log()

MAX_MODULES = 200           # modules parsed per environment and run
MAX_SECONDS = 3.0           # wall time spent reading per environment and run
MAX_FILE_BYTES = 2_000_000  # a bigger module is not read
MAX_HOPS = 400              # names followed for one answer (imports, aliases, bases)
MAX_TREE_FILES = 20_000     # directory entries looked at for the signature of a package without a version
MAX_STORE_BYTES = 8_000_000
MAX_CFG_BYTES = 64_000       # pyvenv.cfg is read up to this
MAX_PTH_FILES = 1_000        # .pth files read per site folder
MAX_PTH_BYTES = 1_000_000    # a bigger .pth file is not read
MAX_SEARCH_ENTRIES = 2_000   # folders on an environment's search path
STORE_NAME = "installed.json"
ANSWERS = ("cell", "not-cell", "tensor", "const", "none", "host", "unknown")

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names) | {"builtins"}
_REFUSED = frozenset({"mindspore", "__main__", "__future__"})

_LOCK = threading.RLock()
# process-wide: answers of self-contained lookups by "package==version" (every run re-reads versions)
_ANSWERS: Dict[str, Dict[str, str]] = {}
# process-wide: a `python` setting's search path, with the files and folders read for it and their times
_SEARCH_PATHS: Dict[str, Tuple[tuple, List[str], List[str]]] = {}
# per run: environments (their budgets, located packages, parsed modules)
_ENVS: Dict[Any, "Environment"] = runcache.per_run({})


class _Unknown(Exception):
    """This answer cannot be had (the reason is in the message)."""


class _Budget(_Unknown):
    """The environment's budget is spent: unknown, and not remembered."""


# the environment's search path, read from its layout ------------------------------------------

class _Layout:
    """What reading one ``python`` setting's environment found: the search path, the files
    and folders it looked at (their modification times say when to read again) and, when
    it found nothing, why."""

    def __init__(self) -> None:
        self.paths: List[str] = []
        self.watched: List[str] = []
        self.problem: Optional[str] = None
        self._seen: Set[str] = set()

    def add(self, path: str) -> bool:
        key = os.path.normcase(os.path.realpath(path))
        if key in self._seen or len(self.paths) >= MAX_SEARCH_ENTRIES:
            return False
        self._seen.add(key)
        self.paths.append(path)
        return True

    def site_dir(self, site: str) -> None:
        """``site`` and the path lines of its ``.pth`` files, as ``site.addsitedir`` adds
        them (files in name order, hidden ones skipped), without running their
        ``import`` lines."""
        self.watched.append(site)
        if not self.add(site):
            return
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(".pth") and not n.startswith("."))
        except OSError:
            return
        for name in names[:MAX_PTH_FILES]:
            pth = os.path.join(site, name)
            self.watched.append(pth)
            for entry in _pth_paths(pth):
                self.add(os.path.abspath(os.path.join(site, entry)))


def _pth_paths(pth: str) -> List[str]:
    """The path lines of a ``.pth`` file (not its comments, blank lines or ``import``
    lines, which are code: site.py would run them, msgraphlint never does), each an
    existing file or folder."""
    try:
        with open(pth, "rb") as fh:
            blob = fh.read(MAX_PTH_BYTES + 1)
    except OSError:
        return []
    if len(blob) > MAX_PTH_BYTES:
        log.debug("installed packages: %s is over %d bytes, not read", pth, MAX_PTH_BYTES)
        return []
    out = []
    site = os.path.dirname(pth)
    for line in blob.decode("utf-8-sig", errors="replace").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith(("import ", "import\t")):
            continue
        line = line.rstrip()
        if "\0" not in line and os.path.exists(os.path.join(site, line)):
            out.append(line)
    return out


def _read_cfg(path: str) -> Dict[str, str]:
    """``pyvenv.cfg`` as site.py reads it: ``key = value`` lines, keys lower-cased."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(MAX_CFG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return {}
    out: Dict[str, str] = {}
    for line in text.splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            out.setdefault(key.strip().lower(), value.strip())
    return out


def _version(text: Optional[str]) -> Optional[str]:
    """``"3.12"`` from ``3.12.3``, ``3.12.3.final.0``, ``python3.12``, ``pypy3.10``."""
    m = re.match(r"(?:python|pypy)?(\d+)\.(\d+)", (text or "").strip(), re.IGNORECASE)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _site_dirs(prefix: str, version: Optional[str]) -> Tuple[List[str], Optional[str], Optional[str]]:
    """The existing site folders of an installation prefix: ``lib/python3.X/site-packages``
    (and ``lib64``, the free-threaded ``python3.Xt``, PyPy's ``pypy3.X``), Windows'
    ``Lib/site-packages``, Debian's ``dist-packages``. Without a version, the one
    ``python3.X`` found; several: ([], None, why). Returns (folders, version, None)."""
    if version is None:
        found = set()
        for lib in ("lib", "lib64", os.path.join("local", "lib")):
            for pattern in ("python3.*", "pypy3.*"):
                for d in glob.glob(os.path.join(glob.escape(os.path.join(prefix, lib)), pattern)):
                    v = _version(os.path.basename(d))
                    if v and (os.path.isdir(os.path.join(d, "site-packages"))
                              or os.path.isdir(os.path.join(d, "dist-packages"))):
                        found.add(v)
        if len(found) > 1:
            return [], None, (f"{prefix} holds site-packages of Python {', '.join(sorted(found))} "
                              "and the version is not known")
        version = found.pop() if found else None
    candidates = []
    if version is not None:
        for lib in ("lib", "lib64"):
            for name in (f"python{version}", f"python{version}t", f"pypy{version}"):
                candidates.append(os.path.join(prefix, lib, name, "site-packages"))
        candidates.append(os.path.join(prefix, "local", "lib", f"python{version}", "dist-packages"))
        candidates.append(os.path.join(prefix, "lib", f"python{version}", "dist-packages"))
    candidates.append(os.path.join(prefix, "lib", "python3", "dist-packages"))
    candidates.append(os.path.join(prefix, "Lib", "site-packages"))
    out, seen = [], set()
    for c in candidates:
        key = os.path.normcase(os.path.realpath(c))
        if key not in seen and os.path.isdir(c):
            seen.add(key)
            out.append(c)
    return out, version, None


def _user_site(version: Optional[str]) -> List[str]:
    """The user site folder (``pip install --user``) of Python ``version`` for the user
    running msgraphlint, when it exists."""
    if version is None:
        return []
    if os.name == "nt":
        base = os.environ.get("PYTHONUSERBASE") or os.path.join(os.environ.get("APPDATA") or "~", "Python")
        site = os.path.join(base, "Python" + version.replace(".", ""), "site-packages")
    else:
        base = os.environ.get("PYTHONUSERBASE") or os.path.join("~", ".local")
        site = os.path.join(base, "lib", f"python{version}", "site-packages")
    site = os.path.expanduser(site)
    return [site] if os.path.isabs(site) and os.path.isdir(site) else []


def _venv_root(python: str) -> Optional[Tuple[str, str]]:
    """The virtual environment ``python`` belongs to (the folder holding ``pyvenv.cfg``):
    the setting names the environment itself, or its ``bin``/``Scripts`` folder, or a file
    in it (``pyvenv.cfg`` beside the executable or one folder up, as site.py looks; the
    environment is the folder above the executable's). Returns (root, its pyvenv.cfg)."""
    if os.path.isdir(python):
        if os.path.isfile(os.path.join(python, "pyvenv.cfg")):
            return python, os.path.join(python, "pyvenv.cfg")
        if os.path.basename(python).lower() in ("bin", "scripts") \
                and os.path.isfile(os.path.join(os.path.dirname(python), "pyvenv.cfg")):
            return os.path.dirname(python), os.path.join(os.path.dirname(python), "pyvenv.cfg")
        return None
    exe_dir = os.path.dirname(python)
    for d in (exe_dir, os.path.dirname(exe_dir)):
        if os.path.isfile(os.path.join(d, "pyvenv.cfg")):
            return os.path.dirname(exe_dir), os.path.join(d, "pyvenv.cfg")
    return None


def _read_venv(root: str, cfg_path: str, layout: _Layout) -> None:
    layout.watched.append(cfg_path)
    cfg = _read_cfg(cfg_path)
    version = _version(cfg.get("version_info")) or _version(cfg.get("version"))
    sites, version, why = _site_dirs(root, version)
    if not sites:
        layout.problem = why or f"the virtual environment {root} has no lib/python3.X/site-packages folder"
        return
    system = cfg.get("include-system-site-packages", "").lower() == "true"
    if system:   # as site.py orders them: the user site, the environment's, the base interpreter's
        for site in _user_site(version):
            layout.site_dir(site)
    for site in sites:
        layout.site_dir(site)
    if system:
        prefixes = [cfg[k] for k in ("base-prefix",) if cfg.get(k)]   # virtualenv writes it
        home = cfg.get("home", "")
        if home:
            prefixes += [os.path.dirname(home), home]   # <prefix>/bin/python; Windows: <prefix>/python.exe
        found = False
        for prefix in prefixes:
            if not os.path.isabs(prefix):
                continue
            base_sites, _, _ = _site_dirs(prefix, version)
            for site in base_sites:
                layout.site_dir(site)
                found = True
            if found:
                break
        if not found:
            log.debug("installed packages: no site-packages of the base interpreter (home = %s) of %s", home, root)


def _read_bare(python: str, layout: _Layout) -> None:
    """A Python that is not in a virtual environment: its installation prefix (the folder
    above ``bin/``, or the one holding ``python.exe``, or the folder named; also for the
    file the link points to) and the version its name, the link's name or a conda
    environment's ``conda-meta/python-3.X.Y-*.json`` says."""
    candidates: List[Tuple[str, Optional[str]]] = []   # (prefix, version from a name)
    if os.path.isdir(python):
        candidates.append((python, None))
    else:
        real = os.path.realpath(python)
        for exe in dict.fromkeys((python, real)):
            name = os.path.basename(exe)
            if not re.match(r"(python|pypy)", name, re.IGNORECASE):
                continue
            exe_dir = os.path.dirname(exe)
            version = _version(name) or _version(os.path.basename(real))
            if os.path.basename(exe_dir).lower() in ("bin", "scripts"):
                candidates.append((os.path.dirname(exe_dir), version))
            candidates.append((exe_dir, version))
        if not candidates:
            layout.problem = f"{python} is not a virtual environment and its name is not python*"
            return
    problem = None
    for prefix, version in candidates:
        layout.watched.append(prefix)
        if version is None:
            metas = glob.glob(os.path.join(glob.escape(os.path.join(prefix, "conda-meta")), "python-[0-9]*.json"))
            versions = {_version(os.path.basename(m)[len("python-"):]) for m in metas} - {None}
            version = versions.pop() if len(versions) == 1 else None
        sites, version, why = _site_dirs(prefix, version)
        problem = problem or why
        if sites:
            for site in _user_site(version):
                layout.site_dir(site)
            for site in sites:
                layout.site_dir(site)
            return
    layout.problem = problem or (f"{python} is neither in a virtual environment (pyvenv.cfg) "
                                 "nor beside a lib/python3.X/site-packages folder")


def environment_search_path(python: str) -> List[str]:
    """The folders the ``python`` setting's interpreter finds installed packages in,
    computed from its environment's layout, never by running it (a configuration file
    must not make msgraphlint execute anything): ``pyvenv.cfg``, the environment's
    ``site-packages``, the path lines of their ``.pth`` files, the base interpreter's
    site-packages when ``include-system-site-packages = true``; for an interpreter outside
    a virtual environment, its prefix's site-packages. [] with a one-line warning when
    none is found. Remembered while the files and folders read keep their times."""
    with _LOCK:
        got = _SEARCH_PATHS.get(python)
        if got is not None and got[0] == _stamp(got[1]):
            return got[2]
    layout = _Layout()
    path = os.path.abspath(python)
    layout.watched.append(path)
    try:
        if not os.path.exists(path):
            layout.problem = f"{path} does not exist"
        else:
            venv = _venv_root(path)
            if venv is not None:
                layout.watched.append(venv[0])
                _read_venv(venv[0], venv[1], layout)
            else:
                _read_bare(path, layout)
    except (OSError, ValueError) as exc:
        layout.problem = f"{path}: {exc}"
    if layout.problem and not layout.paths:
        log.warning("installed packages: the `python` setting %s: %s; installed classes are unknown",
                    python, layout.problem)
    with _LOCK:
        _SEARCH_PATHS[python] = (_stamp(layout.watched), layout.watched, layout.paths)
    return layout.paths


def _stamp(paths: Iterable[str]) -> tuple:
    out = []
    for p in paths:
        try:
            out.append(os.stat(p).st_mtime_ns)
        except OSError:
            out.append(None)
    return tuple(out)


# packages and versions ---------------------------------------------------------------------

class Package:
    __slots__ = ("name", "key", "spec")

    def __init__(self, name: str, key: str, spec) -> None:
        self.name = name
        self.key = key     # "name==version"
        self.spec = spec   # the top-level module's ModuleSpec


def _version_of(top: str, spec) -> str:
    """The dist-info version of the distribution that installs ``top`` (looked up in the
    folder holding it with importlib.metadata), ``+tree:<signature>`` for an editable
    install, ``0+tree:<signature>`` without one."""
    import importlib.metadata as md
    location = spec.origin if spec.origin and spec.origin not in ("namespace", "built-in", "frozen") else None
    pkg_dir = None
    if spec.submodule_search_locations:
        pkg_dir = list(spec.submodule_search_locations)[0]
        site = os.path.dirname(pkg_dir)
    elif location:
        site = os.path.dirname(location)
    else:
        return "0+unlocated"
    dist = None
    try:
        # the distribution named like the package (its dist-info folder's name), else the one
        # whose top_level.txt lists it (PyYAML installs yaml)
        dist = next(iter(md.distributions(name=top, path=[site])), None)
        if dist is None:
            for d in md.distributions(path=[site]):
                if top in (d.read_text("top_level.txt") or "").split():
                    dist = d
                    break
    except Exception:  # noqa: BLE001 - broken metadata: a package without a version
        dist = None
    version = None
    editable = False
    if dist is not None:
        version = dist.version or None
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "{}")
            editable = bool(isinstance(direct, dict) and direct.get("dir_info", {}).get("editable"))
        except (ValueError, AttributeError):
            editable = False
    if version and not editable:
        return version
    return f"{version or '0'}+tree:{_tree_signature(pkg_dir or location)}"


def _tree_signature(path: Optional[str]) -> str:
    from ..cache.store import digest
    if not path:
        return "none"
    if os.path.isfile(path):
        try:
            st = os.stat(path)
            return f"{st.st_size}:{st.st_mtime_ns}"
        except OSError:
            return "missing"
    n, seen, newest, size = 0, 0, 0, 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        seen += len(dirs) + len(files)
        for f in files:
            if f.endswith((".py", ".pyi", ".pth")):
                try:
                    st = os.stat(os.path.join(root, f))
                except OSError:
                    continue
                n += 1
                newest = max(newest, st.st_mtime_ns)
                size += st.st_size
        if seen > MAX_TREE_FILES:
            break
    return digest(n, newest, size)[:16]


# the astroid loader -------------------------------------------------------------------------

_ACTIVE = threading.local()   # .env: the environment reading now (its loader answers astroid)
_PATCHED = False


def _astroid():
    """astroid, with its module loading routed to the reading environment's loader while
    one reads (and astroid's own behaviour otherwise)."""
    global _PATCHED
    import astroid
    from astroid.manager import AstroidManager
    if not _PATCHED:
        original = AstroidManager.ast_from_module_name

        def ast_from_module_name(self, modname, context_file=None, use_cache=True):
            env = getattr(_ACTIVE, "env", None)
            if env is None:
                return original(self, modname, context_file, use_cache)
            return env.astroid_module(modname)

        AstroidManager.ast_from_module_name = ast_from_module_name
        manager = AstroidManager()
        manager.always_load_extensions = False
        _PATCHED = True
    return astroid


_BUILDER = None


def _builder():
    """astroid's builder without the step that infers the targets of attribute assignments
    (``obj.attr = value``: it would read every module those objects come from); star
    imports are still resolved, through the environment's loader."""
    global _BUILDER
    if _BUILDER is None:
        from astroid.builder import AstroidBuilder

        class Builder(AstroidBuilder):
            def delayed_assattr(self, node) -> None:
                return None
        _BUILDER = Builder
    return _BUILDER


def _builtins_names() -> frozenset:
    import builtins
    return frozenset(dir(builtins))


class Environment:
    """One interpreter's installed packages for one run: where they are, their versions,
    the modules read so far and the budget left."""

    def __init__(self, search_path: List[str], store: Optional[str] = None) -> None:
        self.search_path = list(search_path)
        self.store = store
        self.packages: Dict[str, Optional[Package]] = {}
        self.modules: Dict[str, Any] = {}   # dotted -> astroid Module | None (no such module) | _Unknown
        self.answers: Dict[str, str] = {}   # dotted -> answer (this run, this environment)
        self.modules_read = 0
        self.seconds = 0.0
        self.spent = False
        self._stored: Optional[Dict[str, Dict[str, str]]] = None
        self._new: Dict[str, Dict[str, str]] = {}
        self._visiting: Set[str] = set()
        self._classes: Dict[str, Tuple[str, frozenset]] = {}  # qname -> (answer, packages it read)
        self._defs: Dict[str, Any] = {}     # qname -> ClassDef/FunctionDef met while following names
        self._touched: Set[str] = set()     # top-level packages the current answer read
        self._hops = 0
        self._reading = 0

    # packages -----------------------------------------------------------------------------
    def package(self, top: str) -> Optional[Package]:
        """The installed top-level package or module ``top`` (None: not installed, or
        mindspore, or the standard library)."""
        if top in self.packages:
            return self.packages[top]
        pkg = None
        if top not in _REFUSED and top not in _STDLIB and top.isidentifier():
            from importlib.machinery import PathFinder
            try:
                spec = PathFinder.find_spec(top, self.search_path)
            except (ImportError, ValueError, OSError):
                spec = None
            if spec is not None:
                try:
                    pkg = Package(top, f"{top}=={_version_of(top, spec)}", spec)
                except Exception as exc:  # noqa: BLE001 - an unreadable package is not installed for us
                    log.debug("installed packages: no version for %s (%s)", top, exc)
        self.packages[top] = pkg
        return pkg

    def package_key(self, top: str) -> str:
        pkg = self.package(top)
        return pkg.key if pkg is not None else f"{top}==absent"

    # modules ------------------------------------------------------------------------------
    def _spec(self, dotted: str):
        from importlib.machinery import PathFinder
        parts = dotted.split(".")
        pkg = self.package(parts[0])
        if pkg is None:
            return None
        spec = pkg.spec
        for i in range(1, len(parts)):
            locations = spec.submodule_search_locations
            if not locations:
                return None
            try:
                spec = PathFinder.find_spec(".".join(parts[:i + 1]), list(locations))
            except (ImportError, ValueError, OSError):
                return None
            if spec is None:
                return None
        return spec

    def module(self, dotted: str):
        """The astroid Module of ``dotted`` (None: there is no such module). Raises
        _Unknown when it exists but cannot be read, _Budget when the budget is spent."""
        self._touched.add(dotted.split(".")[0])
        got = self.modules.get(dotted, self)
        if got is not self:
            if isinstance(got, _Unknown):
                raise got
            return got
        try:
            mod = self._read(dotted)
        except _Budget:
            raise
        except _Unknown as exc:
            self.modules[dotted] = exc
            raise
        self.modules[dotted] = mod
        return mod

    def _read(self, dotted: str):
        spec = self._spec(dotted)
        if spec is None:
            return None
        astroid = _astroid()
        if spec.origin in (None, "namespace") and spec.submodule_search_locations:
            from astroid.builder import build_namespace_package_module
            return build_namespace_package_module(dotted, list(spec.submodule_search_locations))
        origin = spec.origin or ""
        if not origin.endswith(".py"):
            raise _Unknown(f"{dotted}: not a Python source file ({origin or 'no file'})")
        try:
            size = os.path.getsize(origin)
        except OSError as exc:
            raise _Unknown(f"{dotted}: {exc}") from None
        if size > MAX_FILE_BYTES:
            raise _Unknown(f"{dotted}: {size} bytes, over {MAX_FILE_BYTES}")
        if self.spent or self.modules_read >= MAX_MODULES or self.seconds >= MAX_SECONDS:
            if not self.spent:
                log.info("installed packages: reading budget spent (%d modules, %.2f s); further answers are unknown",
                         self.modules_read, self.seconds)
            self.spent = True
            raise _Budget("budget spent")
        self.modules_read += 1
        start = time.perf_counter()
        self._reading += 1
        try:
            from astroid.manager import AstroidManager
            manager = AstroidManager()
            mod = _builder()(manager, apply_transforms=False).file_build(origin, dotted)
            if manager.astroid_cache.get(dotted) is mod:
                del manager.astroid_cache[dotted]   # ours to keep: astroid's cache is process-wide
        except (astroid.AstroidError, SyntaxError, ValueError, OSError, RecursionError, MemoryError) as exc:
            raise _Unknown(f"{dotted}: {type(exc).__name__}: {str(exc)[:200]}") from None
        finally:
            self._reading -= 1
            if not self._reading:   # a star import reads its module inside the outer read
                self.seconds += time.perf_counter() - start
        return mod

    def astroid_module(self, modname: str):
        """astroid's loader while this environment reads (star imports, ``import_module``)."""
        from astroid.exceptions import AstroidImportError
        try:
            mod = self.module(modname)
        except _Unknown as exc:
            raise AstroidImportError(str(exc)) from None
        if mod is None:
            raise AstroidImportError(f"no module {modname} on the environment's path")
        return mod

    # names --------------------------------------------------------------------------------
    def _hop(self) -> None:
        self._hops += 1
        if self._hops > MAX_HOPS:
            raise _Unknown("too many names followed")

    def locate(self, dotted: str) -> Tuple[str, Any]:
        """What ``dotted`` names: ("mindspore", canonical dotted), ("stdlib", dotted),
        ("class", ClassDef), ("function", FunctionDef), ("module", Module), ("other", node).
        Raises _Unknown when it cannot be told."""
        self._hop()
        node = self._defs.get(dotted)
        if node is not None:
            return (_node_kind(node), node)
        parts = dotted.split(".")
        top = parts[0]
        if top == "mindspore":
            return ("mindspore", dotted)
        if top in _STDLIB or top in _REFUSED:
            return ("stdlib", dotted)
        if self.package(top) is None:
            raise _Unknown(f"{top} is not installed")
        for cut in range(len(parts), 0, -1):
            mod = self.module(".".join(parts[:cut]))
            if mod is not None:
                return self._walk(mod, parts[cut:])
        raise _Unknown(f"no module for {dotted}")

    def _walk(self, scope, rest: List[str]) -> Tuple[str, Any]:
        from astroid import nodes
        if not rest:
            return ("module", scope) if isinstance(scope, nodes.Module) else (_node_kind(scope), scope)
        name, tail = rest[0], rest[1:]
        bound = scope.locals.get(name) if hasattr(scope, "locals") else None
        if not bound:
            if isinstance(scope, nodes.Module) and scope.package:
                sub = self.module(f"{scope.name}.{name}")
                if sub is not None:
                    return self._walk(sub, tail)
            raise _Unknown(f"{scope.name} defines no {name}")
        node = _binding(bound)
        if isinstance(node, (nodes.ClassDef, nodes.FunctionDef, nodes.AsyncFunctionDef)):
            if not tail:
                return (_node_kind(node), node)
            if isinstance(node, nodes.ClassDef):
                self._hop()
                return self._walk(node, tail)
            raise _Unknown(f"{name} is a function")
        target = self._bound_dotted(node, name)
        if target is None:
            raise _Unknown(f"{scope.name}.{name}: not a name astroid can follow")
        return self.locate(".".join([target] + tail))

    def _bound_dotted(self, node, name: str) -> Optional[str]:
        """The dotted name a binding of ``name`` stands for (an import, an alias)."""
        from astroid import nodes
        if isinstance(node, nodes.ImportFrom):
            root = node.root()
            base = root.relative_to_absolute_name(node.modname, node.level) if node.level else node.modname
            try:
                real = node.real_name(name)
            except Exception:  # noqa: BLE001 - astroid: no such name in the import
                return None
            return f"{base}.{real}" if base else real
        if isinstance(node, nodes.Import):
            try:
                return node.real_name(name)
            except Exception:  # noqa: BLE001
                return None
        if isinstance(node, nodes.AssignName) and isinstance(node.parent, (nodes.Assign, nodes.AnnAssign)):
            value = node.parent.value
            if isinstance(value, (nodes.Name, nodes.Attribute)):
                return self.dotted(value)
        return None

    def dotted(self, expr) -> Optional[str]:
        """The dotted name an expression of a read module stands for (``nn.Cell`` under
        ``from mindspore import nn``: mindspore.nn.Cell), None when it is not a name."""
        from astroid import nodes
        if isinstance(expr, nodes.Subscript):
            return self.dotted(expr.value)   # Base[T]
        if isinstance(expr, nodes.Attribute):
            head = self.dotted(expr.expr)
            return f"{head}.{expr.attrname}" if head else None
        if not isinstance(expr, nodes.Name):
            return None
        try:
            _, bound = expr.lookup(expr.name)
        except Exception:  # noqa: BLE001
            bound = ()
        if not bound:
            return f"builtins.{expr.name}" if expr.name in _builtins_names() else None
        node = _binding(list(bound))
        if isinstance(node, (nodes.ClassDef, nodes.FunctionDef, nodes.AsyncFunctionDef)):
            qname = node.qname()
            self._defs[qname] = node
            return qname
        self._hop()
        return self._bound_dotted(node, expr.name)

    # answers ------------------------------------------------------------------------------
    def answer(self, dotted: str, what: str = "class") -> str:
        """"cell" | "not-cell" | "unknown" for a class (``what="class"``); for a call
        (``what="call"``) also a function's return kind."""
        key = f"{what}:{dotted}"
        got = self.answers.get(key)
        if got is not None:
            return got
        top = dotted.split(".")[0]
        pkg = self.package(top)
        if pkg is None:
            return "unknown"
        stored = self._lookup_stored(pkg.key, key)
        if stored is not None:
            self.answers[key] = stored
            return stored
        with _LOCK:
            previous = getattr(_ACTIVE, "env", None)
            _ACTIVE.env = self
            self._touched, self._hops = set(), 0
            start = time.perf_counter()
            try:
                if what == "call" and self._surely_unknown_call(dotted):
                    result = "unknown"   # told without astroid (its start-up: 0.1 s of a run)
                else:
                    result = self._class(dotted) if what == "class" else self._call(dotted, 0)
                keep = True
            except _Budget:
                result, keep = "unknown", False
            except _Unknown as exc:
                log.debug("installed packages: %s is unknown (%s)", dotted, exc)
                result, keep = "unknown", True
            except Exception as exc:  # noqa: BLE001 - astroid or a bug: unknown, never an error of the run
                log.info("installed packages: reading %s failed (%s: %s)", dotted, type(exc).__name__, exc)
                result, keep = "unknown", False
            finally:
                _ACTIVE.env = previous
                elapsed = time.perf_counter() - start
            touched = {t for t in self._touched if t != top}
        log.debug("installed packages: %s -> %s (%.3f s)", dotted, result, elapsed)
        self.answers[key] = result
        if keep and not touched and not self.spent:  # (a star import the budget cut short: not remembered)
            self._remember(pkg.key, key, result)
        return result

    def _surely_unknown_call(self, dotted: str) -> bool:
        """Whether :meth:`_call` surely answers "unknown" for ``dotted``, told from the
        standard library's ``ast`` of one plain module, without astroid: ``dotted`` is a
        function defined at the top of that module (and bound nowhere else in it) that
        yields, or that has a ``return`` of something that is neither a literal nor a call
        (``_expr``: unknown without following a name), or a ``return`` calling a class of
        that module (bound once) whose bases are such classes, down to classes without bases
        (not a Cell). False when it cannot be told so: astroid reads the module then."""
        try:
            return self._plain_unknown(dotted)
        except Exception:  # noqa: BLE001 - astroid judges
            return False

    def _plain_unknown(self, dotted: str) -> bool:
        import ast
        parts = dotted.split(".")
        spec = None
        for cut in range(len(parts), 0, -1):   # the module locate() would read
            spec = self._spec(".".join(parts[:cut]))
            if spec is not None:
                break
        if spec is None or cut != len(parts) - 1 or spec.submodule_search_locations:
            return False
        origin, name = spec.origin or "", parts[-1]
        if not origin.endswith(".py") or os.path.getsize(origin) > MAX_FILE_BYTES or name.startswith("__"):
            return False
        with open(origin, "rb") as fh:
            tree = ast.parse(fh.read(), filename=origin)
        binds: Dict[str, int] = {}
        for n in ast.walk(tree):   # every binding of a name, in any scope of the module
            if isinstance(n, ast.alias):
                if n.name == "*":
                    return False
                got = [(n.asname or n.name).split(".")[0]]
            elif isinstance(n, ast.Name):
                got = [] if isinstance(n.ctx, ast.Load) else [n.id]
            elif isinstance(n, ast.arg):
                got = [n.arg]
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                got = list(n.names)
            else:   # defs, except-as, match captures, type parameters
                got = [v for v in (getattr(n, "name", None), getattr(n, "rest", None)) if isinstance(v, str)]
            for b in got:
                binds[b] = binds.get(b, 0) + 1
        top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

        def once(n: str):
            return top.get(n) if binds.get(n) == 1 and not n.startswith("__") else None

        def plain_class(n: str, seen: Set[str]) -> bool:
            node = once(n)
            if not isinstance(node, ast.ClassDef) or n in seen or len(seen) > 50:
                return False
            seen.add(n)
            return all(isinstance(b, ast.Name) and plain_class(b.id, seen) for b in node.bases)

        func = once(name)
        if not isinstance(func, ast.FunctionDef):
            return False
        skip = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        stack = list(ast.iter_child_nodes(func))
        returns = []
        while stack:
            n = stack.pop()
            if isinstance(n, skip):
                continue
            if isinstance(n, (ast.Yield, ast.YieldFrom)):
                return True
            if isinstance(n, ast.Return):
                returns.append(n.value)
            stack.extend(ast.iter_child_nodes(n))
        for v in returns:
            if v is None or isinstance(v, ast.Constant):
                continue
            if not isinstance(v, ast.Call):
                return True
            if isinstance(v.func, ast.Name) and plain_class(v.func.id, set()):
                return True
        return False

    def _class(self, dotted: str) -> str:
        kind, node = self.locate(dotted)
        if kind == "mindspore":
            return _mindspore_class(node)
        if kind == "stdlib":
            return "not-cell"
        if kind != "class":
            return "not-cell" if kind in ("function", "module") else "unknown"
        qname = node.qname()
        got = self._classes.get(qname)
        if got is not None:
            self._touched |= got[1]
            return got[0]
        if qname in self._visiting:
            return "unknown"   # a cycle of bases
        self._visiting.add(qname)
        outer, self._touched = self._touched, set()
        try:
            result = self._bases(node)
            self._classes[qname] = (result, frozenset(self._touched))
            return result
        finally:
            self._visiting.discard(qname)
            self._touched |= outer

    def _bases(self, node) -> str:
        unknown = False
        for base in node.bases:
            try:
                target = self.dotted(base)
                got = self._class(target) if target is not None else "unknown"
            except _Budget:
                raise
            except _Unknown:
                got = "unknown"
            if got == "cell":
                return "cell"
            unknown = unknown or got == "unknown"
        return "unknown" if unknown else "not-cell"

    def _call(self, dotted: str, depth: int) -> str:
        kind, node = self.locate(dotted)
        if kind == "mindspore":
            return _mindspore_call(node)
        if kind == "class":
            return "cell" if self._class(dotted) == "cell" else "unknown"
        if kind != "function" or depth > 2:
            return "unknown"
        return self._returns(node, depth)

    def _returns(self, func, depth: int) -> str:
        """What every ``return`` of ``func`` gives, judged cheaply (see the module doc)."""
        from astroid import nodes
        skip = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.ClassDef, nodes.Lambda)
        if any(True for _ in func.nodes_of_class((nodes.Yield, nodes.YieldFrom), skip_klass=skip)):
            return "unknown"
        kinds = set()
        for ret in func.nodes_of_class(nodes.Return, skip_klass=skip):
            kinds.add(self._expr(ret.value, depth))
            if len(kinds) > 1 or "unknown" in kinds:
                return "unknown"
        return kinds.pop() if kinds else "none"

    def _expr(self, value, depth: int) -> str:
        from astroid import nodes
        if value is None:
            return "none"
        if isinstance(value, nodes.Const):
            return "none" if value.value is None else "const"
        if isinstance(value, nodes.Call):
            if isinstance(value.func, nodes.Call):   # ops.MatMul()(a, b)
                inner = self.dotted(value.func.func)
                return "tensor" if inner and inner.startswith("mindspore.") and _mindspore_class_kind(inner) == "primitive" \
                    else "unknown"
            target = self.dotted(value.func)
            if target is None or target.startswith("builtins."):
                return "unknown"
            try:
                return self._call(target, depth + 1)
            except _Budget:
                raise
            except _Unknown:
                return "unknown"
        return "unknown"

    # the answer store ---------------------------------------------------------------------
    def _lookup_stored(self, pkg_key: str, key: str) -> Optional[str]:
        with _LOCK:
            got = _ANSWERS.get(pkg_key, {}).get(key)
            if got is not None:
                return got
            if self._stored is None:
                self._stored = _read_store(self.store) if self.store else {}
                for pk, table in self._stored.items():
                    _ANSWERS.setdefault(pk, {}).update(table)
            return _ANSWERS.get(pkg_key, {}).get(key)

    def _remember(self, pkg_key: str, key: str, result: str) -> None:
        with _LOCK:
            _ANSWERS.setdefault(pkg_key, {})[key] = result
            if self.store:
                self._new.setdefault(pkg_key, {})[key] = result
                _write_store(self.store, self._new)

    def __getstate__(self):   # sent to --jobs workers: where to look, not what was read
        return {"search_path": self.search_path, "store": self.store}

    def __setstate__(self, state) -> None:
        self.__init__(state["search_path"], state["store"])


def _binding(bound: list):
    """The binding of a name that counts: the last one, not counting fallbacks in an
    ``except`` handler nor ``X = None`` placeholders when there is another."""
    from astroid import nodes

    def fallback(n) -> bool:
        if isinstance(n, nodes.AssignName) and isinstance(n.parent, nodes.Assign) \
                and isinstance(n.parent.value, nodes.Const):
            return True
        p = n.parent
        while p is not None and not isinstance(p, (nodes.Module, nodes.ClassDef, nodes.FunctionDef)):
            if isinstance(p, nodes.ExceptHandler):
                return True
            p = p.parent
        return False
    main = [n for n in bound if not fallback(n)]
    return (main or bound)[-1]


def _node_kind(node) -> str:
    from astroid import nodes
    if isinstance(node, nodes.ClassDef):
        return "class"
    if isinstance(node, (nodes.FunctionDef, nodes.AsyncFunctionDef)):
        return "function"
    return "other"


def _canonical(dotted: str) -> str:
    try:
        from ..infer.catalog import get_catalog
        return get_catalog().canonical(dotted) or dotted
    except Exception:  # noqa: BLE001 - catalog unavailable
        return dotted


def _mindspore_class_kind(dotted: str) -> Optional[str]:
    try:
        from ..infer.catalog import get_catalog
        return get_catalog().class_kind(_canonical(dotted))
    except Exception:  # noqa: BLE001
        return None


def _mindspore_class(dotted: str) -> str:
    from ..infer.catalog import is_mindspore_cell_name
    canon = _canonical(dotted)
    if is_mindspore_cell_name(canon):
        return "cell"
    return "not-cell" if _mindspore_class_kind(canon) is not None else "unknown"


def _mindspore_call(dotted: str) -> str:
    canon = _canonical(dotted)
    if canon in ("mindspore.Tensor", "mindspore.tensor"):
        return "tensor"
    kind = _mindspore_class_kind(canon)
    if kind in ("cell", "container"):
        return "cell"
    if kind is not None:
        return "unknown"
    try:
        from ..infer.catalog import get_catalog
        ret = get_catalog().function_returns(canon)
    except Exception:  # noqa: BLE001
        return "unknown"
    return ret if ret in ("tensor", "const", "none", "host") else "unknown"


# the store ----------------------------------------------------------------------------------

def _read_store(path: str) -> Dict[str, Dict[str, str]]:
    """``installed.json``: only well-formed entries count (anything else is ignored)."""
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_STORE_BYTES + 1)
        data = json.loads(blob.decode("utf-8")) if len(blob) <= MAX_STORE_BYTES else None
    except (OSError, ValueError):
        return {}
    out: Dict[str, Dict[str, str]] = {}
    if isinstance(data, dict):
        for pk, table in data.items():
            if isinstance(pk, str) and "==" in pk and isinstance(table, dict):
                good = {k: v for k, v in table.items() if isinstance(k, str) and v in ANSWERS}
                if good:
                    out[pk] = good
    return out


def _write_store(path: str, new: Dict[str, Dict[str, str]]) -> None:
    """Merge ``new`` into the store (``cache.replace_file``: a failure is only slower)."""
    from ..cache.store import replace_file
    directory = os.path.dirname(path)
    if not os.path.isdir(os.path.dirname(directory)):
        return   # the cache folder itself is not there (the result cache creates and marks it)
    data = _read_store(path)
    for pk, table in new.items():
        data.setdefault(pk, {}).update(table)
    try:
        replace_file(path, json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8"),
                     prefix=".tmp-installed-")
    except OSError as exc:
        log.debug("installed packages: cannot write %s (%s)", path, exc)


# what the rest of msgraphlint calls -----------------------------------------------------------

class Installed:
    """The environments of a run's files (``index.installed``): each file's ``python``
    setting (None: the interpreter running msgraphlint) and the result cache it writes the
    answer store into."""

    def __init__(self, default: Optional[str] = None, by_path: Optional[Dict[str, Optional[str]]] = None,
                 store: Optional[str] = None) -> None:
        self.default = default
        self.by_path = dict(by_path or {})
        self.store = store
        self.tops: Dict[str, frozenset] = {}   # module -> installed top-level names it imports (cache keys)

    def env(self, path: Optional[str] = None) -> Environment:
        python = self.by_path.get(os.path.abspath(path), self.default) if path and self.by_path else self.default
        return environment(python, self.store)


def environment(python: Optional[str] = None, store: Optional[str] = None) -> Environment:
    """This run's Environment for ``python`` (None: the running interpreter's sys.path)."""
    key = (python, store)
    with _LOCK:
        env = _ENVS.get(key)
    if env is None:
        search = environment_search_path(python) if python else [p for p in sys.path if p and os.path.isabs(p)]
        env = Environment(search, store)
        with _LOCK:
            env = _ENVS.setdefault(key, env)
    return env


def attach(index, perfile) -> None:
    """Give a run's project index the environments of its files (their ``python``
    settings) and the answer store of its result cache."""
    def python_of(settings) -> Optional[str]:
        p = getattr(settings.config, "python", None)
        if not p:
            return None
        p = os.path.expanduser(p)
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(settings.config.root, p))
    cache = getattr(perfile, "default_cache", None) or next(
        (c for c in getattr(perfile, "caches", {}).values() if c is not None), None)
    store = os.path.join(cache.dir, STORE_NAME) if cache is not None and getattr(cache, "dir", None) else None
    by_path = {os.path.abspath(p): python_of(s) for p, s in perfile.by_path.items()}
    default = python_of(perfile.default)
    if all(v == default for v in by_path.values()):
        by_path = {}
    index.installed = Installed(default, by_path, store)


def _installed(index) -> Installed:
    got = getattr(index, "installed", None)
    if got is None:
        got = Installed()
        try:
            index.installed = got
        except AttributeError:
            pass
    return got


def _project_target(index, dotted: str) -> Optional[str]:
    """``dotted`` with the linted project's re-exports followed (``from mindformers import
    PreTrainedModel`` in the project's ``__init__.py``): the name outside the project it
    stands for, None when it stays inside the project (or mindspore)."""
    for _ in range(8):
        if dotted.startswith("mindspore") and dotted.split(".")[0] == "mindspore":
            return None
        parts = dotted.split(".")
        if index.resolve(parts[0]) is None:
            return dotted
        for cut in range(len(parts) - 1, 0, -1):
            res = index.resolve(".".join(parts[:cut]))
            if res is not None and res[0] == "module":
                target = res[1].imports.names.get(parts[cut])
                if not target or target == dotted:
                    return None
                dotted = ".".join([target] + parts[cut + 1:])
                break
        else:
            return None
    return None


def _asked(index, dotted: str, path: Optional[str], what: str) -> str:
    try:
        target = _project_target(index, dotted)
        if target is None or target.split(".")[0] in _STDLIB:
            return "unknown"
        return _installed(index).env(path).answer(target, what)
    except Exception as exc:  # noqa: BLE001 - never an error of the run
        log.info("installed packages: %s: %s: %s", dotted, type(exc).__name__, exc)
        return "unknown"


def _module_path(index, qualname: str) -> Optional[str]:
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        mod = index.modules.get(".".join(parts[:cut]))
        if mod is not None:
            return mod.path
    return None


def is_cell(index, dotted: str, owner: Optional[str] = None) -> bool:
    """Whether the base class ``dotted`` (not resolved in the project) is an installed
    Cell; ``owner``: the qualname of the project class naming it (its file's ``python``)."""
    inst = _installed(index)
    path = _module_path(index, owner) if owner and inst.by_path else None
    return _asked(index, dotted, path, "class") == "cell"


def call_kind(index, dotted: str, path: Optional[str] = None):
    """The kind of ``dotted(...)`` for an installed class or function: Kind.CELL for a Cell,
    the return kind of a function where cheap, Kind.UNKNOWN otherwise."""
    from ..kinds import Kind
    got = _asked(index, dotted, path, "call")
    return {"cell": Kind.CELL, "tensor": Kind.TENSOR, "const": Kind.CONST, "none": Kind.NONE,
            "host": Kind.HOST}.get(got, Kind.UNKNOWN)


def deps_key(index, modules: Iterable[Any], path: Optional[str] = None) -> List[str]:
    """``package==version`` of every installed package the modules import (``==absent``
    for one that is not installed: installing it re-lints), for result-cache keys."""
    inst = _installed(index)
    tops: Set[str] = set()
    for mod in modules:
        got = inst.tops.get(mod.name)
        if got is None:
            got = inst.tops[mod.name] = frozenset(
                t for t in {d.split(".")[0] for d in mod.imports.names.values()}
                if t and t not in _STDLIB and t not in _REFUSED and index.resolve(t) is None)
        tops |= got
    if not tops:
        return []
    try:
        env = inst.env(path)
        return sorted(env.package_key(t) for t in tops)
    except Exception as exc:  # noqa: BLE001
        log.info("installed packages: no versions (%s)", exc)
        return []
