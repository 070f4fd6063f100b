"""Call-site findings (MSG004 ``reached-from-call``): a finding inside a helper or sub-Cell
reached from graph code in another file is reported again at the call there.

``scopes.discover`` records the scope graph (every call from a graph scope to another:
a helper, or a sub-Cell whose ``construct`` runs there). A call is *crossing* when its
callee lives in another file. For a finding in scope X of file P, every other file F gets
one line, at the first crossing call in F (in source order) from which X is reachable:
"`mid()` reaches MSG201 (print-in-graph) at src/utils.py:2". So a helper two imports
away is reported in the file that calls the first of them and in each file on the way,
once per file, and a helper in the same file is not repeated at its call.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..findings import Finding
from .scopes import CallSite, GraphScope

ECHO_CODE = "MSG004"
ECHO_NAME = "reached-from-call"


class CallGraph:
    """The scope graph of one run: scopes by qualname, calls, reachability."""

    def __init__(self, scopes: Dict[str, List[GraphScope]], calls: Dict[str, List[CallSite]]) -> None:
        self.scope: Dict[str, GraphScope] = {s.qualname: s for ss in scopes.values() for s in ss}
        self.path: Dict[str, str] = {q: os.path.abspath(s.path) for q, s in self.scope.items()}
        self.calls = calls
        self.crossing: Dict[str, List[CallSite]] = {}  # caller's absolute path -> its crossing calls
        for q, sites in calls.items():
            src = self.path.get(q)
            if src is None:
                continue
            for c in sites:
                dst = self.path.get(c.target)
                if dst is not None and dst != src:
                    self.crossing.setdefault(src, []).append(c)
        for sites in self.crossing.values():
            sites.sort(key=lambda c: (c.line, c.col))
        self._reach: Dict[str, Dict[str, Optional[str]]] = {}

    def reach(self, q: str) -> Dict[str, Optional[str]]:
        """The scopes reachable from ``q`` (``q`` included), each with the scope it is called
        from on a shortest way there (``q``: None)."""
        got = self._reach.get(q)
        if got is None:
            got = {q: None}
            queue = deque([q])
            while queue:
                x = queue.popleft()
                for c in self.calls.get(x, ()):
                    if c.target not in got and c.target in self.scope:
                        got[c.target] = x
                        queue.append(c.target)
            self._reach[q] = got
        return got

    def reached_from(self, files: Iterable[str]) -> Set[str]:
        """Absolute paths of the files holding scopes that crossing calls in ``files`` reach
        (``files`` themselves left out)."""
        files = set(files)
        out: Set[str] = set()
        for f in files:
            for c in self.crossing.get(f, ()):
                out.update(self.path[x] for x in self.reach(c.target))
        return out - files

    def sites(self, files: Iterable[str]) -> Dict[str, List[Tuple[str, CallSite]]]:
        """Scope qualname -> [(absolute path of a file in ``files``, the first crossing call
        in it from which the scope is reachable)], for scopes outside that file."""
        out: Dict[str, Dict[str, CallSite]] = {}
        for f in files:
            for c in self.crossing.get(f, ()):
                for x in self.reach(c.target):
                    if self.path[x] != f:
                        out.setdefault(x, {}).setdefault(f, c)
        return {x: list(d.items()) for x, d in out.items()}

    def through(self, c: CallSite, q: str) -> List[GraphScope]:
        """The scopes from the callee of ``c`` to ``q``, both included."""
        parents = self.reach(c.target)
        way: List[GraphScope] = []
        x: Optional[str] = q
        while x is not None:
            way.append(self.scope[x])
            x = parents.get(x)
        return list(reversed(way))


def _where(scope: GraphScope, display) -> str:
    return f"`{scope.short_name}` ({display(scope.path)}:{scope.lineno})"


def echo(origin: Finding, caller: str, site: CallSite, way: Sequence[GraphScope], line_text: Optional[str],
         display) -> Finding:
    """The MSG004 finding for ``origin`` at ``site`` in ``caller`` (a display path)."""
    where = f"{origin.path}:{origin.line}"
    chain: Tuple[str, ...] = (f"{origin.code} at {where}: {origin.message}",)
    if len(way) > 1:
        chain += ("through " + " -> ".join(_where(s, display) for s in way),)
    col = site.col
    if line_text is not None and not line_text.isascii():  # ast columns are UTF-8 byte offsets
        col = len(line_text.encode("utf-8", "surrogatepass")[:col].decode("utf-8", "ignore"))
    # the title names the original's file by its name (a package's paths make it long), the
    # detail its whole path and what happens in the graph, as the original says
    short = f"{os.path.basename(origin.path.replace(os.sep, '/').rstrip('/')) or origin.path}:{origin.line}"
    return Finding(code=ECHO_CODE, name=ECHO_NAME,
                   message=f"`{site.label}()` reaches {origin.code} ({origin.name}) at {short}",
                   path=caller, line=site.line, col=col, severity=origin.severity, chain=chain,
                   origin=(origin.code, origin.path, origin.line, origin.col), source_line=line_text,
                   detail=f"{origin.code} at {where}: {origin.message}"
                          + (f"\n{origin.detail}" if origin.detail else ""))


def codes_of(finding: Finding) -> Tuple[str, ...]:
    """The codes that select, ignore or suppress a finding: its own, and for a call-site
    finding also the code of the finding it repeats."""
    return (finding.code,) if finding.origin is None else (finding.code, finding.origin[0])
