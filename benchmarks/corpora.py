"""Benchmark corpora: real MindSpore model zoos, fetched from PyPI and unpacked.

    python benchmarks/corpora.py                 # all six, into .bench_cache/
    python benchmarks/corpora.py mindcv --cache-dir /tmp/bc

Each corpus is one pinned release, downloaded with ``pip download --no-deps``
(a wheel when there is one, else the sdist) into ``<cache>/dist/`` and unpacked
into ``<cache>/corpora/<name>/``. Everything is idempotent: a download already in
``dist/`` is not fetched again and an unpacked corpus (marked by a ``.unpacked``
stamp written last) is not unpacked again.

Only the standard library and ``pip`` are used, so this runs before (and without)
the engine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = REPO_ROOT / ".bench_cache"

#: corpus name -> pinned PyPI requirement
CORPORA: Dict[str, str] = {
    "mindcv": "mindcv==0.3.0",
    "mindocr": "mindocr==0.5.0",
    "mindyolo": "mindyolo==0.5.0",
    "mindone": "mindone==0.5.0",
    "mindformers": "mindformers==2.1.0",
    "mindaudio": "mindaudio==0.3.0",
}

_STAMP = ".unpacked"
_SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".zip")


def _log(msg: str) -> None:
    print(f"[corpora] {msg}", file=sys.stderr, flush=True)


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _find_dist(dist_dir: Path, name: str, version: str) -> Optional[Path]:
    """An already-downloaded wheel (preferred) or sdist for name==version."""
    if not dist_dir.is_dir():
        return None
    prefix = f"{_norm(name)}-{version}"
    wheels, sdists = [], []
    for p in sorted(dist_dir.iterdir()):
        stem = _norm(p.name)
        if not stem.startswith(_norm(prefix)):
            continue
        rest = p.name[len(prefix):]
        if not (rest.startswith("-") or rest.startswith(".")):
            continue  # mindcv-0.3.01 is not mindcv-0.3.0
        if p.name.endswith(".whl"):
            wheels.append(p)
        elif p.name.endswith(_SDIST_SUFFIXES):
            sdists.append(p)
    return (wheels or sdists or [None])[0]


def _pip_download(requirement: str, dist_dir: Path, *, binary: bool) -> Tuple[bool, str]:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           "--dest", str(dist_dir), requirement]
    cmd += ["--only-binary=:all:"] if binary else ["--no-binary=:all:"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode == 0, (proc.stdout + proc.stderr).strip()


def download(name: str, cache: Path) -> Path:
    """The wheel (or, failing that, the sdist) of corpus ``name`` in ``cache/dist``."""
    requirement = CORPORA[name]
    pkg, version = requirement.split("==")
    dist_dir = cache / "dist"
    found = _find_dist(dist_dir, pkg, version)
    if found is not None:
        _log(f"{name}: have {found.name}")
        return found
    dist_dir.mkdir(parents=True, exist_ok=True)
    _log(f"{name}: pip download {requirement} (wheel)")
    ok, out = _pip_download(requirement, dist_dir, binary=True)
    if not ok:
        _log(f"{name}: no wheel ({out.splitlines()[-1] if out else 'pip failed'}); trying the sdist")
        ok, out = _pip_download(requirement, dist_dir, binary=False)
        if not ok:
            raise RuntimeError(f"cannot download {requirement}:\n{out}")
    found = _find_dist(dist_dir, pkg, version)
    if found is None:
        raise RuntimeError(f"pip reported success for {requirement} but nothing is in {dist_dir}:\n{out}")
    _log(f"{name}: downloaded {found.name} ({found.stat().st_size / 1e6:.1f} MB)")
    return found


def _safe_members_zip(zf: zipfile.ZipFile, dest: Path) -> List[zipfile.ZipInfo]:
    root = dest.resolve()
    out = []
    for info in zf.infolist():
        target = (dest / info.filename).resolve()
        if target != root and root not in target.parents:
            raise RuntimeError(f"refusing to unpack {info.filename!r} outside {dest}")
        out.append(info)
    return out


def unpack(archive: Path, dest: Path) -> None:
    """Unpack a wheel/zip or a tarball into ``dest`` (replacing a half-done one)."""
    if dest.exists():
        shutil.rmtree(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        _extract(archive, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    (tmp / _STAMP).write_text(archive.name + "\n", encoding="utf-8")
    tmp.rename(dest)


def _extract(archive: Path, tmp: Path) -> None:
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp, members=_safe_members_zip(zf, tmp))
    else:
        with tarfile.open(archive) as tf:
            if hasattr(tarfile, "data_filter"):
                tf.extractall(tmp, filter="data")
            else:  # Python < 3.12 without the backported filter
                root = tmp.resolve()
                for m in tf.getmembers():
                    t = (tmp / m.name).resolve()
                    if (t != root and root not in t.parents) or m.issym() or m.islnk():
                        raise RuntimeError(f"refusing to unpack {m.name!r}")
                tf.extractall(tmp)


def py_files(root: Path) -> List[Path]:
    """Every ``*.py`` under ``root``, sorted (the set the floor parses)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        out.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return out


def corpus_stats(root: Path) -> Tuple[int, int, int]:
    """(files, lines, bytes) of the ``.py`` files under ``root``."""
    files = lines = size = 0
    for p in py_files(root):
        data = p.read_bytes()
        files += 1
        size += len(data)
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return files, lines, size


def ensure_corpora(names: Optional[Iterable[str]] = None, cache: Optional[os.PathLike] = None) -> Dict[str, Path]:
    """Download and unpack the named corpora (default: all); return ``{name: directory}``."""
    cache_dir = Path(cache) if cache is not None else DEFAULT_CACHE
    wanted = list(names) if names else list(CORPORA)
    unknown = [n for n in wanted if n not in CORPORA]
    if unknown:
        raise KeyError(f"unknown corpus {', '.join(unknown)}; known: {', '.join(CORPORA)}")
    result: Dict[str, Path] = {}
    for name in wanted:
        dest = cache_dir / "corpora" / name
        stamp = dest / _STAMP
        if stamp.is_file():
            _log(f"{name}: already unpacked in {dest} ({stamp.read_text(encoding='utf-8').strip()})")
        else:
            archive = download(name, cache_dir)
            _log(f"{name}: unpacking {archive.name} into {dest}")
            unpack(archive, dest)
        result[name] = dest
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"corpora to fetch (default: all of {', '.join(CORPORA)})")
    ap.add_argument("--cache-dir", default=None, help=f"cache folder (default {DEFAULT_CACHE})")
    args = ap.parse_args(argv)
    try:
        dirs = ensure_corpora(args.names or None, args.cache_dir)
    except (KeyError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{'corpus':<10} {'files':>6} {'lines':>8} {'MB':>6}  path")
    for name, d in dirs.items():
        files, lines, size = corpus_stats(d)
        print(f"{name:<10} {files:>6} {lines:>8} {size / 1e6:>6.2f}  {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
