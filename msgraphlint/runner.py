"""A lint run: config → files → parse/summarise → scopes → rules → suppressions.

Phase 1 reads and summarises every candidate file (cheap pre-filter first) and
builds the project index; scope discovery then runs once over the whole
project (so a helper in ``utils.py`` called from ``model.py``'s ``construct`` is
known when ``utils.py`` is linted); phase 2 runs the rules per file. With
``jobs > 1`` both phases run in worker processes.

One run builds one index over all its files, even when they fall under different
configuration files; each file keeps its own settings (perfile.PerFile).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Type, Union

from . import installed, runcache, suppressions
from .cachekeys import DepsKeys, settings_key
from .config import Config, ConfigError, validate_against_rules, validate_version
from .discovery import YAML_SUFFIXES, discover, matches_any
from .filework import (INTERNAL_ERROR_CODE, PARSE_ERROR_CODE, TREE_CACHE_LINES, Phase1, Phase2, internal_error,
                       in_memory_source, is_internal_error, lint_python, lint_yaml, parse_error, phase1)
from .findings import FileResult, Finding
from .project import ProjectIndex, linted_top
from .registry import default_codes, load_rules, resolve_selector, select_codes
from .rule import Rule
from .scopes import CellResolver, discover as discover_scopes
from .source import SourceError, SourceFile, display_path
from .perfile import PerFile
from .workers import Workers, no_cyclic_gc
from .budget import FILE_CPU_BUDGET_S, FILE_CPU_BUDGET_S_PER_MB

__all__ = ["INTERNAL_ERROR_CODE", "PARSE_ERROR_CODE", "PairingError", "Plan", "RunHooks", "RunResult", "Settings",
           "SettingsResolver", "UsageError", "fix_source", "make_settings", "plan_paths", "prepare", "result_of",
           "results_by_path", "run_paths", "run_source"]


class UsageError(Exception):
    """Bad paths, options or configuration: exit code 2, message names the culprit."""


class PairingError(RuntimeError):
    """A file's result was asked for and the run has none for it: a bug in msgraphlint.
    Callers turn it into an internal error (MSG000), never into another file's findings."""


def results_by_path(paths: Sequence[str], results: Iterable[FileResult]) -> Dict[str, FileResult]:
    """Each of ``paths`` with its own result, matched by the path every result carries
    (``FileResult.path``: the path as :func:`display_path` shows it), never by position: a
    run lists its Python files before its YAML files, whatever order it was given them.
    Raises PairingError for a path that has no result."""
    own: Dict[str, FileResult] = {}
    for fr in results:
        own.setdefault(fr.path, fr)  # two results under one path are two names of one file
    out: Dict[str, FileResult] = {}
    for p in paths:
        fr = own.get(display_path(p))
        if fr is None:
            raise PairingError(f"no result for {p} among the run's {len(own)} results")
        out[p] = fr
    return out


def result_of(results: Iterable[FileResult], path: str) -> FileResult:
    """The result of ``path`` among ``results`` (see :func:`results_by_path`)."""
    return results_by_path([path], results)[path]


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


@dataclass
class RunResult:
    files: List[FileResult]
    settings: Settings                     # the settings of the first group (the only one, usually)
    errors: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)  # skipped paths (FIFOs, devices); the CLI prints them
    missing: List[str] = field(default_factory=list)        # paths given that do not exist
    skipped: List[Tuple[str, str]] = field(default_factory=list)  # (path, why) left out by excludes
    groups: List[Settings] = field(default_factory=list)    # one per configuration file in use
    settings_by_path: Dict[str, Settings] = field(default_factory=dict)
    timings: Dict[str, float] = field(default_factory=dict)

    def settings_for(self, path: str) -> Settings:
        return self.settings_by_path.get(path, self.settings)

    @property
    def rules(self) -> Dict[str, Type[Rule]]:
        """The active rules of every group (reporters: SARIF descriptors, hints)."""
        out: Dict[str, Type[Rule]] = {}
        for s in self.groups or [self.settings]:
            out.update(s.rules)
        return dict(sorted(out.items()))

    @property
    def findings(self) -> List[Finding]:
        out: List[Finding] = []
        for f in self.files:
            out.extend(f.findings)
            out.extend(f.unused_suppressions)
        return out

    @property
    def internal_errors(self) -> int:
        """Files whose analysis failed (MSG000): the run completed, but exits 2."""
        return sum(1 for f in self.files for x in f.findings if x.code == INTERNAL_ERROR_CODE)


# settings ----------------------------------------------------------------------

def _version_applies(spec: str, target: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version
    try:
        return SpecifierSet(spec).contains(Version(target), prereleases=True)
    except InvalidSpecifier:
        return True


def make_settings(config: Config, select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
                  extend_select: Optional[Iterable[str]] = None, target: Optional[str] = None) -> Settings:
    all_rules = load_rules()
    if select is not None:
        config.select = [resolve_selector(s) for s in select]
    if extend_select:
        config.extend_select = list(config.extend_select) + [resolve_selector(s) for s in extend_select]
    if ignore:
        config.ignore = list(config.ignore) + [resolve_selector(s) for s in ignore]
    if target:
        validate_version(target, "--target-mindspore")
        config.target_mindspore = target
        config.target_source = "--target-mindspore"
    validate_against_rules(config, all_rules)
    sel = [resolve_selector(s) for s in config.select + config.extend_select]
    ign = [resolve_selector(s) for s in config.ignore]
    codes = select_codes(all_rules, sel, ign, default_codes(all_rules))
    active = {c: all_rules[c] for c in codes if _version_applies(all_rules[c].mindspore, config.target_mindspore)}
    by_name = {r.name: r for r in all_rules.values()}
    options: Dict[str, Dict[str, Any]] = {}
    for key, opts in config.rule_options.items():
        rule = all_rules.get(key.upper()) or by_name.get(key)
        if rule is not None:
            options.setdefault(rule.code, {}).update(opts)
    instances = [cls(options.get(code)) for code, cls in active.items()]
    return Settings(config, active, instances, config.target_mindspore, set(active))


# the run -----------------------------------------------------------------------

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


def excluded_path(path: str, excludes: Sequence[str], root: str) -> bool:
    """``path`` or one of its parent directories below ``root`` matches ``excludes``, with
    the semantics of the directory walk (ruff's ``--force-exclude``). A path outside
    ``root`` is judged by its name alone."""
    from .discovery import _excluded
    ap = os.path.abspath(path)
    rel = os.path.relpath(ap, os.path.abspath(root)).replace(os.sep, "/")
    parts = [os.path.basename(ap)] if rel == ".." or rel.startswith("../") else rel.split("/")
    return any(_excluded("/".join(parts[:i + 1]), parts[i], excludes) for i in range(len(parts)))


@dataclass
class Plan:
    """What a run will lint: files grouped by the settings that apply to them."""
    groups: List[Tuple[Settings, List[str]]]
    files: List[str]                               # in discovery order
    missing: List[str]                             # given paths that do not exist
    skipped: List[Tuple[str, str]]                 # (path, why) left out by excludes
    seconds: float = 0.0
    warnings: List[str] = field(default_factory=list)  # non-regular files skipped (discover)


def plan_paths(paths: Sequence[str], settings_of, *, force_exclude: bool = False,
               overrides: Optional[Dict[str, str]] = None) -> Plan:
    """Discover the files under ``paths`` and group them by ``settings_of(file)``.
    Directories are walked with the excludes of their own configuration; a file below a
    nested configuration is also judged by that configuration's excludes. Files named
    explicitly are kept unless ``force_exclude`` (then they and their parent directories
    are matched against the excludes, the defaults included)."""
    import time
    from .discovery import DiscoveryError

    t0 = time.perf_counter()
    files: List[str] = []
    seen: Set[str] = set()
    explicit: Set[str] = set()
    missing: List[str] = []
    skipped: List[Tuple[str, str]] = []
    walk_settings: List[Settings] = []
    warnings: List[str] = []
    for p in paths:
        if overrides and p in overrides:
            found = [p]
            explicit.add(p)
        elif not os.path.lexists(p):
            missing.append(p)
            continue
        else:
            s = settings_of(p)
            cfg = s.config
            try:
                found = discover([p], cfg.all_excludes(), cfg.root, cfg.respect_gitignore, warnings=warnings,
                                 skipped=skipped)
            except DiscoveryError as exc:
                raise UsageError(str(exc)) from None
            if os.path.isdir(p):
                walk_settings.append(s)
            else:
                explicit.update(found)
        for f in found:
            if f not in seen:
                seen.add(f)
                files.append(f)
    groups: Dict[int, Tuple[Settings, List[str]]] = {}
    kept: List[str] = []
    for f in files:
        s = settings_of(f)
        cfg = s.config
        # a file found by walking a directory whose own configuration is the walk's was filtered
        # by discover(); one under a nested configuration is judged by that configuration too
        check = force_exclude or (f not in explicit and all(w is not s for w in walk_settings))
        if check and f not in (overrides or {}) and excluded_path(f, cfg.all_excludes(), cfg.root):
            skipped.append((f, f"excluded by `exclude`/`extend-exclude` of {cfg.path or 'the defaults'}"))
            continue
        groups.setdefault(id(s), (s, []))[1].append(f)
        kept.append(f)
    return Plan(list(groups.values()), kept, missing, skipped, time.perf_counter() - t0, warnings)


def run_paths(paths: Sequence[str], *, config_file: Optional[str] = None, select=None, ignore=None,
              extend_select=None, target: Optional[str] = None, jobs: int = 1,
              settings: Optional[Settings] = None, force_exclude: bool = False,
              overrides: Optional[Dict[str, str]] = None, cache: bool = False,
              cache_dir: Optional[str] = None, config_overrides=None, progress=None,
              resolver: Optional["SettingsResolver"] = None) -> RunResult:
    """Lint paths. ``overrides`` maps a path to in-memory text (editor buffers) or bytes
    (stdin, decoded like a file); such a path is Python whatever its name, unless it ends
    in ``.yaml``/``.yml``.
    Each file gets the settings of its closest configuration file (``settings`` or
    ``config_file`` force one for all; ``config_overrides`` are ``--config KEY=VALUE``
    settings). A path that does not exist becomes an MSG001 finding for that path and is
    listed in ``RunResult.missing``; the rest is linted. ``progress(done, total)`` is
    called as files complete (two units per Python file: reading, then the rules)."""
    paths = list(paths) or ["."]
    if settings is not None:
        settings_of = lambda _p: settings  # noqa: E731
    else:
        resolver = resolver or SettingsResolver(config_file, select, ignore, extend_select, target, config_overrides)
        settings_of = resolver.for_path
    plan = plan_paths(paths, settings_of, force_exclude=force_exclude, overrides=overrides)
    results: Dict[str, FileResult] = {}
    first = settings if settings is not None else (plan.groups[0][0] if plan.groups else None)
    if first is None:
        existing = [p for p in paths if os.path.lexists(p)]
        first = settings_of(existing[0] if existing else ".")
    settings_by_path: Dict[str, Settings] = {}
    timings: Dict[str, float] = {"discovery": plan.seconds}

    def units(group: List[str]) -> int:
        return sum(1 if f.endswith(YAML_SUFFIXES) else 2 for f in group)

    settings_of_file = {f: s for s, group in plan.groups for f in group}
    caches: Dict[str, Any] = {}
    if cache:
        from .cache import ResultCache, default_dir
        by_dir: Dict[str, Any] = {}
        for s, group in plan.groups:
            d = default_dir(cache_dir, s.config.cache_dir, s.config.root)
            c = by_dir.setdefault(d, ResultCache(d))
            caches.update((f, c) for f in group)
    projects = _projects(plan.files, paths, overrides)
    grand_total, offset = sum(units(g) for g in projects), 0
    for group in projects:
        fs = PerFile(settings_of_file[group[0]], {f: settings_of_file[f] for f in group},
                     {f: caches[f] for f in group if f in caches})
        hooks = RunHooks(None if progress is None else
                         (lambda d, _t, _o=offset: progress(min(_o + d, grand_total), grand_total)))
        offset += units(group)
        group_result = _run_files(group, fs, jobs, overrides or {}, hooks=hooks)
        plan.warnings.extend(group_result.warnings)
        for phase, seconds in group_result.timings.items():
            timings[phase] = timings.get(phase, 0.0) + seconds
        by_display = {display_path(f): settings_of_file[f] for f in group}
        for fr in group_result.files:
            results[fr.path] = fr
            settings_by_path[fr.path] = by_display.get(fr.path, fs.default)
    ordered = [results[display_path(f)] for f in plan.files if display_path(f) in results]
    for p in plan.missing:
        fr = FileResult(display_path(p))
        fr.findings = [parse_error(display_path(p), SourceError("cannot read: No such file or directory"), None)]
        ordered.append(fr)
    return RunResult(ordered, first, warnings=plan.warnings, missing=plan.missing, skipped=plan.skipped,
                     groups=[s for s, _ in plan.groups] or [first], settings_by_path=settings_by_path,
                     timings=timings)

def _projects(files: Sequence[str], paths: Sequence[str], overrides) -> List[List[str]]:
    """The files of a run split into indexes, as Python would run them. Each file's import
    root is the folder ``sys.path`` must hold to import it (``module_name_for``: its first
    ancestor without ``__init__.py``). Roots share one index unless their module names
    collide: two copies of one project, or the sibling models of a model zoo, each with its
    own ``src`` package under one ``.git`` (``official/cv/resnet/src/utils.py`` and
    ``official/cv/vgg/src/utils.py``), are resolved apart, so ``from src.utils import
    helper`` in vgg names vgg's helper. A root joins the index of its nearest ancestor root
    when it can (a namespace ``src`` folder stays with the scripts beside it), else the
    first index it does not collide with. Deterministic whatever the order of the paths:
    roots are taken in sorted order."""
    from .project import module_name_for

    top = linted_top([p for p in paths if os.path.exists(p)] or ["."])
    parts: Dict[str, List[str]] = {}
    names_of: Dict[str, Set[str]] = {}
    for f in files:
        is_yaml = f.endswith(YAML_SUFFIXES)
        if overrides and f in overrides and not os.path.exists(f):
            root, name = top, None if is_yaml else module_name_for(f)[0]
        elif is_yaml:
            root, name = os.path.dirname(os.path.abspath(f)), None
        else:
            name, root, _ = module_name_for(f)
        parts.setdefault(root, []).append(f)
        if name is not None:
            names_of.setdefault(root, set()).add(name)
    if len(parts) == 1:
        return list(parts.values())
    buckets: List[Tuple[Set[str], List[str]]] = []
    bucket_of: Dict[str, int] = {}
    for root in sorted(parts):
        names = names_of.get(root, set())
        order = list(range(len(buckets)))
        ancestor = _nearest_ancestor(root, bucket_of)
        if ancestor is not None:
            order.remove(bucket_of[ancestor])
            order.insert(0, bucket_of[ancestor])
        for i in order:
            taken, members = buckets[i]
            if not names & taken:
                taken.update(names)
                members.extend(parts[root])
                bucket_of[root] = i
                break
        else:
            bucket_of[root] = len(buckets)
            buckets.append((set(names), list(parts[root])))
    return [members for _, members in buckets]


def _nearest_ancestor(root: str, known: Dict[str, int]) -> Optional[str]:
    d = root
    while True:
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
        if d in known:
            return d


class RunHooks:
    """Optional observers of a run: ``progress(done, total)`` after each file of a phase
    (phase 1 reads and summarises, phase 2 runs the rules), and per-phase ``timings``."""

    def __init__(self, progress=None) -> None:
        self.progress = progress
        self.timings: Dict[str, float] = {}
        self._t = None
        self._phase = None

    def phase(self, name: Optional[str]) -> None:
        import time
        now = time.perf_counter()
        if self._phase is not None:
            self.timings[self._phase] = self.timings.get(self._phase, 0.0) + now - self._t
        self._phase, self._t = name, now

    def tick(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

def _run_files(files: List[str], settings: Union[Settings, PerFile], jobs: int, overrides: Dict[str, str],
               cache=None, scope_cache: Optional[dict] = None, hooks: Optional[RunHooks] = None) -> RunResult:
    """Lint ``files`` with one project index. ``settings``: one Settings for all, or each
    file's own (:class:`PerFile`, which then also names each file's result cache)."""
    fs = settings if isinstance(settings, PerFile) else PerFile(settings, default_cache=cache)
    runcache.new_run()  # before the workers fork: nothing read from disk by an earlier run is reused
    # discovery yields only .py/.pyi/.yaml files from directories: any other name was given
    # explicitly (or as --stdin-filename) and is linted as Python, as ruff does
    py_files = [f for f in files if not f.endswith(YAML_SUFFIXES)]
    yaml_files = [f for f in files if f.endswith(YAML_SUFFIXES)] if fs.yaml else []
    jobs = max(1, min(jobs, len(files) or 1))
    parallel = jobs > 1 and len(py_files) >= 2 * jobs and not overrides

    # phase 1: read, pre-filter, summarise
    workers = Workers(py_files, jobs, fs) if parallel else None
    with no_cyclic_gc():
        try:
            result = _run_phases(py_files, yaml_files, fs, overrides, workers, scope_cache, hooks or RunHooks())
        except BaseException:  # Ctrl-C, SIGTERM turned into SystemExit, a bug: stop the workers now
            if workers is not None:
                workers.close(abort=True)
            raise
        if workers is not None:
            workers.close()
        return result


def _run_phases(py_files, yaml_files, fs: PerFile, overrides, workers, scope_cache=None,
                hooks: Optional[RunHooks] = None) -> RunResult:
    hooks = hooks or RunHooks()
    total = 2 * len(py_files) + len(yaml_files)  # progress: phase 1, then phase 2, per file
    hooks.phase("read+summarise")
    if workers is not None:
        p1 = _own_results(py_files, workers.phase1(lambda n: hooks.tick(n, total)), lambda f: Phase1(
            f, None, internal_error(display_path(f), _no_result(), "reading and summarising"), 0, False))
        hooks.tick(len(py_files), total)
    else:
        p1 = []
        cached_lines = 0
        for n, f in enumerate(py_files, 1):
            s = fs(f)
            keep = cached_lines < TREE_CACHE_LINES
            # a tree not kept would be parsed again for the call edges scope discovery asks
            # for: take them all now, while the tree is at hand (as the workers do)
            r = phase1(f, overrides.get(f), keep_source=keep, cache=fs.cache(f) if f not in overrides else None,
                       budget=s.file_budget, per_mb=s.file_budget_per_mb, eager_calls=not keep)
            if f in overrides and not r.digest and fs.cache(f) is not None:
                # in-memory text (the passes of --fix): keyed by that text, so files that
                # depend on it are re-linted when it changes, and it is when it changes
                from .cache import digest
                r.digest = digest("override", overrides[f], f)
            if r.source is not None:
                cached_lines += r.lines
            p1.append(r)
            hooks.tick(n, total)
    hooks.phase("scopes")
    index = ProjectIndex()
    p1_by_abs = {}
    for r in p1:
        if r.summary is not None:
            index.add_summary(r.summary)
            p1_by_abs[os.path.abspath(r.path)] = r

    def cached_tree(path: str):
        r = p1_by_abs.get(os.path.abspath(path))
        return r.source.tree if r is not None and r.source is not None else None

    index.tree_provider = cached_tree
    installed.attach(index, fs)  # the environment (`python` setting) installed base classes are read from
    scope_failure = None
    cell_bases = fs.cell_bases()
    try:
        scopes = discover_scopes(index, cell_bases)
    except Exception as exc:  # noqa: BLE001 - a bug: every file that may hold graph code says so
        scopes, scope_failure = {}, exc
    cells = CellResolver(index, cell_bases)
    if fs.any_cache:  # remember call edges computed on demand, so warm runs parse nothing
        for r in p1:
            c = fs.cache(r.path)
            if c is not None and r.digest and r.summary is not None and os.path.abspath(r.path) in index.completed \
                    and scope_failure is None:
                c.put("p1", r.digest, (r.summary, r.error, r.lines, r.hint))

    # phase 2: rules
    if scope_failure is not None:
        for r in p1:
            if r.error is None and r.summary is not None and r.summary.graph_hint:
                r.error = internal_error(display_path(r.path), scope_failure, "finding the graph-mode scopes of")
    hooks.phase("rules")
    todo = [r.path for r in p1 if r.error is None and (r.hint or os.path.abspath(r.path) in scopes)]
    done2 = len(py_files) + (len(py_files) - len(todo))  # files needing no rules count as done
    results: Dict[str, Phase2] = {}
    keys: Dict[str, str] = {}
    if fs.any_cache:
        from .cache import digest
        skeys: Dict[int, str] = {}  # each file's key holds its own settings
        digests = {os.path.abspath(r.path): r.digest for r in p1}
        deps = DepsKeys(index, digests)
        for r in p1:
            c = fs.cache(r.path)
            if c is not None and r.path in todo and r.digest:
                s = fs(r.path)
                skey = skeys.get(id(s))
                if skey is None:
                    skey = skeys[id(s)] = settings_key(s)
                # a helper's parameter kinds come from its call in the root's file (engine): key on it too
                scope_key = [(x.qualname, x.lineno, x.kind, x.class_name, x.chain, x.root_site,
                              digests.get(os.path.abspath(x.root_site[0])) if x.root_site else None)
                             for x in scopes.get(os.path.abspath(r.path), [])]
                keys[r.path] = digest("p2", r.digest, skey, scope_key, deps.key(r.path))
                hit = c.get("p2", keys[r.path])
                if hit is not None:
                    results[r.path] = hit
        todo = [f for f in todo if f not in results]
    if workers is not None:
        index.tree_provider = None
        base = done2
        got = workers.phase2(index, scopes, keys, todo, yaml_files, lambda n: hooks.tick(base + n, total))
        for r in _own_results(list(todo) + list(yaml_files), got, lambda f: Phase2(
                f, [internal_error(display_path(f), _no_result(), "checking")], [], None)):
            results[r.path] = r
        index.tree_provider = cached_tree
        hooks.tick(total, total)
    else:
        by_path = {r.path: r for r in p1}
        for f in todo:
            src = by_path[f].source
            if src is None and f in overrides:
                src = in_memory_source(display_path(f), overrides[f])
            s = fs(f)
            results[f] = lint_python(f, src, index, scopes.get(os.path.abspath(f), []), s, fs.dispatch(s), cells,
                                      scope_cache if f in overrides else None)
            c = fs.cache(f)
            if c is not None and f in keys and not any(is_internal_error(x) for x in results[f].findings):
                c.put("p2", keys[f], results[f])
            by_path[f].source = None
            done2 += 1
            hooks.tick(done2, total)
        for f in yaml_files:
            s = fs(f)
            results[f] = lint_yaml(f, overrides.get(f), s, fs.dispatch(s))
            done2 += 1
            hooks.tick(done2, total)

    # helpers in files outside the linted set still report at their call sites in linted roots,
    # linted with the settings of the files holding those roots
    if any(getattr(r, "report_call_sites", False) for s in fs.all for r in s.instances):
        linted = {os.path.abspath(f) for f in py_files}
        outside = sorted({p for p, ss in scopes.items() if p not in linted
                          and any(s.root_site and os.path.abspath(s.root_site[0]) in linted for s in ss)})
        for p in outside:
            by_settings: Dict[int, Tuple[Settings, Set[str]]] = {}
            for x in scopes.get(p, []):
                if x.root_site:
                    root = os.path.abspath(x.root_site[0])
                    s = fs.of_abs(root)
                    by_settings.setdefault(id(s), (s, set()))[1].add(root)
            for n, (s, roots) in enumerate(by_settings.values()):
                if not any(getattr(r, "report_call_sites", False) for r in s.instances):
                    continue
                r = lint_python(p, None, index, scopes.get(p, []), s, fs.dispatch(s), cells)
                callsite = r.callsite if len(by_settings) == 1 else [c for c in r.callsite if c[0] in roots]
                results.setdefault(f"\0outside:{n}:" + p, Phase2(p, [], callsite, None))

    # call-site findings go to the file holding the graph root
    extra: Dict[str, List[Finding]] = {}
    for r in results.values():
        for root_abs, finding in r.callsite:
            extra.setdefault(root_abs, []).append(finding)

    out: List[FileResult] = []
    warnings: List[str] = []
    p1_of = {r.path: r for r in p1}
    for f in py_files + yaml_files:
        settings = fs(f)
        p1r = p1_of.get(f)
        fr = FileResult(display_path(f), lines=p1r.lines if p1r else 0)
        if p1r is not None and p1r.error is not None:
            keep = p1r.error.code in settings.selected or p1r.error.code == INTERNAL_ERROR_CODE
            fr.findings = [p1r.error] if keep else []
            out.append(fr)
            continue
        r = results.get(f)
        if r is None or r.skipped:
            fr.skipped = True
            fr.skip_reason = r.skipped if r is not None else "no graph code (pre-filter: no mindspore/jit/construct)"
            if r is not None:  # a file that was to be checked and could not be: named on stderr
                warnings.append(f"{display_path(f)}: skipped: {r.skipped}")
            out.append(fr)
            continue
        found = list(r.findings) + extra.get(os.path.abspath(f), [])
        found = _dedupe(found)
        ignored = fs.ignored(f)  # per-file-ignores, compiled once per configuration
        if ignored:
            found = [x for x in found if not x.code.startswith(ignored)]
        found = [x for x in found if x.code in settings.selected or x.code in (PARSE_ERROR_CODE, INTERNAL_ERROR_CODE)]
        if r.sups is not None and r.sups.skip_file:
            fr.skipped = True
            fr.skip_reason = "`# msgraphlint: skip-file`"
        elif r.sups is not None:
            found, unused = suppressions.apply(found, r.sups, display_path(f), settings.selected)
            fr.unused_suppressions = unused
        fr.findings = sorted(found, key=lambda x: x.sort_key)
        out.append(fr)
    hooks.phase(None)
    return RunResult(out, fs.default, timings=dict(hooks.timings), warnings=warnings)


def _no_result() -> PairingError:
    return PairingError("no result came back for this file")


def _own_results(files: Sequence[str], got, missing) -> list:
    """The workers' results (Phase1/Phase2, each carrying its path) for ``files``, in that
    order, matched by path: a file none came back for gets ``missing(file)`` (an MSG000
    result, never a silent "no graph code"), one for a file not asked about is dropped."""
    by_path: Dict[str, Any] = {}
    for r in got:
        by_path.setdefault(r.path, r)
    return [by_path[f] if f in by_path else missing(f) for f in files]


def _dedupe(findings: List[Finding]) -> List[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.code, f.line, f.col, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def fix_source(text: str, path: str, settings: Settings, *, unsafe: bool = False,
               max_passes: int = 10) -> Tuple[str, FileResult, int]:
    """Fix one in-memory text (``--fix --stdin-filename``): (fixed text, the findings that
    remain in it, fixes applied). Nothing is written. Raises fixes.FixError when a fix
    would leave text that does not parse."""
    from .fixes import fix_text

    current, total = text, 0
    remaining = result_of(_run_files([path], settings, 1, {path: text}).files, path)
    for _ in range(max_passes):
        ff = fix_text(SourceFile(display_path(path), current), remaining.findings, unsafe)
        if not ff.changed:
            break
        current, total = ff.fixed, total + ff.applied
        remaining = result_of(_run_files([path], settings, 1, {path: current}).files, path)
    return current, remaining, total


def run_source(text: Union[str, bytes], path: str = "<stdin>", *, config_file: Optional[str] = None, select=None,
               ignore=None, settings: Optional[Settings] = None, scope_cache: Optional[dict] = None) -> FileResult:
    """Lint one in-memory text as if it were the file at ``path``. ``scope_cache`` (a dict the
    caller keeps per document, as the language server does) lets an edit re-run the rules
    only on the graph scopes whose text or context changed."""
    start = path if not path.startswith("<") else "."
    settings = settings or prepare([start], config_file, select, ignore)
    result = _run_files([path], settings, 1, {path: text}, scope_cache=scope_cache)
    return result_of(result.files, path)
