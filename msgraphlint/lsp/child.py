"""The analysis of one huge document in a process of its own.

``ast.parse`` holds the GIL for its whole run: 0.3 s for a 20,000-line module, many seconds
for a 23 MB one, during which an analysis thread of the server kept the message loop from
answering anything (a hover waited 15.8 s, ``exit`` 40 s). Documents of at least
``analysis.PROCESS_MIN_BYTES`` are analysed here instead: ``python -m msgraphlint.lsp.child
PARENT_PID PAYLOAD`` reads the pickled request (text, path, the other open documents'
texts, the workspace root) from the file PAYLOAD, writes the pickled ``(findings, related)``
to stdout, and dies with the server (``PR_SET_PDEATHSIG``). The server kills it when a
newer version supersedes it, at its budget, and at exit. It keeps no per-scope cache:
documents this big are re-analysed whole, off the server's process.
"""

from __future__ import annotations

import os
import pickle
import sys


def settings_of(root: str):
    """Each file's settings as the server finds them (``MsGraphLintServer.settings_for``)."""
    from ..config import find_pyproject
    from ..run.runner import prepare

    memo: dict = {}

    def settings_for(path: str):
        folder = os.path.dirname(path)
        start = path if os.path.isdir(folder or ".") else root
        cfg_path = find_pyproject(start)
        if cfg_path not in memo:
            memo[cfg_path] = prepare([start], cfg_path)
        return memo[cfg_path]
    return settings_for


def analyse(request: dict) -> tuple:
    from ..run.runner import run_source

    settings_for = settings_of(request["root"])
    related: dict = {}
    result = run_source(request["text"], request["path"], settings=settings_for(request["path"]),
                        settings_of=settings_for, buffers=request["buffers"], related=related)
    return list(result.findings) + list(result.unused_suppressions), related


def main(argv) -> int:
    from ..run.workers import _die_with_parent

    _die_with_parent(int(argv[0]))
    with open(argv[1], "rb") as fh:
        request = pickle.load(fh)
    out = pickle.dumps(analyse(request), protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
