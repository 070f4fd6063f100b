"""Applying fixes to files on disk: the fix loop of ``check --fix`` / ``--diff``.

Takes a finished :class:`~msgraphlint.runner.RunResult`, applies each file's eligible
fixes (``msgraphlint.fixes``), re-lints the changed text until nothing more applies, and
writes the result.
"""

from __future__ import annotations

from typing import List

from . import runner
from .findings import FileResult
from .fixes import FileFix, FixError, encode_like, fix_text, write_atomic
from .runner import RunResult
from .source import SourceError, SourceFile


def fix_paths(result: RunResult, *, unsafe: bool = False, write: bool = True, max_passes: int = 10):
    """Apply fixes to the files of a finished run, re-linting each changed file in
    memory until nothing more applies. Returns (new RunResult with the findings that
    remain, list of FileFix with changes, list of error messages)."""
    settings = result.settings
    changed = []
    errors: List[str] = []
    files: List[FileResult] = []
    for fr in result.files:
        if not any(f.fix is not None and (unsafe or f.fix.safety.value == "safe") for f in fr.findings):
            files.append(fr)
            continue
        try:
            source = SourceFile.read(fr.path)
        except (OSError, SourceError) as exc:
            errors.append(f"{fr.path}: cannot fix: {exc}")
            files.append(fr)
            continue
        original = source.text
        current, findings, total = original, fr, 0
        for _ in range(max_passes):
            try:
                ff = fix_text(SourceFile(source.path, current, source.encoding, source.bom, source.newline),
                              findings.findings, unsafe)
            except FixError as exc:
                errors.append(str(exc))
                break
            if not ff.changed:
                break
            current, total = ff.fixed, total + ff.applied
            findings = runner._run_files([fr.path], settings, 1, {fr.path: current}).files[0]
            findings.path = fr.path
        files.append(findings)
        if current != original:
            fix = FileFix(fr.path, original, current, total, source)
            changed.append(fix)
            if write:
                write_atomic(fr.path, encode_like(source, current))
    return RunResult(files, settings, errors), changed, errors
