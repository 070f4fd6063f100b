"""URLs only to pages that exist (issue 26 item 2): SARIF's ``informationUri`` is the
repository pyproject.toml declares (there is no documentation site), a built-in rule's
``helpUri`` is its page under docs/rules/ (the file exists in this checkout), and a plugin
rule, which has no page there, gets no ``helpUri`` unless it names its own ``help_url``."""

from __future__ import annotations

import json
import os
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from msgraphlint.findings import FileResult, Finding, Severity
from msgraphlint.engine.registry import find_rule
from msgraphlint.reporters import render
from msgraphlint.rule import Rule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _urls():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)["project"]["urls"]


class AcmeRule(Rule):
    code = "ACME101"
    name = "acme-thing"
    summary = "a plugin's rule"
    message = "m"
    severity = Severity.WARNING


class AcmeDocumented(AcmeRule):
    code = "ACME102"
    name = "acme-documented"
    help_url = "https://acme.example/rules/ACME102"


def _driver(rules, codes):
    findings = [Finding(code=c, name=rules[c].name, message="m", path="a.py", line=1) for c in codes]
    return json.loads(render("sarif", [FileResult(path="a.py", findings=findings)], rules))["runs"][0]["tool"]["driver"]


def test_information_uri_is_the_declared_repository():
    rule = find_rule("MSG201")
    driver = _driver({"MSG201": rule}, ["MSG201"])
    assert driver["informationUri"] == _urls()["Repository"]
    assert "readthedocs" not in json.dumps(driver)


def test_a_builtin_rules_help_uri_is_its_page_which_exists(monkeypatch):
    monkeypatch.delenv("MSGRAPHLINT_DOCS_URL", raising=False)
    rule = find_rule("MSG201")
    uri = _driver({"MSG201": rule}, ["MSG201"])["rules"][0]["helpUri"]
    docs = _urls()["Documentation"].rstrip("/") + "/"
    assert uri.startswith(docs)
    assert os.path.isfile(os.path.join(ROOT, "docs", uri[len(docs):]))


def test_a_plugin_rule_links_no_page_unless_it_names_one():
    rules = {"ACME101": AcmeRule, "ACME102": AcmeDocumented}
    by_id = {r["id"]: r for r in _driver(rules, ["ACME101", "ACME102"])["rules"]}
    assert AcmeRule.help_uri() is None and "helpUri" not in by_id["ACME101"]
    assert by_id["ACME102"]["helpUri"] == "https://acme.example/rules/ACME102"
