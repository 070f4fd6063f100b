"""A committed state of the engine, for a benchmark to run beside the working tree:
``git archive REV msgraphlint rules`` unpacked into a folder that goes first on the child's
``PYTHONPATH`` (``rules/`` as ``msgraphlint_rules``, the name its entry point imports),
byte-compiled so a child that writes no bytecode does not compile it on every start."""

from __future__ import annotations

import compileall
import io
import os
import subprocess
import tarfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def extract(rev: str, dest: str) -> str:
    """Unpack ``rev``'s ``msgraphlint/`` and ``rules/`` into ``dest``; the short commit id."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO_ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", sha, "msgraphlint", "rules"], cwd=REPO_ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
        tf.extractall(dest)
    os.symlink(os.path.join(dest, "rules"), os.path.join(dest, "msgraphlint_rules"))
    compileall.compile_dir(dest, quiet=1)
    return sha


def pythonpath(dest: str) -> str:
    """``PYTHONPATH`` for a child that imports the snapshot in ``dest`` first."""
    return os.pathsep.join([dest] + [p for p in [os.environ.get("PYTHONPATH")] if p])
