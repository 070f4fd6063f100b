"""A lint run: discovery of files, the two phases per file, workers, budgets, the upgrade view."""
