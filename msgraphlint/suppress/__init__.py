"""Suppressions: inline ``# noqa`` comments and baselines."""
