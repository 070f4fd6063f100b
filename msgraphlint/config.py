"""``[tool.msgraphlint]`` in ``pyproject.toml``: found by walking up from the linted
path (or given with ``--config``), validated strictly: an unknown key or rule
code is an error that names it."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_TARGET = "2.10"
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
                   ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", "site-packages",
                   ".eggs", "*.egg-info", ".msgraphlint_cache")

KNOWN_KEYS = {
    "select": list, "extend-select": list, "ignore": list, "extend-ignore": list,
    "per-file-ignores": dict, "exclude": list, "extend-exclude": list,
    "target-mindspore": str, "respect-gitignore": bool, "cell-bases": list,
    "rules": dict, "cache-dir": str, "baseline": str,
}


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
    target_mindspore: str = DEFAULT_TARGET
    respect_gitignore: bool = True
    cell_bases: List[str] = field(default_factory=list)
    rule_options: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    cache_dir: Optional[str] = None
    baseline: Optional[str] = None
    path: Optional[str] = None   # the pyproject.toml it came from
    root: str = "."              # directory paths in the config are relative to

    def all_excludes(self) -> List[str]:
        return list(self.exclude) + list(self.extend_exclude)


def find_pyproject(start: str) -> Optional[str]:
    path = os.path.abspath(start)
    if os.path.isfile(path):
        path = os.path.dirname(path)
    while True:
        cand = os.path.join(path, "pyproject.toml")
        if os.path.isfile(cand):
            try:
                with open(cand, "rb") as fh:
                    data = tomllib.load(fh)
            except (OSError, tomllib.TOMLDecodeError):
                data = {}
            if "msgraphlint" in data.get("tool", {}):
                return cand
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _check_type(key: str, value: Any, want: type, where: str) -> None:
    if not isinstance(value, want) or (want is list and not all(isinstance(v, str) for v in value)):
        kind = {list: "a list of strings", dict: "a table", str: "a string", bool: "true or false"}[want]
        raise ConfigError(f"{where}: `{key}` must be {kind}, not {value!r}")


def load_config(config_file: Optional[str] = None, start: str = ".") -> Config:
    path = config_file or find_pyproject(start)
    if path is None:
        return Config(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
    if not os.path.isfile(path):
        raise ConfigError(f"config file not found: {path}")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    section = data.get("tool", {}).get("msgraphlint")
    if section is None:
        if path.endswith("pyproject.toml"):
            section = {}
        else:  # a dedicated msgraphlint.toml holds the keys at top level
            section = data
    return parse_section(section, path)


def parse_section(section: Dict[str, Any], path: str = "<config>") -> Config:
    where = f"{path} [tool.msgraphlint]"
    cfg = Config(path=path, root=os.path.dirname(os.path.abspath(path)))
    for key, value in section.items():
        if key not in KNOWN_KEYS:
            close = [k for k in KNOWN_KEYS if k.replace("-", "") == key.replace("_", "").replace("-", "")]
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigError(f"{where}: unknown key `{key}`{hint}")
        _check_type(key, value, KNOWN_KEYS[key], where)
    cfg.select = [s.upper() if "-" not in s else s for s in section.get("select", cfg.select)]
    cfg.extend_select = list(section.get("extend-select", []))
    cfg.ignore = list(section.get("ignore", [])) + list(section.get("extend-ignore", []))
    pfi = section.get("per-file-ignores", {})
    for glob, codes in pfi.items():
        _check_type(f"per-file-ignores.{glob}", codes, list, where)
    cfg.per_file_ignores = {k: list(v) for k, v in pfi.items()}
    if "exclude" in section:
        cfg.exclude = list(section["exclude"])
    cfg.extend_exclude = list(section.get("extend-exclude", []))
    cfg.target_mindspore = section.get("target-mindspore", DEFAULT_TARGET)
    cfg.respect_gitignore = section.get("respect-gitignore", True)
    cfg.cell_bases = list(section.get("cell-bases", []))
    cfg.cache_dir = section.get("cache-dir")
    cfg.baseline = section.get("baseline")
    for rule_key, opts in section.get("rules", {}).items():
        if not isinstance(opts, dict):
            raise ConfigError(f"{where}: `rules.{rule_key}` must be a table of options")
        cfg.rule_options[rule_key] = dict(opts)
    validate_version(cfg.target_mindspore, f"{where}: `target-mindspore`")
    return cfg


def validate_version(text: str, where: str) -> None:
    from packaging.version import InvalidVersion, Version
    try:
        Version(text)
    except InvalidVersion:
        raise ConfigError(f"{where}: {text!r} is not a version such as 2.10") from None


def validate_against_rules(cfg: Config, rules: Dict[str, Any]) -> None:
    """Unknown rule codes / names / options are errors that name themselves."""
    from .registry import resolve_selector, unknown_selectors

    where = f"{cfg.path or 'command line'}"
    for key, items in (("select", cfg.select), ("extend-select", cfg.extend_select), ("ignore", cfg.ignore)):
        bad = unknown_selectors([resolve_selector(i) for i in items], rules)
        if bad:
            raise ConfigError(f"{where}: `{key}` names unknown rule code(s): {', '.join(bad)}")
    for glob, codes in cfg.per_file_ignores.items():
        bad = unknown_selectors([resolve_selector(c) for c in codes], rules)
        if bad:
            raise ConfigError(f"{where}: `per-file-ignores` entry {glob!r} names unknown rule code(s): {', '.join(bad)}")
    by_name = {r.name: r for r in rules.values()}
    for key, opts in cfg.rule_options.items():
        rule = rules.get(key.upper()) or by_name.get(key)
        if rule is None:
            raise ConfigError(f"{where}: `rules.{key}` is not a known rule code or name")
        for opt in opts:
            if opt not in rule.options:
                known = ", ".join(sorted(rule.options)) or "none"
                raise ConfigError(f"{where}: `rules.{key}.{opt}` is not an option of {rule.code} ({rule.name}); known options: {known}")
