"""The README's rule table and docs/rules/*.md are generated from the rules'
metadata; this fails when they drift (run scripts/gen_rule_docs.py)."""

import os

from msgraphlint.engine.registry import load_rules
from msgraphlint.engine.ruledocs import update_readme

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


def _template_fields(text):
    import re
    import string
    try:
        names = {name for _lit, name, _spec, _conv in string.Formatter().parse(text or "") if name}
    except ValueError:
        return set()
    return {n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)}


def test_no_unfilled_placeholder_in_a_rendered_doc():
    """A hint or message template's `{name}` fields are filled per finding; a rendered doc
    (docs/rules/*.md, `msgraphlint explain`) must not show them raw."""
    rules = load_rules()
    pages = os.path.join(ROOT, "docs", "rules")
    for code, rule in rules.items():
        fields = _template_fields(rule.hint) | _template_fields(getattr(rule, "message", ""))
        with open(os.path.join(pages, f"{code}.md"), encoding="utf-8") as fh:
            page = fh.read()
        for text, where in ((page, f"docs/rules/{code}.md"), (rule.docs(), f"{code}.docs()")):
            left = sorted(f for f in fields if "{" + f + "}" in text)
            assert not left, f"{where} shows unfilled placeholders: {left}"
    # and the placeholder of the field report reads as one
    assert "`<name> = <name> <op> …`" in rules["MSG204"].docs()


def test_rule_links_use_the_url_declared_in_pyproject(monkeypatch):
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        urls = tomllib.load(fh)["project"]["urls"]
    monkeypatch.delenv("MSGRAPHLINT_DOCS_URL", raising=False)
    rule = load_rules()["MSG201"]
    assert rule.help_uri() == urls["Documentation"].rstrip("/") + "/rules/MSG201.md"
    assert urls["Documentation"].startswith(urls["Repository"])
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    assert f'git+{urls["Repository"]}"' in readme  # the install line names the same address
    monkeypatch.setenv("MSGRAPHLINT_DOCS_URL", "https://mirror.example/docs/rules")
    assert rule.help_uri() == "https://mirror.example/docs/rules/MSG201.md"
