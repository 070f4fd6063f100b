"""Reporters: turn a run's ``FileResult`` list into text in one output format.

Every reporter is a callable
``(results, rules, *, root=None, statistics=False, color=False) -> str``:

* ``results``: ``list[FileResult]`` with findings already sorted and filtered;
  each file's ``unused_suppressions`` are shown as ordinary findings;
* ``rules``: ``{code: Rule subclass}`` of the active rules (SARIF's
  ``driver.rules``, default hints);
* ``root``: the source root SARIF URIs are made relative to (default: the
  current directory);
* ``statistics``: per-code counts instead of findings (text, concise and json;
  the other formats ignore it);
* ``color``: ANSI colour through ``click.style`` (text and concise only);
* ``unsafe_fixes``: count unsafe fixes as fixable (``[*]``, summaries), as
  ``--unsafe-fixes`` does;
* ``all_rules``: SARIF only, describe every active rule, not only the reported ones.

Reporters accept and ignore options they have no use for (``**options``).

Finding columns are 0-based; every format prints 1-based columns.
"""

from __future__ import annotations

import importlib
from typing import Callable, Dict, List, Mapping, Optional

from ..findings import FileResult

Reporter = Callable[..., str]


def _reporter(module: str) -> Reporter:
    """The ``render`` of ``reporters.<module>``, imported when a run first renders in that
    format (a run prints one format: the others' imports, junit's XML among them, are not paid)."""
    def render(*args, **options) -> str:
        return importlib.import_module(f"{__name__}.{module}").render(*args, **options)
    render.__name__ = render.__qualname__ = f"{module}.render"
    return render


REPORTERS: Dict[str, Reporter] = {
    "text": _reporter("text"),
    "concise": _reporter("concise"),
    "json": _reporter("json"),
    "sarif": _reporter("sarif"),
    "github": _reporter("github"),
    "gitlab": _reporter("gitlab"),
    "junit": _reporter("junit"),
    "pylint": _reporter("pylint"),
    "json-lines": _reporter("json_lines"),
}


def render(fmt: str, results: List[FileResult], rules: Mapping[str, type], *,
           root: Optional[str] = None, statistics: bool = False, color: bool = False, **options) -> str:
    """Render ``results`` in format ``fmt`` (a key of :data:`REPORTERS`)."""
    try:
        reporter = REPORTERS[fmt]
    except KeyError:
        raise ValueError(f"unknown output format {fmt!r}; choose from {', '.join(REPORTERS)}") from None
    return reporter(results, rules or {}, root=root, statistics=statistics, color=color, **options)


__all__ = ["REPORTERS", "Reporter", "render"]
