"""The execution mode a file's graph code is assumed to run in, from the project's evidence.

A file whose own text never sets a mode nor jits anything (``ModuleSummary.mode == ""``: a
library module, a model definition) runs its Cells in whatever mode the code that calls them
chose. MindSpore 2.x starts in PyNative; rules report such Cells as graph code, so each of
their findings says which mode it assumes and why (issue 22 item 1):

* another file of the project sets ``GRAPH_MODE`` (the first one, by path): the note names it;
* no file sets ``GRAPH_MODE``, but one jits (``@ms.jit``, ``jit(fn)``): graph mode applies where
  a Cell is jitted or called from jitted code, and the note says so;
* the project sets only ``PYNATIVE_MODE`` and nothing jits: nothing in it compiles a graph, so
  the findings of such files are dropped (``pynative_project``);
* nothing in the project says anything: the note says the assumption has no evidence.

Only a project of more than one module gives evidence beyond the file itself; a run over a
single file states no assumption (its findings read as before).
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

from .index import ModuleSummary, ProjectIndex


def _split(mode: str) -> Tuple[str, int]:
    kind, _, line = mode.partition(":")
    return kind, int(line) if line.isdigit() else 0


class ProjectModes:
    """The project's mode evidence, read once from the index's module summaries."""

    def __init__(self, index: ProjectIndex, shown: Callable[[str], str] = lambda p: p) -> None:
        mods = sorted((m for m in list(index.modules.values()) if m.path), key=lambda m: m.path)
        self.modules = len(mods)
        self.graph: Optional[Tuple[str, int]] = None
        self.jit: Optional[Tuple[str, int]] = None
        self.pynative: Optional[Tuple[str, int]] = None
        self.counts = {"graph": 0, "jit": 0, "pynative": 0}
        for m in mods:
            kind, line = _split(getattr(m, "mode", "") or "")
            if kind in self.counts:
                self.counts[kind] += 1
            if kind == "graph" and self.graph is None:
                self.graph = (shown(m.path), line)
            elif kind == "jit" and self.jit is None:
                self.jit = (shown(m.path), line)
            elif kind == "pynative" and self.pynative is None:
                self.pynative = (shown(m.path), line)

    @property
    def pynative_project(self) -> bool:
        """The project sets PYNATIVE_MODE, and no file sets GRAPH_MODE or jits anything."""
        return self.pynative is not None and self.graph is None and self.jit is None

    def says_nothing(self, summary: Optional[ModuleSummary]) -> bool:
        return summary is not None and not (getattr(summary, "mode", "") or "") and self.modules > 1

    def note(self) -> str:
        """The line a finding in a file that says nothing of its mode gets in its detail."""
        if self.graph is not None:
            g, n = self.counts["graph"], self.counts["pynative"]
            balance = "" if g == 1 and n == 0 else f"; {g} file{'s set' if g > 1 else ' sets'} GRAPH_MODE, {n} PYNATIVE_MODE"
            return (f"Assumes graph mode: {self.graph[0]}:{self.graph[1]} sets GRAPH_MODE{balance} "
                    f"(this file sets no mode)")
        if self.jit is not None:
            return (f"Assumes graph mode: no file sets GRAPH_MODE; it applies where this code is jitted or called "
                    f"from jitted code ({self.jit[0]}:{self.jit[1]} uses jit)")
        return ("Assumes graph mode: no file of the project sets a mode or jits (MindSpore 2.x runs Cells in "
                "PyNative unless GRAPH_MODE is set or they are jitted)")

