"""Settings: what one file is checked with (the active rules and their options, the target
MindSpore version, budgets), resolved from the closest configuration file and the command
line. The run (runner.py), the caches and the workers consume them; this module imports
none of those, so the settings are below the run in the import graph."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Type

from .run.budget import FILE_CPU_BUDGET_S, FILE_CPU_BUDGET_S_PER_MB
from .config import Config, ConfigError, validate_against_rules, validate_version
from .engine.registry import default_codes, load_rules, resolve_selector, select_codes, unknown_selectors
from .rule import Rule

__all__ = ["Settings", "SettingsResolver", "UsageError", "make_settings", "prepare"]


class UsageError(Exception):
    """Bad paths, options or configuration: exit code 2, message names the culprit."""



@dataclass
class Settings:
    config: Config
    rules: Dict[str, Type[Rule]]                 # active rule classes by code
    instances: List[Rule]
    target: str
    selected: Set[str]
    file_budget: float = FILE_CPU_BUDGET_S       # CPU seconds per file and phase (budget.py) ...
    file_budget_per_mb: float = FILE_CPU_BUDGET_S_PER_MB  # ... plus this per MB of the file

    @property
    def extra_cell_bases(self) -> frozenset:
        return frozenset(self.config.cell_bases)


# resolution ----------------------------------------------------------------------

def _version_applies(spec: str, target: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version
    try:
        return SpecifierSet(spec).contains(Version(target), prereleases=True)
    except InvalidSpecifier:
        return True


def _cli_layer(all_rules, prior: List[str], select: Optional[List[str]], extend_select: List[str],
               ignore: List[str]) -> List[str]:
    """ruff's rule selection with the command line as a layer on top of the configuration:
    ``--select`` starts the selection afresh (the configuration's select and ignore no longer
    apply); ``--extend-select`` and ``--ignore`` add to / remove from what the configuration
    selected, so ``--extend-select MSG101`` re-enables a code the configuration ignores.
    Within the layer the more specific selector wins, as in the configuration."""
    if select is not None:
        return select_codes(all_rules, list(select) + list(extend_select), ignore, default_codes(all_rules))
    if not extend_select and not ignore:
        return prior
    defaults = default_codes(all_rules)
    add = set(select_codes(all_rules, extend_select, [], defaults))
    drop = set(select_codes(all_rules, ignore, [], defaults))
    both = add & drop
    if both:  # one code matched by both: the more specific selector decides (a tie: ignored)
        wins = set(select_codes(sorted(both), extend_select, ignore, defaults))
        add -= both - wins
        drop -= wins
    kept = set(prior) - drop | add
    return [c for c in all_rules if c in kept]


def make_settings(config: Config, select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
                  extend_select: Optional[Iterable[str]] = None, target: Optional[str] = None) -> Settings:
    all_rules = load_rules()
    cli_select = None if select is None else [resolve_selector(s) for s in select]
    cli_extend = [resolve_selector(s) for s in extend_select or ()]
    cli_ignore = [resolve_selector(s) for s in ignore or ()]
    if cli_select is not None and not cli_select:
        raise ConfigError("--select: empty selection: no rule would run (name codes, prefixes or `ALL`)")
    for option, items in (("--select", cli_select or ()), ("--extend-select", cli_extend), ("--ignore", cli_ignore)):
        bad = unknown_selectors(items, all_rules)
        if bad:  # blamed on the option that said it, not on a configuration file
            raise ConfigError(f"{option}: unknown rule code(s): {', '.join(bad)}")
    if target:
        validate_version(target, "--target-mindspore")
        config.target_mindspore = target
        config.target_source = "--target-mindspore"
    validate_against_rules(config, all_rules)
    sel = [resolve_selector(s) for s in config.select + config.extend_select]
    ign = [resolve_selector(s) for s in config.ignore]
    codes = select_codes(all_rules, sel, ign, default_codes(all_rules))
    codes = _cli_layer(all_rules, codes, cli_select, cli_extend, cli_ignore)
    active = {c: all_rules[c] for c in codes if _version_applies(all_rules[c].mindspore, config.target_mindspore)}
    by_name = {r.name: r for r in all_rules.values()}
    options: Dict[str, Dict[str, Any]] = {}
    for key, opts in config.rule_options.items():
        rule = all_rules.get(key.upper()) or by_name.get(key)
        if rule is not None:
            options.setdefault(rule.code, {}).update(opts)
    instances = [cls(options.get(code)) for code, cls in active.items()]
    return Settings(config, active, instances, config.target_mindspore, set(active))


def prepare(paths: Sequence[str], config_file: Optional[str] = None, select=None, ignore=None,
            extend_select=None, target: Optional[str] = None, overrides=None) -> Settings:
    """The settings for the first of ``paths`` (one file or buffer; see :class:`SettingsResolver`
    for a run over many)."""
    return SettingsResolver(config_file, select, ignore, extend_select, target, overrides).for_path(
        paths[0] if paths else ".")


class SettingsResolver:
    """Settings per file, as ruff resolves them: the closest configuration file above each
    file (or ``config_file`` for all), command-line options and ``--config KEY=VALUE``
    overrides on top. One Settings object per configuration file."""

    def __init__(self, config_file: Optional[str] = None, select=None, ignore=None, extend_select=None,
                 target: Optional[str] = None, overrides=None) -> None:
        from .config import ConfigResolver
        self.args = (select, ignore, extend_select, target)
        try:
            self.configs = ConfigResolver(config_file, overrides)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        self._settings: Dict[Optional[str], Settings] = {}

    def for_path(self, path: str) -> Settings:
        try:
            key = self.configs.config_file_for(path)
            if key not in self._settings:
                select, ignore, extend_select, target = self.args
                self._settings[key] = make_settings(self.configs.resolve(path), select, ignore, extend_select, target)
            return self._settings[key]
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
