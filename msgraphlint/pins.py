"""The MindSpore version a project runs on, read from the project: what ``target-mindspore``
defaults to (issue 23, item 2), as ruff infers ``target-version`` from ``requires-python``.

Order: ``target-mindspore`` where it is set (a configuration file, ``--config``,
``--target-mindspore``); else the project's pin (:func:`find_pin`): ``pyproject.toml``
``[project] dependencies`` and ``optional-dependencies``, ``setup.cfg`` ``install_requires``
and ``extras_require``, ``setup.py``'s ``install_requires``/``extras_require`` literals,
``requirements*.txt``, ``environment.yml``; a range takes its lowest allowed version
(:func:`lowest_allowed`); else the MindSpore installed in the environment the ``python``
setting names (its ``mindspore-<version>.dist-info``); else the newest release the catalog
knows. Nothing is executed: ``setup.py`` is parsed with ``ast``, the ``python`` setting's
environment is read from its layout (``installed.environment_search_path``).

The pin is looked for in the folder of the configuration file in use (or of the linted
path when there is none) and the folders above it, up to the repository root (the first
folder holding ``.git``); the nearest folder with a MindSpore requirement wins.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

__all__ = ["Pin", "Target", "find_pin", "installed_mindspore", "lowest_allowed", "resolve_target",
           "target_warning"]

MAX_FILE_BYTES = 10 * 2**20   # as config.MAX_CONFIG_BYTES: a bigger file is not read
# the distributions that install the `mindspore` package (1.x shipped per-device ones)
MINDSPORE_DISTS = ("mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-cpu", "mindspore-dev")
_WHEEL_VERSION = re.compile(r"(?:^|/)mindspore(?:[-_](?:gpu|ascend|cpu|dev))?-(\d+(?:\.\d+)*[\w.]*?)-[^/]*\.whl$", re.I)


@dataclass(frozen=True)
class Pin:
    version: str       # the lowest version the requirement allows ("2.8" for `mindspore>=2.8,<2.9`)
    requirement: str   # as written
    path: str
    line: Optional[int] = None

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"the pin `{self.requirement}` in {where}"


@dataclass(frozen=True)
class Target:
    version: str       # what target-mindspore is
    source: str        # where it comes from, in words (--show-settings)


# --------------------------------------------------------------------------- requirements
def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lowest_allowed(spec: str, known: Sequence[str] = ()) -> Optional[str]:
    """The lowest version a specifier allows: its own lower bounds (``>=``, ``~=``, ``==``,
    ``===``; ``==2.7.*`` is 2.7) and the ``known`` releases, the lowest that the whole
    specifier accepts (``>2.7.0`` -> the lowest known release above 2.7.0; ``<2.9`` -> the
    oldest known). When none is accepted, the highest of its own bounds (``>=3.0`` -> 3.0);
    None for an empty or unreadable specifier."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version
    try:
        specs = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    if not len(specs):
        return None
    bounds = []
    for s in specs:
        if s.operator in ("==", "===", ">=", "~="):
            text = s.version[:-2] if s.version.endswith(".*") else s.version
            try:
                Version(text)
            except InvalidVersion:
                continue
            bounds.append(text)
    allowed = [v for v in bounds + list(known) if specs.contains(v, prereleases=True)]
    if allowed:
        return min(allowed, key=Version)
    return max(bounds, key=Version) if bounds else None


_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)$")


def _requirement(text: str) -> Optional[Tuple[str, str]]:
    """(lowest allowed version, the requirement as written) when ``text`` is a MindSpore
    requirement with a version (a PEP 508 specifier, or a wheel URL naming one); else None.
    Read with a regular expression and ``packaging.specifiers`` (``packaging.requirements``
    costs more to import than the whole search)."""
    text = text.strip()
    if "mindspore" not in text.lower():
        return None
    head = text.split(";", 1)[0].strip()
    wheel = _WHEEL_VERSION.search(head.split("#", 1)[0].strip())
    m = _REQ.match(head)
    if m is None or _norm(m.group(1)) not in MINDSPORE_DISTS:  # a bare wheel URL or path
        is_path = "://" in head or head.startswith(("./", "../", "/"))
        return (wheel.group(1).rstrip("."), text) if wheel and is_path else None
    rest = m.group(2).strip()
    if rest.startswith("@"):  # a direct reference: the version a wheel's name gives
        return (wheel.group(1).rstrip("."), text) if wheel else None
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    from .infer.catalog import known_versions
    low = lowest_allowed(rest, known_versions())
    return (low, text) if low else None


def _conda_requirement(text: str) -> Optional[Tuple[str, str]]:
    """A conda MatchSpec (``mindspore=2.7.0``, ``conda-forge::mindspore=2.7=py311_0``,
    ``mindspore 2.7.*``, ``mindspore>=2.7``) read as a pip requirement: a bare version, or
    one after a single ``=``, is conda's prefix match (``=2.7`` is 2.7.*)."""
    spec = text.split("::", 1)[-1].strip()
    m = re.match(r"^([A-Za-z0-9_.-]+)\s*(.*)$", spec)
    if not m or _norm(m.group(1)) not in MINDSPORE_DISTS or not m.group(2).strip():
        return None
    rest = m.group(2).strip()
    bare = re.match(r"^=?\s*(\d[\w.]*?)(\.\*|\*)?(?:[=\s].*)?$", rest)
    if bare and not rest.startswith("=="):
        rest = f"=={bare.group(1)}.*"
    got = _requirement(f"mindspore{rest}")
    return (got[0], text.strip()) if got else None


# --------------------------------------------------------------------------- the files
def _read_text(path: str) -> Optional[str]:
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _line_of(text: str, needle: str) -> Optional[int]:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    return None


def _pyproject(path: str) -> Iterator[Tuple[str, Optional[int]]]:
    try:
        import tomllib
    except ImportError:  # Python 3.10: the tomli backport, a dependency there (pyproject.toml)
        import tomli as tomllib  # type: ignore[no-redef]
    text = _read_text(path)
    if text is None:
        return
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return
    project = data.get("project")
    if not isinstance(project, dict):
        return
    groups: List[object] = [project.get("dependencies")]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        groups.extend(optional.values())
    for group in groups:
        if isinstance(group, list):
            for item in group:
                if isinstance(item, str):
                    yield item, _line_of(text, item)


def _requirements_txt(path: str) -> Iterator[Tuple[str, Optional[int]]]:
    text = _read_text(path)
    if text is None:
        return
    pending, start = "", None
    for i, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if start is None:
            start = i
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = (pending + line).strip(), ""
        first, start = start, None
        if line and not line.startswith("-"):
            yield line, first


def _setup_cfg(path: str) -> Iterator[Tuple[str, Optional[int]]]:
    text = _read_text(path)
    if text is None:
        return
    import configparser  # (only a project with a setup.cfg pays for it)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    values = []
    if parser.has_option("options", "install_requires"):
        values.append(parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        values.extend(v for _, v in parser.items("options.extras_require"))
    for value in values:
        for item in value.splitlines():
            item = item.strip()
            if item and not item.startswith("#"):
                yield item, _line_of(text, item)


def _setup_py(path: str) -> Iterator[Tuple[str, Optional[int]]]:
    """``install_requires``/``extras_require`` of the ``setup(...)`` call, where they are
    literals or names bound to literals at module level (the file is parsed, never run)."""
    text = _read_text(path)
    if text is None:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    bound = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound[node.targets[0].id] = node.value

    def strings(value: ast.AST, depth: int = 0) -> Iterator[ast.Constant]:
        if isinstance(value, ast.Name) and depth < 3 and value.id in bound:
            yield from strings(bound[value.id], depth + 1)
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            for e in value.elts:
                yield from strings(e, depth)
        elif isinstance(value, ast.Dict):
            for v in value.values:
                yield from strings(v, depth)
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            yield value

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name != "setup":
            continue
        for kw in node.keywords:
            if kw.arg in ("install_requires", "extras_require"):
                for c in strings(kw.value):
                    for item in c.value.splitlines():
                        if item.strip():
                            yield item.strip(), c.lineno


def _environment_yml(path: str) -> Iterator[Tuple[str, Optional[int], bool]]:
    """(spec, line, is_conda) of each ``- item`` of the file (conda specs, and pip ones
    under ``- pip:``)."""
    text = _read_text(path)
    if text is None:
        return
    pip_indent: Optional[int] = None
    for i, raw in enumerate(text.splitlines(), 1):
        m = re.match(r"^(\s*)-\s+(.*?)\s*(?:#.*)?$", raw)
        if not m:
            continue
        indent, item = len(m.group(1)), m.group(2).strip("'\"")
        if pip_indent is not None and indent <= pip_indent:
            pip_indent = None
        if item.rstrip(":") == "pip" and item.endswith(":"):
            pip_indent = indent
            continue
        yield item, i, pip_indent is None


def pin_in(directory: str) -> Optional[Pin]:
    """The first MindSpore requirement with a version among the project files of one folder."""
    def found(text: str, line: Optional[int], path: str, conda: bool = False) -> Optional[Pin]:
        got = _conda_requirement(text) if conda else _requirement(text)
        return Pin(got[0], got[1], path, line) if got else None

    try:
        names = set(os.listdir(directory))
    except OSError:
        return None
    for name, reader in (("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("setup.py", _setup_py)):
        if name in names:
            path = os.path.join(directory, name)
            for text, line in reader(path):
                pin = found(text, line, path)
                if pin:
                    return pin
    reqs = sorted((n for n in names if n.startswith("requirements") and n.endswith(".txt")),
                  key=lambda n: (n != "requirements.txt", n))
    for name in reqs:
        path = os.path.join(directory, name)
        for text, line in _requirements_txt(path):
            pin = found(text, line, path)
            if pin:
                return pin
    for name in ("environment.yml", "environment.yaml"):
        if name in names:
            path = os.path.join(directory, name)
            for text, line, conda in _environment_yml(path):
                pin = found(text, line, path, conda)
                if pin:
                    return pin
    return None


def find_pin(start: str) -> Optional[Pin]:
    """The project's MindSpore pin: the nearest folder at or above ``start`` (a file or a
    folder) with one, up to the repository root (a folder holding ``.git``)."""
    path = os.path.abspath(start)
    if not os.path.isdir(path):
        path = os.path.dirname(path)
    while True:
        pin = pin_in(path)
        if pin is not None:
            return pin
        parent = os.path.dirname(path)
        if parent == path or os.path.exists(os.path.join(path, ".git")):
            return None
        path = parent


# --------------------------------------------------------------------------- installed
def installed_mindspore(search_path: Iterable[str]) -> Optional[Tuple[str, str]]:
    """(version, dist-info folder) of the first MindSpore distribution on ``search_path``."""
    for folder in search_path:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            m = re.match(r"^(mindspore(?:[-_](?:gpu|ascend|cpu|dev))?)-(\d[^-]*)\.dist-info$", name, re.I)
            if m and _norm(m.group(1)) in MINDSPORE_DISTS:
                return m.group(2), os.path.join(folder, name)
    return None


# --------------------------------------------------------------------------- the target
def resolve_target(start: str, python: Optional[str] = None) -> Optional[Target]:
    """The target when ``target-mindspore`` is not set: the project's pin, else the
    MindSpore of the ``python`` setting's environment; None: neither (the newest known)."""
    pin = find_pin(start)
    if pin is not None:
        return Target(_spelled(pin.version), pin.describe())
    if python:
        from .project.installed import environment_search_path
        got = installed_mindspore(environment_search_path(python))
        if got is not None:
            return Target(_spelled(got[0]), f"MindSpore installed for the `python` setting ({got[1]})")
    return None


def _spelled(version: str) -> str:
    """A known release as the catalog spells it (``2.8`` -> ``2.8.0``), else as written."""
    from .infer.catalog import nearest_version
    known, exact = nearest_version(version)
    return known if exact else version


def target_warning(target: str) -> Optional[str]:
    """One line when ``target`` has no catalog of its own: which release lints it instead."""
    from .infer.catalog import known_versions, nearest_version
    known, exact = nearest_version(target)
    if exact:
        return None
    versions = known_versions()
    return (f"target-mindspore {target}: msgraphlint has no knowledge of MindSpore {target} (it knows "
            f"{versions[0]} to {versions[-1]}); linting with the nearest known release, {known}")
