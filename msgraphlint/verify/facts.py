"""What a device can do with a MindSpore version, as data (``device_facts.json``): which
ops graph-kernel fusion fuses, which it never fuses, which have no kernel at all.

The CPU entries are measured (``python -m msgraphlint.verify.measure_facts --write`` on the
installed MindSpore; ``source: "measured"``, with how and when). Entries for other devices
are kept only where they were measured or are documented (``source: "documented"``, with
the page); a device or version without an entry has no fusion facts, and the cross-check
then judges no unfused op (it says so, rather than guessing from another device).

    facts = lookup("2.10.0", "CPU")
    facts.fusible("Add"), facts.fusible("Sigmoid")   # True, False (measured)
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Optional

FACTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "device_facts.json")


def version_key(version: Optional[str]) -> str:
    """``"2.10.0"`` -> ``"2.10"`` (facts are kept per minor release)."""
    parts = (version or "").split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else (version or "")


def _vtuple(key: str):
    try:
        return tuple(int(p) for p in key.split("."))
    except ValueError:
        return ()


@functools.lru_cache(maxsize=1)
def load() -> dict:
    with open(FACTS_FILE, encoding="utf-8") as f:
        return json.load(f)


@dataclass(frozen=True)
class DeviceFacts:
    mindspore: str                 # the version asked about
    device: str
    key: Optional[str]             # the version whose facts are used (None: none)
    source: str                    # "measured" | "documented" | "none"
    fuse: FrozenSet[str] = frozenset()
    never_fuse: FrozenSet[str] = frozenset()
    no_kernel: Dict[str, str] = field(default_factory=dict)   # op -> the API that makes it
    how: str = ""

    @property
    def exact(self) -> bool:
        return self.key == version_key(self.mindspore)

    def fusible(self, op: str) -> bool:
        """Whether an unfused ``op`` is a loss on this device (it fuses in a clean graph)."""
        return op in self.fuse and op not in self.never_fuse

    def note(self) -> str:
        """One line for the report: where the facts come from."""
        if self.source == "none":
            return (f"no fusion facts for {self.device} with MindSpore {self.mindspore}: unfused ops are not judged "
                    "(measure them: python -m msgraphlint.verify.measure_facts --device "
                    f"{self.device} --write)")
        text = f"{self.source} facts for {self.device}, MindSpore {self.key}"
        if not self.exact:
            text += f" (nearest to {self.mindspore}, which is not in the table)"
        return text

    def to_dict(self) -> dict:
        return {"mindspore": self.mindspore, "device": self.device, "facts_version": self.key,
                "source": self.source, "exact": self.exact, "note": self.note()}


def lookup(mindspore_version: Optional[str], device: str = "CPU") -> DeviceFacts:
    """The facts for ``device`` with ``mindspore_version``: that minor release's entry, else
    the nearest release's that has one for the device (marked not exact), else none."""
    device = (device or "CPU").upper() if (device or "").lower() != "ascend" else "Ascend"
    versions = load().get("versions", {})
    want = version_key(mindspore_version)
    have = {k: v[device] for k, v in versions.items() if device in v}
    if not have:
        return DeviceFacts(mindspore_version or "?", device, None, "none")
    if want in have:
        key = want
    else:
        wt = _vtuple(want)
        key = min(have, key=lambda k: (abs(_vt_distance(_vtuple(k), wt)), k))
    entry = have[key]
    return DeviceFacts(mindspore_version or "?", device, key, entry.get("source", "measured"),
                       frozenset(entry.get("fuse", [])), frozenset(entry.get("never_fuse", [])),
                       dict(entry.get("no_kernel", {})), entry.get("how", ""))


def _vt_distance(a, b) -> int:
    if not a or not b:
        return 10 ** 6
    return (a[0] - b[0]) * 1000 + (a[1] - b[1] if len(a) > 1 and len(b) > 1 else 0)
