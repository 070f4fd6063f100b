"""``parse.source.display_path``: findings name files relative to the working directory,
remembered per (path, directory)."""

from __future__ import annotations


def test_display_path_follows_the_working_directory(tmp_path, monkeypatch):
    from msgraphlint.parse.source import display_path
    (tmp_path / "a").mkdir()
    target = tmp_path / "a" / "m.py"
    monkeypatch.chdir(tmp_path)
    assert display_path(str(target)) == "a/m.py"
    assert display_path(str(target)) == "a/m.py"  # remembered
    monkeypatch.chdir(tmp_path / "a")
    assert display_path(str(target)) == "m.py"  # not the answer remembered for the other directory
    assert display_path("m.py") == "m.py"
    monkeypatch.chdir(tmp_path / "a")
    outside = tmp_path / "b.py"
    assert display_path(str(outside)) == str(outside)  # above the directory: as given
    assert display_path("<stdin>") == "<stdin>"
