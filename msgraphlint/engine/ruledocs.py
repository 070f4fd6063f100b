"""Rule documentation generated from the rules' own metadata: the README table and
one page per rule under docs/rules/ (kept in sync by a test)."""

from __future__ import annotations

import os
import re
from typing import Dict, Type

from ..rule import Rule
from ..urls import docs_base_url  # noqa: F401  (re-exported: the rule pages' address)

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


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
