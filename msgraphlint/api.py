"""The stable in-process API (used by the CLI, the LSP server, verify and benchmarks)."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Union

from .findings import FileResult, Finding


def check_paths(paths: Sequence[str], *, config_file: Optional[str] = None,
                select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
                jobs: int = 1) -> List[FileResult]:
    """Lint files/directories the way ``msgraphlint check`` does; returns one FileResult per file."""
    from .run.runner import run_paths

    return run_paths(paths, config_file=config_file, select=select, ignore=ignore, jobs=jobs).files


def check_source(source: Union[str, bytes], path: str = "<stdin>", *, config_file: Optional[str] = None,
                 select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None) -> List[Finding]:
    """Lint one in-memory source (editors, stdin) as Python, whatever ``path`` is named;
    ``path`` is optional. ``bytes`` are decoded exactly like a file on disk (BOM, coding
    cookie; undecodable bytes are an MSG001 finding). Imports of sibling modules are
    resolved from ``path``'s directory when it exists on disk."""
    from .run.runner import run_source

    return run_source(source, path, config_file=config_file, select=select, ignore=ignore).findings
