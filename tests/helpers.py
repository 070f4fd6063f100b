"""Small test utilities: write a throwaway project, lint it."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Dict, List

from msgraphlint.run.runner import run_paths


def sigint_as_in_a_terminal() -> None:
    """``preexec_fn`` for a child that a test interrupts with SIGINT: the default action, as
    a program started from a terminal has it. A shell runs a background job (``.ci/run ... &``,
    ``nohup``) with SIGINT ignored, its children inherit that, and Python then installs no
    KeyboardInterrupt handler: a run the test interrupts would run to its end instead."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def load_benchmark(name: str):
    """``benchmarks/<name>.py`` as a module (the benchmarks are scripts, not a package; their
    own imports of each other resolve while it loads)."""
    import importlib.util
    import sys

    bench = Path(__file__).resolve().parent.parent / "benchmarks"
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", bench / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(bench))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(bench))
    return mod


def write_tree(root: Path, files: Dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def lint(paths, **kw) -> List:
    result = run_paths([str(p) for p in paths], **kw)
    return [f for fr in result.files for f in fr.findings + fr.unused_suppressions]


def codes_at(findings) -> List[tuple]:
    return sorted((os.path.basename(f.path), f.line, f.code) for f in findings)


def run_cli(*args, **kw):
    """``msgraphlint ARGS`` in-process (click's runner); exceptions propagate."""
    from click.testing import CliRunner

    from msgraphlint.cli import cli
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kw)
