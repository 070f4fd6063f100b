"""A lint run: config → files → parse/summarise → scopes → rules → suppressions.

Phase 1 reads and summarises every candidate file (cheap pre-filter first) and
builds the project index; scope discovery then runs once over the whole
project (so a helper in ``utils.py`` called from ``model.py``'s ``construct`` is
known when ``utils.py`` is linted); phase 2 runs the rules per file. With
``jobs > 1`` both phases run in worker processes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Type

from . import suppressions
from .config import Config, ConfigError, load_config, validate_against_rules, validate_version
from .context import RuleContext
from .discovery import PY_SUFFIXES, YAML_SUFFIXES, discover, matches_any, may_hold_graph_code
from .engine import Dispatch, ModuleEngine
from .findings import FileResult, Finding, Severity
from .project import ModuleSummary, ProjectIndex, module_name_for, summarize
from .registry import load_rules, resolve_selector, select_codes
from .rule import Rule
from .scopes import CellResolver, GraphScope, discover as discover_scopes
from .source import SourceError, SourceFile, display_path

PARSE_ERROR_CODE = "MSG001"
TREE_CACHE_LINES = 400_000  # keep parsed trees between phases up to this many lines


class UsageError(Exception):
    """Bad paths, options or configuration: exit code 2, message names the culprit."""


@dataclass
class Settings:
    config: Config
    rules: Dict[str, Type[Rule]]                 # active rule classes by code
    instances: List[Rule]
    target: str
    selected: Set[str]

    @property
    def extra_cell_bases(self) -> frozenset:
        return frozenset(self.config.cell_bases)


@dataclass
class RunResult:
    files: List[FileResult]
    settings: Settings
    errors: List[str] = field(default_factory=list)

    @property
    def findings(self) -> List[Finding]:
        out: List[Finding] = []
        for f in self.files:
            out.extend(f.findings)
            out.extend(f.unused_suppressions)
        return out


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
    validate_against_rules(config, all_rules)
    sel = [resolve_selector(s) for s in config.select + config.extend_select]
    ign = [resolve_selector(s) for s in config.ignore]
    codes = select_codes(all_rules, sel, ign)
    active = {c: all_rules[c] for c in codes if _version_applies(all_rules[c].mindspore, config.target_mindspore)}
    by_name = {r.name: r for r in all_rules.values()}
    options: Dict[str, Dict[str, Any]] = {}
    for key, opts in config.rule_options.items():
        rule = all_rules.get(key.upper()) or by_name.get(key)
        if rule is not None:
            options.setdefault(rule.code, {}).update(opts)
    instances = [cls(options.get(code)) for code, cls in active.items()]
    return Settings(config, active, instances, config.target_mindspore, set(active))


# per-file work -----------------------------------------------------------------

def _parse_error(path: str, err: SourceError, source: Optional[SourceFile]) -> Finding:
    line_text = source.line(err.line) if source is not None else None
    return Finding(code=PARSE_ERROR_CODE, name="parse-error", message=f"cannot analyse this file: {err.message}",
                   path=path, line=err.line, col=err.col, severity=Severity.ERROR,
                   hint="fix the file so that Python can parse it; nothing else in it was checked",
                   source_line=line_text)


@dataclass
class _Phase1:
    path: str
    summary: Optional[ModuleSummary]
    error: Optional[Finding]
    lines: int
    hint: bool
    source: Optional[SourceFile] = None
    digest: str = ""


def _phase1(path: str, text: Optional[str] = None, keep_source: bool = True, cache=None,
            eager_calls: bool = False) -> _Phase1:
    disp = display_path(path)
    if path.endswith(YAML_SUFFIXES):
        return _Phase1(path, None, None, 0, True)
    try:
        data = text.encode("utf-8") if text is not None else _read_bytes(path)
    except OSError as err:
        return _Phase1(path, None, _parse_error(disp, SourceError(f"cannot read: {err.strerror}"), None), 0, False)
    modname, _, is_package = module_name_for(path)
    key = ""
    if cache is not None:
        from .cache import digest
        key = digest("p1", data, text is not None, modname, is_package, disp, eager_calls)
        hit = cache.get("p1", key)
        if hit is not None:
            summary, error, lines, hint = hit
            if summary is not None:
                summary.path = path
            return _Phase1(path, summary, error, lines, hint, None, key)
    result = _phase1_compute(path, disp, data, text, modname, is_package, eager_calls)
    result.digest = key
    if cache is not None:
        cache.put("p1", key, (result.summary, result.error, result.lines, result.hint))
    if not keep_source:
        result.source = None
    return result


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _phase1_compute(path, disp, data, text, modname, is_package, eager_calls=False) -> _Phase1:
    try:
        source = SourceFile(disp, text) if text is not None else SourceFile.from_bytes(disp, data)
    except SourceError as err:
        return _Phase1(path, None, _parse_error(disp, err, None), 0, False)
    lines = source.text.count("\n") + 1 if source.text else 0
    if not may_hold_graph_code(source.text):
        return _Phase1(path, None, None, lines, False)
    try:
        summary = summarize(source, modname, is_package, eager_calls)
    except SourceError as err:
        return _Phase1(path, None, _parse_error(disp, err, source), lines, True)
    # the summary's path must be the real path (module resolution), the source keeps the display path
    summary.path = path
    return _Phase1(path, summary, None, lines, True, source)


@dataclass
class _Phase2:
    path: str
    findings: List[Finding]
    callsite: List[Tuple[str, Finding]]   # (absolute root path, finding) to add to another file
    sups: Optional[suppressions.SuppressionMap]


def _lint_python(path: str, source: Optional[SourceFile], index: ProjectIndex, scopes: Sequence[GraphScope],
                 settings: Settings, dispatch: Dispatch, cells: CellResolver, scope_cache: Optional[dict] = None) -> _Phase2:
    disp = display_path(path)
    try:
        if source is None:
            source = SourceFile.read(path)
            source.path = disp
        source.tree  # parse errors surface here
    except SourceError as err:
        return _Phase2(path, [_parse_error(disp, err, source)], [], None)
    except OSError as err:
        return _Phase2(path, [_parse_error(disp, SourceError(f"cannot read: {err.strerror}"), None)], [], None)
    sups = suppressions.scan(source)
    if sups.skip_file:
        return _Phase2(path, [], [], sups)
    summary = index.module_of_path(path)
    engine = ModuleEngine(source, summary, index, scopes, dispatch, settings.target, cells, scope_cache)
    ctx = RuleContext(source, summary.imports if summary else None, settings.target, engine._sink)
    engine.run(ctx)
    findings: List[Finding] = []
    callsite: List[Tuple[str, Finding]] = []
    for finding, scope, rule in engine.findings:
        findings.append(finding)
        if scope is not None and scope.root_site and getattr(rule, "report_call_sites", False):
            rpath, rline, rcol, rq = scope.root_site
            where = f"{disp}:{finding.line}"
            helper = scope.qualname.rsplit(".", 1)[-1]
            callsite.append((os.path.abspath(rpath), finding.with_(
                path=display_path(rpath), line=rline, col=rcol, end_line=None, end_col=None, fix=None,
                message=f"call to helper `{helper}` reaches: {finding.message} ({where})",
                chain=(), source_line=None)))
    return _Phase2(path, findings, callsite, sups)


def _lint_yaml(path: str, text: Optional[str], settings: Settings, dispatch: Dispatch) -> _Phase2:
    disp = display_path(path)
    if not dispatch.yaml:
        return _Phase2(path, [], [], None)
    try:
        source = SourceFile(disp, text) if text is not None else SourceFile.read(path)
    except (SourceError, OSError):
        return _Phase2(path, [], [], None)
    try:
        from .yamlconfig import load_document
        doc = load_document(source.text, disp)
    except Exception:
        return _Phase2(path, [], [], None)  # not YAML we understand: not ours to judge
    if doc is None:
        return _Phase2(path, [], [], None)
    findings: List[Finding] = []
    ctx = RuleContext(source, None, settings.target, lambda f, s, r: findings.append(f))
    for rule in dispatch.yaml:
        ctx.rule = rule
        rule.check_yaml(doc, ctx)
    return _Phase2(path, findings, [], suppressions.scan(source))


# worker processes ----------------------------------------------------------------

class _Workers:
    """``jobs`` long-lived processes, each owning a share of the files for both phases:
    a worker summarises its files (phase 1), keeps their parsed trees, receives the
    project index and scopes, and runs the rules on the same files (phase 2), so no
    file is parsed twice. Shares are balanced by file size."""

    def __init__(self, files: Sequence[str], jobs: int, settings: Settings, cache) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        shares: List[List[str]] = [[] for _ in range(jobs)]
        loads = [0] * jobs
        for f in sorted(files, key=_size, reverse=True):
            i = loads.index(min(loads))
            shares[i].append(f)
            loads[i] += _size(f) + 1
        self.shares = [sh for sh in shares if sh]
        self.conns, self.procs = [], []
        for share in self.shares:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, share, settings, cache, jobs), daemon=True)
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)

    @staticmethod
    def _recv(conn):
        msg = conn.recv()
        if isinstance(msg, tuple) and len(msg) == 2 and msg[0] == "__error__":
            raise RuntimeError("a worker process failed:\n" + msg[1])
        return msg

    def phase1(self) -> List["_Phase1"]:
        out: List[_Phase1] = []
        for conn in self.conns:
            out.extend(self._recv(conn))
        return out

    def phase2(self, index: ProjectIndex, scopes, keys: Dict[str, str], todo: Sequence[str],
               yaml_files: Sequence[str]) -> List["_Phase2"]:
        todo_set = set(todo)
        yaml_parts: List[List[str]] = [[] for _ in self.shares]
        for n, f in enumerate(yaml_files):
            yaml_parts[n % len(self.shares)].append(f)
        for i, conn in enumerate(self.conns):
            mine = [f for f in self.shares[i] if f in todo_set]
            conn.send((index, scopes, {f: keys[f] for f in mine if f in keys}, mine, yaml_parts[i]))
        out: List[_Phase2] = []
        for conn in self.conns:
            out.extend(self._recv(conn))
        return out

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()


class _no_cyclic_gc:
    """The cyclic garbage collector off for the duration of a run. A run allocates
    millions of ast nodes that form no reference cycles (refcounting frees them); the
    collector's repeated traversals of them doubled the CPU time on a 350k-line corpus
    (measured: 11.8 s with, 5.4 s without). Restored afterwards."""

    def __enter__(self):
        import gc
        self._was = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        import gc
        if self._was:
            gc.enable()
        return False


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _worker_main(conn, share: List[str], settings: Settings, cache, jobs: int) -> None:
    import traceback

    import gc

    gc.disable()  # see _no_cyclic_gc
    try:
        p1: List[_Phase1] = []
        kept = 0
        for f in share:
            r = _phase1(f, keep_source=kept < TREE_CACHE_LINES // max(jobs, 1), cache=cache, eager_calls=True)
            if r.source is not None:
                kept += r.lines
            p1.append(r)
        conn.send([_Phase1(r.path, r.summary, r.error, r.lines, r.hint, None, r.digest) for r in p1])
        msg = conn.recv()
        if msg is None:
            return
        index, scopes, keys, todo, yaml_files = msg
        by_abs = {os.path.abspath(r.path): r for r in p1}

        def cached_tree(path: str):
            r = by_abs.get(os.path.abspath(path))
            return r.source.tree if r is not None and r.source is not None else None

        index.tree_provider = cached_tree
        dispatch = Dispatch(settings.instances)
        cells = CellResolver(index, settings.extra_cell_bases)
        out: List[_Phase2] = []
        for f in todo:
            r1 = by_abs[os.path.abspath(f)]
            res = _lint_python(f, r1.source, index, scopes.get(os.path.abspath(f), []), settings, dispatch, cells)
            r1.source = None
            if cache is not None and f in keys:
                cache.put("p2", keys[f], res)
            out.append(res)
        for f in yaml_files:
            out.append(_lint_yaml(f, None, settings, dispatch))
        conn.send(out)
        conn.recv()  # the close message
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises
        try:
            conn.send(("__error__", traceback.format_exc()))
        except Exception:
            pass


# the run -----------------------------------------------------------------------

def prepare(paths: Sequence[str], config_file: Optional[str] = None, select=None, ignore=None,
            extend_select=None, target: Optional[str] = None) -> Settings:
    try:
        cfg = load_config(config_file, start=paths[0] if paths else ".")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        return make_settings(cfg, select, ignore, extend_select, target)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def run_paths(paths: Sequence[str], *, config_file: Optional[str] = None, select=None, ignore=None,
              extend_select=None, target: Optional[str] = None, jobs: int = 1,
              settings: Optional[Settings] = None, force_exclude: bool = False,
              overrides: Optional[Dict[str, str]] = None, cache: bool = False,
              cache_dir: Optional[str] = None) -> RunResult:
    """Lint paths. ``overrides`` maps a path to in-memory text (stdin, editor buffers)."""
    paths = list(paths) or ["."]
    settings = settings or prepare(paths, config_file, select, ignore, extend_select, target)
    cfg = settings.config
    from .discovery import DiscoveryError
    try:
        files = discover([p for p in paths if p not in (overrides or {})], cfg.all_excludes(), cfg.root,
                         cfg.respect_gitignore)
    except DiscoveryError as exc:
        raise UsageError(str(exc)) from None
    files += [p for p in (overrides or {}) if p in paths]
    if force_exclude:
        files = [f for f in files if not matches_any(f, cfg.all_excludes(), cfg.root)]
    result_cache = None
    if cache:
        from .cache import ResultCache, default_dir
        result_cache = ResultCache(default_dir(cache_dir, cfg.cache_dir, cfg.root))
    return _run_files(files, settings, jobs, overrides or {}, result_cache)


def _settings_key(settings: Settings) -> str:
    from . import __version__
    from .cache import digest, rules_fingerprint
    opts = sorted((type(r).__name__, sorted(r.opts.items())) for r in settings.instances)
    return digest("settings", __version__, sorted(settings.selected), repr(opts), settings.target,
                  sorted(settings.config.cell_bases), rules_fingerprint(settings.rules.values()))


class _DepsKeys:
    """Digest of the project modules a file imports, transitively (a module's base classes
    and helpers live there). The direct-import graph and each module's own digest are
    computed once per run; a file's key is the digest of its closure."""

    def __init__(self, index: ProjectIndex, digests: Dict[str, str]) -> None:
        self.index = index
        self.digests = digests
        self._direct: Dict[str, tuple] = {}
        self._own: Dict[str, str] = {}

    def _deps(self, mod: ModuleSummary) -> tuple:
        got = self._direct.get(mod.name)
        if got is None:
            out = set()
            for dotted in set(mod.imports.names.values()):
                parts = dotted.split(".")
                for cut in range(len(parts), 0, -1):
                    name = ".".join(parts[:cut])
                    if name in self.index.modules:
                        out.add(name)
                        break
            out.discard(mod.name)
            got = self._direct[mod.name] = tuple(sorted(out))
        return got

    def _digest_of(self, name: str) -> str:
        d = self._own.get(name)
        if d is None:
            path = self.index.modules[name].path
            d = self.digests.get(os.path.abspath(path))
            if d is None:
                try:
                    st = os.stat(path)
                    d = f"{st.st_size}:{st.st_mtime_ns}"
                except OSError:
                    d = "missing"
            self._own[name] = d
        return d

    def key(self, path: str) -> str:
        from .cache import digest
        start = self.index.module_of_path(path)
        if start is None:
            return ""
        seen = {start.name}
        stack = [start.name]
        while stack:
            for dep in self._deps(self.index.modules.get(stack.pop()) or start):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        seen.discard(start.name)
        return digest(sorted((n, self._digest_of(n)) for n in seen))


def _run_files(files: List[str], settings: Settings, jobs: int, overrides: Dict[str, str],
               cache=None, scope_cache: Optional[dict] = None) -> RunResult:
    dispatch = Dispatch(settings.instances)
    py_files = [f for f in files if f.endswith(PY_SUFFIXES)]
    yaml_files = [f for f in files if f.endswith(YAML_SUFFIXES)] if dispatch.yaml else []
    jobs = max(1, min(jobs, len(files) or 1))
    parallel = jobs > 1 and len(py_files) >= 2 * jobs and not overrides

    # phase 1: read, pre-filter, summarise
    workers = _Workers(py_files, jobs, settings, cache) if parallel else None
    with _no_cyclic_gc():
        try:
            return _run_phases(py_files, yaml_files, settings, dispatch, overrides, cache, workers, scope_cache)
        finally:
            if workers is not None:
                workers.close()


def _run_phases(py_files, yaml_files, settings, dispatch, overrides, cache, workers, scope_cache=None) -> RunResult:
    if workers is not None:
        p1 = workers.phase1()
        order = {f: i for i, f in enumerate(py_files)}
        p1.sort(key=lambda r: order[r.path])
    else:
        p1 = []
        cached_lines = 0
        for f in py_files:
            r = _phase1(f, overrides.get(f), keep_source=cached_lines < TREE_CACHE_LINES,
                        cache=cache if f not in overrides else None)
            if r.source is not None:
                cached_lines += r.lines
            p1.append(r)
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
    scopes = discover_scopes(index, settings.extra_cell_bases)
    cells = CellResolver(index, settings.extra_cell_bases)
    if cache is not None:  # remember call edges computed on demand, so warm runs parse nothing
        for r in p1:
            if r.digest and r.summary is not None and os.path.abspath(r.path) in index.completed:
                cache.put("p1", r.digest, (r.summary, r.error, r.lines, r.hint))

    # phase 2: rules
    todo = [r.path for r in p1 if r.error is None and (r.hint or os.path.abspath(r.path) in scopes)]
    results: Dict[str, _Phase2] = {}
    keys: Dict[str, str] = {}
    if cache is not None:
        from .cache import digest
        skey = _settings_key(settings)
        digests = {os.path.abspath(r.path): r.digest for r in p1}
        deps = _DepsKeys(index, digests)
        for r in p1:
            if r.path in todo and r.digest:
                # a helper's parameter kinds come from its call in the root's file (engine): key on it too
                scope_key = [(s.qualname, s.lineno, s.kind, s.class_name, s.chain, s.root_site,
                              digests.get(os.path.abspath(s.root_site[0])) if s.root_site else None)
                             for s in scopes.get(os.path.abspath(r.path), [])]
                keys[r.path] = digest("p2", r.digest, skey, scope_key, deps.key(r.path))
                hit = cache.get("p2", keys[r.path])
                if hit is not None:
                    results[r.path] = hit
        todo = [f for f in todo if f not in results]
    if workers is not None:
        index.tree_provider = None
        for r in workers.phase2(index, scopes, keys, todo, yaml_files):
            results[r.path] = r
        index.tree_provider = cached_tree
    else:
        by_path = {r.path: r for r in p1}
        for f in todo:
            src = by_path[f].source
            if src is None and f in overrides:
                src = SourceFile(display_path(f), overrides[f])
            results[f] = _lint_python(f, src, index, scopes.get(os.path.abspath(f), []), settings, dispatch, cells,
                                      scope_cache if f in overrides else None)
            if cache is not None and f in keys:
                cache.put("p2", keys[f], results[f])
            by_path[f].source = None
        for f in yaml_files:
            results[f] = _lint_yaml(f, overrides.get(f), settings, dispatch)

    # helpers in files outside the linted set still report at their call sites in linted roots
    if any(getattr(r, "report_call_sites", False) for r in settings.instances):
        linted = {os.path.abspath(f) for f in py_files}
        outside = sorted({p for p, ss in scopes.items() if p not in linted
                          and any(s.root_site and os.path.abspath(s.root_site[0]) in linted for s in ss)})
        for p in outside:
            r = _lint_python(p, None, index, scopes.get(p, []), settings, dispatch, cells)
            results.setdefault("\0outside:" + p, _Phase2(p, [], r.callsite, None))

    # call-site findings go to the file holding the graph root
    extra: Dict[str, List[Finding]] = {}
    for r in results.values():
        for root_abs, finding in r.callsite:
            extra.setdefault(root_abs, []).append(finding)

    out: List[FileResult] = []
    p1_of = {r.path: r for r in p1}
    for f in py_files + yaml_files:
        p1r = p1_of.get(f)
        fr = FileResult(display_path(f), lines=p1r.lines if p1r else 0)
        if p1r is not None and p1r.error is not None:
            fr.findings = [p1r.error] if PARSE_ERROR_CODE in settings.selected else []
            out.append(fr)
            continue
        r = results.get(f)
        if r is None:
            fr.skipped = True
            out.append(fr)
            continue
        found = list(r.findings) + extra.get(os.path.abspath(f), [])
        found = _dedupe(found)
        ignored = [c for glob, codes in settings.config.per_file_ignores.items()
                   if matches_any(f, [glob], settings.config.root) for c in codes]
        if ignored:
            found = [x for x in found if not any(x.code.startswith(resolve_selector(c)) for c in ignored)]
        found = [x for x in found if x.code in settings.selected or x.code == PARSE_ERROR_CODE]
        if r.sups is not None and r.sups.skip_file:
            fr.skipped = True
        elif r.sups is not None:
            found, unused = suppressions.apply(found, r.sups, display_path(f), settings.selected)
            fr.unused_suppressions = unused
        fr.findings = sorted(found, key=lambda x: x.sort_key)
        out.append(fr)
    return RunResult(out, settings)


def _dedupe(findings: List[Finding]) -> List[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.code, f.line, f.col, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def run_source(text: str, path: str = "<stdin>", *, config_file: Optional[str] = None, select=None,
               ignore=None, settings: Optional[Settings] = None, scope_cache: Optional[dict] = None) -> FileResult:
    """Lint one in-memory text as if it were the file at ``path``. ``scope_cache`` (a dict the
    caller keeps per document, as the language server does) lets an edit re-run the rules
    only on the graph scopes whose text or context changed."""
    start = path if not path.startswith("<") else "."
    settings = settings or prepare([start if os.path.exists(start) else "."], config_file, select, ignore)
    result = _run_files([path], settings, 1, {path: text}, scope_cache=scope_cache)
    return result.files[0]
