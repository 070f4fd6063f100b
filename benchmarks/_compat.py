"""Import a msgraphlint module by its current name, or by the name it had before the layout
move (c955824), so that a benchmark run with ``--rev OLD`` measures commits of either layout."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

# current name -> the name before c955824 (only the modules the benchmarks import)
BEFORE_LAYOUT = {
    "msgraphlint.run.runner": "msgraphlint.runner",
    "msgraphlint.run.discovery": "msgraphlint.discovery",
    "msgraphlint.project.index": "msgraphlint.project",
    "msgraphlint.project.scopes": "msgraphlint.scopes",
    "msgraphlint.parse.source": "msgraphlint.source",
}


def module(name: str) -> ModuleType:
    """The module ``name`` of the msgraphlint package that is imported, in its own layout:
    decided by the package's files, not by trying the import (an editable install of another
    checkout would answer any ``msgraphlint.*`` name from that checkout)."""
    import msgraphlint

    new_layout = os.path.isdir(os.path.join(os.path.dirname(msgraphlint.__file__), "run"))
    return importlib.import_module(name if new_layout else BEFORE_LAYOUT.get(name, name))
