"""The static checker never imports mindspore: not the CLI, not a full check run,
not any engine or rule module (only msgraphlint.verify._child may)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = textwrap.dedent("""
    import sys, importlib, pkgutil
    import msgraphlint, msgraphlint_rules
    import msgraphlint.cli
    from msgraphlint.run.runner import run_paths
    res = run_paths([{paths}])
    assert sum(len(f.findings) for f in res.files) > 0, "the probe should lint real code"
    for pkg in (msgraphlint, msgraphlint_rules):
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if m.name.endswith(("._child", ".__main__")):
                continue
            importlib.import_module(m.name)
    loaded = sorted(n for n in sys.modules if n == "mindspore" or n.startswith("mindspore."))
    print("LOADED" if loaded else "CLEAN", loaded[:5])
""")


def test_cli_import_and_full_check_do_not_import_mindspore(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import mindspore.nn as nn\nclass N(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n")
    paths = ", ".join(repr(p) for p in [str(bad), os.path.join(ROOT, "reference_model"), os.path.join(ROOT, "fixtures")]
                      if os.path.exists(p))
    proc = subprocess.run([sys.executable, "-c", PROBE.format(paths=paths)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("CLEAN"), proc.stdout


def test_python_c_import_cli_is_clean():
    proc = subprocess.run([sys.executable, "-c", "import msgraphlint.cli, sys; print('mindspore' in sys.modules)"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "False"


GITIGNORE_PROBE = textwrap.dedent("""
    import sys
    import msgraphlint.cli
    try:
        msgraphlint.cli.main(["check", "--no-cache", "--exit-zero", "--format", "concise", "."])
    except SystemExit:
        pass
    print("PATHSPEC" if "pathspec" in sys.modules else "NO-PATHSPEC")
""")


def test_pathspec_is_imported_only_when_a_gitignore_is_read(tmp_path):
    """pathspec (~25 ms of a process's start) loads when a ``.gitignore`` is read, and one
    that is read still applies."""
    (tmp_path / "model.py").write_text("import mindspore.nn as nn\nclass N(nn.Cell):\n"
                                       "    def construct(self, x):\n        print(x)\n        return x\n")
    (tmp_path / "ignored.py").write_text((tmp_path / "model.py").read_text())
    run = lambda: subprocess.run([sys.executable, "-c", GITIGNORE_PROBE], capture_output=True, text=True,  # noqa: E731
                                 cwd=tmp_path)
    proc = run()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "NO-PATHSPEC"
    assert "ignored.py" in proc.stdout and "model.py" in proc.stdout
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    proc = run()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "PATHSPEC"
    assert "ignored.py" not in proc.stdout and "model.py" in proc.stdout
