"""``index.rebinds_at_line_start`` (the gate of ``mindspore_patches``) answers as the regular
expression it replaced, on edge texts, random texts and real modules."""

from __future__ import annotations

import random
import re
from pathlib import Path

from msgraphlint.project.index import rebinds_at_line_start

REPO = Path(__file__).resolve().parent.parent


def _regex(text, heads):
    alt = "|".join(map(re.escape, heads))
    return bool(re.search(r"\n[ \t]*(?:%s)(?:\.\w+)*\.\w+[ \t]*=(?!=)" % alt, "\n" + text))


HEADS = ["ms", "mstype", "nn", "ops", "P"]


def test_edge_texts():
    samples = [
        "nn.Dropout = MyDropout\n", "  \tnn.Dropout = X", "x = nn.Dropout\n", "nn.Dropout == X\n",
        "if nn.Dropout = 1", "mstype.float32 = 1\n", "msx.y = 1\n", "ms.nn.Dense.construct=f",
        "ms.= 1\n", "ms.x\n= 1\n", "a\r  nn.Dropout = X", "a\r\n  nn.Dropout = X", "x.nn.y = 1",
        "nn.Dropout=X", "nn.Dropout  \t= X", "nn.é = 1", "P.Add = 2\nops.x += 1", "", "nn.", "\n\nnn.a.b.c = d",
    ]
    for text in samples:
        assert rebinds_at_line_start(text, HEADS) == _regex(text, HEADS), repr(text)
    assert rebinds_at_line_start("nn.Dropout = X", ["nn"]) and not rebinds_at_line_start("y = nn.Dropout", ["nn"])


def test_random_texts_and_real_modules():
    rng = random.Random(0)
    pieces = ["nn", "ms", "mstype", ".", "x", " ", "\t", "\n", "\r", "=", "==", "+=", "(", "_1", "#"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        assert rebinds_at_line_start(text, HEADS) == _regex(text, HEADS), repr(text)
    for p in sorted((REPO / "msgraphlint").rglob("*.py")) + sorted((REPO / "fixtures").rglob("*.py"))[:400]:
        text = p.read_text(encoding="utf-8", errors="replace")
        for heads in (HEADS, ["self"], ["os", "sys"], ["ctx", "scope"]):
            assert rebinds_at_line_start(text, heads) == _regex(text, heads), (p, heads)
