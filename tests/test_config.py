"""[tool.msgraphlint] configuration: discovery by walking up, every key, and errors
that name the offending key or code."""

from __future__ import annotations

import pytest

from msgraphlint.run.runner import UsageError, run_paths

from helpers import codes_at, lint, write_tree

PRINTING = """
import mindspore.nn as nn

class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""


def project(tmp_path, config: str, files=None):
    write_tree(tmp_path, {"pyproject.toml": "[tool.msgraphlint]\n" + config, **(files or {"pkg/m.py": PRINTING})})
    return tmp_path


def test_config_found_by_walking_up(tmp_path):
    project(tmp_path, 'ignore = ["MSG201"]\n')
    assert lint([tmp_path / "pkg" / "m.py"]) == []


def test_no_config_means_defaults(tmp_path):
    write_tree(tmp_path, {"m.py": PRINTING})
    assert codes_at(lint([tmp_path / "m.py"])) == [("m.py", 5, "MSG201")]


def test_select_prefix_and_per_file_ignores(tmp_path):
    project(tmp_path, 'select = ["MSG2"]\n[tool.msgraphlint.per-file-ignores]\n"pkg/legacy/*.py" = ["MSG201"]\n',
            {"pkg/m.py": PRINTING, "pkg/legacy/old.py": PRINTING})
    assert codes_at(lint([tmp_path])) == [("m.py", 5, "MSG201")]


def test_exclude_and_extend_exclude(tmp_path):
    project(tmp_path, 'extend-exclude = ["generated"]\n', {"pkg/m.py": PRINTING, "generated/g.py": PRINTING})
    assert codes_at(lint([tmp_path])) == [("m.py", 5, "MSG201")]
    # a file named explicitly is linted even when excluded (ruff's behaviour) ...
    assert codes_at(lint([tmp_path / "generated" / "g.py"])) == [("g.py", 5, "MSG201")]
    # ... unless --force-exclude
    assert lint([tmp_path / "generated" / "g.py"], force_exclude=True) == []


def test_gitignore_is_respected(tmp_path):
    write_tree(tmp_path, {".gitignore": "out/\n*_gen.py\n", "m.py": PRINTING, "out/x.py": PRINTING, "a_gen.py": PRINTING})
    (tmp_path / ".git").mkdir()
    assert codes_at(lint([tmp_path])) == [("m.py", 5, "MSG201")]
    project(tmp_path, "respect-gitignore = false\n", {"m.py": PRINTING})
    assert len(lint([tmp_path])) == 3


def test_explicit_config_file(tmp_path):
    write_tree(tmp_path, {"m.py": PRINTING, "conf/msgraphlint.toml": 'ignore = ["MSG201"]\n'})
    assert lint([tmp_path / "m.py"], config_file=str(tmp_path / "conf" / "msgraphlint.toml")) == []


@pytest.mark.parametrize("config,needle", [
    ('selct = ["MSG2"]\n', "unknown key `selct`"),
    ('target_mindspore = "2.10"\n', "did you mean `target-mindspore`"),
    ('select = ["MSG999"]\n', "MSG999"),
    ('ignore = ["XYZ1"]\n', "XYZ1"),
    ('select = "MSG2"\n', "`select` must be a list of strings"),
    ('target-mindspore = "two"\n', "'two' is not a version"),
    ('[tool.msgraphlint.per-file-ignores]\n"a.py" = ["MSG777"]\n', "MSG777"),
    ('[tool.msgraphlint.rules.MSG998]\nx = 1\n', "rules.MSG998"),
    ('[tool.msgraphlint.rules.print-in-graph]\nbogus = 1\n', "rules.print-in-graph.bogus"),
])
def test_config_errors_name_the_culprit(tmp_path, config, needle):
    project(tmp_path, config)
    with pytest.raises(UsageError) as exc:
        run_paths([str(tmp_path)])
    assert needle in str(exc.value)
    assert "pyproject.toml" in str(exc.value)


def test_invalid_toml_is_a_usage_error(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.msgraphlint\n", "m.py": PRINTING})
    with pytest.raises(UsageError) as exc:
        run_paths([str(tmp_path / "m.py")], config_file=str(tmp_path / "pyproject.toml"))
    assert "invalid TOML" in str(exc.value)


def test_missing_config_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError) as exc:
        run_paths([str(tmp_path)], config_file=str(tmp_path / "nope.toml"))
    assert "nope.toml" in str(exc.value)


def test_target_mindspore_gates_rules(tmp_path):
    from msgraphlint.run.runner import prepare
    s = prepare([str(tmp_path)], target="1.0")
    assert "MSG201" not in s.rules  # print-in-graph applies to >=2.0
    s = prepare([str(tmp_path)])
    assert "MSG201" in s.rules and s.target == "2.10"


# default selection (ruff-style tiers) ------------------------------------------------

PRIMITIVE_AND_PRINT = """
import mindspore.nn as nn
from mindspore.ops import operations as P

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.softmax = P.Softmax()

    def construct(self, x):
        print(x)
        return self.softmax(x)
"""


def test_informational_rules_are_off_by_default(tmp_path):
    write_tree(tmp_path, {"m.py": PRIMITIVE_AND_PRINT})
    assert codes_at(lint([tmp_path / "m.py"])) == [("m.py", 10, "MSG201")]


@pytest.mark.parametrize("config", ['select = ["ALL"]\n', 'extend-select = ["MSG511"]\n', 'select = ["MSG5", "MSG2"]\n',
                                    'select = ["DEFAULT", "primitive-class-spelling"]\n'])
def test_informational_rule_on_by_code_prefix_or_all(tmp_path, config):
    project(tmp_path, config, {"pkg/m.py": PRIMITIVE_AND_PRINT})
    assert codes_at(lint([tmp_path])) == [("m.py", 7, "MSG511"), ("m.py", 10, "MSG201")]


def test_default_tier_is_every_non_info_rule_plus_unused_suppression():
    from msgraphlint.findings import Severity
    from msgraphlint.engine.registry import default_codes, load_rules

    rules = load_rules()
    off = sorted(set(rules) - default_codes(rules))
    assert {"MSG511", "MSG541", "MSG550", "MSG560"} <= set(off)
    assert all(rules[c].severity is Severity.INFO for c in off)
    assert all(rules[c].default_reason for c in ("MSG511", "MSG541", "MSG550", "MSG560"))
    assert "MSG002" in default_codes(rules)
