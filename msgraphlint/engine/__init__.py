"""The rule engine: loading rules (registry), dispatching nodes of graph scopes to them, rule docs."""
