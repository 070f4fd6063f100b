"""The CLI: options, output formats, exit codes (0 clean, 1 findings, 2 errors)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli

from helpers import write_tree

BAD = """
import mindspore.nn as nn

class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""
CLEAN = """
import mindspore.nn as nn

class Net(nn.Cell):
    def construct(self, x):
        return x * 2
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    write_tree(tmp_path, {"bad.py": BAD, "clean.py": CLEAN})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_findings_exit_1_and_text_output(project):
    r = run("check", ".")
    assert r.exit_code == 1
    assert "bad.py:5:9: MSG201" in r.output
    assert "clean.py" not in r.output
    assert "Found 1 error" in r.output


def test_clean_exit_0(project):
    r = run("check", "clean.py")
    assert r.exit_code == 0, r.output
    assert "All checks passed!" in r.output


def test_exit_zero(project):
    assert run("check", "--exit-zero", ".").exit_code == 0


def test_default_path_is_cwd(project):
    r = run("check")
    assert r.exit_code == 1 and "bad.py" in r.output


def test_missing_path_is_usage_error_naming_it(project):
    r = CliRunner().invoke(cli, ["check", "nope/missing.py"])
    assert r.exit_code == 2
    assert "nope/missing.py" in r.output


def test_unknown_code_in_select_is_usage_error(project):
    r = CliRunner().invoke(cli, ["check", "--select", "MSG999", "."])
    assert r.exit_code == 2
    assert "MSG999" in r.output


def test_select_ignore_and_names(project):
    assert run("check", "--ignore", "MSG201", ".").exit_code == 0
    assert run("check", "--select", "MSG2", ".").exit_code == 1
    assert run("check", "--ignore", "print-in-graph", ".").exit_code == 0
    assert run("check", "--select", "MSG001", "--extend-select", "MSG201", ".").exit_code == 1


def test_concise_and_json_formats(project):
    r = run("check", "--format", "concise", ".")
    assert r.output.splitlines()[0] == "bad.py:5:9: MSG201 " + r.output.splitlines()[0].split(" MSG201 ", 1)[1]
    r = run("check", "--format", "json", ".")
    doc = json.loads(r.output)
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in doc["findings"]] == [("bad.py", 5, 9, "MSG201")]


def test_github_on_stdout_plus_sarif_file(project):
    r = run("check", "--format", "github", "--output", "sarif=out/results.sarif", ".")
    assert r.exit_code == 1
    assert r.output.startswith("::warning file=bad.py,line=5,col=9")
    sarif = json.loads((project / "out" / "results.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "MSG201"


def test_output_file(project):
    r = run("check", "--format", "json", "--output-file", "report.json", ".")
    assert r.exit_code == 1 and r.output == ""
    assert json.loads((project / "report.json").read_text())["findings"][0]["code"] == "MSG201"


def test_bad_output_spec_is_usage_error(project):
    r = CliRunner().invoke(cli, ["check", "--output", "xml=out.xml", "."])
    assert r.exit_code == 2 and "FORMAT=FILE" in r.output


def test_statistics(project):
    r = run("check", "--statistics", ".")
    assert "MSG201" in r.output and "print-in-graph" in r.output
    assert "bad.py:5" not in r.output


def test_stdin_filename(project):
    r = run("check", "--stdin-filename", "virtual.py", input=BAD.lstrip("\n"))
    assert r.exit_code == 1
    assert "virtual.py:5:9: MSG201" in r.output
    r = run("check", "--stdin-filename", "virtual.py", input=CLEAN)
    assert r.exit_code == 0


def test_target_mindspore_validation(project):
    r = CliRunner().invoke(cli, ["check", "--target-mindspore", "banana", "."])
    assert r.exit_code == 2 and "banana" in r.output


def test_jobs_gives_same_findings(project):
    for i in range(6):
        (project / f"extra{i}.py").write_text(BAD)
    one = run("check", "--format", "concise", ".").output
    two = run("check", "--format", "concise", "--jobs", "2", ".").output
    assert one == two and one.count("MSG201") == 7


def test_rules_and_explain(project):
    r = run("rules")
    assert "MSG201  print-in-graph" in r.output
    r = run("rules", "--format", "json")
    assert any(x["code"] == "MSG201" for x in json.loads(r.output))
    r = run("explain", "MSG201")
    assert r.output.startswith("# MSG201 print-in-graph")
    assert "ops.print_" in r.output
    assert run("explain", "print-in-graph").output == r.output
    bad = CliRunner().invoke(cli, ["explain", "MSG999"])
    assert bad.exit_code == 2 and "MSG999" in bad.output


def test_nothing_written_to_the_linted_tree(project):
    before = {p: p.stat().st_mtime_ns for p in project.rglob("*")}
    run("check", ".")
    after = {p: p.stat().st_mtime_ns for p in project.rglob("*")}
    assert before == after


def test_internal_error_exits_2(project, monkeypatch):
    import msgraphlint.run.runner as runner

    def boom(*a, **k):
        raise RuntimeError("injected")

    monkeypatch.setattr(runner, "run_paths", boom)
    r = CliRunner().invoke(cli, ["check", "."])
    assert r.exit_code == 2
    assert "internal error" in r.output and "injected" in r.output


def test_module_entry_point(project):
    proc = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--format", "concise", "bad.py"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "MSG201" in proc.stdout


def test_the_process_exit_keeps_every_output_and_exit_code(project, tmp_path):
    """``main()`` leaves with ``os._exit`` where nothing runs at exit (``cli._exit``): the codes
    stay 0/1/2 and every byte of stdout, stderr and ``--output-file`` is written; ``main(argv)``
    raises SystemExit to its caller."""
    many = tmp_path / "many.py"
    many.write_text("import mindspore.nn as nn\n" + "".join(
        f"class N{i}(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n" for i in range(300)))
    run = lambda *a: subprocess.run([sys.executable, "-m", "msgraphlint", *a], capture_output=True, text=True,
                                    cwd=str(project), timeout=120)
    proc = run("check", "--output-format", "json", str(many))
    assert proc.returncode == 1
    assert len(json.loads(proc.stdout)["findings"]) >= 300  # the whole document, flushed
    out = tmp_path / "out.json"
    proc = run("check", "--exit-zero", "--output-format", "json", "--output-file", str(out), str(many))
    assert proc.returncode == 0 and len(json.loads(out.read_text())["findings"]) >= 300
    proc = run("check", "no/such/path.py")
    assert proc.returncode == 2 and "no/such/path.py" in proc.stderr
    # main(argv) embeds the CLI: the caller gets SystemExit and goes on
    code = f"from msgraphlint.cli import main\ntry:\n    main(['check', {str(many)!r}])\nexcept SystemExit as e:\n    print('after', e.code)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(project), timeout=120)
    assert proc.stdout.rstrip().endswith("after 1")


def test_a_one_shot_check_leaves_its_run_to_the_process_exit(project):
    """The console script's ``check`` keeps what its run built for ``os._exit`` instead of freeing
    it as the run returns (``runner.keep_for_exit``); ``--fix`` (a run per pass) and a caller that
    embeds the CLI (``main(argv)``, the language server's process) free each run's objects."""
    probe = ("import sys\nfrom msgraphlint import cli\nfrom msgraphlint.run import runner\n"
             "exit_ = cli._exit\n"
             "def _exit(code):\n"
             "    kept = runner._KEPT_FOR_EXIT\n"
             "    print('kept', None if kept is None else len(kept), 'code', code, file=sys.stderr, flush=True)\n"
             "    exit_(code)\n"
             "cli._exit = _exit\n"
             "sys.argv = ['msgraphlint'] + sys.argv[1:]\n"
             "cli.main()\n")
    run = lambda *a: subprocess.run([sys.executable, "-c", probe, *a], capture_output=True, text=True,
                                    cwd=str(project), timeout=120)
    proc = run("check", "bad.py", "clean.py")
    assert proc.returncode == 1 and "MSG201" in proc.stdout and "kept 1 code 1" in proc.stderr
    proc = run("check", "--fix", "--unsafe-fixes", "bad.py")
    assert "kept None" in proc.stderr
    embedded = ("import sys\nfrom msgraphlint.cli import main\nfrom msgraphlint.run import runner\n"
                "try:\n    main(['check', 'bad.py'])\nexcept SystemExit as e:\n"
                "    print('kept', runner._KEPT_FOR_EXIT, 'code', e.code)\n")
    proc = subprocess.run([sys.executable, "-c", embedded], capture_output=True, text=True, cwd=str(project),
                          timeout=120)
    assert proc.stdout.rstrip().endswith("kept None code 1")
