"""`--add-noqa` on YAML run configs (issue 26 item 2): it used to parse the YAML as Python
and write nothing, so `check` still exited 1 after it. The comment goes at the end of the
flagged line; `check` is clean afterwards; a comment that would change the document's
data (a line inside a block scalar) is not written."""

from __future__ import annotations

import textwrap

import yaml
from click.testing import CliRunner

from msgraphlint.cli import cli
from msgraphlint.fix.noqa import _add_noqa_yaml, _yaml_comment_start

RUN = textwrap.dedent("""\
    model:
      arch: gpt
    parallel_config:
      data_parallel: 2
      model_parallel: 4
      pipeline_stage: 2
    use_parallel: True
    context:
      mode: 0
      device_target: Ascend
    runner_config:
      batch_size: 3
    """)


def _check(*args):
    return CliRunner().invoke(cli, ["check", "--no-cache", *args], catch_exceptions=False)


def test_add_noqa_makes_a_yaml_config_clean(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    cfg = tmp_path / "configs" / "run.yaml"
    cfg.write_text(RUN)
    monkeypatch.chdir(tmp_path)
    before = _check("--format", "concise", "configs")
    assert before.exit_code == 1 and "MSG605" in before.output, before.output
    r = _check("--add-noqa", "configs")
    assert r.exit_code == 0 and "Added 1 noqa directive" in r.output, r.output
    text = cfg.read_text()
    assert "  pipeline_stage: 2  # noqa: MSG605\n" in text
    assert yaml.safe_load(text) == yaml.safe_load(RUN)
    after = _check("configs")
    assert after.exit_code == 0, after.output


def test_an_existing_noqa_gets_the_code_added_and_quotes_are_respected():
    assert _yaml_comment_start("a: 'x # y'  # noqa: E1") == 12
    assert _yaml_comment_start('a: "#"') is None and _yaml_comment_start("a: b#c") is None
    problems = []
    n, text = _add_noqa_yaml("c.yaml", "a: 1  # noqa: MSG601\nb: 2\n", {1: ["MSG605"]}, problems)
    assert (n, text, problems) == (1, "a: 1  # noqa: MSG601, MSG605\nb: 2\n", [])


def test_a_line_inside_a_block_scalar_is_left_alone():
    src = "a: |\n  text\n  more\nb: 2\n"
    problems = []
    n, text = _add_noqa_yaml("c.yaml", src, {2: ["MSG605"]}, problems)
    assert (n, text) == (0, src)
    assert problems and "would change the YAML document" in problems[0]
