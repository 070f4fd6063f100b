"""Per-file work of a run: read and summarise one file (phase 1), run the rules on
one Python or YAML file (phase 2). Used by the runner in-process and by the
``--jobs N`` worker processes (workers.py)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple, Union

from ..suppress import inline as suppressions
from ..context import RuleContext
from .discovery import YAML_SUFFIXES, may_hold_graph_code
from ..engine.dispatch import Dispatch, ModuleEngine
from ..findings import INTERNAL_ERROR_CODE, PARSE_ERROR_CODE, Finding, Severity  # noqa: F401  (re-exported)
from .phases import Phase1, Phase2
from ..project.index import ProjectIndex, module_name_for, summarize
from ..project.scopes import CellResolver, GraphScope
from ..parse.source import SourceError, SourceFile, display_path

if TYPE_CHECKING:
    from ..settings import Settings

TREE_CACHE_LINES = 400_000  # keep parsed trees between phases up to this many lines ...
#: ... and while the process's peak RSS is below this. A kept tree saves its file a parse in
#: phase 2, the eager call edges in phase 1 and the parses of other files' rules reading it
#: (mindformers, 170k lines: all kept 5.2 s CPU, the first 100k lines 6.7 s) but costs up to
#: ~1 KB per line (mindone cold -j1 peak: 677 MB with 400k lines kept, 270 MB with none; with
#: this limit 360 MB, and 420 MB with 256 MB here).
TREE_CACHE_RSS = 192 * 2 ** 20
#: ... unless the run's Python files hold at most this many bytes: then every tree is kept
#: whatever the RSS (a tree costs ~27x its source: mindformers' 7.2 MB of .py parse to 192 MB; so at
#: most ~270 MB). mindformers cold -j1:
#: 516 -> 441 parses, 3.73 -> 3.50 s CPU; mindone (43 MB) keeps to the RSS limit as before.
TREE_CACHE_ALL_BYTES = 10 * 2 ** 20


def keep_trees(kept_lines: int, limit_lines: int = TREE_CACHE_LINES, small: bool = False) -> bool:
    """Whether phase 1 keeps the next file's tree for phase 2 (see TREE_CACHE_RSS);
    ``small``: the run's files are within :data:`TREE_CACHE_ALL_BYTES` (:func:`small_run`)."""
    return kept_lines < limit_lines and (small or _peak_rss() < TREE_CACHE_RSS)


def small_run(paths: Sequence[str], jobs: int = 1) -> bool:
    """The files (one process's share of ``jobs``) hold at most ``TREE_CACHE_ALL_BYTES / jobs``
    bytes, so that process keeps every tree they parse (:func:`keep_trees`)."""
    limit = TREE_CACHE_ALL_BYTES // max(jobs, 1)
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            continue
        if total > limit:
            return False
    return True


def _peak_rss() -> int:
    try:
        import resource
    except ImportError:  # (Windows) the line limit alone
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def parse_error(path: str, err: SourceError, source: Optional[SourceFile]) -> Finding:
    line_text = source.line(err.line) if source is not None else None
    return Finding(code=PARSE_ERROR_CODE, name="parse-error", message=f"cannot analyse this file: {err.message}",
                   path=path, line=err.line, col=err.col, severity=Severity.ERROR,
                   hint="fix the file so that Python can parse it; nothing else in it was checked",
                   source_line=line_text)


def internal_error(path: str, exc: BaseException, during: str) -> Finding:
    """MSG000: the analysis of this file failed (a bug, exhausted memory or stack, or the
    per-file budget); the run goes on without this file's findings."""
    from .budget import BudgetExceeded

    if isinstance(exc, BudgetExceeded):
        message = f"analysis of this file stopped while {during}: {exc}; none of its findings are reported"
        hint = ("split the file or simplify its graph code; if an ordinary file takes this long, "
                "please report it with the file (or a reduced copy)")
    else:
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        message = (f"internal error while {during} this file ({type(exc).__name__}"
                   + (f": {detail}" if detail else "") + "); none of its findings are reported")
        hint = ("this is a bug in msgraphlint: please report it with the file (or a reduced copy), "
                "`msgraphlint --version` and the Python version")
    return Finding(code=INTERNAL_ERROR_CODE, name="internal-error", message=message, path=path, line=1, col=0,
                   severity=Severity.ERROR, hint=hint)


def is_internal_error(finding: Optional[Finding]) -> bool:
    return finding is not None and finding.code == INTERNAL_ERROR_CODE


def in_memory_source(path: str, text: Union[str, bytes]) -> SourceFile:
    """An editor buffer (str) or stdin (bytes: decoded exactly like a file on disk: BOM,
    coding cookie, invalid bytes -> SourceError)."""
    if isinstance(text, bytes):
        return SourceFile.from_bytes(path, text)
    if path.endswith(".ipynb"):  # a notebook's JSON text
        from ..parse.source import notebook_source
        return notebook_source(path, text)
    return SourceFile(path, text)


def phase1(path: str, text: Optional[Union[str, bytes]] = None, keep_source: bool = True, cache=None,
           eager_calls: bool = False, budget: Optional[float] = None, per_mb: float = 0.0,
           content: str = "") -> Phase1:
    """Read, pre-filter and summarise one file. Never raises: a failure is the file's
    MSG001 (it cannot be read or parsed) or MSG000 (anything else, or the budget).
    ``content``: the SHA-256 of the file's bytes when the run knows it from their stat
    signature (cache/snapshot.py): a cached summary is then found without reading them."""
    from .budget import BudgetExceeded, budget_for, file_budget

    try:
        with file_budget(budget_for(budget, len(text) if text is not None else _size(path), per_mb)):
            return _phase1(path, text, keep_source, cache, eager_calls, content)
    except (Exception, BudgetExceeded) as exc:  # noqa: BLE001 - isolated to this file
        return Phase1(path, None, internal_error(display_path(path), exc, "reading and summarising"), 0, False)


def _p1_key(sha: str, in_memory: bool, modname: str, is_package: bool, disp: str) -> str:
    from ..cache.store import digest
    # not keyed on eager_calls (--jobs): a summary with call edges computed eagerly or on
    # demand serves both ways, so one cache serves every --jobs value
    return digest("p1", sha, in_memory, modname, is_package, disp)


def _phase1(path: str, text: Optional[Union[str, bytes]], keep_source: bool, cache, eager_calls: bool,
            content: str = "") -> Phase1:
    disp = display_path(path)
    if path.endswith(YAML_SUFFIXES):
        return Phase1(path, None, None, 0, True)
    modname, _, is_package = module_name_for(path)
    if cache is not None and content and text is None:
        key = _p1_key(content, False, modname, is_package, disp)
        hit = cache.get("p1", key)
        if hit is not None:
            return _p1_hit(path, hit, key, content, "")
    signed = ""
    try:
        if text is not None:
            data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        elif cache is not None:
            from ..cache.snapshot import read_signed
            data, signed = read_signed(path)
        else:
            data = read_bytes(path)
    except OSError as err:
        return Phase1(path, None, parse_error(disp, SourceError(f"cannot read: {err.strerror}"), None), 0, False)
    key = sha = ""
    if cache is not None or text is None:  # without a cache too: what --fix compares its snapshots with
        from ..cache.snapshot import sha_of
        sha = sha_of(data)
    if cache is not None:
        key = _p1_key(sha, text is not None, modname, is_package, disp)
        if sha != content or text is not None:  # (the same key missed above)
            hit = cache.get("p1", key)
            if hit is not None:
                return _p1_hit(path, hit, key, sha if text is None else "", signed)
    result = phase1_compute(path, disp, data, text, modname, is_package, eager_calls)
    result.digest = key
    if text is None:
        result.content, result.signed = sha, signed
    if cache is not None and not is_internal_error(result.error):
        cache.put("p1", key, (result.summary, result.error, result.lines, result.hint))
    if not keep_source:
        result.source = None
    return result


def _p1_hit(path: str, hit, key: str, sha: str, signed: str) -> Phase1:
    summary, error, lines, hint = hit
    if summary is not None:
        summary.path = path
    return Phase1(path, summary, error, lines, hint, None, key, sha, signed)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def phase1_compute(path, disp, data, text, modname, is_package, eager_calls=False) -> Phase1:
    try:
        source = in_memory_source(disp, text) if text is not None else SourceFile.from_bytes(disp, data)
    except SourceError as err:
        return Phase1(path, None, parse_error(disp, err, None), 0, False)
    lines = source.text.count("\n") + 1 if source.text else 0
    if not may_hold_graph_code(source.text):
        return Phase1(path, None, None, lines, False)
    try:
        summary = summarize(source, modname, is_package, eager_calls)
    except SourceError as err:
        return Phase1(path, None, parse_error(disp, err, source), lines, True)
    # the summary's path must be the real path (module resolution), the source keeps the display path
    summary.path = path
    return Phase1(path, summary, None, lines, True, source)


def lint_python(path: str, source: Optional[SourceFile], index: ProjectIndex, scopes: Sequence[GraphScope],
                settings: Settings, dispatch: Dispatch, cells: CellResolver, scope_cache: Optional[dict] = None) -> Phase2:
    """Run the rules on one Python file. Never raises (see ``phase1``)."""
    from .budget import BudgetExceeded, budget_for, file_budget

    size = len(source.text) if source is not None else _size(path)
    try:
        with file_budget(budget_for(settings.file_budget, size, settings.file_budget_per_mb)):
            return _lint_python(path, source, index, scopes, settings, dispatch, cells, scope_cache)
    except (Exception, BudgetExceeded) as exc:  # noqa: BLE001 - isolated to this file
        return Phase2(path, [internal_error(display_path(path), exc, "checking")], [], None)


def _lint_python(path: str, source: Optional[SourceFile], index: ProjectIndex, scopes: Sequence[GraphScope],
                 settings: Settings, dispatch: Dispatch, cells: CellResolver, scope_cache: Optional[dict] = None) -> Phase2:
    disp = display_path(path)
    try:
        if source is None:
            source = SourceFile.read(path)
            source.path = disp
        source.tree  # parse errors surface here
    except SourceError as err:
        return Phase2(path, [parse_error(disp, err, source)], [], None)
    except OSError as err:
        return Phase2(path, [parse_error(disp, SourceError(f"cannot read: {err.strerror}"), None)], [], None)
    sups = suppressions.scan(source)
    if sups.skip_file:
        return Phase2(path, [], [], sups)
    summary = index.module_of_path(path)
    engine = ModuleEngine(source, summary, index, scopes, dispatch, settings.target, cells, scope_cache)
    ctx = RuleContext(source, summary.imports if summary else None, settings.target, engine._sink, index)
    try:
        engine.run(ctx)
        produced = list(engine.findings)
    finally:
        engine.release()
        ctx.release()
    findings: List[Finding] = []
    scoped: List[Tuple[int, str]] = []
    for finding, scope, _rule in produced:
        if scope is not None:
            scoped.append((len(findings), scope.qualname))
        findings.append(finding)
    return Phase2(path, findings, scoped, sups)


def lint_yaml(path: str, text: Optional[Union[str, bytes]], settings: Settings, dispatch: Dispatch) -> Phase2:
    """Run the YAML rules on one run config. Never raises (see ``phase1``)."""
    from .budget import BudgetExceeded, budget_for, file_budget

    try:
        with file_budget(budget_for(settings.file_budget, _size(path), settings.file_budget_per_mb)):
            return _lint_yaml(path, text, settings, dispatch)
    except (Exception, BudgetExceeded) as exc:  # noqa: BLE001 - isolated to this file
        return Phase2(path, [internal_error(display_path(path), exc, "checking")], [], None)


def _lint_yaml(path: str, text: Optional[Union[str, bytes]], settings: Settings, dispatch: Dispatch) -> Phase2:
    from ..parse.yamlconfig import YamlError, YamlLimitError, load_document, looks_like_run_config

    disp = display_path(path)
    if not dispatch.yaml:
        return Phase2(path, [], [], None)
    try:
        data = (text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")) if text is not None \
            else read_bytes(path)
    except OSError as err:  # the file was to be looked at: as for Python files, MSG001 with the reason
        return _yaml_unreadable(path, disp, settings, f"cannot read: {err.strerror}", None, 0, None, True)
    try:
        source = in_memory_source(disp, text) if isinstance(text, str) else SourceFile.from_bytes(disp, data)
    except SourceError as err:
        probe = data.decode("utf-8", "replace")
        return _yaml_unreadable(path, disp, settings, err.message, err.line if err.line > 1 else None, 0, None,
                                looks_like_run_config(probe))
    try:
        doc = load_document(source.text, disp)
    except YamlLimitError as err:  # over a parse budget: never a clean file, whatever it holds
        return _yaml_unreadable(path, disp, settings, err.message, err.line, err.col, source, True, limit=True)
    except YamlError as err:
        # a file that says it is a run config and does not parse is a finding; any other YAML
        # (CI files, Jinja-templated recipes) is not ours to judge, but is named as skipped
        return _yaml_unreadable(path, disp, settings, f"YAML syntax error: {err.message}", err.line, err.col,
                                source, looks_like_run_config(source.text))
    # anything else (MemoryError, a bug) reaches lint_yaml's isolation: this file's MSG000
    if doc is None:
        return Phase2(path, [], [], None)
    findings: List[Finding] = []
    ctx = RuleContext(source, None, settings.target, lambda f, s, r: findings.append(f))
    for rule in dispatch.yaml:
        ctx.rule = rule
        rule.check_yaml(doc, ctx)
    return Phase2(path, findings, [], suppressions.scan(source))


def _yaml_unreadable(path: str, disp: str, settings: Settings, message: str, line: Optional[int], col: int,
                     source: Optional[SourceFile], finding: bool, limit: bool = False) -> Phase2:
    """A YAML file that cannot be checked: its MSG001 when ``finding`` (and MSG001 is
    selected), else a skip the runner reports on stderr with ``message`` as the reason."""
    where = f"line {line}: " if line is not None else ""
    if not finding or PARSE_ERROR_CODE not in settings.selected:
        return Phase2(path, [], [], None, skipped=f"cannot be checked: {where}{message}")
    hint = ("a run config needs neither so many aliases nor such nesting; if the file is meant to be "
            "this way, exclude it (`extend-exclude`)" if limit else
            "fix the file so that a YAML parser can read it; nothing else in it was checked")
    return Phase2(path, [Finding(code=PARSE_ERROR_CODE, name="parse-error",
                                 message=f"cannot analyse this file: {message}", path=disp, line=line or 1, col=col,
                                 severity=Severity.ERROR, hint=hint,
                                 source_line=source.line(line) if source is not None and line else None)], [], None)
