"""Inline suppressions.

* ``# noqa: MSG101, MSG203`` and ``# msgraphlint: ignore[MSG101,MSG203]`` on the
  flagged line (the finding's first line) silence those codes; a bare
  ``# msgraphlint: ignore`` or ``# noqa`` silences every code on the line;
* ``# msgraphlint: skip-file`` anywhere in the file skips the file;
  ``# msgraphlint: skip-file[MSG201]`` silences those codes in the whole file;
  ruff's spellings of both (``# ruff: noqa`` / ``# ruff: noqa: F401``) are
  ``# msgraphlint: noqa`` and ``# msgraphlint: noqa: MSG201, MSG203``;
* a suppression that names one of our (selected) codes but silenced nothing is
  reported as MSG002, so stale suppressions do not pile up.

Codes are matched as ruff matches them: exactly, upper case (``MSG201``; the word
``noqa`` itself as ``noqa`` or ``NOQA``). Only a directive with no code list at all
is a blanket: a code list never is, whatever it holds. So ``# noqa: msg201``,
``# noqa: MSG2O1`` (a letter O) or ``# noqa: MSG999`` suppress nothing, and, as their
codes look like ours (our prefix in any case, or a code in ``msgraphlint: ignore[...]``),
they are reported as MSG002 with the code meant (``msg201`` is not a rule code, did
you mean ``MSG201``?). ``# noqa:`` followed by no code at all suppresses nothing either
(it is reported where it would have silenced one of our findings). Codes of other
tools (``E501``, ``F401``; any prefix that no installed rule has) are left alone, as are
plugin rules' codes, which are matched and reported like the built-in ones.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ..findings import Finding, Severity
from ..parse.source import SourceFile

_NOQA = re.compile(r"#\s*noqa", re.IGNORECASE)
_OURS = re.compile(r"#\s*msgraphlint:\s*(?P<what>ignore|skip-file)(?P<codes>\s*\[[^\]]*\])?(?P<bad>\s*[:=])?")
_COLON = re.compile(r"\s*:")
# ruff's file-level `# ruff: noqa: CODE` spelled for us (a bare `# msgraphlint: noqa` skips the file)
_FILE_NOQA = re.compile(r"#\s*msgraphlint:\s*noqa\b", re.IGNORECASE)
# one entry of a code list: letters then a digit, and whatever letters and digits follow
# (``MSG201``, ``msg201``, ``MSG2O1``); a word without a digit ends the list (a reason)
_TOKEN = re.compile(r"[\s,]*(?P<tok>[A-Za-z]+[0-9][A-Za-z0-9]*)")
_LETTERS = re.compile(r"[A-Za-z]*")

UNUSED_CODE = "MSG002"


@dataclass(frozen=True)
class NoqaDirective:
    """A ``# noqa`` in a comment: ``start``/``end`` offsets in the comment text (``end``:
    after the last code, or after ``noqa`` / the colon when there is none); ``codes``
    as written, None for a bare ``# noqa`` (the blanket)."""

    start: int
    end: int
    codes: Optional[Tuple[str, ...]]


def parse_noqa(comment: str, pos: int = 0) -> Optional[NoqaDirective]:
    m = _NOQA.search(comment, pos)
    if m is None:
        return None
    colon = _COLON.match(comment, m.end())
    if colon is None:
        return NoqaDirective(m.start(), m.end(), None)
    end = colon.end()
    codes: List[str] = []
    while True:
        t = _TOKEN.match(comment, end)
        if t is None:
            break
        codes.append(t.group("tok"))
        end = t.end()
    return NoqaDirective(m.start(), end, tuple(codes))


def _split_codes(text: str) -> Tuple[str, ...]:
    return tuple(t for t in re.split(r"[\s,]+", text.strip()) if t)


@dataclass
class Suppression:
    line: int
    col: int
    codes: Optional[Tuple[str, ...]]  # None: all codes; otherwise as written (case kept)
    style: str                        # "noqa" | "msgraphlint" | "skip-file"
    used: Set[str] = field(default_factory=set)
    used_any: bool = False
    malformed: bool = False           # ``ignore: MSG201`` / ``ignore=...``: no list we can read


@dataclass
class SuppressionMap:
    by_line: Dict[int, List[Suppression]] = field(default_factory=dict)
    skip_file: bool = False
    texts: Dict[int, str] = field(default_factory=dict)  # the text of each line holding a suppression
    file_wide: List[Suppression] = field(default_factory=list)  # ``skip-file[MSG201]``

    def suppresses(self, finding: Finding) -> bool:
        """Whether a suppression silences ``finding`` (and marks it used). A call-site finding
        (MSG004) is silenced by its own code or by the code of the finding it repeats."""
        hit = False
        codes = (finding.code,) if finding.origin is None else (finding.code, finding.origin[0])
        for sup in self.by_line.get(finding.line, ()):
            if sup.codes is None:
                sup.used.add(finding.code)
                sup.used_any = True
                hit = True
                continue
            for code in codes:
                if code in sup.codes:
                    sup.used.add(code)
                    sup.used_any = True
                    hit = True
        for sup in self.file_wide:
            for code in codes:
                if sup.codes is not None and code in sup.codes:
                    sup.used.add(code)
                    sup.used_any = True
                    hit = True
        return hit


def scan(source: SourceFile) -> SuppressionMap:
    text = source.text
    out = SuppressionMap()
    if "noqa" not in text and "msgraphlint" not in text and "NOQA" not in text:
        return out
    for line, col, comment in _marked_comments(source):
        if "noqa" in comment.lower() or "msgraphlint" in comment:
            out.texts[line] = source.line(line)
        fm = _FILE_NOQA.search(comment)
        if fm:
            colon = _COLON.match(comment, fm.end())
            if colon is None:
                out.skip_file = True
                continue
            end, codes_list = colon.end(), []
            while True:
                t = _TOKEN.match(comment, end)
                if t is None:
                    break
                codes_list.append(t.group("tok"))
                end = t.end()
            out.file_wide.append(Suppression(line, col + fm.start(), tuple(codes_list), "skip-file"))
            continue
        m = _OURS.search(comment)
        if m:
            bracket = m.group("codes")
            codes = _split_codes(bracket.strip()[1:-1]) if bracket is not None else None
            bad = m.group("bad") is not None and bracket is None
            if m.group("what") == "skip-file":
                if codes is None and not bad:
                    out.skip_file = True
                else:
                    out.file_wide.append(Suppression(line, col + m.start(), codes or (), "skip-file", malformed=bad))
                continue
            out.by_line.setdefault(line, []).append(
                Suppression(line, col + m.start(), () if bad else codes, "msgraphlint", malformed=bad))
            continue
        d = parse_noqa(comment)
        if d is not None:
            out.by_line.setdefault(line, []).append(Suppression(line, col + d.start, d.codes, "noqa"))
    return out


_COMMENTS_MEMO: "OrderedDict[str, list]" = OrderedDict()  # text -> its marked comments (the last few texts)


def _marked_comments(source: SourceFile):
    """Comments on the lines that mention a marker (a function of the text alone: the last
    few texts' are remembered, as the language server checks the unchanged helper modules
    an open document reaches at every edit, and a marker inside a bracket costs a
    tokenization of the whole file)."""
    text = source.text
    got = _COMMENTS_MEMO.get(text)
    if got is not None:
        _COMMENTS_MEMO.move_to_end(text)
        return list(got)
    got = _tokenize_marked(source)
    _COMMENTS_MEMO[text] = got
    if len(_COMMENTS_MEMO) > 16:
        _COMMENTS_MEMO.popitem(last=False)
    return list(got)


def _tokenize_marked(source: SourceFile) -> list:
    """Tokenizes the marked lines alone (cheap); a line that does not tokenize alone (inside
    a multi-line string or bracket) falls back to tokenizing the whole file once."""
    import io
    import tokenize

    lines = source.lines
    marked = [i for i, text in enumerate(lines, 1) if "noqa" in text or "NOQA" in text or "msgraphlint" in text]
    out = []
    for n in marked:
        try:
            toks = list(tokenize.generate_tokens(io.StringIO(lines[n - 1] + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return [c for c in source.comments() if c[0] in set(marked)]
        for tok in toks:
            if tok.type == tokenize.COMMENT:
                out.append((n, tok.start[1], tok.string))
    return out


# what a code list holds -------------------------------------------------------------

def _installed_codes() -> FrozenSet[str]:
    from ..engine.registry import load_rules
    return frozenset(load_rules())


@lru_cache(maxsize=8)
def _prefixes(known: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(_letters(c) for c in known)


def _letters(code: str) -> str:
    return _LETTERS.match(code).group().upper()


def suggestion(token: str, known: Iterable[str]) -> Optional[str]:
    """The rule code ``token`` was probably meant to be: its upper case (``msg201``),
    with O/I/L read as digits after the prefix (``MSG2O1``), or a close spelling."""
    return _suggestion(token, known if isinstance(known, frozenset) else frozenset(known))


@lru_cache(maxsize=4096)
def _suggestion(token: str, known: FrozenSet[str]) -> Optional[str]:
    up = token.upper()
    if up in known:
        return up
    letters = _letters(up)
    digits = up[len(letters):].translate(str.maketrans("OIL", "011"))
    for cand in (letters + digits, re.sub(r"^([A-Z]+?)O(?=[0-9])", r"\g<1>0", up)):
        if cand in known:
            return cand
    import difflib  # (only for a suggestion: not paid by every run)
    close = difflib.get_close_matches(up, _sorted(known), n=1, cutoff=0.8)
    return close[0] if close else None


@lru_cache(maxsize=8)
def _sorted(known: FrozenSet[str]) -> List[str]:
    return sorted(known)


def unknown_codes(sup: Suppression, known: FrozenSet[str]) -> List[str]:
    """The entries of ``sup``'s code list that are meant for msgraphlint but name no rule:
    every entry of ``msgraphlint: ignore[...]`` / ``skip-file[...]`` that is not a rule
    code; in a ``# noqa``, those that carry one of our prefixes in any case (``msg201``,
    ``MSG2O1``, ``MSG999``) while other tools' codes (``E501``) are theirs."""
    if not sup.codes:
        return []
    prefixes = _prefixes(known)
    out = []
    for c in sup.codes:
        if c in known:
            continue
        if sup.style == "noqa" and _letters(c) not in prefixes:
            continue  # another tool's code (or words); it suppresses none of ours either
        if c not in out:
            out.append(c)
    return out


def apply(findings: Sequence[Finding], sups: SuppressionMap, path: str,
          selected: Set[str], prefix: str = "MSG",
          known: Optional[Iterable[str]] = None) -> Tuple[List[Finding], List[Finding]]:
    """(kept findings, unused-suppression findings). ``known``: every rule code installed
    (default: the registry's); an entry of a code list outside it never suppresses."""
    kept = [f for f in findings if not sups.suppresses(f)]
    unused: List[Finding] = []
    if UNUSED_CODE not in selected or not (sups.by_line or sups.file_wide):
        return kept, unused
    known_set = _installed_codes() if known is None else frozenset(known)
    kept_lines = {f.line for f in kept}
    entries = [s for _, line_sups in sorted(sups.by_line.items()) for s in line_sups] + list(sups.file_wide)
    for sup in entries:
        where = "in this file" if sup.style == "skip-file" else "on this line"
        if sup.codes is None:
            if sup.style == "msgraphlint" and not sup.used_any:
                unused.append(_unused(path, sups, sup, "unused `msgraphlint: ignore`: nothing on this line is reported"))
            continue
        parts: List[str] = []
        hint = None
        if sup.malformed:
            spelled = "skip-file" if sup.style == "skip-file" else "ignore"
            parts.append(f"`msgraphlint: {spelled}` takes its codes in brackets (`{spelled}[MSG201]`): "
                         "this one suppresses nothing")
            hint = f"write `# msgraphlint: {spelled}[CODE, ...]`"
        elif not sup.codes:
            if sup.style != "noqa":
                parts.append("the code list is empty: it suppresses nothing")
            elif sup.line in kept_lines:
                parts.append("`# noqa:` names no rule code, so it suppresses nothing "
                             "(write `# noqa: CODE`, or a bare `# noqa` for every code)")
        stale = [c for c in sup.codes if c.startswith(prefix) and c in selected and c not in sup.used and c != UNUSED_CODE]
        if stale:
            parts.append(f"unused suppression of {', '.join(stale)}: "
                         f"{'it reports' if len(stale) == 1 else 'they report'} nothing {where}")
        for c in unknown_codes(sup, known_set):
            meant = suggestion(c, known_set)
            if meant is not None and meant == c.upper():
                why = f" (codes are upper case: did you mean `{meant}`?)"
            elif meant is not None:
                why = f" (did you mean `{meant}`?)"
            else:
                why = ""
            parts.append(f"`{c}` is not a rule code{why}; it suppresses nothing")
            hint = "write rule codes as `msgraphlint rules` lists them (upper case, e.g. MSG201), or remove the unknown code"
        if parts:
            unused.append(_unused(path, sups, sup, "; ".join(parts), hint))
    return kept, unused


def _unused(path: str, sups: SuppressionMap, sup: Suppression, message: str, hint: Optional[str] = None) -> Finding:
    return Finding(code=UNUSED_CODE, name="unused-suppression", message=message, path=path,
                   line=sup.line, col=sup.col, severity=Severity.INFO,
                   hint=hint or "remove the stale code from the comment", source_line=sups.texts.get(sup.line))
