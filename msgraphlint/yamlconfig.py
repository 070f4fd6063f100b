"""YAML run configs with line numbers, for ``scope = "yaml"`` rules.

PyYAML's composer keeps a start mark on every node; the document is composed once,
constructed into plain Python data (``YamlDocument.data``) with the safe constructor,
and the node tree is indexed by key path so a rule can point at the line of any key:

    doc = load_document(text, "run.yaml")
    doc.data["parallel_config"]["model_parallel"]          # 8
    doc.locate("parallel_config", "model_parallel")         # (114, 2): 1-based line, 0-based col
    doc.locate("parallel_config", "no_such_key")            # (113, 0): the nearest existing parent

Key paths use the constructed key values (``str`` for ordinary keys) and ``int``
indexes for sequence items. Anchors/aliases resolve to the anchored node (an alias
locates where its anchor was defined); ``<<`` merge keys are flattened as PyYAML
does, so merged keys locate at their definition. Duplicate keys: the last one wins,
as in ``data``.

Parse errors raise :class:`YamlError` with a 1-based line. Only the first document of
a multi-document stream is kept (``YamlDocument.documents`` says how many there were).
"""

from __future__ import annotations

from typing import Any, Dict, Hashable, List, Optional, Tuple

import yaml

__all__ = ["YamlDocument", "YamlError", "load_document", "parse_yaml"]

Position = Tuple[int, int]


class YamlError(Exception):
    """The text is not YAML PyYAML can read. ``line`` is 1-based, ``col`` 0-based."""

    def __init__(self, message: str, line: int = 1, col: int = 0, path: str = "") -> None:
        super().__init__(f"{path + ':' if path else ''}{line}:{col}: {message}")
        self.message = message
        self.line = line
        self.col = col
        self.path = path


class YamlDocument:
    """One parsed YAML document: plain data plus a key-path → position index."""

    def __init__(self, data: Any, path: str, text: str, index: Dict[Tuple, Tuple[Position, Position]],
                 documents: int = 1) -> None:
        self.data = data
        self.path = path
        self.text = text
        self.lines: List[str] = text.splitlines()
        self.documents = documents
        self._index = index
        self.cache: Dict[str, Any] = {}  # per-document memo for rules (computed facts shared by a family)

    # locating -------------------------------------------------------------------
    def has(self, *keys: Hashable) -> bool:
        return tuple(keys) in self._index

    def locate(self, *keys: Hashable, value: bool = False) -> Position:
        """(line, col) of the key at ``keys`` (1-based line, 0-based col); with
        ``value=True`` the position of its value instead. A path that does not exist
        falls back to its nearest existing parent; the empty path is (1, 0)."""
        path = tuple(keys)
        while path:
            hit = self._index.get(path)
            if hit is not None:
                return hit[1] if value else hit[0]
            path = path[:-1]
        return (1, 0)

    def get(self, *keys: Hashable, default: Any = None) -> Any:
        """The value at a key path in ``data`` (mappings by key, sequences by int index)."""
        cur = self.data
        for k in keys:
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            elif isinstance(cur, list) and isinstance(k, int) and -len(cur) <= k < len(cur):
                cur = cur[k]
            else:
                return default
        return cur

    def comments_above(self, line: int, max_lines: int = 3) -> List[Tuple[int, str]]:
        """The comment-only lines directly above 1-based ``line`` (nearest first),
        stopping at the first line that is not a comment. Blank lines stop it too."""
        out: List[Tuple[int, str]] = []
        i = line - 1  # 1-based number of the line above
        while i >= 1 and len(out) < max_lines:
            stripped = self.lines[i - 1].strip()
            if not stripped.startswith("#"):
                break
            out.append((i, stripped.lstrip("#").strip()))
            i -= 1
        return out

    def __repr__(self) -> str:
        return f"YamlDocument({self.path!r}, keys={len(self._index)})"


def _mark(mark) -> Position:
    return (mark.line + 1, mark.column)


def _key_value(loader: yaml.SafeLoader, node: yaml.Node) -> Optional[Hashable]:
    if isinstance(node, yaml.ScalarNode):
        try:
            value = loader.construct_object(node, deep=True)
        except yaml.YAMLError:
            return node.value
        try:
            hash(value)
        except TypeError:
            return None
        return value
    return None  # complex keys cannot be addressed by a path


def _index_nodes(loader: yaml.SafeLoader, root: yaml.Node) -> Dict[Tuple, Tuple[Position, Position]]:
    index: Dict[Tuple, Tuple[Position, Position]] = {}
    on_path: set = set()  # node ids on the current path: recursive aliases stop here

    def walk(node: yaml.Node, path: Tuple) -> None:
        if id(node) in on_path:
            return
        on_path.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    key = _key_value(loader, key_node)
                    if key is None or key == "<<":
                        continue
                    sub = path + (key,)
                    index[sub] = (_mark(key_node.start_mark), _mark(value_node.start_mark))
                    walk(value_node, sub)
            elif isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    sub = path + (i,)
                    pos = _mark(item.start_mark)
                    index[sub] = (pos, pos)
                    walk(item, sub)
        finally:
            on_path.discard(id(node))

    walk(root, ())
    return index


def _error_position(exc: yaml.YAMLError) -> Position:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return (1, 0)
    return _mark(mark)


def parse_yaml(text: str, path: str = "<yaml>") -> Optional[YamlDocument]:
    """Parse ``text``; None for an empty stream. Raises :class:`YamlError`."""
    loader = yaml.SafeLoader(text)
    try:
        nodes = []
        while loader.check_node():
            nodes.append(loader.get_node())
        if not nodes:
            return None
        root = nodes[0]
        # construct_document flattens merge keys (<<) in the node tree in place, so
        # index after constructing: merged keys are then found where data has them.
        data = loader.construct_document(root)
        index = _index_nodes(loader, root)
    except yaml.YAMLError as exc:
        line, col = _error_position(exc)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(str(problem), line, col, path) from None
    except (ValueError, TypeError, RecursionError) as exc:  # constructor errors that are not YAMLError
        raise YamlError(f"{type(exc).__name__}: {exc}", 1, 0, path) from None
    finally:
        loader.dispose()
    return YamlDocument(data, path, text, index, documents=len(nodes))


def load_document(text: str, path: str = "<yaml>") -> Optional[YamlDocument]:
    """What the runner calls for every ``*.yaml``/``*.yml`` file: the parsed document,
    or None for an empty file. Whether a document is a MindSpore Transformers run
    config is each rule's decision (see ``msgraphlint_rules.config_yaml``)."""
    return parse_yaml(text, path)
