"""``check --upgrade-to VERSION``: what moving from the current target to another MindSpore
release changes (issue 23, item 4).

The files are linted twice, as the current target (``target-mindspore`` or the project's
pin, see pins.py) and as ``VERSION``; what is reported is each finding of the second run
that the first does not have at the same place (file, rule, span): APIs, modules, Tensor
methods and keywords the new release removed or renamed (MSG514, MSG508), what it newly
deprecates (MSG513, MSG620), any other rule whose facts differ between the two releases'
catalogs. Each message names both releases, so every output format carries them.
"""

from __future__ import annotations

from typing import Dict, Tuple

__all__ = ["DEPRECATION_RULES", "new_in_upgrade", "upgrade_note"]

# turned on for both runs: the deprecations are half of what an upgrade is about
DEPRECATION_RULES = ("MSG513",)


def _key(f) -> Tuple:
    return (f.code, f.line, f.col, f.end_line, f.end_col)


def upgrade_note(old: str, new: str) -> str:
    return f" [new when moving from MindSpore {old} to {new}]"


def new_in_upgrade(current, upgraded):
    """``upgraded`` (a RunResult linted as the new release) keeping only the findings that
    ``current`` (the same files linted as the current target) does not have at the same
    file, rule and span, each message ending with both releases. Modifies and returns
    ``upgraded``."""
    def target(result, path: str) -> str:
        return result.settings_for(path).target

    before: Dict[str, set] = {}
    for fr in current.files:
        before.setdefault(fr.path, set()).update(_key(f) for f in list(fr.findings) + list(fr.unused_suppressions))
    for fr in upgraded.files:
        seen = before.get(fr.path, set())
        old, new = target(current, fr.path), target(upgraded, fr.path)
        note = upgrade_note(old, new)
        fr.findings = [f.with_(message=f.message + note) for f in fr.findings if _key(f) not in seen]
        fr.unused_suppressions = [f.with_(message=f.message + note) for f in fr.unused_suppressions
                                  if _key(f) not in seen]
    return upgraded
