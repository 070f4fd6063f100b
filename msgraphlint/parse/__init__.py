"""Parsing: source text (encodings, limits) to trees; YAML documents; notebooks."""
