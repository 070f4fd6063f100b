"""Caches: the on-disk result store and its codec, the keys, in-run memos."""
