"""Fixes: the fix contract, applying fixes to files, atomic writes, ``--add-noqa`` edits."""
