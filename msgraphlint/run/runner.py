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

from ..project import callsites, installed
from ..cache import runcache
from ..suppress import inline as suppressions
from ..cache.keys import DepsKeys, settings_key
from .discovery import YAML_SUFFIXES, discover
from .filework import (INTERNAL_ERROR_CODE, PARSE_ERROR_CODE, TREE_CACHE_LINES, Phase1, Phase2, internal_error, in_memory_source, is_internal_error, keep_trees, lint_python, lint_yaml, parse_error, phase1, small_run)
from ..project.callsites import CallGraph
from ..findings import FileResult, Finding
from ..project.index import STATEMENT_MEMO, ProjectIndex, linted_top
from ..project.modes import ProjectModes
from ..rule import Rule
from ..project.scopes import CellResolver, discover as discover_scopes
from ..parse.source import SourceError, SourceFile, display_path
from .perfile import PerFile
from .workers import Workers, no_cyclic_gc
from ..settings import Settings, SettingsResolver, UsageError, make_settings, prepare

__all__ = ["INTERNAL_ERROR_CODE", "PARSE_ERROR_CODE", "PairingError", "Plan", "RunHooks", "RunResult", "Settings",
           "SettingsResolver", "UsageError", "fix_source", "make_settings", "plan_paths", "prepare", "result_of",
           "results_by_path", "run_paths", "run_source"]


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
    context_files: int = 0  # other files of the projects read for context (projectfiles.py)
    # display path -> SHA-256 of the bytes linted (phase 1's ``content``); a file it lacks was
    # not read from disk by this run (in-memory text, YAML, a replayed run): --fix lints it again
    contents: Dict[str, str] = field(default_factory=dict)

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


# the run -----------------------------------------------------------------------

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
                                 skipped=skipped, include=cfg.all_includes())
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
              resolver: Optional["SettingsResolver"] = None, context: bool = True,
              context_cache=None) -> RunResult:
    """Lint paths. ``overrides`` maps a path to in-memory text (editor buffers) or bytes
    (stdin, decoded like a file); such a path is Python whatever its name, unless it ends
    in ``.yaml``/``.yml``.
    Each file gets the settings of its closest configuration file (``settings`` or
    ``config_file`` force one for all; ``config_overrides`` are ``--config KEY=VALUE``
    settings). A path that does not exist becomes an MSG001 finding for that path and is
    listed in ``RunResult.missing``; the rest is linted. ``progress(done, total)`` is
    called as files complete (two units per Python file: reading, then the rules).
    The rest of each named file's project is read too (``context``; see
    :mod:`msgraphlint.project.files`): what a file reports does not depend on which other
    files were named. ``context_cache`` (a :class:`~msgraphlint.project.files.ContextCache`)
    keeps what was read about those files for the next run of this process."""
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
    contents: Dict[str, str] = {}
    timings: Dict[str, float] = {"discovery": plan.seconds}

    def units(group: List[str]) -> int:
        return sum(1 if f.endswith(YAML_SUFFIXES) else 2 for f in group)

    settings_of_file = {f: s for s, group in plan.groups for f in group}
    caches: Dict[str, Any] = {}
    by_dir: Dict[str, Any] = {}
    if cache:
        from ..cache.store import ResultCache, default_dir
        for s, group in plan.groups:
            d = default_dir(cache_dir, s.config.cache_dir, s.config.root)
            c = by_dir.setdefault(d, ResultCache(d))
            caches.update((f, c) for f in group)
    import time
    t0 = time.perf_counter()
    projects = with_context(plan.files, paths, settings_of, overrides, context_cache) if context \
        else [(g, []) for g in _projects(plan.files, paths, overrides)]
    timings["context"] = time.perf_counter() - t0
    grand_total, offset = sum(units(g) + len(ctx) for g, ctx in projects), 0
    for group, ctx in projects:
        by = {f: settings_of_file[f] for f in group}
        by.update((f, settings_of(f)) for f in ctx)
        file_caches = {f: caches[f] for f in group if f in caches}
        if cache:
            for f in ctx:
                s = by[f]
                d = default_dir(cache_dir, s.config.cache_dir, s.config.root)
                file_caches[f] = by_dir.setdefault(d, ResultCache(d))
        fs = PerFile(settings_of_file[group[0]], by, file_caches, resolve=settings_of)
        hooks = RunHooks(None if progress is None else
                         (lambda d, _t, _o=offset: progress(min(_o + d, grand_total), grand_total)))
        offset += units(group) + len(ctx)
        # the run's snapshot (replay.py): an unchanged tree is answered from it, reading nothing
        slot = None
        t1 = time.perf_counter()
        if cache and not overrides and context_cache is None:
            from .replay import Slot
            slot = Slot.open(group, ctx, lambda f, _by=by: _by[f], file_caches, context)
        replayed = slot.replay() if slot is not None else None
        timings["snapshot"] = timings.get("snapshot", 0.0) + time.perf_counter() - t1
        if replayed is not None:
            group_result = RunResult(replayed[0], fs.default, warnings=replayed[1])
            hooks.tick(units(group) + len(ctx), None)
        else:
            group_result = _run_files(group, fs, jobs, overrides or {}, hooks=hooks, context=ctx,
                                      context_cache=context_cache, snapshot=slot)
            if slot is not None:
                slot.store(group_result.files, group_result.warnings, fs.all)
        plan.warnings.extend(group_result.warnings)
        for phase, seconds in group_result.timings.items():
            timings[phase] = timings.get(phase, 0.0) + seconds
        by_display = {display_path(f): settings_of_file[f] for f in group}
        contents.update(group_result.contents)
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
                     timings=timings, context_files=sum(len(ctx) for _, ctx in projects), contents=contents)

def with_context(files: Sequence[str], paths: Sequence[str], settings_of, overrides=None, context_cache=None,
                 buffers: Optional[Dict[str, Any]] = None) -> List[Tuple[List[str], List[str]]]:
    """The files of a run split into indexes (:func:`_projects`), each with its context:
    the files of the named files' projects that ``check`` on the project folder would lint
    and that may matter to them (:mod:`msgraphlint.project.files`). The split is made over
    the whole project, so a named file shares its index with the same files as when the
    whole project is linted. ``buffers``: texts of files that are not named but are open in
    an editor (read instead of the file)."""
    from ..project.files import connected, context_files

    texts = dict(buffers or {})
    texts.update(overrides or {})

    def text_of(path: str) -> Optional[str]:
        t = texts.get(path)
        if t is None:
            try:
                from .filework import read_bytes
                t = read_bytes(path)
            except OSError:
                return None
        return t.decode("utf-8", "replace") if isinstance(t, bytes) else t

    def walk(root: str) -> List[str]:
        try:
            return plan_paths([root], settings_of).files
        except UsageError:  # a configuration that cannot be read there: that folder is no context
            return []

    seeds = [f for f in files if not f.endswith(YAML_SUFFIXES) and os.path.isfile(f)]
    extra: List[str] = []
    if seeds:
        extra, _roots = context_files(seeds, paths, walk, text_of, context_cache, dynamic=texts)
    named = set(files)
    out: List[Tuple[List[str], List[str]]] = []
    for group in _projects(list(files) + extra, paths, overrides):
        mine = [f for f in group if f in named]
        if not mine:
            continue
        candidates = [f for f in group if f not in named and not f.endswith(YAML_SUFFIXES)]
        mine_py = [f for f in mine if not f.endswith(YAML_SUFFIXES)]
        ctx = connected(mine_py, candidates, text_of, context_cache, dynamic=texts) if candidates and mine_py else []
        out.append((mine, ctx))
    return out


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
    from ..project.index import module_name_for

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
               cache=None, scope_cache: Optional[dict] = None, hooks: Optional[RunHooks] = None,
               context: Sequence[str] = (), context_cache=None,
               related: Optional[Dict[str, FileResult]] = None, buffers=None, snapshot=None) -> RunResult:
    """Lint ``files`` with one project index. ``settings``: one Settings for all, or each
    file's own (:class:`PerFile`, which then also names each file's result cache).
    ``context``: other files of the project, summarised into the index but not reported
    (:mod:`msgraphlint.project.files`); those holding helpers or sub-Cells that the linted
    files reach are checked too, for the call-site findings (MSG004), and their results go
    to ``related`` (display path -> FileResult) when it is given. ``buffers``: texts of
    other files open in an editor, which rules that read another file see instead of it
    (``ProjectIndex.source_of``). ``snapshot``: the run's :class:`~msgraphlint.run.replay.Slot`,
    which gives the digests of unchanged files and records what the run reads."""
    fs = settings if isinstance(settings, PerFile) else PerFile(settings, default_cache=cache)
    runcache.new_run()  # before the workers fork: nothing read from disk by an earlier run is reused
    # discovery yields only .py/.pyi/.yaml files from directories: any other name was given
    # explicitly (or as --stdin-filename) and is linted as Python, as ruff does
    py_files = [f for f in files if not f.endswith(YAML_SUFFIXES)]
    yaml_files = [f for f in files if f.endswith(YAML_SUFFIXES)] if fs.yaml else []
    named = set(files)
    ctx_files = [f for f in context if not f.endswith(YAML_SUFFIXES) and f not in named]
    if jobs == 0:  # the CLI's default: parallel when the run is large enough (workers.auto_jobs)
        from .workers import auto_jobs
        jobs = auto_jobs(py_files + ctx_files)
    jobs = max(1, min(jobs, len(files) or 1))
    parallel = jobs > 1 and len(py_files) + len(ctx_files) >= 2 * jobs and not overrides

    # phase 1: read, pre-filter, summarise
    fs.known = snapshot.digests_for(py_files + ctx_files) if snapshot is not None else {}
    workers = Workers(py_files + ctx_files, jobs, fs) if parallel else None
    with no_cyclic_gc():
        try:
            result = _run_phases(py_files, yaml_files, fs, overrides, workers, scope_cache, hooks or RunHooks(),
                                 ctx_files, context_cache, related, buffers, snapshot)
        except BaseException:  # Ctrl-C, SIGTERM turned into SystemExit, a bug: stop the workers now
            if workers is not None:
                workers.close(abort=True)
            raise
        if workers is not None:
            workers.close()
        return result


def _kept_scopes(context_cache, index: ProjectIndex, path: str) -> Optional[dict]:
    """The per-scope cache (``ModuleEngine.scope_cache``) of a file a run checks but does not
    report, kept between the runs of one process (``ContextCache.scopes_of``: the language
    server checks the helper modules an open document reaches at every edit); None without
    a ``ContextCache`` or for an in-memory text."""
    if context_cache is None or os.path.abspath(path) in index.buffers:
        return None
    return context_cache.scopes_of(os.path.abspath(path))


def _kept_source(context_cache, index: ProjectIndex, path: str):
    """The source (and, once checked, the tree) of a file a run checks but does not report,
    kept between the runs of one process while its stat is unchanged (``ContextCache.source_of``);
    None (read and parsed as before) without a ``ContextCache`` or for an in-memory text."""
    if context_cache is None or os.path.abspath(path) in index.buffers:
        return None
    return context_cache.source_of(path, display_path(path))


#: What finished runs built, kept instead of freed where the process ends with ``os._exit`` right
#: after its one run (:func:`keep_for_exit`); None (the default): freed as a run returns.
_KEPT_FOR_EXIT: Optional[list] = None


def keep_for_exit() -> None:
    """This process ends after its run without freeing its objects (``cli._exit``, as mypy's fast
    exit): leave what the run built (the project index, summaries, scopes, results) to the
    process's end instead of freeing it object by object as the run returns, which cost ~0.1 s
    of CPU of a cold mindformers run's 3.4 s (104 of 4,280 profile samples, at the return of
    ``_run_phases``). Only for a one-shot ``check``: a process that runs again (the language
    server, ``--watch``, ``--fix``'s passes) would hold every run's objects."""
    global _KEPT_FOR_EXIT
    if _KEPT_FOR_EXIT is None:
        _KEPT_FOR_EXIT = []


def _run_phases(py_files, yaml_files, fs: PerFile, overrides, workers, scope_cache=None,
                hooks: Optional[RunHooks] = None, ctx_files: Sequence[str] = (), context_cache=None,
                related: Optional[Dict[str, FileResult]] = None, buffers=None, snapshot=None) -> RunResult:
    hooks = hooks or RunHooks()
    all_py = list(py_files) + list(ctx_files)
    ctx_set = set(ctx_files)
    # progress: phase 1, then phase 2, per linted file; a context file is one unit (phase 1)
    total = 2 * len(py_files) + len(ctx_files) + len(yaml_files)
    hooks.phase("read+summarise")
    if workers is not None:
        p1 = _own_results(all_py, workers.phase1(lambda n: hooks.tick(n, total)), lambda f: Phase1(
            f, None, internal_error(display_path(f), _no_result(), "reading and summarising"), 0, False))
        hooks.tick(len(all_py), total)
    else:
        p1 = []
        cached_lines = 0
        small = small_run(all_py)
        for n, f in enumerate(all_py, 1):
            s = fs(f)
            keep = keep_trees(cached_lines, small=small)
            memo = context_cache.get_phase1(f) if context_cache is not None and f in ctx_set \
                and f not in overrides else None
            if memo is not None:  # a context file unchanged since an earlier run of this process
                r = Phase1(f, memo.summary, memo.error, memo.lines, memo.hint, None, memo.digest)
            else:
                # a tree not kept would be parsed again for the call edges scope discovery asks
                # for: take them all now, while the tree is at hand (as the workers do)
                r = phase1(f, overrides.get(f), keep_source=keep,
                           cache=fs.cache(f) if f not in overrides else None,
                           budget=s.file_budget, per_mb=s.file_budget_per_mb, eager_calls=not keep,
                           content=fs.known.get(f, ""))
                if context_cache is not None and f in ctx_set and f not in overrides \
                        and not is_internal_error(r.error):
                    context_cache.put_phase1(f, Phase1(f, r.summary, r.error, r.lines, r.hint, None, r.digest))
            if f in overrides and not r.digest and fs.cache(f) is not None:
                # in-memory text (the passes of --fix): keyed by that text, so files that
                # depend on it are re-linted when it changes, and it is when it changes
                from ..cache.store import digest
                r.digest = digest("override", overrides[f], f)
            if r.source is not None:
                cached_lines += r.lines
            p1.append(r)
            hooks.tick(n, total)
    hooks.phase("scopes")
    index = ProjectIndex()
    index.lazy_memo = context_cache  # the language server: modules loaded by name, kept between runs
    # a module loaded by name, another file a rule reads: its buffer
    index.buffers = {os.path.abspath(f): t for f, t in list((buffers or {}).items()) + list(overrides.items())}
    p1_by_abs = {}
    # registered in the order of the paths: the first of two same-named modules, and what
    # scope discovery finds first, do not depend on the order the files were named in
    for r in sorted(p1, key=lambda r: os.path.abspath(r.path)):
        if r.summary is not None:
            index.add_summary(r.summary)
            p1_by_abs[os.path.abspath(r.path)] = r

    def cached_source(path: str):
        r = p1_by_abs.get(os.path.abspath(path))
        return r.source if r is not None else None

    index.source_provider = cached_source
    installed.attach(index, fs)  # the environment (`python` setting) installed base classes are read from
    scope_failure = None
    cell_bases = fs.cell_bases()
    calls: Dict[str, list] = {}
    try:
        scopes = discover_scopes(index, cell_bases, calls)
    except Exception as exc:  # noqa: BLE001 - a bug: every file that may hold graph code says so
        scopes, scope_failure, calls = {}, exc, {}
    cells = CellResolver(index, cell_bases)
    if fs.any_cache:  # remember call edges computed on demand, so warm runs parse nothing
        for r in p1:
            c = fs.cache(r.path)
            if c is not None and r.digest and r.summary is not None and os.path.abspath(r.path) in index.completed \
                    and scope_failure is None:
                c.put("p1", r.digest, (r.summary, r.error, r.lines, r.hint))

    # the files outside the linted set that hold scopes the linted files' calls reach: checked
    # too, for the call-site findings (MSG004); not reported
    graph = CallGraph(scopes, calls)
    linted_abs = {os.path.abspath(f) for f in py_files}
    outside = graph.reached_from(linted_abs)
    p1_paths = {os.path.abspath(r.path): r.path for r in p1}
    lazy = sorted(p for p in outside if p not in p1_paths)  # modules only the index loaded (by name)

    # phase 2: rules
    if scope_failure is not None:
        for r in p1:
            if r.error is None and r.summary is not None and r.summary.graph_hint:
                r.error = internal_error(display_path(r.path), scope_failure, "finding the graph-mode scopes of")
    hooks.phase("rules")
    todo = [r.path for r in p1 if r.error is None and (r.hint or os.path.abspath(r.path) in scopes)
            and (r.path not in ctx_set or os.path.abspath(r.path) in outside)]
    todo_set = set(todo)
    # files needing no rules count as done
    done2 = len(all_py) + (len(py_files) - sum(1 for f in todo if f not in ctx_set))
    results: Dict[str, Phase2] = {}
    keys: Dict[str, str] = {}
    if fs.any_cache:
        from ..cache.store import digest
        skeys: Dict[int, str] = {}  # each file's key holds its own settings
        digests = {os.path.abspath(r.path): r.digest for r in p1}
        deps = DepsKeys(index, digests)
        for r in p1:
            c = fs.cache(r.path)
            if c is not None and r.path in todo_set and r.digest:
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
        index.source_provider = None
        base = done2
        got = workers.phase2(index, scopes, keys, todo, yaml_files, lambda n: hooks.tick(min(base + n, total), total))
        for r in _own_results(list(todo) + list(yaml_files), got, lambda f: Phase2(
                f, [internal_error(display_path(f), _no_result(), "checking")], [], None)):
            results[r.path] = r
        index.source_provider = cached_source
        hooks.tick(total, total)
    else:
        by_path = {r.path: r for r in p1}
        for f in todo:
            src = by_path[f].source
            if src is None and f in overrides:
                src = in_memory_source(display_path(f), overrides[f])
            elif src is None and f in ctx_set:
                src = _kept_source(context_cache, index, f)
            s = fs(f)
            results[f] = lint_python(f, src, index, scopes.get(os.path.abspath(f), []), s, fs.dispatch(s), cells,
                                      scope_cache if f in overrides and f not in ctx_set else
                                      _kept_scopes(context_cache, index, f))
            c = fs.cache(f)
            if c is not None and f in keys and not any(is_internal_error(x) for x in results[f].findings):
                c.put("p2", keys[f], results[f])
            by_path[f].source = None
            if f not in ctx_set:
                done2 += 1
                hooks.tick(done2, total)
        for f in yaml_files:
            s = fs(f)
            results[f] = lint_yaml(f, overrides.get(f), s, fs.dispatch(s))
            done2 += 1
            hooks.tick(done2, total)
    for p in lazy:  # read by the index only: checked here, with the settings of its own configuration
        s = fs(p)
        text = index.buffers.get(p)
        results[p] = lint_python(p, in_memory_source(display_path(p), text) if text is not None else
                                 _kept_source(context_cache, index, p), index,
                                 scopes.get(p, []), s, fs.dispatch(s), cells, _kept_scopes(context_cache, index, p))
        p1_paths[p] = p

    # what each checked file reports of its own findings in graph scopes: the originals of the
    # call-site findings (a finding ignored, deselected or suppressed there is not repeated)
    checked = {os.path.abspath(f): f for f in results if not f.endswith(YAML_SUFFIXES)}
    originals: Dict[str, List[Tuple[Finding, str]]] = {}
    for a, f in checked.items():
        r = results[f]
        if r.skipped or not r.scoped or (r.sups is not None and r.sups.skip_file):
            continue
        ignored, selected = fs.ignored(f), fs(f).selected
        for i, q in r.scoped:
            x = r.findings[i]
            if x.code in selected and not x.code.startswith(ignored) \
                    and not (r.sups is not None and r.sups.suppresses(x)):
                originals.setdefault(q, []).append((x, a))
    echoes: Dict[str, List[Finding]] = {}
    lines = _LineTexts(overrides)
    for q, where in graph.sites(checked).items():
        for x, _ in originals.get(q, ()):
            for caller, site in where:
                shown = display_path(checked[caller])
                echoes.setdefault(caller, []).append(callsites.echo(
                    x, shown, site, graph.through(site, q), lines.line(checked[caller], site.line), display_path))

    out: List[FileResult] = []
    warnings: List[str] = []
    p1_of = {r.path: r for r in p1}
    modes = ProjectModes(index, display_path)  # the mode a file that sets none is assumed to run in
    for f in py_files + yaml_files + [f for a, f in checked.items() if a in outside]:
        settings = fs(f)
        p1r = p1_of.get(f)
        fr = FileResult(display_path(f), lines=p1r.lines if p1r else 0)
        nb = _notebook_of(f, overrides)
        if p1r is not None and p1r.error is not None:
            keep = p1r.error.code in settings.selected or p1r.error.code == INTERNAL_ERROR_CODE
            fr.findings = [_in_cells(p1r.error, nb)] if keep else []
            out.append(fr)
            continue
        r = results.get(f)
        if nb is not None and not nb.is_python:  # ruff's rule too: only Python kernels are linted
            fr.skipped = True
            fr.skip_reason = f"a notebook whose kernel language is {nb.language!r}, not Python"
            if f not in ctx_set:
                warnings.append(f"{display_path(f)}: skipped: {fr.skip_reason}")
            out.append(fr)
            continue
        if r is None or r.skipped:
            fr.skipped = True
            fr.skip_reason = r.skipped if r is not None else "no graph code (pre-filter: no mindspore/jit/construct)"
            if r is not None and f not in ctx_set:  # a file that was to be checked and could not be: named on stderr
                warnings.append(f"{display_path(f)}: skipped: {r.skipped}")
            out.append(fr)
            continue
        found = _assumed_mode(r, index.module_of_path(f), modes) + echoes.get(os.path.abspath(f), [])
        if nb is not None and nb.errors:  # its code cells that are not Python (the others were checked)
            from ..parse.notebook import cell_error_findings
            found += cell_error_findings(nb, display_path(f))
        found = _dedupe(found)
        ignored = fs.ignored(f)  # per-file-ignores, compiled once per configuration
        if ignored:
            found = [x for x in found if not any(c.startswith(ignored) for c in callsites.codes_of(x))]
        found = [x for x in found if all(c in settings.selected for c in callsites.codes_of(x))
                 or x.code in (PARSE_ERROR_CODE, INTERNAL_ERROR_CODE)]
        if r.sups is not None and r.sups.skip_file:
            fr.skipped = True
            fr.skip_reason = "`# msgraphlint: skip-file`"
        elif r.sups is not None:
            found, unused = suppressions.apply(found, r.sups, display_path(f), settings.selected)
            fr.unused_suppressions = [_in_cells(x, nb) for x in unused]
        fr.findings = sorted((_in_cells(x, nb) for x in found), key=lambda x: x.sort_key)
        out.append(fr)
    hooks.phase(None)
    if snapshot is not None:
        _record(snapshot, p1, yaml_files, index, workers)
    linted_out = out[:len(py_files) + len(yaml_files)]
    if _KEPT_FOR_EXIT is not None:
        _KEPT_FOR_EXIT.append((p1, index, scopes, calls, cells, graph, results))
        import gc
        gc.freeze()  # the collector, on again after the run, would traverse them all at each full collection
    if related is not None:
        for fr in out[len(py_files) + len(yaml_files):]:
            related[fr.path] = fr
    return RunResult(linted_out, fs.default, timings=dict(hooks.timings), warnings=warnings,
                     contents={display_path(r.path): r.content for r in p1 if r.content and r.path not in ctx_set})


def _record(snapshot, p1, yaml_files, index: ProjectIndex, workers) -> None:
    """What the run read, for its snapshot (replay.py): each file's digest, the YAML files,
    the modules its indexes loaded by name, the files rules read, the installed packages."""
    from .replay import index_reads
    try:
        snapshot.note_phase1(p1)
        snapshot.note_paths(yaml_files)
        paths, triples = index_reads(index)
        snapshot.note_paths(paths)
        snapshot.note_installed(triples)
        if workers is not None:
            snapshot.note_paths(sorted(workers.read_paths))
            snapshot.note_installed(workers.installed)
            if not workers.reads_complete:
                snapshot.complete = False
    except Exception:  # noqa: BLE001 - no snapshot is stored; the findings stand
        snapshot.complete = False


def _assumed_mode(r: Phase2, summary, modes: ProjectModes) -> List[Finding]:
    """The file's findings, those in graph scopes of a file whose text sets no mode with the mode
    they assume in their detail (``project/modes.py``); dropped when the project sets only
    PYNATIVE_MODE and compiles nothing."""
    if not r.scoped or not modes.says_nothing(summary):
        return list(r.findings)
    scoped = {i for i, _ in r.scoped}
    if modes.pynative_project:
        return [x for i, x in enumerate(r.findings) if i not in scoped]
    note = modes.note()
    return [x.with_(detail=f"{x.detail}\n{note}" if x.detail else note) if i in scoped else x
            for i, x in enumerate(r.findings)]


def _notebook_of(path: str, overrides):
    """The notebook at ``path`` (its in-memory text when there is one), None for any other file."""
    if not path.endswith(".ipynb"):
        return None
    from ..parse.source import load_notebook
    return load_notebook(path, overrides.get(path))


def _in_cells(finding: Finding, nb) -> Finding:
    """A notebook's finding in its cell's numbering (``notebook.localize``)."""
    if nb is None:
        return finding
    from ..parse import notebook
    return notebook.localize(finding, nb)


class _LineTexts:
    """The text of a line of a linted file (the call of a call-site finding): from its
    in-memory text, else read from disk, each file once."""

    def __init__(self, overrides) -> None:
        self.overrides = overrides
        self._lines: Dict[str, List[str]] = {}

    def line(self, path: str, lineno: int) -> Optional[str]:
        lines = self._lines.get(path)
        if lines is None:
            lines = []
            try:
                text = self.overrides.get(path)
                src = in_memory_source(display_path(path), text) if text is not None else SourceFile.read(path)
                lines = src.lines
            except (SourceError, OSError, ValueError):
                pass
            self._lines[path] = lines
        return lines[lineno - 1] if 0 < lineno <= len(lines) else None


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
               max_passes: int = 10, settings_of=None, buffers: Optional[Dict[str, str]] = None,
               context_cache=None) -> Tuple[str, FileResult, int]:
    """Fix one in-memory text (``--fix --stdin-filename``): (fixed text, the findings that
    remain in it, fixes applied). Nothing is written. Raises fixes.FixError when a fix
    would leave text that does not parse. The rest of the project is read as for
    :func:`run_source` (once for all the passes)."""
    from ..fix.contract import fix_text
    from ..project.files import ContextCache

    cc = context_cache if context_cache is not None else ContextCache()
    current, total = text, 0
    remaining = _run_one(path, text, settings, settings_of=settings_of, buffers=buffers, context_cache=cc)
    for _ in range(max_passes):
        ff = fix_text(in_memory_source(display_path(path), current), remaining.findings, unsafe)
        if not ff.changed:
            break
        current, total = ff.fixed, total + ff.applied
        remaining = _run_one(path, current, settings, settings_of=settings_of, buffers=buffers, context_cache=cc)
    return current, remaining, total


def run_source(text: Union[str, bytes], path: str = "<stdin>", *, config_file: Optional[str] = None, select=None,
               ignore=None, settings: Optional[Settings] = None, scope_cache: Optional[dict] = None,
               settings_of=None, buffers: Optional[Dict[str, str]] = None, context: bool = True,
               context_cache=None, related: Optional[Dict[str, FileResult]] = None) -> FileResult:
    """Lint one in-memory text as if it were the file at ``path``. ``scope_cache`` (a dict the
    caller keeps per document, as the language server does) lets an edit re-run the rules
    only on the graph scopes whose text or context changed.

    When ``path`` is a file of a project, the rest of the project is read as ``check``
    reads it for a file named alone (``context``; :mod:`msgraphlint.project.files`), each
    file with ``settings_of(path)`` (default: ``settings``), from ``buffers`` (path -> text:
    other documents open in an editor) where given, else from disk. ``related`` receives the
    results (display path -> FileResult) of the other files checked because ``path``
    reaches helpers or sub-Cells in them: what ``check`` reports for them."""
    start = path if not path.startswith("<") else "."
    settings = settings or prepare([start], config_file, select, ignore)
    return _run_one(path, text, settings, scope_cache=scope_cache, settings_of=settings_of, buffers=buffers,
                    context=context, context_cache=context_cache, related=related)


def _run_one(path: str, text: Union[str, bytes], settings: Settings, *, scope_cache: Optional[dict] = None,
             settings_of=None, buffers: Optional[Dict[str, str]] = None, context: bool = True,
             context_cache=None, related: Optional[Dict[str, FileResult]] = None) -> FileResult:
    settings_of = settings_of or (lambda _p: settings)
    overrides: Dict[str, Any] = {path: text}
    ctx: List[str] = []
    if context:
        parts = with_context([path], [path], settings_of, overrides, context_cache, buffers)
        ctx = parts[0][1] if parts else []
        overrides.update((f, t) for f, t in (buffers or {}).items() if f in set(ctx) and f != path)
    fs = PerFile(settings, {f: settings_of(f) for f in ctx}, resolve=settings_of if context else None)
    # an editor's document: the summaries' per-def work kept in its scope cache (index.STATEMENT_MEMO)
    token = STATEMENT_MEMO.set(scope_cache) if scope_cache is not None else None
    try:
        result = _run_files([path], fs, 1, overrides, scope_cache=scope_cache, context=ctx,
                            context_cache=context_cache, related=related, buffers=buffers)
    finally:
        if token is not None:
            STATEMENT_MEMO.reset(token)
    return result_of(result.files, path)
