"""The language server (``msgraphlint lsp``, stdio, pygls).

Diagnostics on open, save and (debounced) change, linked to each rule's docs; code
actions: the rule's fix, "fix all in file", "suppress on this line"; hover on a
diagnostic or on a code in a ``# noqa: MSG…`` comment shows the rule's docs.
Configuration is found per document (walking up to the closest ``pyproject.toml``
with ``[tool.msgraphlint]``); ``untitled:`` buffers use the workspace root's.

The package follows the server's seams:

- ``guard``: framing and validation of every message before pygls sees it;
- ``documents``: open documents, LSP lines and position encodings, clamped edits;
- ``analysis``: analysis threads, the per-file time budget, cancellation;
- ``actions``: findings → diagnostics, code actions and hover for one analysed version;
- ``server``: the server object and the features wired to the above.
"""

from .server import MsGraphLintServer, create_server, main, uri_to_path

__all__ = ["MsGraphLintServer", "create_server", "main", "uri_to_path"]
