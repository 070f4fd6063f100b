"""MSG514 api-not-in-target: a MindSpore API, class, module, Tensor method or keyword that
the target MindSpore release does not have, though another release does.

The facts are the per-release catalogs (``msgraphlint/data/mindspore_api*.json``, generated
by ``scripts/gen_catalog.py`` from each release's wheel): ``ctx.catalog`` is the target's,
:func:`msgraphlint.infer.catalog.get_catalog` gives the others.
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from msgraphlint.infer.catalog import get_catalog, known_versions, varying_keys, version_key
from msgraphlint.parse.astutil import per_tree
from msgraphlint.parse.text import identifier_text  # noqa: F401  (deprecated_api imports it from here)
from msgraphlint.project.imports import normalize
from msgraphlint.rule import Invalid, Rule, Severity, Valid


def _runs(versions: Sequence[str]) -> str:
    """``("2.7.1", "2.7.2", "2.8.0")`` -> "2.7.1 to 2.8.0"; gaps make several runs."""
    known = known_versions()
    index = {v: i for i, v in enumerate(known)}
    runs: List[List[str]] = []
    for v in sorted(versions, key=version_key):
        if runs and index[v] == index[runs[-1][-1]] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    parts = [r[0] if len(r) == 1 else f"{r[0]} and {r[1]}" if len(r) == 2 else f"{r[0]} to {r[-1]}" for r in runs]
    return ", ".join(parts)


def releases_phrase(have: Sequence[str], target: str) -> str:
    """Where the releases that have a name stand relative to the target's, in words:
    "it is new in 2.10.0", "it was removed in 2.7.1 (2.7.0 has it)", "2.7.0 and 2.8.0 have it"."""
    known = known_versions()
    t = version_key(target)
    have = sorted(have, key=version_key)
    if all(version_key(v) > t for v in have):
        to_newest = list(have) == list(known[known.index(have[0]):])
        tail = "" if to_newest else f" ({_runs(have)} {'has' if len(have) == 1 else 'have'} it)"
        return f"it is new in {have[0]}{tail}"
    if all(version_key(v) < t for v in have):
        after = known[known.index(have[-1]) + 1]
        return f"it was removed in {after} ({_runs(have)} {'has' if len(have) == 1 else 'have'} it)"
    return f"MindSpore {_runs(have)} {'has' if len(have) == 1 else 'have'} it"


@functools.lru_cache(maxsize=4096)
def _keywords(params: Optional[str]) -> Optional[Tuple[frozenset, bool]]:
    """(the parameter names a call may pass by keyword, whether ``**kwargs`` takes any
    other) from a catalog ``params`` string; None when not recorded."""
    if params is None:
        return None
    parts = [p.strip() for p in params.split(",") if p.strip()]
    if "/" in parts:
        parts = parts[parts.index("/") + 1:]
    names = frozenset(p.rstrip("=") for p in parts if p not in ("/", "*") and not p.startswith("*"))
    return names, any(p.startswith("**") for p in parts)



def _exists(cat, dotted: str) -> bool:
    """``cat.exists(dotted)``, remembered per catalog (asked for every attribute chain)."""
    key = (id(cat), dotted)
    known = _EXISTS.get(key)
    if known is None:
        known = cat.exists(dotted)
        if len(_EXISTS) < 262144:
            _EXISTS[key] = known
    return known

class ApiNotInTarget(Rule):
    code = "MSG514"
    name = "api-not-in-target"
    summary = ("A MindSpore API, class, module, Tensor method or keyword that the target MindSpore release does "
               "not have (another release does): it fails at import or call time.")
    message = "`{spelled}` does not exist in MindSpore {target}\nIn other releases: {where}."
    hint = "{advice}"
    severity = Severity.ERROR
    scope = "module"
    requires_text = ("mindspore",)
    rationale = """
        Every release changes MindSpore's surface, patch releases too. Measured on the wheels
        the registry serves for Python 3.11 (`dir()` of each namespace, `inspect.signature`,
        read by `scripts/gen_catalog.py` into one catalog per release): `mint.vdot` exists
        only in 2.10.0 (`AttributeError: module 'mindspore.mint' has no attribute 'vdot'` on
        2.7.0); `nn.TensorArray` only in 2.7.0 (gone in 2.7.1); `ops.chunk_ext` in 2.7.0 and
        2.7.1; the Tensor methods `index_fill_`, `masked_scatter_`, `sigmoid_`, `sign_` are new
        in 2.7.1 or 2.8.0; and `ops.transpose`'s second parameter was renamed from
        `input_perm` (2.7.0) to `dims` (2.7.1 on): `ops.transpose(x, input_perm=(1, 0))`
        raises `TypeError: transpose() got an unexpected keyword argument 'input_perm'` on
        2.10.0, `dims=` raises the same on 2.7.0.

        The target is `target-mindspore`, or the project's pin (`mindspore==2.7.0` in
        `requirements.txt`, `mindspore>=2.8,<2.9` in `pyproject.toml`: the lowest allowed
        version), or the MindSpore of the `python` setting's environment, else the newest
        release msgraphlint knows (`--show-settings` says which). A name is reported
        wherever it is written, in graph code or not, at the import that names it or at its
        use (`mint.vdot(...)`), but only when another known release has it: a name no release
        has is another rule's business (a typo, a private module). A keyword is reported
        when the target's signature has neither it nor `**kwargs` and another release's
        signature of the same function has it. A Tensor method is reported outside graph
        code when the receiver is made by MindSpore where it is used (`ms.Tensor(...)`, a
        MindSpore function returning a tensor, a local bound to one); in graph code, MSG508
        reports a method the target's Tensor lacks. Run `check --upgrade-to VERSION` to see
        what a move to another release breaks.
    """
    VALID = [
        Valid("""
            from mindspore import mint, ops
            y = mint.vdot(a, b)
            z = ops.transpose(x, dims=(1, 0))
        """, note="both exist in MindSpore 2.10.0, the default target"),
        Valid("""
            from mindspore import nn
            x = nn.NotAnApiOfAnyRelease()
        """, note="no known release has it: not a version question"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            ta = nn.TensorArray(ms.float32, ())
        """, line=4, note="only 2.7.0 has it"),
        Invalid("""
            from mindspore.ops import chunk_ext
        """, line=1, note="removed in 2.7.2: the import fails"),
        Invalid("""
            from mindspore import ops
            y = ops.transpose(x, input_perm=(1, 0))
        """, line=2, note="the keyword was renamed to `dims` in 2.7.1"),
        Invalid("""
            import mindspore as ms
            t = ms.Tensor([1.0])
            if t.is_persistent_data():
                pass
        """, line=3, note="a Tensor method only 2.7.0 has"),
    ]

    # ------------------------------------------------------------------ other releases
    @staticmethod
    def _elsewhere(cat, dotted: str) -> List[str]:
        """The other known releases that have ``dotted`` (asked only for names the target's
        catalog does not know; remembered per process)."""
        key = (cat.version, dotted)
        got = _ELSEWHERE.get(key)
        if got is None:
            got = [v for v in known_versions() if v != cat.version and get_catalog(v).exists(dotted)]
            if len(_ELSEWHERE) < 65536:
                _ELSEWHERE[key] = got
        return got

    def _report_name(self, ctx, node: ast.AST, dotted: str, spelled: Optional[str] = None) -> None:
        cat = ctx.catalog
        if _exists(cat, dotted):
            return
        have = self._elsewhere(cat, dotted)
        if not have:
            return
        advice = self._advice(dotted, have, cat.version)
        ctx.report(node, spelled=spelled or ctx.segment(node) or dotted, target=cat.version,
                   where=releases_phrase(have, cat.version), advice=advice)

    @staticmethod
    def _advice(dotted: str, have: Sequence[str], target: str) -> str:
        newest = sorted(have, key=version_key)[-1]
        if version_key(newest) < version_key(target):
            dep = get_catalog(newest).deprecation(dotted)
            use = dep.get("use") if dep else None
            if use and not use.startswith("mindspore._") and "." in use and " " not in use:
                return f"MindSpore {newest} names `{use.replace('mindspore.', '', 1)}` instead"
            return f"find what replaces it in MindSpore {target}, or pin a release that has it"
        return f"pin MindSpore {sorted(have, key=version_key)[0]} or later, or do without it"

    # ------------------------------------------------------------------ the module
    def check_module(self, ctx) -> None:
        """One pass over the module's nodes (:func:`module_refs`), only when its import map
        names MindSpore and its text can hold a finding (:meth:`_worth_it`): the rule has no
        visit methods, so a file it has nothing to say about costs no walk. Where MSG513 walked
        the module already, the walk costs nothing and the text test (the dearer part) is
        skipped: it never loses a finding (tests/test_version_api.py)."""
        if PREFILTER and not (_mindspore_names(ctx) and (has_refs(ctx.source.tree) or self._worth_it(ctx))):
            return
        methods: List[Tuple[ast.Attribute, ast.AST]] = []
        for node, scope, kind in module_refs(ctx.source.tree, ctx.imports.names, ctx.catalog):
            if kind == "attr":
                self._attribute(node, scope, ctx, methods)
            elif kind == "call":
                if node.keywords:
                    self._call(node, ctx)
            elif kind == "importfrom":
                self._import_from(node, ctx)
            elif kind == "import":
                self._import(node, ctx)
        if methods:
            self._methods(methods, ctx)

    def _worth_it(self, ctx) -> bool:
        """Whether the module may hold a finding, from its import map and its text: a
        MindSpore name it imports, an import line, or a dotted chain ending in a name some
        release lacks (`mint.vdot`: the chain read back from the name to its root, a
        MindSpore import) that the target lacks, or a receiver the text does not show plainly
        (:func:`chain_root`); a Tensor method name the target lacks after anything but a
        MindSpore chain (`t.sign_`); a keyword the target's signature lacks and another
        release's has (`input_perm=`) written where that function is named. (All but 6 of the
        654 modules of the four corpora that name MindSpore are not walked.)"""
        names = _mindspore_names(ctx)
        if not names:
            return False
        cat = ctx.catalog
        if any(self._varies(cat, v) for v in names.values() if v != "mindspore"):
            return True
        text = identifier_text(ctx.source.text)
        # `import mindspore.nn.reinforcement`: the import map names only `mindspore` (and none in a loop)
        for dotted in imported_modules(text):
            if self._varies(cat, dotted):
                return True
        if not _LAST_NAMES:
            _varying_last_names()
        methods = _missing_methods(cat)
        # (the names after a dot with blanks, continuations or comments between, a superset of
        # the `.name` spellings the searches below find: shared with MSG513, which reads the same text)
        attrs = attr_names(text)
        hits = _LAST_NAMES.intersection(attrs)
        for m in after_dot(_LAST_NAMES).finditer(text) if hits else ():  # (compiled once: a match is a hit)
            last = m.group(1)
            got = chain_root(text, m.start())
            if got is None:
                return True  # a receiver the text does not show plainly (`ms.\n mint.vdot`): the walk judges it
            if got is not NO_CHAIN and got[0] in names:
                if self._varies(cat, normalize(names[got[0]] + got[1] + "." + last)):
                    return True
            elif last in methods:
                return True  # on a local or a call's result: the walk judges the receiver
        lacks, lasts, kw_rx = _lacking_keywords(cat)
        called = any(cat.canonical(v) in lacks for v in names.values())
        hits = lasts.intersection(attrs)
        for m in after_dot(lasts).finditer(text) if hits and not called else ():
            got = chain_root(text, m.start())
            if got is None or (got is not NO_CHAIN and got[0] in names and cat.canonical(normalize(
                    names[got[0]] + got[1] + "." + m.group(1))) in lacks):
                called = True  # (a receiver the text does not show plainly: maybe that function)
                break
        return called and _keyword_in(kw_rx, text)

    def _varies(self, cat, dotted: str) -> bool:
        """``dotted`` is a name the target's catalog lacks and another release's has."""
        return not _exists(cat, dotted) and bool(self._elsewhere(cat, dotted))

    def _import(self, node: ast.Import, ctx) -> None:
        for a in node.names:
            if a.name.startswith("mindspore."):
                self._report_name(ctx, node, a.name, a.name)

    def _import_from(self, node: ast.ImportFrom, ctx) -> None:
        if node.level or not node.module or not (node.module == "mindspore" or node.module.startswith("mindspore.")):
            return
        if not ctx.catalog.exists(node.module) and self._elsewhere(ctx.catalog, node.module):
            self._report_name(ctx, node, node.module, node.module)
            return
        for a in node.names:
            if a.name != "*":
                self._report_name(ctx, node, f"{node.module}.{a.name}", f"{node.module}.{a.name}")

    def _attribute(self, node: ast.Attribute, scope: ast.AST, ctx, methods: list) -> None:
        if node.attr not in (_LAST_NAMES or _varying_last_names()):
            return  # no known release lacks a name ending so (one set lookup for most attributes)
        dotted = ctx.qualname(node)
        if dotted is not None:
            if dotted.startswith("mindspore."):
                self._report_name(ctx, node, dotted)
        elif node.attr in (_VARYING_NAMES or self._varying_names()):
            methods.append((node, scope))

    def _call(self, node: ast.Call, ctx) -> None:
        varying = _KEYWORDS or _varying_keywords()
        if not any(k.arg in varying for k in node.keywords):
            return  # no keyword some release's signature has and another's lacks
        q = ctx.qualname(node.func)
        if not q or not q.startswith("mindspore."):
            return
        cat = ctx.catalog
        own = self._params(cat, q)
        if own is None or own[1]:
            return
        for kw in node.keywords:
            if kw.arg is None or kw.arg in own[0]:
                continue
            have = []
            for v in known_versions():
                other = self._params(get_catalog(v), q)
                if v != cat.version and other is not None and (kw.arg in other[0]):
                    have.append(v)
            if not have:
                continue
            name = (ctx.segment(node.func) or q)
            ctx.report(kw, message=f"`{name}` of MindSpore {cat.version} has no parameter `{kw.arg}`\n"
                                   f"`{name}(..., {kw.arg}=...)`: {releases_phrase(have, cat.version).replace('it ', 'the parameter ', 1)}.",
                       hint=f"its parameters in MindSpore {cat.version}: ({cat_params(cat, q)})")

    @staticmethod
    def _params(cat, q: str) -> Optional[Tuple[frozenset, bool]]:
        return _keywords(cat_params(cat, q))

    # ------------------------------------------------------------------ Tensor methods
    def _methods(self, methods, ctx) -> None:
        cat = ctx.catalog
        varying = self._varying_methods()
        spans = [(f.lineno, getattr(f, "end_lineno", f.lineno)) for _, f in getattr(ctx, "graph_scopes", ())]
        memo: Dict[int, Dict[str, List[ast.AST]]] = {}
        for node, scope in methods:
            attr = node.attr
            if attr not in varying or cat.tensor_method(attr) is not None or cat.parameter_method(attr) is not None:
                continue
            line = node.lineno
            if any(a <= line <= b for a, b in spans):
                continue  # graph code: MSG508 judges a Tensor's attributes there, with value kinds
            if not self._made_tensor(node.value, scope, ctx, memo, 0):
                continue
            have = [v for v in varying[attr] if v != cat.version]
            ctx.report(node, spelled=f"Tensor.{attr}", target=cat.version, where=releases_phrase(have, cat.version),
                       advice=f"use what MindSpore {cat.version}'s Tensor has (`dir(mindspore.Tensor)`), or pin a "
                              "release that has it")

    @classmethod
    def _varying_names(cls) -> FrozenSet[str]:
        global _VARYING_NAMES
        _VARYING_NAMES = frozenset(cls._varying_methods())
        return _VARYING_NAMES

    @staticmethod
    def _varying_methods() -> Dict[str, List[str]]:
        """Tensor method names some known release lacks -> the releases that have them."""
        got = _VARYING.get("m")
        if got is None:
            per = {v: set(get_catalog(v).tensor_methods()) for v in known_versions()}
            every = set.intersection(*per.values())
            names = set.union(*per.values()) - every
            got = _VARYING["m"] = {n: [v for v in known_versions() if n in per[v]] for n in names}
        return got

    def _made_tensor(self, e: ast.AST, scope: ast.AST, ctx, memo, depth: int) -> bool:
        """Whether ``e`` is a tensor by its making, seen where it is used: ``ms.Tensor(...)``,
        ``Parameter(...)``, a MindSpore function the catalog says returns a tensor, a Tensor
        method returning one called on such a value, or a local every plain assignment of
        which is one of those."""
        if depth > 6:
            return False
        cat = ctx.catalog
        if isinstance(e, ast.Call):
            q = ctx.qualname(e.func)
            if q and q.startswith("mindspore"):
                if cat.class_kind(q) == "tensor":
                    return True
                info = cat.function(q)
                return info is not None and info.get("returns") == "tensor"
            f = e.func
            if isinstance(f, ast.Attribute):
                m = cat.tensor_method(f.attr)
                return bool(m and m["returns"] == "tensor" and not m["property"]) and \
                    self._made_tensor(f.value, scope, ctx, memo, depth + 1)
            return False
        if isinstance(e, ast.Name):
            table = memo.get(id(scope))
            if table is None:
                table = memo[id(scope)] = _plain_bindings(scope)
            values = table.get(e.id)
            return bool(values) and all(self._made_tensor(v, scope, ctx, memo, depth + 1) for v in values)
        return False


_VARYING: Dict[str, Dict[str, List[str]]] = {}
_VARYING_NAMES: FrozenSet[str] = frozenset()
_MISSING: dict = {}


def _missing_methods(cat) -> FrozenSet[str]:
    """The varying Tensor method names ``cat``'s Tensor and Parameter both lack: the only ones
    :meth:`ApiNotInTarget._methods` can report for that target (``data``, ``index``, which
    every release's Parameter or Tensor has under some name, never are), per catalog."""
    got = _MISSING.get(id(cat))
    if got is None or got[0] is not cat:
        got = _MISSING[id(cat)] = (cat, frozenset(
            n for n in ApiNotInTarget._varying_methods()
            if cat.tensor_method(n) is None and cat.parameter_method(n) is None))
    return got[1]


def _mindspore_names(ctx) -> Dict[str, str]:
    """The module's import map entries that name MindSpore."""
    return {k: v for k, v in ctx.imports.names.items() if v == "mindspore" or v.startswith("mindspore.")}


def tensor_method_elsewhere(cat, attr: str) -> Optional[str]:
    """For a Tensor attribute the catalog ``cat`` lacks: where the other releases that have
    it stand, in words (:func:`releases_phrase`); None when no known release has it."""
    have = [v for v in ApiNotInTarget._varying_methods().get(attr, ()) if v != cat.version]
    return releases_phrase(have, cat.version) if have else None
_ELSEWHERE: Dict[Tuple[str, str], List[str]] = {}
_EXISTS: Dict[Tuple[int, str], bool] = {}  # (id of a catalog, name) -> whether it exists there (catalogs live on)


def cat_params(cat, q: str) -> Optional[str]:
    return cat.params(q)


PREFILTER = True  # tests/test_version_api.py checks that the findings are the same without it
_LAST_NAMES: FrozenSet[str] = frozenset()
_KEYWORDS: FrozenSet[str] = frozenset()
_KW_FUNCS: Dict[str, FrozenSet[str]] = {}   # function -> the keywords that differ between its releases
# an `import` statement's names: to the end of its logical line (a backslash continues it; it
# holds no brackets, strings or comments), then the dotted `mindspore` names in it
_IMPORT_LINE = re.compile(r"import((?:[^\n;#\\]|\\\r?\n|\\)*)")
_MS_DOTTED = re.compile(r"(?<![\w.])mindspore(?:\s*\.\s*[^\s.,;()]+)+")  # (a name's characters: any but these)
_LACKS: dict = {}


def imported_modules(text: str) -> List[str]:
    """Every dotted ``mindspore.`` module an ``import`` statement of ``text`` may name (a
    superset: the text after each ``import`` to the end of its logical line, read as Python
    reads names, NFKC-normalised), whatever the spacing, commas or continuations between
    (``import os, mindspore . nn . reinforcement``)."""
    out = []
    for m in _IMPORT_LINE.finditer(text):
        seg = m.group(1)
        if "mindspore" in seg:
            seg = seg.replace("\\", " ")
            if not seg.isascii():
                seg = unicodedata.normalize("NFKC", seg)
            out.extend(re.sub(r"\s", "", d.group()) for d in _MS_DOTTED.finditer(seg))
    return out


def _lacking_keywords(cat) -> Tuple[Dict[str, FrozenSet[str]], FrozenSet[str], "re.Pattern"]:
    """For the target catalog ``cat``: the functions of :data:`_KW_FUNCS` whose signature there
    is explicit (no ``**kwargs``) and lacks some of the keywords that differ between their
    releases, with those keywords (the only ones :meth:`ApiNotInTarget._call` can report:
    another release has such a keyword and the target does not), their last components, and a
    search for any of those keywords followed by ``=``; per catalog."""
    got = _LACKS.get(id(cat))
    if got is None or got[0] is not cat:
        _varying_keywords()
        lacks = {}
        for name, differ in _KW_FUNCS.items():
            info = cat._functions.get(name) or cat._classes.get(name)  # (as `_call` finds it: by its canonical name)
            own = _keywords(info.get("params") if info else None)
            if own is not None and not own[1] and differ - own[0]:
                lacks[name] = differ - own[0]
        kws = sorted(set().union(*lacks.values()), key=len, reverse=True) if lacks else []
        got = _LACKS[id(cat)] = (cat, lacks, frozenset(n.rsplit(".", 1)[-1] for n in lacks),
                                 re.compile(r"%s[ \t]*=(?!=)" % _trie(kws) if kws else r"(?!)"))
    return got[1], got[2], got[3]
_FUNC_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})


_FIELDS: Dict[type, Tuple[str, ...]] = {}
_SKIP_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind"})


def module_refs(tree: ast.AST, names, cat) -> list:
    """One walk of a module for MSG513 and MSG514, which look at the same nodes of it, done
    once per tree: (node, enclosing function or module, kind) for an Attribute in a Load
    context that is not the ``value`` of another and whose name either rule looks at
    (:func:`deprecated_last_names` of ``cat`` for MSG513, :func:`_varying_last_names` for
    MSG514: "attr"), a Name in a Load context that is
    not the ``value`` of an Attribute and is a key of ``names`` (the module's import map:
    "name"), a Call of an attribute or passing keywords ("call"), an Import ("import") and an
    ImportFrom ("importfrom"). In the order of each rule's own walk (a stack: the last child
    first); ``ctx``/operator leaves are never walked."""
    attrs = _REF_ATTRS.get(id(cat))
    if attrs is None or attrs[0] is not cat:
        attrs = _REF_ATTRS[id(cat)] = (cat, deprecated_last_names(cat) | (_LAST_NAMES or _varying_last_names()))
    memo = per_tree(tree, "msg513-514-refs", lambda _tree: {})
    key = (id(names), id(cat))
    hit = memo.get(key)
    if hit is None or hit[0] is not names or hit[1] is not cat:
        hit = memo[key] = (names, cat, _refs(tree, names, attrs[1]))
    _WALKED[0] = tree
    return hit[2]


def has_refs(tree: ast.AST) -> bool:
    """Whether :func:`module_refs` walked ``tree`` already (MSG513 did, in this run, just before)."""
    return _WALKED[0] is tree


_WALKED: list = [None]  # the tree module_refs walked last


# an attribute's name as the text spells it: `.` then blanks, line continuations or comments (a
# comment runs to the end of its line: one way to read a block of them, no exponential backtracking
# where no name follows one)
_BLANKS = r"(?:[ \t\r\n\f\\]|#[^\n]*(?![^\n]))*"
ATTR_NAME = re.compile(r"\." + _BLANKS + r"([A-Za-z_]\w*)")
_ATTRS: list = [None, frozenset()]


def attr_names(text: str) -> FrozenSet[str]:
    """The names ``text`` spells after a dot (:data:`ATTR_NAME`), computed once for the text
    MSG513 and MSG514 both test."""
    if _ATTRS[0] is not text:
        _ATTRS[0], _ATTRS[1] = text, frozenset(ATTR_NAME.findall(text))
    return _ATTRS[1]


_AFTER_DOT: Dict[FrozenSet[str], "re.Pattern"] = {}


def after_dot(names: FrozenSet[str]) -> "re.Pattern":
    """Any of ``names`` as a whole word after a dot, with blanks, continuations and comments
    between (the spellings :data:`ATTR_NAME` finds): one search of the text for all the names
    a rule tests, compiled once per process for each of the few sets it is asked for (a set per
    module's hits cost a compile each: 1.5 s over the four corpora)."""
    rx = _AFTER_DOT.get(names)
    if rx is None:
        rx = re.compile(r"\." + _BLANKS + r"(%s)\b" % _trie(sorted(names)))
        if len(_AFTER_DOT) < 4096:
            _AFTER_DOT[names] = rx
    return rx


_REF_ATTRS: dict = {}


def deprecated_last_names(cat) -> frozenset:
    """The last components of the names ``cat`` records as deprecated (not moved modules,
    which MSG513 reports at their import): a cheap pre-test before resolving a dotted chain."""
    key = ("n", id(cat))
    got = _DEPRECATED.get(key)
    if got is None or got[0] is not cat:
        got = _DEPRECATED[key] = (cat, frozenset(k.rsplit(".", 1)[-1] for k, v in cat._deprecated.items()
                                                 if not k.startswith("mindspore.Tensor.") and v.get("kind") != "module"))
    return got[1]


_DEPRECATED: dict = {}


def _refs(tree: ast.AST, names, attrs) -> list:
    out: list = []
    add = out.append
    stack = [(tree, tree)]
    pop, push = stack.pop, stack.append
    Attr, Name, Const, Call, Imp, ImpF, AST, Load = (ast.Attribute, ast.Name, ast.Constant, ast.Call, ast.Import,
                                                     ast.ImportFrom, ast.AST, ast.Load)
    fields_of = _FIELDS
    while stack:
        node, scope = pop()
        cls = node.__class__
        if cls is Attr:
            if node.ctx.__class__ is Load and node.attr in attrs:
                add((node, scope, "attr"))
            value = node.value
            while value.__class__ is Attr:  # the rest of the chain: only what hangs off it
                value = value.value
            if value.__class__ is not Name and value.__class__ is not Const:  # (a chain's root name is no "name")
                push((value, scope))
            continue
        if cls is Name:  # pushed only when it is one (below)
            add((node, scope, "name"))
            continue
        if cls is Call:
            if node.func.__class__ is Attr or node.keywords:
                add((node, scope, "call"))
        elif cls is Imp:
            add((node, scope, "import"))
            continue
        elif cls is ImpF:
            add((node, scope, "importfrom"))
            continue
        inner = node if cls in _FUNC_TYPES else scope
        fields = fields_of.get(cls)
        if fields is None:
            fields = fields_of[cls] = tuple(f for f in cls._fields if f not in _SKIP_FIELDS)
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    c = x.__class__
                    if c is Name:  # a leaf: pushed only when it is reported
                        if x.id in names and x.ctx.__class__ is Load:
                            push((x, inner))
                    elif c is not Const and isinstance(x, AST):  # (a constant is a leaf)
                        push((x, inner))
            else:
                c = v.__class__
                if c is Name:
                    if v.id in names and v.ctx.__class__ is Load:
                        push((v, inner))
                elif c is not Const and isinstance(v, AST):
                    push((v, inner))
    return out


def _varying_last_names() -> FrozenSet[str]:
    """The last parts of the names some known release has and another lacks (``vdot``,
    ``TensorArray``, ``reinforcement``) and the varying Tensor method names: an attribute
    chain ending otherwise exists in every release or in none."""
    global _LAST_NAMES
    keys = varying_keys()
    catalogs = [get_catalog(v) for v in known_versions()]
    out = set()
    for table, attr in (("functions", "_functions"), ("classes", "_classes"), ("dtypes", "_dtypes"),
                        ("constants", "_constants"), ("modules", "_modules"), ("aliases", "_aliases"),
                        ("module_aliases", "_module_aliases")):
        for key in keys.get(table, ()):
            present = [key in getattr(c, attr) for c in catalogs]
            if any(present) and not all(present):
                out.add(key.rsplit(".", 1)[-1])
    _LAST_NAMES = frozenset(out) | ApiNotInTarget._varying_names() | {"_"}
    return _LAST_NAMES


def _varying_keywords() -> FrozenSet[str]:
    """The keywords MSG514 can report: for each function or class, the parameter names some
    release's signature has and another release's explicit signature (no ``**kwargs``)
    lacks (``ops.transpose``: ``input_perm`` of 2.7.0, ``dims`` from 2.7.1)."""
    global _KEYWORDS
    keys = varying_keys()
    catalogs = [get_catalog(v) for v in known_versions()]
    out = set()
    for table, attr in (("functions", "_functions"), ("classes", "_classes")):
        for name in keys.get(table, ()):
            sigs = [got for got in (_keywords((getattr(c, attr).get(name) or {}).get("params")) for c in catalogs)
                    if got is not None]
            if len(sigs) < 2 or all(x == sigs[0] for x in sigs):
                continue
            every = frozenset().union(*(kws for kws, _ in sigs))
            differ = frozenset().union(*(every - kws for kws, var_kw in sigs if not var_kw))
            if differ:
                _KW_FUNCS[name] = differ
                out |= differ
    _KW_FUNCS.setdefault("_", frozenset())
    _KEYWORDS = frozenset(out) | {"_"}
    return _KEYWORDS


def _keyword_in(rx: "re.Pattern", text: str) -> bool:
    """``rx`` (a keyword followed by ``=``) matches where the keyword is a word of its own."""
    for m in rx.finditer(text):
        before = text[m.start() - 1:m.start()]
        if not (before.isalnum() or before in ("_", ".")) or not before:
            return True
    return False


def _trie(words: Sequence[str]) -> str:
    """A regular expression matching exactly ``words``, factored by common prefixes."""
    root: Dict[str, dict] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: Dict[str, dict]) -> str:
        alts = [re.escape(ch) + build(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return build(root)


# the dotted chain that ends where a match starts: (its root, the rest); a call's result or a
# subscript before the dot leaves none
_CHAIN_END = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*$")


def chain_head(text: str, dot: int):
    """The chain of names that ends at the dot at ``dot`` (``_CHAIN_END``'s match, or None),
    searched on the dot's line (or the line before, when the chain ends there) within 300
    characters; with the window's start and the line's: (match, window start, line start)."""
    line_start = text.rfind("\n", 0, dot - 1) + 1 if dot else 0  # (`$` matches before a last "\n")
    lo = max(line_start, dot - 300)
    return _CHAIN_END.search(text, lo, dot), lo, line_start


def _no_chain_before(text: str, dot: int, line_start: int) -> bool:
    """Whether the code before the dot at ``dot`` (on its line) cannot end a chain of names,
    plain or in parentheses, so that an attribute there has no dotted name: a string or a
    number (``'train'.``, ``1.0.``, prose in docstrings), a subscript, a display, a call with
    no arguments or ending in a literal (``f().``, ``sum(-1).``, ``(0.0, 1.0).``), a chain of
    names hanging off one of those (``b[-1].bias.``, ``...tools.``), or a character no receiver
    ends with. False (maybe a chain) where it cannot tell: the dot starts its line, a
    non-ASCII character, ``)`` after a name, a name that starts the line's chain."""
    while True:
        i = dot - 1
        while i >= line_start and text[i] in " \t\f":
            i -= 1
        if i < line_start:
            return False
        c = text[i]
        if c == ")":
            i -= 1
            while i >= line_start and text[i] in " \t\f":
                i -= 1
            if i < line_start:
                return False  # (the `)` starts its line: a comment may end the line before)
            c = text[i]
            if c in "(\'\"]},":
                return True  # `()`, a string, a subscript, a display, a tuple: not a parenthesised chain
            return _number_ends(text, i, line_start) is True
        if c in "\'\"]}":
            return True  # a string, a subscript, a display
        if not c.isascii() or c in "\\\r":
            return False
        if c.isalnum() or c == "_":
            got = _number_ends(text, i, line_start)
            if got is not None:
                return got
            j = _word_start(text, i, line_start) - 1  # a name: the chain goes on before it after a dot only
            while j >= line_start and text[j] in " \t\f":
                j -= 1
            if j >= line_start and text[j] == ".":
                dot = j
                continue
            return False
        return True  # (`# 3.`, `` ``512``. ``, `x+1.`, `...`: no receiver ends with it)


def _word_start(text: str, i: int, line_start: int) -> int:
    j = i
    while j >= line_start and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
        j -= 1
    return j + 1


def _number_ends(text: str, i: int, line_start: int) -> Optional[bool]:
    """For the word ending at ``i``: True when it is a number (its first character an ASCII
    digit: a name never starts with one), None when it is a name (ASCII), False when a
    non-ASCII character comes before it (an identifier character, a combining mark say,
    may be part of it: nothing is told)."""
    j = _word_start(text, i, line_start)
    if j > line_start and not text[j - 1].isascii():
        return False
    return True if text[j] in "0123456789" else None


def _goes_on_above(text: str, end: int) -> bool:
    """Whether a chain may go on from the lines before ``end`` (the newline before a chain's
    root at its line's start): the closest line that is not blank ends with a dot or a
    continuation, or does so before some ``#`` (a comment), or it is a comment line and the
    same holds for the one before it (a comment inside brackets does not end the chain).
    A line that holds code and does not end with a dot ends the chain."""
    while True:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        bare = line.strip()
        if bare:
            if line.rstrip().endswith((".", "\\")):
                return True
            at = line.find("#")
            while at >= 0:
                if line[:at].rstrip().endswith("."):
                    return True
                at = line.find("#", at + 1)
            if not bare.startswith("#"):
                return False
        if start == 0:
            return False
        end = start - 1


NO_CHAIN = ("", "")  # chain_root: no chain of names ends before the dot


def chain_root(text: str, dot: int):
    """How the text shows the receiver of the attribute whose dot is at ``dot``, for the text
    tests of MSG513 and MSG514: ``(root, rest)``, a chain of names (``rest`` its dotted part
    after the root, blanks removed) that starts at ``root``; :data:`NO_CHAIN` where no chain
    of names can end there (:func:`_no_chain_before`: the attribute has no dotted name); None
    where the text does not tell (a chain broken over lines, after a bracket, after a
    non-ASCII character, or longer than the 300-character window): the walk judges it."""
    head, lo, line_start = chain_head(text, dot)
    if head is None:
        return NO_CHAIN if _no_chain_before(text, dot, line_start) else None
    if head.start() == lo and lo > line_start:
        return None
    i = head.start() - 1
    if i >= 0 and not text[i].isascii():
        return None  # (a combining mark, say, ends an identifier `_CHAIN_END` reads only in part)
    # the root must start the chain: not after a dot, a continuation or a line that goes on
    while i >= 0 and text[i] in " \t\f":
        i -= 1
    if i >= 0 and text[i] in ".\\":
        return None
    if i >= 0 and text[i] == "\n" and _goes_on_above(text, i):
        return None
    return head.group(1), re.sub(r"\s", "", head.group(2))


def _plain_bindings(scope: ast.AST) -> Dict[str, Optional[List[ast.AST]]]:
    """name -> the values of its plain ``name = value`` statements in ``scope`` (not in
    nested defs); None when the name is also bound another way there (a parameter, a loop
    target, a tuple or augmented assignment, an import)."""
    out: Dict[str, Optional[List[ast.AST]]] = {}
    stack = list(ast.iter_child_nodes(scope))
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        for p in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]:
            out[p.arg] = None
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            if not isinstance(n, ast.Lambda):
                out[n.name] = None
            continue
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            name = n.targets[0].id
            if name in out and out[name] is None:
                pass
            else:
                out.setdefault(name, []).append(n.value)  # type: ignore[union-attr]
            stack.extend(ast.iter_child_nodes(n.value))
            continue
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out[n.id] = None
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                out[(a.asname or a.name).split(".")[0]] = None
        stack.extend(ast.iter_child_nodes(n))
    return out
