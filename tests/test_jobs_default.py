"""``--jobs`` defaults to one worker per CPU for runs large enough to profit
(``workers.auto_jobs``), with output byte-identical to ``-j1``."""

from __future__ import annotations

import pytest

import msgraphlint.run.runner as runner
import msgraphlint.run.workers as workers
from helpers import run_cli, write_tree
from test_call_sites import TREE


def test_auto_jobs_is_one_per_cpu_for_enough_source(tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "cpu_count", lambda: 4)
    small = tmp_path / "small.py"
    small.write_bytes(b"x = 1\n" * 1000)  # 6 KB
    big = [tmp_path / f"big{i}.py" for i in range(3)]
    for p in big:
        p.write_bytes(b"#" * (workers.AUTO_JOB_BYTES - 1) + b"\n")
    assert workers.auto_jobs([str(small)]) == 1
    assert workers.auto_jobs([str(p) for p in big[:1]]) == 1
    assert workers.auto_jobs([str(p) for p in big[:2]]) == 2
    assert workers.auto_jobs([str(p) for p in big] + [str(small)]) == 3
    monkeypatch.setattr(workers, "cpu_count", lambda: 2)
    assert workers.auto_jobs([str(p) for p in big]) == 2
    assert workers.auto_jobs([]) == 1


@pytest.fixture
def proj(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "proj", TREE)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def test_the_default_runs_workers_on_a_large_run_with_the_output_of_j1(proj, monkeypatch):
    started = []

    class Recording(workers.Workers):
        def __init__(self, files, jobs, settings):
            started.append(jobs)
            super().__init__(files, jobs, settings)

    monkeypatch.setattr(runner, "Workers", Recording)
    monkeypatch.setattr(workers, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers, "AUTO_JOB_BYTES", 64)  # this small tree counts as large
    for fmt in ("text", "concise", "json"):
        one = run_cli("check", "--no-cache", "--output-format", fmt, "-j1", ".")
        assert started == []
        default = run_cli("check", "--no-cache", "--output-format", fmt, ".")
        assert started == [2]
        started.clear()
        assert one.exit_code == default.exit_code == 1
        assert "MSG004" in one.stdout and "MSG201" in one.stdout
        assert default.stdout == one.stdout


def test_the_default_stays_in_process_on_a_small_run(proj, monkeypatch):
    started = []
    monkeypatch.setattr(runner, "Workers", lambda *a: started.append(a) or workers.Workers(*a))
    monkeypatch.setattr(workers, "cpu_count", lambda: 2)
    r = run_cli("check", "--no-cache", ".")
    assert r.exit_code == 1 and started == []
