"""Regenerate the README's rule table and docs/rules/*.md from the rules' metadata.

    .venv/bin/python scripts/gen_rule_docs.py
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from msgraphlint.engine.registry import load_rules  # noqa: E402
from msgraphlint.engine.ruledocs import update_readme, write_pages  # noqa: E402


def main() -> None:
    rules = load_rules()
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as fh:
        text = fh.read()
    with open(readme, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(update_readme(text, rules))
    pages = os.path.join(ROOT, "docs", "rules")
    for name in os.listdir(pages) if os.path.isdir(pages) else []:
        if name.endswith(".md") and name[:-3] not in rules:
            os.remove(os.path.join(pages, name))
    write_pages(rules, pages)
    print(f"{len(rules)} rules documented")


if __name__ == "__main__":
    main()
