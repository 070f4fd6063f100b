"""The stable in-process API (used by the CLI, the LSP server, verify and benchmarks)."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from .findings import FileResult, Finding


def check_paths(paths: Sequence[str], *, config_file: Optional[str] = None,
                select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
                jobs: int = 1) -> List[FileResult]:
    """Lint files/directories the way ``msgraphlint check`` does; returns one FileResult per file."""
    from .runner import run_paths

    return run_paths(paths, config_file=config_file, select=select, ignore=ignore, jobs=jobs).files


def check_source(source: str, path: str = "<stdin>", *, config_file: Optional[str] = None,
                 select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None) -> List[Finding]:
    """Lint one in-memory source text (editors, stdin). Imports of sibling modules are
    resolved from ``path``'s directory when it exists on disk."""
    from .runner import run_source

    return run_source(source, path, config_file=config_file, select=select, ignore=ignore).findings
