"""JSON Lines (ruff's ``json-lines`` format): one finding per line, each the same object
as a finding of the ``json`` format (``json.finding_dict``: 1-based lines and columns,
``cell`` for a notebook's), in the same order; no document around them, no summary.
Empty output when there are no findings. Every line is valid UTF-8 (``_common.json_text``).
"""

from __future__ import annotations

from typing import List, Mapping, Optional

from ..findings import FileResult
from ._common import all_findings, json_text
from .json import finding_dict


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, **_options) -> str:
    return "".join(json_text(finding_dict(f, rules), sort_keys=False) + "\n" for f in all_findings(results))
