"""The README's rule table and docs/rules/*.md are generated from the rules'
metadata; this fails when they drift (run scripts/gen_rule_docs.py)."""

import os

from msgraphlint.registry import load_rules
from msgraphlint.ruledocs import update_readme

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_readme_rule_table_is_current():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    assert update_readme(text, load_rules()) == text, "run: python scripts/gen_rule_docs.py"


def test_rule_pages_are_current():
    rules = load_rules()
    pages = os.path.join(ROOT, "docs", "rules")
    assert sorted(n[:-3] for n in os.listdir(pages) if n.endswith(".md")) == sorted(rules)
    for code, rule in rules.items():
        with open(os.path.join(pages, f"{code}.md"), encoding="utf-8") as fh:
            assert fh.read() == rule.docs(), f"docs/rules/{code}.md is stale: run python scripts/gen_rule_docs.py"
