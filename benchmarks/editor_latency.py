"""Editor latency on any module, as a multiple of one ``ast.parse`` of it.

    .venv/bin/python benchmarks/editor_latency.py PATH... [--synthetic 2000 20000] [--edits 40]
    .venv/bin/python benchmarks/editor_latency.py PATH --profile [--top 30]

For each module (a real file, opened where it lies so the server reads the rest of its
project as an editor would, or a synthetic one of ``lsp_latency.make_module``, written to
a temporary project), a real LSP client opens it in ``msgraphlint lsp`` over stdio and
then alternately inserts and removes one ``print(...)`` line in the last statement list of
the first ``construct`` (an incremental ``didChange`` of one line, as editors send), and
waits for the ``publishDiagnostics`` of exactly that version. The inserted print must be
reported (``MSG201`` on its line) and must be gone after its removal, so an analysis that
skips work it should do fails the run.

Prints per module: lines, one ``ast.parse`` (median of 7, in this process, before and after
the run, the smaller; and with the cyclic GC off, as the server parses), and the
client-observed median and p95 of ``didChange -> publishDiagnostics`` in ms and as a
multiple of that parse; the last line is the table of ratios. Debounce is 0 ms.

``--cpu``: no server either; the CPU time of that analysis per edit against the CPU time
of one ``ast.parse`` (what to compare on a loaded machine). ``--gc server`` (default): the
cyclic GC as the server runs it, off during the edits and collected between them, untimed;
``--gc on``: on, as this measured before the server collected when idle. With ``server`` the
trees the per-tree indexes evict are freed between edits too, as the server frees them once
an edit's diagnostics are out (``astutil.defer_release``).

``--profile``: no server; the analysis the server runs for one edit (``runner.run_source``
with a warm per-document scope cache and context cache, as ``server.start_analysis`` calls
it), under cProfile, sorted by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_latency import make_module  # noqa: E402

MARK = "msgraphlint-bench"


def edit_point(text: str) -> Tuple[int, str]:
    """(0-based line, indentation) where a print can go: before the last statement of the
    first ``construct`` in source order (a statement list of that function's own body)."""
    tree = ast.parse(text)
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.name == "construct"]
    if not funcs:
        raise SystemExit("no construct in the module")
    func = min(funcs, key=lambda n: n.lineno)
    last = func.body[-1]
    return last.lineno - 1, " " * last.col_offset


def parse_seconds(text: str, path: str, repeat: int = 7, gc_on: bool = True) -> float:
    """Median of ``repeat`` ``ast.parse`` calls of ``text``: with the cyclic GC on, as a caller
    gets it, or off (``gc_on=False``), as the server's analysis runs (``workers.no_cyclic_gc``;
    a 20,000-line tree costs half with the collector off)."""
    import gc

    was = gc.isenabled()
    (gc.enable if gc_on else gc.disable)()
    try:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            ast.parse(text, path)
            times.append(time.perf_counter() - t0)
    finally:
        (gc.enable if was else gc.disable)()
    return statistics.median(times)


def project_root(path: Path) -> Path:
    """The folder an editor would open: the parent of the file's top package."""
    folder = path.parent
    while (folder / "__init__.py").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def p95(samples: List[float]) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


async def measure(path: Path, text: str, root: Path, edits: int) -> dict:
    from lsprotocol import types as lsp
    from pytest_lsp import ClientServerConfig

    versions: dict = {}
    line, indent = edit_point(text)
    insert = f"{indent}print('{MARK}')\n"
    uri = path.as_uri()
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "msgraphlint", "lsp"]).start()
    original = client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def track(params):
        if params.uri == uri:
            versions[uri] = params.version
        return original(params)

    client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = track
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(),
        initialization_options={"debounce_ms": 0}))
    t0 = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await _until(versions, uri, 1, 600)
    first = time.perf_counter() - t0
    samples = []
    for n in range(edits):
        if n % 2 == 0:
            change = lsp.TextDocumentContentChangeEvent_Type1(
                range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)), text=insert)
        else:
            change = lsp.TextDocumentContentChangeEvent_Type1(
                range=lsp.Range(lsp.Position(line, 0), lsp.Position(line + 1, 0)), text="")
        t0 = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=n + 2), content_changes=[change]))
        await _until(versions, uri, n + 2, 600)
        samples.append(time.perf_counter() - t0)
        at_line = [d for d in client.diagnostics[uri] if d.range.start.line == line and d.code == "MSG201"]
        if (n % 2 == 0) != bool(at_line):
            raise SystemExit(f"{path}: edit {n}: the print on line {line + 1} was "
                             f"{'not ' if n % 2 == 0 else ''}reported")
    server = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="msgraphlint.timings"))
    await client.shutdown_session()
    return {"first": first, "samples": samples, "server": [t / 1000 for t in (server or [])[1:]]}


async def _until(versions: dict, uri: str, version: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while versions.get(uri) != version:
        if time.monotonic() > deadline:
            raise SystemExit(f"no diagnostics for version {version} within {timeout} s")
        await asyncio.sleep(0.0005)


def profile(path: Path, text: str, top: int) -> None:
    import cProfile
    import pstats

    from msgraphlint.project.files import ContextCache
    from msgraphlint.run.runner import prepare, run_source

    settings = prepare([str(path)], None)
    cache: dict = {}
    context = ContextCache()
    line, indent = edit_point(text)
    lines = text.splitlines(keepends=True)
    edited = "".join(lines[:line] + [f"{indent}print('{MARK}')\n"] + lines[line:])

    def once(t):
        return run_source(t, str(path), settings=settings, scope_cache=cache, context_cache=context,
                          buffers={}, related={})

    once(text)  # didOpen
    once(edited)
    once(text)  # warm: both versions seen
    prof = cProfile.Profile()
    t0 = time.process_time()
    prof.enable()
    result = once(edited)
    prof.disable()
    cpu = time.process_time() - t0
    parse = parse_seconds(text, str(path))
    print(f"{path}: {text.count(chr(10))} lines; one edit: {cpu * 1000:.1f} ms CPU under cProfile "
          f"({len(result.findings)} findings); ast.parse {parse * 1000:.1f} ms")
    stats = pstats.Stats(prof, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def cpu_ratios(name: str, path: Path, text: str, edits: int, gc_mode: str = "server") -> tuple:
    """``--cpu``: no server, no transport; the CPU time of the analysis the server runs for
    each edit (as ``profile``), median and p95 over ``edits`` alternating edits, against the
    CPU time of one ``ast.parse`` (GC on, and off as the analysis runs). Under load, CPU
    seconds compare where wall time does not. ``gc_mode="server"``: the cyclic collector off
    during the edits and run between them, untimed, as the server does (``IdleCollector``);
    ``"on"``: the collector on, so a collection lands inside some edits (the server before
    it collected when idle)."""
    import gc

    from msgraphlint.parse.astutil import defer_release, release_deferred
    from msgraphlint.project.files import ContextCache
    from msgraphlint.run.runner import prepare, run_source

    settings = prepare([str(path)], None)
    cache: dict = {}
    context = ContextCache()
    line, indent = edit_point(text)
    lines = text.splitlines(keepends=True)
    edited = "".join(lines[:line] + [f"{indent}print('{MARK}')\n"] + lines[line:])

    def once(t):
        return run_source(t, str(path), settings=settings, scope_cache=cache, context_cache=context,
                          buffers={}, related={})

    once(text)  # didOpen
    samples = []
    was = gc.isenabled()
    if gc_mode == "server":
        gc.disable()  # as ``msgraphlint lsp`` runs (lsp.analysis.IdleCollector): cycles collected when idle
        defer_release()  # and evicted trees freed after each edit's diagnostics
    try:
        for n in range(edits):
            if gc_mode == "server":
                release_deferred()  # the idle work between two keystrokes, not timed
                gc.collect()
            t0 = time.process_time()
            once(edited if n % 2 == 0 else text)
            samples.append(time.process_time() - t0)
    finally:
        (gc.enable if was else gc.disable)()
        defer_release(False)

    def parse_cpu(gc_on: bool) -> float:
        was = gc.isenabled()
        (gc.enable if gc_on else gc.disable)()
        try:
            times = []
            for _ in range(7):
                t0 = time.process_time()
                ast.parse(text, str(path))
                times.append(time.process_time() - t0)
        finally:
            (gc.enable if was else gc.disable)()
        return statistics.median(times)
    parse, parse_nogc = parse_cpu(True), parse_cpu(False)
    med, hi = statistics.median(samples), p95(samples)
    print(f"{name}: {text.count(chr(10))} lines, ast.parse {parse * 1000:.1f} ms CPU (GC off {parse_nogc * 1000:.1f}); "
          f"{edits} edits: median {med * 1000:.1f} ms CPU ({med / parse:.1f}x), p95 {hi * 1000:.1f} ms "
          f"({hi / parse:.1f}x, {hi / parse_nogc:.1f}x GC off)", flush=True)
    return (name, text.count("\n"), parse, parse_nogc, med, hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="real modules, opened where they lie")
    ap.add_argument("--synthetic", type=int, nargs="*", default=[], metavar="LINES",
                    help="also generated modules of about LINES lines (lsp_latency.make_module)")
    ap.add_argument("--edits", type=int, default=40, help="edits per module (default 40; 20 from 10,000 lines)")
    ap.add_argument("--profile", action="store_true", help="cProfile the analysis of one edit instead")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--cpu", action="store_true",
                    help="the server's analysis in this process, CPU time per edit (no client, no transport)")
    ap.add_argument("--gc", choices=("server", "on"), default="server",
                    help="--cpu: cyclic GC as the server runs it (off, collected between edits; default) or on")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        modules: List[Tuple[str, Path, str, Path]] = []
        for p in a.paths:
            p = p.resolve()
            modules.append((str(p), p, p.read_text(encoding="utf-8"), project_root(p)))
        for lines in a.synthetic:
            root = Path(tmp) / f"synthetic{lines}"
            root.mkdir()
            (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
            text = make_module(lines)
            (root / "model.py").write_text(text)
            modules.append((f"synthetic {lines}", root / "model.py", text, root))
        for name, path, text, root in modules:
            if a.profile:
                profile(path, text, a.top)
                continue
            n_lines = text.count("\n")
            edits = a.edits if n_lines < 10_000 or a.edits != 40 else 20
            if a.cpu:
                rows.append(cpu_ratios(name, path, text, edits, a.gc))
                continue
            before = parse_seconds(text, str(path))
            got = asyncio.run(measure(path, text, root, edits))
            parse = min(before, parse_seconds(text, str(path)))  # the quieter of two measurements
            parse_nogc = parse_seconds(text, str(path), gc_on=False)
            med, hi = statistics.median(got["samples"]), p95(got["samples"])
            srv = got["server"]
            print(f"{name}: {n_lines} lines, ast.parse {parse * 1000:.1f} ms (GC off {parse_nogc * 1000:.1f} ms); "
                  f"didOpen -> diagnostics {got['first'] * 1000:.0f} ms; {edits} edits: median {med * 1000:.1f} ms "
                  f"({med / parse:.1f}x), p95 {hi * 1000:.1f} ms ({hi / parse:.1f}x, {hi / parse_nogc:.1f}x GC off)"
                  + (f"; server analysis median {statistics.median(srv) * 1000:.1f} ms" if srv else ""), flush=True)
            rows.append((name, n_lines, parse, parse_nogc, med, hi))
    if rows:
        unit = " CPU" if a.cpu else ""
        print(f"\n| module | lines | ast.parse ms{unit} (GC off) | median ms{unit} (x parse) | "
              f"p95 ms{unit} (x parse; x parse GC off) |")
        print("|---|---|---|---|---|")
        for name, n, parse, parse_nogc, med, hi in rows:
            short = name if name.startswith("synthetic") else os.path.relpath(name, os.getcwd())
            print(f"| {short} | {n} | {parse * 1000:.1f} ({parse_nogc * 1000:.1f}) | {med * 1000:.1f} "
                  f"({med / parse:.1f}x) | {hi * 1000:.1f} ({hi / parse:.1f}x; {hi / parse_nogc:.1f}x) |")


if __name__ == "__main__":
    main()
