"""benchmarks/corpora.py without the network: archive lookup, unpacking, idempotence.
(The benchmark itself prints figures; nothing here times anything.)"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from helpers import load_benchmark

ROOT = Path(__file__).resolve().parent.parent


corpora = load_benchmark("corpora")


def _wheel(path: Path, files):
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


def test_find_dist_prefers_wheel_and_matches_version_exactly(tmp_path):
    (tmp_path / "mindcv-0.3.0.tar.gz").write_bytes(b"")
    (tmp_path / "mindcv-0.3.01-py3-none-any.whl").write_bytes(b"")
    assert corpora._find_dist(tmp_path, "mindcv", "0.3.0").name == "mindcv-0.3.0.tar.gz"
    (tmp_path / "mindcv-0.3.0-py3-none-any.whl").write_bytes(b"")
    assert corpora._find_dist(tmp_path, "mindcv", "0.3.0").name == "mindcv-0.3.0-py3-none-any.whl"
    assert corpora._find_dist(tmp_path / "missing", "mindcv", "0.3.0") is None


def test_ensure_corpora_unpacks_once_and_counts(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    dist.mkdir()
    _wheel(dist / "mindyolo-0.5.0-py3-none-any.whl",
           {"mindyolo/__init__.py": "x = 1\ny = 2\n", "mindyolo/m.py": "z = 3", "mindyolo/README.md": "hi\n"})
    calls = []
    real_unpack = corpora.unpack
    monkeypatch.setattr(corpora, "_pip_download", lambda *a, **k: pytest.fail("no download expected"))
    monkeypatch.setattr(corpora, "unpack", lambda a, d: (calls.append(a.name), real_unpack(a, d)))
    out = corpora.ensure_corpora(["mindyolo"], tmp_path)
    assert out == {"mindyolo": tmp_path / "corpora" / "mindyolo"}
    assert corpora.corpus_stats(out["mindyolo"])[:2] == (2, 3)
    corpora.ensure_corpora(["mindyolo"], tmp_path)
    assert calls == ["mindyolo-0.5.0-py3-none-any.whl"]


def test_unknown_corpus(tmp_path):
    with pytest.raises(KeyError):
        corpora.ensure_corpora(["nope"], tmp_path)


def test_unpack_refuses_paths_outside(tmp_path):
    bad = _wheel(tmp_path / "bad.whl", {"../evil.py": "x"})
    with pytest.raises(RuntimeError):
        corpora.unpack(bad, tmp_path / "out")
    assert not (tmp_path / "evil.py").exists()


def test_throughput_help_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lint_throughput.py"), "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "--jobs" in proc.stdout and "--floor-only" in proc.stdout and "--warm" in proc.stdout


def test_floor_only_end_to_end(tmp_path):
    import json

    dist = tmp_path / "dist"
    dist.mkdir()
    _wheel(dist / "mindyolo-0.5.0-py3-none-any.whl", {"mindyolo/a.py": "def f(x):\n    return x + 1\n"})
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lint_throughput.py"), "--corpus", "mindyolo",
                           "--cache-dir", str(tmp_path), "--floor-only", "--json", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "ast.parse" in proc.stdout and "one-core target" in proc.stdout
    rep = json.loads(out.read_text())
    c = rep["corpora"]["mindyolo"]
    assert (c["files"], c["lines"]) == (1, 2)
    assert c["variants"][0]["variant"] == "ast.parse" and c["variants"][0]["parse_errors"] == 0


def test_snapshot_is_what_a_child_imports_first(tmp_path):
    """benchmarks/_snapshot.py: the archived engine wins over the editable install here."""
    snapshot = load_benchmark("_snapshot")
    dest = tmp_path / "snap"
    dest.mkdir()
    sha = snapshot.extract("HEAD", str(dest))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert sha == head
    assert (dest / "msgraphlint" / "cli.py").is_file() and (dest / "msgraphlint_rules").is_symlink()
    assert list((dest / "msgraphlint" / "__pycache__").glob("cli.*.pyc"))  # byte-compiled
    import os
    env = dict(os.environ, PYTHONPATH=snapshot.pythonpath(str(dest)))
    got = subprocess.run([sys.executable, "-c", "import msgraphlint, msgraphlint_rules; "
                          "print(msgraphlint.__file__); print(msgraphlint_rules.__file__)"],
                         env=env, cwd=str(tmp_path), capture_output=True, text=True, check=True).stdout.split()
    assert all(p.startswith(str(dest)) for p in got), got


def test_against_a_commit_runs_both_engines_and_prints_the_ratio(tmp_path):
    import json

    dist = tmp_path / "dist"
    dist.mkdir()
    _wheel(dist / "mindyolo-0.5.0-py3-none-any.whl", {"mindyolo/a.py": (
        "import mindspore as ms\nfrom mindspore import nn\n\n\nclass Net(nn.Cell):\n"
        "    def construct(self, x):\n        print(x)\n        return x\n")})
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lint_throughput.py"), "--corpus", "mindyolo",
                           "--cache-dir", str(tmp_path), "--jobs", "1", "--repeat", "2", "--against", "HEAD",
                           "--json", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(out.read_text())
    sha = rep["meta"]["against"]
    rows = {r["variant"]: r for r in rep["corpora"]["mindyolo"]["variants"]}
    assert set(rows) == {"ast.parse", "check", f"check@{sha}"}
    here, there = rows["check"], rows[f"check@{sha}"]
    assert len(here["runs"]) == len(there["runs"]) == 2
    assert here["findings"] == there["findings"] >= 1  # the same engine at HEAD: the same print finding
    per = rep["ratio"]["variants"]["check"]
    assert per["x_cpu"] == pytest.approx(here["cpu_s"] / there["cpu_s"])
    assert f"against {sha}" in proc.stdout and "check" in proc.stdout.split(f"against {sha}")[1]
