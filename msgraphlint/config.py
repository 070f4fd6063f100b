"""Configuration: ``[tool.msgraphlint]`` in ``pyproject.toml``, or a ``msgraphlint.toml`` /
``.msgraphlint.toml`` holding the same keys at top level.

Resolution is hierarchical, as ruff does it: each file uses the closest configuration
file above it (:func:`find_config_file`), unless ``--config FILE`` names one for all
files. ``extend = "../pyproject.toml"`` inherits from another file, and ``--config
KEY=VALUE`` overrides one setting on top of whichever file applies.
:func:`resolve_config` is the one function the command line and the language
server both call.

Validation is strict: an unreadable or invalid file, an unknown key, a value of the
wrong type, an unknown rule code or rule option is a :class:`ConfigError` whose
message names the key and the file.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_TARGET = "2.10"
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
                   ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", "site-packages",
                   ".eggs", "*.egg-info", ".msgraphlint_cache")

DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")  # ruff's default `include` (YAML run configs are found apart)

# in one directory, the first of these that exists wins (pyproject.toml only with a [tool.msgraphlint] table)
CONFIG_FILES = (".msgraphlint.toml", "msgraphlint.toml", "pyproject.toml")

KNOWN_KEYS = {
    "extend": str,
    "select": list, "extend-select": list, "ignore": list, "extend-ignore": list,
    "per-file-ignores": dict, "exclude": list, "extend-exclude": list, "include": list, "extend-include": list,
    "target-mindspore": str, "respect-gitignore": bool, "cell-bases": list,
    "rules": dict, "cache-dir": str, "baseline": str, "python": str,
}
SELECTOR_KEYS = ("select", "extend-select", "ignore", "extend-ignore")
# keys whose list values accumulate across `extend` (the others: the extending file wins)
ACCUMULATING_KEYS = ("extend-select", "extend-ignore", "extend-exclude", "extend-include")
# keys holding paths, resolved against the directory of the file that sets them
PATH_KEYS = ("cache-dir", "baseline", "python")


class ConfigError(Exception):
    """A configuration problem; the message names the key, value or file."""


@dataclass
class Config:
    # "DEFAULT": the rules that are on by default (registry.DEFAULT_SELECTOR; informational
    # rules are off until selected by code or with "ALL")
    select: List[str] = field(default_factory=lambda: ["DEFAULT"])
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    exclude: List[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: List[str] = field(default_factory=list)
    # the files a directory walk lints (ruff's `include`/`extend-include`; YAML run configs apart)
    include: List[str] = field(default_factory=lambda: list(DEFAULT_INCLUDE))
    extend_include: List[str] = field(default_factory=list)
    target_mindspore: str = DEFAULT_TARGET
    target_source: str = "the default: the newest release msgraphlint knows (no pin found)"  # pins.py
    respect_gitignore: bool = True
    cell_bases: List[str] = field(default_factory=list)
    rule_options: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    cache_dir: Optional[str] = None
    baseline: Optional[str] = None
    python: Optional[str] = None  # the project's environment: installed packages are read from its layout, never run
    path: Optional[str] = None   # the configuration file it came from (None: defaults)
    root: str = "."              # directory paths in the config are relative to
    extends: List[str] = field(default_factory=list)      # files inherited through `extend`, nearest first
    overrides: Dict[str, Any] = field(default_factory=dict)  # --config KEY=VALUE settings applied on top

    def all_excludes(self) -> List[str]:
        return list(self.exclude) + list(self.extend_exclude)

    def all_includes(self) -> List[str]:
        return list(self.include) + list(self.extend_include)

    def describe(self) -> Dict[str, Any]:
        """The resolved settings as plain data (``--show-settings``)."""
        return {
            "config-file": self.path, "extends": list(self.extends), "root": self.root,
            "overrides": dict(self.overrides),
            "select": list(self.select), "extend-select": list(self.extend_select), "ignore": list(self.ignore),
            "per-file-ignores": {k: list(v) for k, v in self.per_file_ignores.items()},
            "exclude": list(self.exclude), "extend-exclude": list(self.extend_exclude),
            "include": list(self.include), "extend-include": list(self.extend_include),
            "target-mindspore": self.target_mindspore, "target-mindspore-from": self.target_source,
            "respect-gitignore": self.respect_gitignore,
            "cell-bases": list(self.cell_bases), "rules": {k: dict(v) for k, v in self.rule_options.items()},
            "cache-dir": self.cache_dir, "baseline": self.baseline, "python": self.python,
        }


# reading files -------------------------------------------------------------------

MAX_CONFIG_BYTES = 10 * 2**20  # a configuration file (or .gitignore) over this is refused unread


def size_limit_text() -> str:
    """``MAX_CONFIG_BYTES`` as messages say it: "10 MB"."""
    n = MAX_CONFIG_BYTES
    return f"{n // 2**20} MB" if n % 2**20 == 0 else f"{n:,} bytes"


def read_toml(path: str) -> Dict[str, Any]:
    """The parsed TOML document; every failure is a ConfigError naming the file. A file
    over ``MAX_CONFIG_BYTES`` is refused after reading at most that much (an ``extend``
    naming a huge file, or a device, costs no more)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            raw = fh.read(MAX_CONFIG_BYTES + 1) if size <= MAX_CONFIG_BYTES else b""
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: {exc.strerror}") from None
    if size > MAX_CONFIG_BYTES or len(raw) > MAX_CONFIG_BYTES:
        what = f"{size:,} bytes" if size > MAX_CONFIG_BYTES else f"more than {MAX_CONFIG_BYTES:,} bytes"
        raise ConfigError(f"{path}: the configuration file is {what}, over the {size_limit_text()} "
                          "limit; is it the file you meant?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}: {raw[exc.start:exc.start + 1]!r}); "
                          "TOML files must be UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def section_of(data: Dict[str, Any], path: str) -> Optional[Dict[str, Any]]:
    """The msgraphlint table of a parsed file: ``[tool.msgraphlint]`` (any file), or the
    top level of a ``msgraphlint.toml``. None when a pyproject.toml has no such table."""
    tool = data.get("tool")
    if tool is not None and not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, not {tool!r}")
    section = (tool or {}).get("msgraphlint")
    if section is not None and not isinstance(section, dict):
        raise ConfigError(f"{path}: `tool.msgraphlint` must be a table, not {section!r}")
    if section is None and os.path.basename(path) != "pyproject.toml":
        section = {k: v for k, v in data.items() if k != "tool"}
    return section


def find_config_file(start: str) -> Optional[str]:
    """The closest configuration file at or above ``start`` (a file or a directory)."""
    path = os.path.abspath(start)
    if not os.path.isdir(path):
        path = os.path.dirname(path)
    while True:
        for name in CONFIG_FILES:
            cand = os.path.join(path, name)
            if os.path.isfile(cand):
                if name != "pyproject.toml" or section_of(read_toml(cand), cand) is not None:
                    return cand
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


find_pyproject = find_config_file  # the old name


def _where(path: str) -> str:
    return f"{path} [tool.msgraphlint]" if os.path.basename(path) == "pyproject.toml" else path


def _check_type(key: str, value: Any, want: type, where: str) -> None:
    if not isinstance(value, want) or (want is list and not all(isinstance(v, str) for v in value)):
        kind = {list: "a list of strings", dict: "a table", str: "a string", bool: "true or false"}[want]
        raise ConfigError(f"{where}: `{key}` must be {kind}, not {value!r}")
    if key in SELECTOR_KEYS and any(not v.strip() for v in value):
        raise ConfigError(f"{where}: `{key}` holds an empty rule selector {value!r}; "
                          "name rule codes, prefixes or names")


def check_section(section: Dict[str, Any], where: str) -> None:
    for key, value in section.items():
        if key not in KNOWN_KEYS:
            close = [k for k in KNOWN_KEYS if k.replace("-", "") == key.replace("_", "").replace("-", "")]
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigError(f"{where}: unknown key `{key}`{hint}")
        _check_type(key, value, KNOWN_KEYS[key], where)
    if not section.get("python", "-").strip():
        raise ConfigError(f"{where}: `python` must name the project's Python interpreter, not an empty string")
    for glob, codes in section.get("per-file-ignores", {}).items():
        _check_type(f"per-file-ignores.{glob}", codes, list, where)
        if any(not c.strip() for c in codes):
            raise ConfigError(f"{where}: `per-file-ignores.{glob}` holds an empty rule selector")
    for rule_key, opts in section.get("rules", {}).items():
        if not isinstance(opts, dict):
            raise ConfigError(f"{where}: `rules.{rule_key}` must be a table of options, not {opts!r}")


def merge_sections(base: Dict[str, Any], top: Dict[str, Any]) -> Dict[str, Any]:
    """``top`` over ``base``: the ``extend-*`` lists accumulate, ``rules`` merge per rule,
    every other key of ``top`` replaces ``base``'s."""
    out = dict(base)
    for key, value in top.items():
        if key in ACCUMULATING_KEYS and key in out:
            out[key] = list(out[key]) + list(value)
        elif key == "rules" and key in out:
            rules = {k: dict(v) for k, v in out[key].items()}
            for rk, opts in value.items():
                rules.setdefault(rk, {}).update(opts)
            out[key] = rules
        else:
            out[key] = value
    return out


def load_section(path: str, _seen: Tuple[str, ...] = ()) -> Tuple[Dict[str, Any], List[str]]:
    """The settings table of ``path`` with its ``extend`` chain applied, and the chain
    (files inherited from, nearest first)."""
    path = os.path.abspath(path)
    if path in _seen:
        chain = " -> ".join(_seen + (path,))
        raise ConfigError(f"{path}: `extend` forms a cycle: {chain}")
    if not os.path.isfile(path):
        if _seen:
            raise ConfigError(f"{_seen[-1]}: `extend` names a file that does not exist: {path}")
        raise ConfigError(f"config file not found: {path}")
    section = section_of(read_toml(path), path) or {}
    check_section(section, _where(path))
    section = dict(section)
    directory = os.path.dirname(path)
    for key in PATH_KEYS:
        if key in section and not os.path.isabs(section[key]):
            section[key] = os.path.normpath(os.path.join(directory, section[key]))
    parent = section.pop("extend", None)
    if parent is None:
        return section, []
    parent_path = parent if os.path.isabs(parent) else os.path.join(directory, os.path.expanduser(parent))
    base, chain = load_section(os.path.normpath(parent_path), _seen + (path,))
    return merge_sections(base, section), [os.path.normpath(parent_path)] + chain


def parse_overrides(items: Sequence[str]) -> Dict[str, Any]:
    """``--config KEY=VALUE`` items (TOML syntax: ``select=["MSG2"]``) → one settings table."""
    out: Dict[str, Any] = {}
    for item in items:
        try:
            data = tomllib.loads(item)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"--config {item!r}: not a file and not a TOML `KEY = VALUE` pair ({exc})") from None
        tool = data.get("tool")  # accept the spelled-out form tool.msgraphlint.KEY=VALUE
        if isinstance(tool, dict) and isinstance(tool.get("msgraphlint"), dict) and len(data) == 1:
            data = tool["msgraphlint"]
        check_section(data, f"--config {item!r}")
        if "extend" in data:
            raise ConfigError(f"--config {item!r}: `extend` belongs in a configuration file")
        out = merge_sections(out, data)
    return out


def parse_section(section: Dict[str, Any], path: Optional[str] = "<config>",
                  root: Optional[str] = None) -> Config:
    where = _where(path) if path else "settings"
    check_section(section, where)
    cfg = Config(path=path, root=root or (os.path.dirname(os.path.abspath(path)) if path else os.getcwd()))
    cfg.select = [s.upper() if "-" not in s else s for s in section.get("select", cfg.select)]
    cfg.extend_select = list(section.get("extend-select", []))
    cfg.ignore = list(section.get("ignore", [])) + list(section.get("extend-ignore", []))
    cfg.per_file_ignores = {k: list(v) for k, v in section.get("per-file-ignores", {}).items()}
    if "exclude" in section:
        cfg.exclude = list(section["exclude"])
    cfg.extend_exclude = list(section.get("extend-exclude", []))
    if "include" in section:
        cfg.include = list(section["include"])
    cfg.extend_include = list(section.get("extend-include", []))
    cfg.target_mindspore = section.get("target-mindspore", DEFAULT_TARGET)
    if "target-mindspore" in section:
        cfg.target_source = where
    cfg.respect_gitignore = section.get("respect-gitignore", True)
    cfg.cell_bases = list(section.get("cell-bases", []))
    cfg.cache_dir = section.get("cache-dir")
    cfg.baseline = section.get("baseline")
    cfg.python = section.get("python")
    for rule_key, opts in section.get("rules", {}).items():
        cfg.rule_options[rule_key] = dict(opts)
    validate_version(cfg.target_mindspore, f"{where}: `target-mindspore`")
    return cfg


def load_config(config_file: Optional[str] = None, start: str = ".",
                overrides: Optional[Dict[str, Any]] = None) -> Config:
    """The configuration for ``start``: ``config_file`` if given, else the closest file
    above ``start``, else the defaults; ``overrides`` (from ``--config KEY=VALUE``) on top."""
    path = os.path.abspath(config_file) if config_file else find_config_file(start)
    if path is None:
        section: Dict[str, Any] = {}
        chain: List[str] = []
    else:
        section, chain = load_section(path)
    if overrides:
        section = merge_sections(section, overrides)
    cfg = parse_section(section, path, root=None if path else os.getcwd())
    if "target-mindspore" in (overrides or {}):
        cfg.target_source = "--config target-mindspore=..."
    elif "target-mindspore" not in section:  # the project's pin, else its installed MindSpore (pins.py)
        from .pins import resolve_target
        got = resolve_target(os.path.dirname(path) if path else start,
                             os.path.expanduser(cfg.python) if cfg.python else None)
        if got is not None:
            validate_version(got.version, got.source)
            cfg.target_mindspore, cfg.target_source = got.version, got.source
    cfg.extends = chain
    cfg.overrides = dict(overrides or {})
    return cfg


def resolve_config(path: str, config_file: Optional[str] = None,
                   overrides: Optional[Dict[str, Any]] = None) -> Config:
    """The configuration that applies to the file (or directory) ``path``: the one the
    CLI uses for it and the one the language server uses for a buffer at that path."""
    return load_config(config_file, start=path, overrides=overrides)


class ConfigResolver:
    """:func:`resolve_config` for many files, reading each directory and file once."""

    def __init__(self, config_file: Optional[str] = None, overrides: Optional[Dict[str, Any]] = None) -> None:
        self.config_file = os.path.abspath(config_file) if config_file else None
        self.overrides = overrides or {}
        self._file_of_dir: Dict[str, Optional[str]] = {}
        self._configs: Dict[Optional[str], Config] = {}

    def config_file_for(self, path: str) -> Optional[str]:
        if self.config_file:
            return self.config_file
        directory = os.path.abspath(path)
        if not os.path.isdir(directory):
            directory = os.path.dirname(directory)
        if directory not in self._file_of_dir:
            self._file_of_dir[directory] = find_config_file(directory)
        return self._file_of_dir[directory]

    def resolve(self, path: str) -> Config:
        key = self.config_file_for(path)
        if key not in self._configs:
            self._configs[key] = load_config(key, start=path, overrides=self.overrides)
        return self._configs[key]


def validate_version(text: str, where: str) -> None:
    from packaging.version import InvalidVersion, Version
    try:
        Version(text)
    except InvalidVersion:
        raise ConfigError(f"{where}: {text!r} is not a version such as 2.10") from None


_OPTION_KINDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
                 list: "a list", dict: "a table"}


def _option_type_ok(value: Any, want: type) -> bool:
    if want is bool:
        return isinstance(value, bool)
    if want is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if want is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, want)


def validate_against_rules(cfg: Config, rules: Dict[str, Any]) -> None:
    """Unknown rule codes / names / options, and option values of the wrong type, are
    errors that name themselves."""
    from .engine.registry import resolve_selector, unknown_selectors

    file_where = f"{_where(cfg.path) if cfg.path else 'command line'}"
    ov = cfg.overrides or {}

    def blame(said_by_override: bool) -> str:  # the place that said it: --config KEY=VALUE or the file
        return "--config" if said_by_override else file_where

    for key, items in (("select", cfg.select), ("extend-select", cfg.extend_select), ("ignore", cfg.ignore)):
        mine = list(ov.get(key) or []) + (list(ov.get("extend-ignore") or []) if key == "ignore" else [])
        if any(not i.strip() for i in items):
            raise ConfigError(f"{blame(any(not str(i).strip() for i in mine))}: `{key}` holds an empty rule selector")
        bad = unknown_selectors([resolve_selector(i) for i in items], rules)
        if bad:
            by_ov = set(unknown_selectors([resolve_selector(str(i)) for i in mine], rules)) >= set(bad)
            raise ConfigError(f"{blame(by_ov)}: `{key}` names unknown rule code(s): {', '.join(bad)}")
    ov_pfi = ov.get("per-file-ignores") if isinstance(ov.get("per-file-ignores"), dict) else {}
    for glob, codes in cfg.per_file_ignores.items():
        bad = unknown_selectors([resolve_selector(c) for c in codes], rules)
        if bad:
            raise ConfigError(f"{blame(glob in ov_pfi)}: `per-file-ignores` entry {glob!r} names unknown rule "
                              f"code(s): {', '.join(bad)}")
    by_name = {r.name: r for r in rules.values()}
    ov_rules = ov.get("rules") if isinstance(ov.get("rules"), dict) else {}
    for key, opts in cfg.rule_options.items():
        rule = rules.get(key.upper()) or by_name.get(key)
        ov_opts = ov_rules.get(key) if isinstance(ov_rules.get(key), dict) else {}
        if rule is None:
            raise ConfigError(f"{blame(key in ov_rules)}: `rules.{key}` is not a known rule code or name")
        types = getattr(rule, "option_types", {}) or {}
        for opt, value in opts.items():
            where = blame(opt in ov_opts)
            if opt not in rule.options:
                known = ", ".join(sorted(rule.options)) or "none"
                raise ConfigError(f"{where}: `rules.{key}.{opt}` is not an option of {rule.code} ({rule.name}); known options: {known}")
            default = rule.options[opt]
            want = types.get(opt) or (type(default) if default is not None else None)
            if want is not None and not _option_type_ok(value, want):
                raise ConfigError(f"{where}: `rules.{key}.{opt}` must be {_OPTION_KINDS.get(want, want.__name__)}, "
                                  f"not {value!r}")
