"""``text.Occurrences``: where needles occur in successive texts of one document, derived from
the last text's answers across an edit, equals a fresh search of each text; the common prefix
and suffix it derives them from are the longest ones."""

from __future__ import annotations

import random
from pathlib import Path

from msgraphlint.parse.text import Occurrences, _common_run, line_starts, occurs_twice

REPO = Path(__file__).resolve().parent.parent


def _all(text, needle):
    out, at = [], text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def _lines(text, needles):
    from bisect import bisect_right
    starts = line_starts(text)
    return sorted({bisect_right(starts, at) for n in needles if n for at in _all(text, n)})


def test_common_prefix_and_suffix_are_the_longest():
    rng = random.Random(1)
    for _ in range(3000):
        a = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 9000 if rng.random() < 0.1 else 40)))
        b = a[:rng.randint(0, len(a))] + "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 5))) \
            + a[rng.randint(0, len(a)):]
        limit = min(len(a), len(b))
        p = _common_run(a, b, limit)
        assert a[:p] == b[:p] and (p == limit or a[p] != b[p])
        s = _common_run(a, b, limit - p, from_end=True)
        assert (s == 0 or a[-s:] == b[-s:]) and (s == limit - p or a[len(a) - s - 1] != b[len(b) - s - 1])


def test_answers_across_random_edits_equal_a_fresh_search():
    rng = random.Random(0)
    alphabet = "ab(.\n\r x"
    needles = ["a(", "ab", "aa", "b.", "(", "\n", "aba", "self.a(", "x x", "ba("]
    for _ in range(60):
        occ = Occurrences()
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        for _ in range(40):
            cut = rng.randint(0, len(text))
            end = min(len(text), cut + rng.choice([0, 0, 1, 2, 5, 30]))
            text = text[:cut] + "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 2, 7]))) + text[end:]
            text = "".join(list(text))  # a new object, as an editor's buffer is
            asked = rng.sample(needles, rng.randint(1, len(needles)))
            for n in asked:
                assert occ.positions(text, n) == _all(text, n), (text, n)
                assert occ.contains(text, n) == (n in text)
                assert occ.twice(text, n) == (text.count(n) >= 2) == occurs_twice(text, n)
            some = asked[:3]
            assert occ.lines_holding(text, some) == _lines(text, some)


def test_an_edit_of_a_real_module():
    text = (REPO / "msgraphlint" / "engine" / "dispatch.py").read_text(encoding="utf-8")
    needles = ["self.", "scope(", "ctx.", "def ", "(\n", "):"]
    occ = Occurrences()
    for n in needles:
        assert occ.positions(text, n) == _all(text, n)
    lines = text.split("\n")
    for k in (0, 1, len(lines) // 2, len(lines) - 1):
        edited = "\n".join(lines[:k] + ["        print('x')"] + lines[k:])
        for t in (edited, text):
            for n in needles:
                assert occ.positions(t, n) == _all(t, n), (k, n)
            assert occ.lines_holding(t, needles) == _lines(t, needles)
