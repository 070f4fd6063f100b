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

Scanning and parsing run in libyaml (PyYAML's C parser) where the wheel has it, with the
composer, resolver and constructor in Python as before; a text libyaml rejects, or one
with a tab or an inner BOM (where libyaml and PyYAML disagree), is read by the pure-Python
loader, so every reading and every error is the pure-Python one.

Parse errors raise :class:`YamlError` with a 1-based line. Only the first document of
a multi-document stream is kept (``YamlDocument.documents`` says how many there were).

Parsing is bounded: composing counts the nodes each alias stands for, so a document whose
aliases expand to more than ``MAX_ALIAS_NODES`` nodes beyond its own (a "billion laughs"
alias bomb: 600 bytes, 9 levels of 9 aliases, 9^9 nodes for anything that walks the data)
raises :class:`YamlLimitError` before anything is expanded, and so does nesting deeper
than ``MAX_DEPTH`` levels (PyYAML's composer recurses per level). Both are checked while
composing, in time linear in the text.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Hashable, List, Optional, Tuple

import yaml

__all__ = ["MAX_ALIAS_NODES", "MAX_DEPTH", "YamlDocument", "YamlError", "YamlLimitError", "load_document",
           "looks_like_run_config", "parse_yaml"]

Position = Tuple[int, int]

MAX_DEPTH = 100             # nesting levels (run configs nest 5-10 deep)
MAX_ALIAS_NODES = 100_000   # nodes aliases may add to the document, in total


class YamlError(Exception):
    """The text is not YAML PyYAML can read. ``line`` is 1-based, ``col`` 0-based."""

    def __init__(self, message: str, line: int = 1, col: int = 0, path: str = "") -> None:
        super().__init__(f"{path + ':' if path else ''}{line}:{col}: {message}")
        self.message = message
        self.line = line
        self.col = col
        self.path = path


class YamlLimitError(YamlError):
    """The document is over one of the parse budgets (``limit``: ``"aliases"`` or ``"depth"``)."""

    def __init__(self, message: str, line: int = 1, col: int = 0, path: str = "", limit: str = "") -> None:
        super().__init__(message, line, col, path)
        self.limit = limit


class _OverBudget(yaml.MarkedYAMLError):
    def __init__(self, problem: str, mark, limit: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.limit = limit


class _Bounds:
    """A composer mixin that keeps, for every node, how many nodes it stands for with its
    aliases expanded (``size``), and the nesting depth. A recursive alias (an anchor used
    inside its own node) counts as one node, as the index walk stops there."""

    def _init_bounds(self, max_depth: int, max_alias_nodes: int) -> None:
        self._max_depth = max_depth
        self._max_alias_nodes = max_alias_nodes
        self._depth = 0
        self._composed = 0                  # nodes the text itself holds (so far)
        self._size: Dict[int, int] = {}     # id(node) -> nodes with aliases expanded

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)  # the anchored node: its size is known
        if self._depth >= self._max_depth:
            raise _OverBudget(f"the YAML nests deeper than {self._max_depth} levels (the limit)",
                              self.peek_event().start_mark, "depth")
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._composed += 1
        size = self._size
        n = 1
        if isinstance(node, yaml.SequenceNode):
            for item in node.value:
                n += size.get(id(item), 1)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                n += size.get(id(key), 1) + size.get(id(value), 1)
        size[id(node)] = n
        if n - self._composed > self._max_alias_nodes:
            raise _OverBudget(f"YAML aliases expand to more than {self._max_alias_nodes:,} nodes beyond the "
                              f"file's own (the limit; an alias bomb?): {n:,} nodes here", node.start_mark,
                              "aliases")
        return node


class _BoundedLoader(_Bounds, yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader, bounded: the reference reading of a text."""

    def __init__(self, stream: str, max_depth: int, max_alias_nodes: int) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._init_bounds(max_depth, max_alias_nodes)


try:  # PyYAML's wheels carry libyaml; a build without it has no yaml.cyaml
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover
    _CParser = None

if _CParser is not None:
    class _FastLoader(_Bounds, yaml.composer.Composer, yaml.constructor.SafeConstructor,  # type: ignore[misc]
                      yaml.resolver.Resolver, _CParser):
        """The same composer, constructor and resolver over libyaml's events (scanning and
        parsing in C: about ten times faster on run configs). libyaml's parser keeps its
        own stack, so nesting costs it no recursion; composing stays in Python, bounded as
        above. Only a text it reads without error is taken from it: on any error the text is
        read again by :class:`_BoundedLoader`, whose error (or reading) is the one given."""

        def __init__(self, stream: str, max_depth: int, max_alias_nodes: int) -> None:
            _CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            yaml.composer.Composer.__init__(self)
            self._init_bounds(max_depth, max_alias_nodes)
else:  # a PyYAML built without libyaml
    _FastLoader = None  # type: ignore[assignment,misc]


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


def parse_yaml(text: str, path: str = "<yaml>", *, max_depth: int = MAX_DEPTH,
               max_alias_nodes: int = MAX_ALIAS_NODES) -> Optional[YamlDocument]:
    """Parse ``text``; None for an empty stream. Raises :class:`YamlError`, and
    :class:`YamlLimitError` (a subclass) for a document over the alias or depth budget."""
    if _FastLoader is not None and "\t" not in text and "\ufeff" not in text:
        # libyaml takes a tab PyYAML rejects ("a:\t 1") and counts a BOM inside a line as a
        # column: such texts are read by the reference reader only (tests/test_config_yaml.py)
        try:
            return _read(_FastLoader(text, max_depth, max_alias_nodes), text, path)
        except (YamlError, yaml.YAMLError, ValueError, TypeError, RecursionError):
            pass  # the reference reader says what is wrong, where (libyaml words it differently)
    return _read(_BoundedLoader(text, max_depth, max_alias_nodes), text, path)


def _read(loader, text: str, path: str) -> Optional[YamlDocument]:
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
    except _OverBudget as exc:
        line, col = _error_position(exc)
        raise YamlLimitError(exc.problem, line, col, path, exc.limit) from None
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


# the top-level mappings msgraphlint_rules.config_yaml.config_format recognises a run config by
_RUN_CONFIG_KEY = re.compile(r"""^[ \t]*["']?(?:model_config|parallel_config|parallelism)["']?[ \t]*:""", re.M)


def looks_like_run_config(text: str) -> bool:
    """The text has a line that starts a ``model_config:``, ``parallel_config:`` or
    ``parallelism:`` mapping: for a file that does not parse, whether it was meant to be a
    MindSpore Transformers run config (its parse error is then a finding, MSG001)."""
    return _RUN_CONFIG_KEY.search(text) is not None
