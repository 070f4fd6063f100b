"""The per-file budget: how much CPU time the analysis of one file may take.

``check`` runs each file's phase 1 (read, parse, summarise) and phase 2 (rules) under
``file_budget(budget_for(FILE_CPU_BUDGET_S, size))`` (60 s plus 30 s per MB); when it runs out, ``BudgetExceeded`` is raised in the
middle of the analysis and the file gets an ``MSG000`` finding instead of its findings,
so one pathological file never hangs the run. The language server may use the same
context manager with its own figure.

The budget is CPU time of the process (``ITIMER_PROF``), so a busy machine does not
trip it. It is enforced only where POSIX interval timers exist and only in the main
thread (signals are delivered there); elsewhere ``file_budget`` is a no-op.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator, Optional

FILE_CPU_BUDGET_S = 60.0       # per file, plus:
FILE_CPU_BUDGET_S_PER_MB = 30.0  # per MB of source (dense graph code costs about 8 s/MB: benchmarks/big_file.py)


def budget_for(base: Optional[float], nbytes: int, per_mb: float = FILE_CPU_BUDGET_S_PER_MB) -> Optional[float]:
    """The CPU budget of one file: ``base`` seconds plus ``per_mb`` per MB of source, so
    that cost linear in the size never trips it and a super-linear blow-up always does."""
    if not base or base <= 0:
        return base
    return base + per_mb * nbytes / (1024 * 1024)


class BudgetExceeded(BaseException):
    """The file's analysis ran out of its budget. A BaseException so that no broad
    ``except Exception`` inside an analysis swallows it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"analysis exceeded the per-file budget of {seconds:g} s CPU time")
        self.seconds = seconds


def enforceable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def file_budget(seconds: Optional[float] = FILE_CPU_BUDGET_S) -> Iterator[None]:
    if not seconds or seconds <= 0 or not enforceable():
        yield
        return
    armed = [True]

    def on_timer(signum, frame):  # noqa: ARG001
        if armed[0]:
            armed[0] = False
            raise BudgetExceeded(seconds)

    previous_timer = signal.getitimer(signal.ITIMER_PROF)
    previous = signal.signal(signal.SIGPROF, on_timer)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        if previous_timer[0] > 0:  # an enclosing budget: re-arm what it had left (approximately)
            signal.setitimer(signal.ITIMER_PROF, *previous_timer)
