"""Caches that live for one run.

A rule that memoises what it read from disk outside the project index (another file of the
package, a caller's file) registers its dict with :func:`per_run`; every run starts with
them empty (``runner`` calls :func:`new_run`). Within a run the files do not change, so the
memo is sound; across runs (the language server, ``--fix`` passes, the API called twice)
a file may have changed, and a memo kept from an earlier run would answer from stale text.
"""

from __future__ import annotations

from typing import List

_REGISTERED: List[dict] = []


def per_run(cache: dict) -> dict:
    """Register ``cache`` to be emptied when a run starts; returns it."""
    _REGISTERED.append(cache)
    return cache


def new_run() -> None:
    for cache in _REGISTERED:
        cache.clear()
