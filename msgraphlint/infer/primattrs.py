"""Primitive instances held on ``self``.

``self.reshape = P.Reshape()`` in ``__init__`` and ``self.reshape(x, shape)`` in
``construct``: which primitive class an attribute holds (so a call on it can be typed from
the primitive's operand names in the catalog), and whether the instance is configured with
a parallel strategy or another per-instance setting (``.shard(...)``,
``.add_prim_attr(...)``, ``.recompute()``...), which the functional form cannot carry.

A configuration is found wherever the module applies it to the attribute:

* on the constructor call (``self.tile = P.Tile().shard(((dp, mp),))``);
* later, in ``__init__`` or any other method (``self.tile.shard(...)``, also through a
  parent: ``self.attn.softmax.shard(...)`` marks every ``softmax`` attribute of the module);
* through a loop or a local alias (``for op in (self.add, self.mul): op.shard(...)``,
  ``op = self.add; op.shard(...)``).

One pass over the module, cached per source file; the constructors of a class are read the
first time a scope of that class asks.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Set, Tuple

from msgraphlint.parse.astutil import per_tree, walk as _walk, walk_statements
from msgraphlint.project.scopes import _all_classes

# per-instance settings that the functional form (``ops.tile``) cannot carry
CONFIG_METHODS = frozenset({"shard", "add_prim_attr", "recompute", "set_device", "place",
                            "set_prim_instance_name", "del_prim_attr", "set_stage", "set_strategy"})


def constructor_call(value: ast.AST) -> Tuple[Optional[ast.Call], bool]:
    """(the constructor call under a chain of configuring calls, whether the chain configures):
    ``P.Tile().shard(s).add_prim_attr(...)`` -> (``P.Tile()``, True)."""
    configured = False
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in CONFIG_METHODS and isinstance(value.func.value, ast.Call):
        configured = True
        value = value.func.value
    return (value if isinstance(value, ast.Call) else None), configured


def _self_attr(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


class ModulePrimitives:
    """What one module does with the primitives it keeps in attributes."""

    def __init__(self, tree: ast.Module, text: str = "") -> None:
        #: class name -> attr -> constructor call assigned to ``self.<attr>`` (filled per class
        #: name on first use: :meth:`ctor` asks for the classes of graph scopes only)
        self.ctors: Dict[str, Dict[str, ast.Call]] = {}
        #: attribute names configured somewhere in the module (any receiver)
        self.configured: Set[str] = set()
        #: constructor calls whose instance is configured (for the rule on the call itself)
        self.configured_ctors: Set[int] = set()
        self._tree, self._text, self._scanned = tree, text, False
        self._classes: Optional[Dict[str, list]] = None

    def _class_ctors(self, name: str) -> Dict[str, ast.Call]:
        """The constructors of the classes called ``name``: assignment statements in their
        methods (statements only, no expression walk: this runs for every module with Cells);
        the first assignment of an attribute counts, in the module's statement order."""
        got = self.ctors.get(name)
        if got is not None:
            return got
        if self._classes is None:
            self._classes = per_tree(self._tree, "all_classes", _all_classes)
        ctors = self.ctors[name] = {}
        for cls in self._classes.get(name, ()):
            for item in cls.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in walk_statements(item.body):
                    if isinstance(node, ast.Assign) and len(node.targets) == 1:
                        attr = _self_attr(node.targets[0])
                        if attr:
                            call, conf = constructor_call(node.value)
                            if call is not None:
                                ctors.setdefault(attr, call)
                                if conf:
                                    self.configured.add(attr)
        return ctors

    def configured_attrs(self) -> Set[str]:
        """Attribute names given a strategy/setting anywhere in the module (computed on first
        use: only the primitive-spelling rule needs it)."""
        if not self._scanned:
            self._scanned = True
            if self._classes is None:
                self._classes = per_tree(self._tree, "all_classes", _all_classes)
            for name in self._classes:  # every class: a constructor's chain may configure it
                self._class_ctors(name)
            if not self._text or any(m in self._text for m in CONFIG_METHODS):
                self._scan_configuration(self._tree)
        return self.configured

    def _scan_configuration(self, tree: ast.Module) -> None:
        aliases: Dict[str, Set[str]] = {}  # local name -> attrs it may stand for
        config_calls = []
        for node in _walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Attribute):
                aliases.setdefault(node.targets[0].id, set()).add(node.value.attr)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                    and isinstance(node.iter, (ast.Tuple, ast.List)):
                aliases.setdefault(node.target.id, set()).update(
                    e.attr for e in node.iter.elts if isinstance(e, ast.Attribute))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in CONFIG_METHODS:
                config_calls.append(node.func.value)
        for recv in config_calls:
            if isinstance(recv, ast.Attribute):
                self.configured.add(recv.attr)
            elif isinstance(recv, ast.Name):
                self.configured.update(aliases.get(recv.id, ()))
        for ctors in self.ctors.values():
            for attr, call in ctors.items():
                if attr in self.configured:
                    self.configured_ctors.add(id(call))

    def ctor(self, class_name: Optional[str], attr: str) -> Optional[ast.Call]:
        return self._class_ctors(class_name or "").get(attr)


_CACHE: list = [None, None]  # (source, ModulePrimitives)


def module_primitives(ctx) -> ModulePrimitives:
    src = ctx.source
    if _CACHE[0] is not src:
        _CACHE[0], _CACHE[1] = src, ModulePrimitives(src.tree, src.text)
    return _CACHE[1]


def is_configured_ctor(ctx, call: ast.Call) -> bool:
    """The primitive built by ``call`` is given a strategy or setting somewhere in the module:
    on the call's own chain, or later through the attribute (or a local) it is stored in."""
    _, conf = constructor_call(_outermost_chain(ctx, call))
    if conf:
        return True
    mp = module_primitives(ctx)
    mp.configured_attrs()
    if id(call) in mp.configured_ctors:
        return True
    # a module-level or local name: ``tile = P.Tile()`` then ``tile.shard(...)``
    top = _outermost_chain(ctx, call)
    parent = ctx.parent(top)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        t = parent.targets[0]
        name = t.attr if isinstance(t, ast.Attribute) else (t.id if isinstance(t, ast.Name) else None)
        return name is not None and name in mp.configured
    return False


def _outermost_chain(ctx, call: ast.Call) -> ast.AST:
    node: ast.AST = call
    while True:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.attr in CONFIG_METHODS:
            grand = ctx.parent(parent)
            if isinstance(grand, ast.Call) and grand.func is parent:
                node = grand
                continue
        return node


def primitive_inputs(ctx, func: ast.AST) -> Optional[Tuple[str, ...]]:
    """For a call ``self.<attr>(...)`` on a primitive instance: its operand names from the
    catalog (``()`` when the primitive or its signature is unknown). None when ``func`` is
    not a primitive held on ``self``."""
    attr = _self_attr(func)
    if attr is None:
        return None
    mp = module_primitives(ctx)
    scope = ctx.scope
    call = mp.ctor(scope.class_name if scope is not None else None, attr)
    qual = ctx.qualname(call.func) if call is not None else None
    try:
        cat = ctx.catalog
    except Exception:  # pragma: no cover - catalog unavailable
        cat = None
    if qual is not None and cat is not None and cat.class_kind(qual) == "primitive":
        return cat.primitive_inputs(qual) or ()
    info = ctx.class_info
    if info is not None:
        from msgraphlint.infer.values import Kind
        if info.attr(attr) is Kind.PRIMITIVE:
            return ()
    return None
