"""What the two phases of a run produce per file: phase 1 a summary (and the parse error or
the source), phase 2 the findings. Plain data: the cache stores and decodes them, the
workers return them, so they sit below both in the import graph."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..suppress import inline as suppressions
from ..findings import Finding
from ..project.index import ModuleSummary
from ..parse.source import SourceFile


@dataclass
class Phase1:
    path: str
    summary: Optional[ModuleSummary]
    error: Optional[Finding]
    lines: int
    hint: bool
    source: Optional[SourceFile] = None
    digest: str = ""
    # the SHA-256 of the file's bytes and, when it can stand for them, its stat signature
    # (cache/snapshot.py): what the run's snapshot records ("" for an in-memory text)
    content: str = ""
    signed: str = ""



@dataclass
class Phase2:
    path: str
    findings: List[Finding]
    # (index in ``findings``, qualname of the graph scope it was found in): where the runner
    # reports it again, at the calls that reach that scope from other files (MSG004)
    scoped: List[Tuple[int, str]]
    sups: Optional[suppressions.SuppressionMap]
    skipped: str = ""   # why the file was not checked (the runner names it on stderr); "" = it was
