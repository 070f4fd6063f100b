"""The language server's cyclic garbage collection happens while it is idle, never inside
an edit's analysis (``lsp.analysis.IdleCollector``, issue 25 item 1); so does freeing the
earlier texts' trees that the per-tree indexes evict (``astutil.defer_release``)."""

from __future__ import annotations

import ast
import asyncio
import gc
import weakref

import pytest

from msgraphlint.lsp.analysis import IdleCollector
from msgraphlint.parse import astutil


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def loop():
    """An event loop for a collector; the host's GC and per-tree frees restored afterwards."""
    was = gc.isenabled()
    got = asyncio.new_event_loop()
    yield got
    got.close()
    if was:
        gc.enable()
    astutil.defer_release(False)


def _cycle_ref():
    return weakref.ref(_Cycle())  # garbage only the cyclic collector frees


def test_cycles_are_collected_once_the_server_is_idle_and_not_while_it_is_busy(loop):
    busy = [True]
    collector = IdleCollector(loop, lambda: busy[0], delay=0.02, every=1000)
    collector.install()
    assert not gc.isenabled()
    ref = _cycle_ref()
    collector.poke(analysed=True)
    loop.run_until_complete(asyncio.sleep(0.15))  # analysing or scheduled: no collection
    assert collector.collections == 0 and ref() is not None
    busy[0] = False
    loop.run_until_complete(asyncio.sleep(0.15))
    assert collector.collections == 1 and ref() is None
    loop.run_until_complete(asyncio.sleep(0.1))  # nothing analysed since: no second one
    assert collector.collections == 1


def test_continuous_typing_still_collects_every_so_many_analyses(loop):
    collector = IdleCollector(loop, lambda: True, delay=10.0, every=3)
    collector.install()
    ref = _cycle_ref()
    collector.poke(analysed=True)
    collector.poke(analysed=True)
    assert collector.collections == 0 and ref() is not None
    collector.poke(analysed=True)
    assert collector.collections == 1 and ref() is None


def _evict_all(trees):
    for tree in trees:
        astutil.per_tree(tree, "test-index", lambda t: len(t.body))


def _an_evicted_tree():
    """A weak reference to a tree an index held and then evicted (as an edit's analysis does)."""
    first = ast.parse("x = 1")
    ref = weakref.ref(first)
    astutil.per_tree(first, "test-index", lambda t: len(t.body))
    del first
    assert ref() is not None  # the index holds it
    astutil.release_deferred()  # (what earlier tests left)
    _evict_all([ast.parse(f"y = {i}") for i in range(astutil._PER_TREE_SIZE)])
    return ref


def test_an_evicted_tree_is_freed_when_the_server_is_idle_not_inside_the_edit(loop):
    collector = IdleCollector(loop, lambda: False, delay=10.0, every=1000)
    collector.install()
    ref = _an_evicted_tree()
    assert ref() is not None, "evicted during the edit, but freed only when idle"
    collector.collect()
    assert ref() is None


def test_an_evicted_tree_is_freed_once_the_diagnostics_went_out(loop):
    """``poke(analysed=True)`` (after a publish) frees what the analysis evicted: at most one
    analysis's trees are held, even while typing never pauses long enough for idle work."""
    collector = IdleCollector(loop, lambda: True, delay=10.0, every=1000)
    collector.install()
    ref = _an_evicted_tree()
    assert ref() is not None
    collector.poke(analysed=True)
    assert ref() is None and collector.collections == 0  # freed, without a collection


def test_deferred_frees_are_bounded(loop):
    """More evictions than ``_EVICTED_MAX`` before a release: the rest are freed where evicted."""
    IdleCollector(loop, lambda: True, delay=10.0, every=1000).install()
    astutil.release_deferred()
    _evict_all([ast.parse(f"y = {i}") for i in range(3 * astutil._PER_TREE_SIZE)])
    assert len(astutil._EVICTED) == astutil._EVICTED_MAX
    assert astutil.release_deferred() == astutil._EVICTED_MAX and not astutil._EVICTED


def test_without_deferral_an_evicted_tree_is_freed_where_it_is_evicted():
    astutil.defer_release(False)
    first = ast.parse("x = 1")
    ref = weakref.ref(first)
    astutil.per_tree(first, "test-index", lambda t: len(t.body))
    del first
    _evict_all([ast.parse(f"y = {i}") for i in range(astutil._PER_TREE_SIZE + 1)])
    assert ref() is None


def test_an_uninstalled_collector_changes_nothing():
    """In-process servers (tests, ``create_server`` embedded elsewhere) keep the host's GC."""
    loop = asyncio.new_event_loop()
    try:
        collector = IdleCollector(loop, lambda: False, delay=0.0, every=1)
        enabled = gc.isenabled()
        collector.poke(analysed=True)
        loop.run_until_complete(asyncio.sleep(0.02))
        assert collector.collections == 0 and gc.isenabled() == enabled
    finally:
        loop.close()
