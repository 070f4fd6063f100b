"""The project model: module identity, module summaries, the project index, graph scopes,
the call graph across modules, caller evidence, installed packages read with astroid."""
