"""Rule documentation generated from the rules' own metadata: the README table and
one page per rule under docs/rules/ (kept in sync by a test)."""

from __future__ import annotations

import os
import re
from typing import Dict, Type

from .rule import Rule

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def docs_base_url() -> str:
    """Where the rule pages live: ``MSGRAPHLINT_DOCS_URL`` when set (a fork or a mirror),
    else the ``Documentation`` URL of ``[project.urls]`` in pyproject.toml (read from the
    installed package's metadata) + ``rules/``."""
    env = os.environ.get("MSGRAPHLINT_DOCS_URL")
    if env:
        return env.rstrip("/") + "/"
    return _declared_docs_url().rstrip("/") + "/rules/"


_DOCS_URL = None


def _declared_docs_url() -> str:
    global _DOCS_URL
    if _DOCS_URL is None:
        url = None
        try:
            from importlib.metadata import PackageNotFoundError, metadata
            for entry in metadata("msgraphlint").get_all("Project-URL") or []:
                label, _, value = entry.partition(",")
                if label.strip().lower() == "documentation":
                    url = value.strip()
        except (ImportError, PackageNotFoundError):  # pragma: no cover - running from a bare checkout
            url = None
        if url is None:  # not installed: read the checkout's pyproject.toml
            url = _pyproject_docs_url()
        _DOCS_URL = url
    return _DOCS_URL


def _pyproject_docs_url() -> str:
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    with open(path, "rb") as fh:
        return tomllib.load(fh)["project"]["urls"]["Documentation"]


def readme_table(rules: Dict[str, Type[Rule]]) -> str:
    rows = ["| code | name | what it catches | severity | default | fix |", "|---|---|---|---|---|---|"]
    for code, r in sorted(rules.items()):
        summary = r.summary.replace("|", "\\|")
        fix = r.fix_safety.value if r.fix_safety else ""
        on = "on" if r.on_by_default() else "off"
        rows.append(f"| [{code}](docs/rules/{code}.md) | `{r.name}` | {summary} | {r.severity.value} | {on} | {fix} |")
    return "\n".join(rows)


def update_readme(text: str, rules: Dict[str, Type[Rule]]) -> str:
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    return pattern.sub(lambda _m: f"{START}\n{readme_table(rules)}\n{END}", text)


def write_pages(rules: Dict[str, Type[Rule]], directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    for code, r in rules.items():
        with open(os.path.join(directory, f"{code}.md"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(r.docs())
