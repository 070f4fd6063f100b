"""Rule loading: every rule, built-in or third-party, comes through the
``msgraphlint.rules`` entry-point group.

An entry point names a module or package (all ``Rule`` subclasses with a code
defined in it, and in its submodules for a package, are taken), a module-level
list ``RULES``, or a single ``Rule`` class.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Set, Tuple, Type

from ..rule import Rule

ENTRY_POINT_GROUP = "msgraphlint.rules"
BUILTIN_PACKAGE = "msgraphlint_rules"
_CODE_RE = re.compile(r"^[A-Z]{2,8}[0-9]{3,4}$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class RegistryError(Exception):
    pass


def _rules_in_module(module) -> List[Type[Rule]]:
    if hasattr(module, "RULES"):
        return list(module.RULES)
    found = []
    for _, obj in inspect.getmembers(module, inspect.isclass):
        if issubclass(obj, Rule) and obj is not Rule and obj.code and obj.__module__ == module.__name__:
            found.append(obj)
    return found


def _rules_from(obj) -> List[Type[Rule]]:
    if inspect.isclass(obj) and issubclass(obj, Rule):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [r for r in obj if inspect.isclass(r) and issubclass(r, Rule)]
    if inspect.ismodule(obj):
        rules = _rules_in_module(obj)
        if hasattr(obj, "__path__") and not hasattr(obj, "RULES"):
            for info in sorted(pkgutil.iter_modules(obj.__path__), key=lambda m: m.name):
                if info.name.startswith("_"):
                    continue
                rules.extend(_rules_in_module(importlib.import_module(f"{obj.__name__}.{info.name}")))
        return rules
    raise RegistryError(f"entry point object {obj!r} is not a module, a list of rules or a Rule class")


def _entry_points():
    from importlib.metadata import entry_points
    eps = entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=ENTRY_POINT_GROUP))
    return list(eps.get(ENTRY_POINT_GROUP, []))  # pragma: no cover (Python < 3.10)


def validate(rules: Iterable[Type[Rule]]) -> Dict[str, Type[Rule]]:
    by_code: Dict[str, Type[Rule]] = {}
    names: Dict[str, str] = {}
    for rule in rules:
        where = f"{rule.__module__}.{rule.__qualname__}"
        if not _CODE_RE.match(rule.code or ""):
            raise RegistryError(f"{where}: rule code {rule.code!r} must look like MSG101")
        if not _NAME_RE.match(rule.name or ""):
            raise RegistryError(f"{where}: rule name {rule.name!r} must be kebab-case")
        if rule.scope not in ("graph", "module", "yaml"):
            raise RegistryError(f"{where}: scope must be 'graph', 'module' or 'yaml', not {rule.scope!r}")
        if not rule.summary or not rule.message:
            raise RegistryError(f"{where}: a rule needs a summary and a message")
        other = by_code.get(rule.code)
        if other is not None and other is not rule:
            raise RegistryError(f"rule code {rule.code} is claimed twice: {other.__module__}.{other.__qualname__} and {where}")
        if rule.name in names and names[rule.name] != rule.code:
            raise RegistryError(f"rule name {rule.name!r} is claimed by {names[rule.name]} and {rule.code}")
        by_code[rule.code] = rule
        names[rule.name] = rule.code
    return dict(sorted(by_code.items()))


@lru_cache(maxsize=1)
def load_rules() -> Dict[str, Type[Rule]]:
    """All installed rules by code (cached per process)."""
    collected: List[Type[Rule]] = []
    sources: List[Tuple[str, object]] = []
    eps = _entry_points()
    for ep in eps:
        try:
            obj = ep.load()
        except Exception as exc:
            raise RegistryError(f"cannot load rule plugin {ep.name!r} ({ep.value}): {exc}") from exc
        sources.append((ep.name, obj))
    if not any(getattr(obj, "__name__", "") == BUILTIN_PACKAGE for _, obj in sources):
        # running from a source tree that was never installed: built-ins still load
        sources.append(("builtin", importlib.import_module(BUILTIN_PACKAGE)))
    for _, obj in sources:
        collected.extend(_rules_from(obj))
    return validate(collected)


def find_rule(code_or_name: str) -> Type[Rule]:
    rules = load_rules()
    key = code_or_name.strip()
    if key.upper() in rules:
        return rules[key.upper()]
    for rule in rules.values():
        if rule.name == key:
            return rule
    raise KeyError(code_or_name)


#: the selector a configuration without ``select`` uses: every rule whose ``on_by_default()``
#: is true (ruff's default set); ``ALL`` adds the informational rules.
DEFAULT_SELECTOR = "DEFAULT"
SPECIAL_SELECTORS = ("ALL", DEFAULT_SELECTOR)


def default_codes(rules: Dict[str, Type[Rule]]) -> Set[str]:
    return {code for code, r in rules.items() if r.on_by_default()}


def select_codes(all_codes: Iterable[str], select: Iterable[str], ignore: Iterable[str],
                 defaults: Optional[Iterable[str]] = None) -> List[str]:
    """ruff-style selection: prefixes ('MSG1', 'MSG', 'ALL'); the more specific prefix wins.
    ``DEFAULT`` matches the on-by-default codes (``defaults``; all codes when None)."""
    codes = list(all_codes)
    default_set = set(codes if defaults is None else defaults)

    def matches(code: str, sel: str) -> int:
        if sel == "ALL":
            return 0
        if sel == DEFAULT_SELECTOR:
            return 0 if code in default_set else -1
        return len(sel) if code.startswith(sel) else -1

    out = []
    for code in codes:
        s = max((matches(code, p) for p in select), default=-1)
        i = max((matches(code, p) for p in ignore), default=-1)
        if s >= 0 and s > i:
            out.append(code)
        elif s >= 0 and i < 0:
            out.append(code)
    return out


def unknown_selectors(selectors: Iterable[str], all_codes: Iterable[str]) -> List[str]:
    codes = list(all_codes)
    bad = []
    for sel in selectors:
        if sel in SPECIAL_SELECTORS:
            continue
        if not any(c.startswith(sel) for c in codes):
            bad.append(sel)
    return bad


def resolve_selector(sel: str) -> str:
    """Accept rule names too (``print-in-graph`` → its code)."""
    if _NAME_RE.match(sel) and "-" in sel:
        try:
            return find_rule(sel).code
        except KeyError:
            return sel
    return sel.upper()
