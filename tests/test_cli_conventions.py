"""The command line behaves as ruff users expect (issue 13): fix counting, output
formats and statistics, colour, exit codes, paths, help, pipes, cache cleaning,
progress and verbosity."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from msgraphlint import cli as cli_module
from msgraphlint.cli import cli

from helpers import sigint_as_in_a_terminal, write_tree

# MSG510 and MSG204 carry safe fixes; MSG520 and MSG201 (ops is imported) unsafe ones
NET = """
import mindspore.nn as nn
import mindspore.ops as ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(keep_prob=0.9)

    def construct(self, x):
        y = x * 2
        y += 1
        z = ops.dropout(y, p=0.1)
        print(z)
        return z
"""
EXE = [sys.executable, "-m", "msgraphlint"]


def run(*args, **kw):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kw)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    write_tree(tmp_path, {"net.py": NET})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


def sub(args, cwd, env=None, **kw):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.pop("FORCE_COLOR", None)
    e.update(env or {})
    return subprocess.run(EXE + args, cwd=cwd, env=e, capture_output=True, text=True, timeout=120, **kw)


# ------------------------------------------------------------------------ fixes
def test_only_safe_fixes_are_marked_and_counted(proj):
    r = run("check", "--output-format", "concise", "net.py")
    lines = r.stdout.splitlines()
    assert [line.split()[1:3] for line in lines[:4]] == [
        ["MSG510", "[*]"], ["MSG204", "[*]"], ["MSG520", "`ops.dropout(...)`"], ["MSG201", "`print()`"]]
    assert lines[4:] == ["Found 4 errors (2 fixable).",
                         "2 hidden fixes can be enabled with the `--unsafe-fixes` option."]
    r = run("check", "--output-format", "concise", "--unsafe-fixes", "net.py")
    assert "Found 4 errors (4 fixable)." in r.stdout and "hidden" not in r.stdout
    assert r.stdout.count("[*]") == 4


def test_after_fix_nothing_fixable_is_left_and_a_second_fix_changes_nothing(proj):
    r = run("check", "--fix", "--output-format", "concise", "net.py")
    assert r.exit_code == 1
    assert "Fixed 2 findings in 1 file." in r.stderr
    assert "Found 2 errors (0 fixable)." in r.stdout
    assert "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option)." in r.stdout
    text = (proj / "net.py").read_text()
    r = run("check", "--fix", "net.py")
    assert "Fixed" not in r.stderr and (proj / "net.py").read_text() == text


def test_show_fixes_enumerates_per_file_and_rule(proj):
    r = run("check", "--show-fixes", "--output-format", "concise", "net.py")
    assert r.stdout.startswith("Fixable with --fix (2 errors):\n- net.py:\n    1 × MSG204 (tensor-augmented-assign)\n"
                               "    1 × MSG510 (dropout-keep-prob)\n")
    r = run("check", "--fix", "--show-fixes", "--output-format", "concise", "net.py")
    assert r.stdout.startswith("Fixed 2 errors:\n- net.py:\n    1 × MSG204 (tensor-augmented-assign)\n"
                               "    1 × MSG510 (dropout-keep-prob)\n")


def test_fix_with_stdin_filename_prints_the_fixed_source(proj):
    r = run("check", "--fix", "--stdin-filename", "net.py", input=NET.lstrip("\n"))
    assert "self.drop = nn.Dropout(p=0.1)" in r.stdout and "y = y + 1" in r.stdout
    assert r.stdout.count("\n") == NET.lstrip("\n").count("\n")
    assert (proj / "net.py").read_text() == NET.lstrip("\n")  # the file on disk is untouched
    assert "MSG520" in r.stderr and r.exit_code == 1


def test_add_noqa_silences_every_finding_and_keeps_code_valid(proj):
    write_tree(proj, {"ml.py": '''
        import mindspore.nn as nn

        class N(nn.Cell):
            def construct(self, x):
                y = x * 2
                y += 1  # existing comment
                print("""a
                b""", y)  # noqa: E501
                return y
        '''})
    r = run("check", "--add-noqa", "net.py", "ml.py")
    assert r.exit_code == 0, r.output
    assert "Added 5 noqa directives." in r.stderr
    ml = (proj / "ml.py").read_text()
    assert "y += 1  # existing comment  # noqa: MSG204" in ml
    # the print starts on a line that ends inside a string: it cannot carry a comment there
    assert 'print("""a\n' in ml and "cannot hold a comment" in r.stderr
    assert "# noqa: MSG510" in (proj / "net.py").read_text()
    r = run("check", "--output-format", "concise", "net.py")
    assert r.exit_code == 0 and r.stdout == "All checks passed!\n"


# ----------------------------------------------------------------------- output
def test_output_format_is_an_alias_of_format(proj):
    a = run("check", "--output-format", "json", "net.py").stdout
    b = run("check", "--format", "json", "net.py").stdout
    assert a == b and json.loads(a)["summary"]["findings"] == 4


def test_statistics_have_totals_and_fixable_counts_also_in_json(proj):
    r = run("check", "--statistics", "net.py")
    assert r.stdout == ("1  MSG201      print-in-graph\n"
                        "1  MSG204  [*] tensor-augmented-assign\n"
                        "1  MSG510  [*] dropout-keep-prob\n"
                        "1  MSG520      dropout-ignores-mode\n"
                        "Found 4 errors (2 fixable).\n"
                        "2 hidden fixes can be enabled with the `--unsafe-fixes` option.\n")
    doc = json.loads(run("check", "--statistics", "--output-format", "json", "net.py").stdout)
    assert doc["total"] == 4 and doc["fixable"] == 2 and doc["hidden_fixes"] == 2
    assert {row["code"]: (row["count"], row["fixable"]) for row in doc["statistics"]} == {
        "MSG201": (1, 0), "MSG204": (1, 1), "MSG510": (1, 1), "MSG520": (1, 0)}


def test_json_summary_counts_fixable_as_the_text_summary_does(proj):
    """`summary.fixable` is what `--fix` fixes (safe fixes; all with --unsafe-fixes), the
    number in the text's "(N fixable)"; `summary.hidden_fixes` the unsafe-only ones."""
    from jsonschema import Draft202012Validator
    from msgraphlint.reporters.json import load_schema

    text = run("check", "--output-format", "concise", "net.py").stdout
    assert "Found 4 errors (2 fixable)." in text and "2 hidden fixes" in text
    doc = json.loads(run("check", "--output-format", "json", "net.py").stdout)
    Draft202012Validator(load_schema()).validate(doc)
    assert (doc["summary"]["fixable"], doc["summary"]["hidden_fixes"]) == (2, 2)
    assert sum(1 for f in doc["findings"] if f["fix"] and f["fix"]["safety"] == "safe") == 2
    assert "Found 4 errors (4 fixable)." in run("check", "--output-format", "concise", "--unsafe-fixes", "net.py").stdout
    doc = json.loads(run("check", "--output-format", "json", "--unsafe-fixes", "net.py").stdout)
    Draft202012Validator(load_schema()).validate(doc)
    assert (doc["summary"]["fixable"], doc["summary"]["hidden_fixes"]) == (4, 0)


@pytest.mark.parametrize("args,env,colored", [
    ([], {}, False),                                  # a pipe: no colour
    (["--color"], {}, True),                          # asked for, even into a pipe
    ([], {"FORCE_COLOR": "1"}, True),
    (["--no-color"], {"FORCE_COLOR": "1"}, False),
    ([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    (["--color"], {"NO_COLOR": "1"}, True),           # the flag wins over the environment
])
def test_colour_flags_and_environment_through_a_real_pipe(proj, args, env, colored):
    r = sub(["check", *args, "net.py"], proj, env)
    assert r.returncode == 1
    assert ("\x1b[" in r.stdout) == colored


def test_sarif_embeds_only_reported_rules(proj):
    small = run("check", "--output-format", "sarif", "net.py").stdout
    rules = json.loads(small)["runs"][0]["tool"]["driver"]["rules"]
    assert sorted(r["id"] for r in rules) == ["MSG201", "MSG204", "MSG510", "MSG520"]
    full = run("check", "--output-format", "sarif", "--sarif-all-rules", "net.py").stdout
    assert len(json.loads(full)["runs"][0]["tool"]["driver"]["rules"]) > 40


# ------------------------------------------------------------------ exit codes, paths
def test_interrupt_exits_130(proj, monkeypatch):
    import msgraphlint.run.runner as runner

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_paths", boom)
    r = CliRunner().invoke(cli, ["check", "net.py"])
    assert r.exit_code == 130 and "interrupted" in r.stderr
    with pytest.raises(SystemExit) as exc:
        cli_module.main(["check", "net.py"])
    assert exc.value.code == 130


def test_missing_path_is_reported_the_rest_linted_and_exit_2(proj):
    r = run("check", "--output-format", "concise", "nope.py", "net.py")
    assert r.exit_code == 2
    assert "path does not exist: nope.py" in r.stderr
    assert "nope.py:1:1: MSG001 cannot analyse this file: cannot read: No such file or directory" in r.stdout
    assert "net.py:12:9: MSG204" in r.stdout
    assert run("check", "--exit-zero", "nope.py", "net.py").exit_code == 2


def test_warning_when_nothing_was_linted(proj):
    (proj / "docs").mkdir()
    (proj / "docs" / "a.txt").write_text("x")
    r = run("check", "docs")
    assert r.exit_code == 0 and "no Python files found under docs" in r.stderr
    assert "warning" not in run("check", "-q", "docs").stderr


def test_a_named_file_without_py_suffix_is_linted_as_python(proj):
    (proj / "script").write_text(NET.lstrip("\n"))
    r = run("check", "--output-format", "concise", "script")
    assert r.exit_code == 1 and "script:12:9: MSG204" in r.stdout


def test_stdin_filename_with_paths_is_an_error(proj):
    r = run("check", "--stdin-filename", "x.py", "net.py", input=NET)
    assert r.exit_code == 2 and "cannot be combined with paths (net.py)" in r.stderr


@pytest.mark.parametrize("command", [["check"], ["rules"], ["explain"], ["clean"], ["verify"], ["doctor"], ["lsp"], []])
def test_dash_h_everywhere(command):
    r = CliRunner().invoke(cli, command + ["-h"])
    assert r.exit_code == 0, r.output
    assert "Usage:" in r.stdout


def test_rules_all_and_target(proj):
    default = run("rules").stdout.splitlines()
    older = run("rules", "--target-mindspore", "2.5").stdout.splitlines()
    every = run("rules", "--target-mindspore", "2.5", "--all").stdout.splitlines()
    assert len(older) == len(default) - 2           # MSG212 (2.10 only) and MSG620 (>=2.6)
    assert len(every) == len(default)
    assert [line for line in every if "not 2.5" in line] == [
        line for line in every if line.startswith(("MSG212", "MSG620"))]


def test_closed_pipe_ends_quietly(proj):
    proc = subprocess.Popen(EXE + ["rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=proj)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert err == ""
    r = subprocess.run(f"{sys.executable} -m msgraphlint rules | head -1", shell=True, cwd=proj,
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("MSG0") and r.stderr == ""


def test_clean_removes_the_cache_and_refuses_a_project(proj, tmp_path_factory):
    cache = tmp_path_factory.mktemp("c") / "cache"
    assert run("check", "--cache-dir", str(cache), "net.py").exit_code == 1
    assert cache.is_dir() and any(cache.rglob("*"))
    r = run("clean", "--cache-dir", str(cache))
    assert r.exit_code == 0 and f"Removed the cache at {cache}" in r.stdout and not cache.exists()
    assert "No cache at" in run("clean", "--cache-dir", str(cache)).stdout
    (proj / "pyproject.toml").write_text("[project]\nname='x'\n")
    r = CliRunner().invoke(cli, ["clean", "--cache-dir", str(proj)])
    assert r.exit_code == 2 and "refusing" in r.stderr and (proj / "net.py").exists()


def test_clean_uses_the_default_directory(proj, tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("MSGRAPHLINT_CACHE_DIR", str(cache / "m"))
    run("check", "net.py")
    assert (cache / "m").is_dir()
    run("clean")
    assert not (cache / "m").exists()


# ------------------------------------------------------------- progress and verbosity
def test_quiet_prints_findings_only(proj):
    r = run("check", "-q", "--output-format", "concise", "net.py")
    assert r.stdout.splitlines()[-1].startswith("net.py:14:9: MSG201") and "Found" not in r.stdout
    assert r.exit_code == 1


def test_verbose_names_configs_skips_and_phase_timings(proj):
    write_tree(proj, {"plain.py": "x = 1\n", "skip.py": "# msgraphlint: skip-file\nimport mindspore\n",
                      "pyproject.toml": '[tool.msgraphlint]\nextend-exclude = ["gen"]\n', "gen/g.py": NET})
    r = run("check", "-v", "--force-exclude", ".", "gen/g.py")
    err = r.stderr
    assert f"config: {proj / 'pyproject.toml'}: 3 files" in err
    assert "skipped gen/g.py: excluded by `exclude`/`extend-exclude`" in err
    assert "skipped plain.py: no graph code" in err
    assert "skipped skip.py: `# msgraphlint: skip-file`" in err
    for phase in ("discovery", "read+summarise", "scopes", "rules"):
        assert f"{phase} " in err
    assert "report:" in err


def test_verbose_lists_what_gitignore_leaves_out(proj):
    """-v names the files and folders a .gitignore leaves out, and which .gitignore."""
    (proj / ".git").mkdir()
    write_tree(proj, {".gitignore": "out/\ngen_*.py\n", "out/x.py": NET, "gen_a.py": NET,
                      "pkg/.gitignore": "old.py\n", "pkg/old.py": NET, "pkg/new.py": NET})
    r = run("check", "-v", "--output-format", "concise", ".")
    err = r.stderr
    assert "skipped out/: gitignored (by .gitignore)" in err
    assert "skipped gen_a.py: gitignored (by .gitignore)" in err
    assert f"skipped {os.path.join('pkg', 'old.py')}: gitignored (by {os.path.join('pkg', '.gitignore')})" in err
    assert "pkg/new.py" in r.stdout and "old.py:" not in r.stdout and "gen_a.py:" not in r.stdout


def test_show_files(proj):
    write_tree(proj, {"a/b.py": NET, "build/x.py": NET, "notes.txt": "x"})
    r = run("check", "--show-files", ".")
    # one path style: as findings show them, no `./` (issue 26)
    assert sorted(r.stdout.split()) == ["a/b.py", "net.py"] and r.exit_code == 0


def test_no_progress_bar_in_pipes_or_ci(proj, monkeypatch):
    monkeypatch.setenv("MSGRAPHLINT_PROGRESS_DELAY", "0")
    r = sub(["check", "net.py"], proj, {"MSGRAPHLINT_PROGRESS_DELAY": "0"})
    assert "files" not in r.stderr and "msgraphlint [" not in r.stderr


def _on_a_terminal(args, cwd, env):
    """Run with stderr on a pseudo-terminal; return what the terminal showed."""
    import pty
    import select

    master, slave = pty.openpty()
    e = dict(os.environ)
    e.pop("CI", None)
    e.update(env)
    proc = subprocess.Popen(EXE + args, cwd=cwd, env=e, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(master)
    return out.decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_after_the_delay(proj):
    for i in range(40):
        write_tree(proj, {f"pkg/m{i}.py": NET})
    shown = _on_a_terminal(["check", "--no-cache", "pkg"], proj, {"MSGRAPHLINT_PROGRESS_DELAY": "0"})
    assert "msgraphlint  [" in shown and "/40 files" in shown and "00:0" in shown
    shown = _on_a_terminal(["check", "--no-cache", "pkg"], proj, {"MSGRAPHLINT_PROGRESS_DELAY": "30"})
    assert "files" not in shown  # a short run shows nothing
    shown = _on_a_terminal(["check", "-q", "--no-cache", "pkg"], proj, {"MSGRAPHLINT_PROGRESS_DELAY": "0"})
    assert "files" not in shown
    shown = _on_a_terminal(["check", "--no-cache", "pkg"], proj, {"MSGRAPHLINT_PROGRESS_DELAY": "0", "CI": "true"})
    assert "files" not in shown


def test_a_real_ctrl_c_exits_130(proj):
    import signal
    import time

    body = NET.lstrip("\n") * 40
    for i in range(300):
        write_tree(proj, {f"big/m{i}.py": body})
    proc = subprocess.Popen(EXE + ["check", "--no-cache", "big"], cwd=proj, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_in_a_terminal)
    time.sleep(2.0)
    assert proc.poll() is None, "the run ended before the signal: make the tree bigger"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


def test_ctrl_c_while_the_cli_loads_exits_130(monkeypatch, capsys):
    """A Ctrl-C that lands while ``python -m msgraphlint`` still imports its modules (0.3 s
    after the start on a loaded machine) ends the run as any other Ctrl-C does, not with
    Python's traceback and -SIGINT."""
    import runpy
    import types

    class Loading(types.ModuleType):
        def __getattr__(self, name):
            if name == "main":  # `from .cli import main` meets the interrupt
                raise KeyboardInterrupt
            raise AttributeError(name)

    monkeypatch.delitem(sys.modules, "msgraphlint.__main__", raising=False)
    monkeypatch.setitem(sys.modules, "msgraphlint.cli", Loading("msgraphlint.cli"))
    try:
        runpy.run_module("msgraphlint", run_name="__main__")
    except KeyboardInterrupt:  # caught here: one escaping would stop the whole test session
        pytest.fail("the interrupt escaped `python -m msgraphlint` as a KeyboardInterrupt")
    except SystemExit as exc:
        assert exc.code == 130
    else:
        pytest.fail("`python -m msgraphlint` went on after the interrupt")
    assert capsys.readouterr().err == "msgraphlint: interrupted\n"
