"""Program generators and the property for fuzzing the checker (tests/test_fuzz.py runs a
bounded number of examples; benchmarks/fuzz.py runs many and prints counts).

Two sources of programs:
* ``grammar``: modules generated from Python's grammar by hypothesmith (syntactically
  plausible, often not compilable), prefixed with ``import mindspore`` so the cheap
  pre-filter lets them through;
* ``mutation``: real MindSpore code (the reference GPT layer, the seeded fixtures) with
  MindSpore-shaped edits: graph-mode constructs inserted at random lines and
  indentations, lines deleted or duplicated, bodies nested in loops, long expression
  chains, truncation at a random byte.

The property: checking never raises and never reports MSG000 (internal error), and it
reports MSG001 (parse error) exactly when ``ast.parse`` rejects the text (for a text the
pre-filter admits: one that never mentions mindspore/construct/jit is not parsed at all).
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import List, Optional

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
SEEDS: List[str] = sorted(
    [(REPO / "reference_model" / "gpt_layer.py").read_text(encoding="utf-8")]
    + [p.read_text(encoding="utf-8") for p in sorted((REPO / "fixtures" / "seeded").glob("*.py"))])

SNIPPETS = [
    "if x.sum() > 0:", "for i in range(3):", "while x.max() > 1:", "x += 1", "x[0] = 1", "print(x)", "del x",
    "return", "return x.asnumpy()", "yield x", "y = lambda t: t * 2", "try:", "except Exception:", "finally:",
    "with ops.stop_gradient(x):", "global y", "nonlocal y", "async def f():", "await x", "match x:", "case 1:",
    "x = x.item()", "x = float(x)", "x = self.dense(x) if self.training else x", "x = [t for t in x]",
    "self.count += 1", "x.add_(1)", "ms.set_context(mode=ms.GRAPH_MODE)", "@ms.jit", "class Inner(nn.Cell):",
    "def construct(self, x):", "x = x" + ".abs()" * 400, "x = " + " + ".join(["x"] * 500), "assert x is not None",
    "x = ops.nonzero(x)", "x = x[x > 0]", "raise ValueError(x)", "x: int = 3", "(x := x + 1)", "else:", "elif x:",
    "pass", "break", "continue", "import numpy as np", "x = np.array(x)", "x = ops.Shape()(x)", "\\", "(", ")",
]


@st.composite
def mutated(draw) -> str:
    lines = draw(st.sampled_from(SEEDS)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "insert", "delete", "duplicate", "indent", "nest", "truncate"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == "insert":
            indent = " " * draw(st.sampled_from([0, 4, 8, 12, 16]))
            lines.insert(i, indent + draw(st.sampled_from(SNIPPETS)))
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "indent":
            lines[i] = " " * draw(st.integers(0, 6)) + lines[i]
        elif op == "nest":  # wrap the rest of an indented block in loops, as deep as drawn
            depth = draw(st.integers(1, 25))
            head = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            block = [ln for ln in lines[i:] if ln.startswith(head) or not ln.strip()]
            nested = []
            for d in range(depth):
                nested.append(head + "    " * d + f"for _{d} in range(2):")
            nested += ["    " * depth + ln for ln in block]
            lines[i:i + len(block)] = nested
        elif op == "truncate":
            text = "\n".join(lines)
            lines = text[: draw(st.integers(0, len(text)))].splitlines()
    return "\n".join(lines) + "\n"


def grammar():
    import hypothesmith

    return hypothesmith.from_grammar().map(lambda src: "import mindspore\n" + src)


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def outcome(text: str) -> str:
    """'parse-error', 'checked' or 'not-graph-code' when the property holds; raises
    AssertionError if not."""
    from msgraphlint import api
    from msgraphlint.discovery import may_hold_graph_code

    findings = api.check_source(text, "fuzzed.py")
    codes = {f.code for f in findings}
    internal: Optional[list] = [f.message for f in findings if f.code == "MSG000"]
    assert not internal, f"internal error: {internal}\n--- program ---\n{text}"
    if not may_hold_graph_code(text):
        assert not findings, f"a file the pre-filter skips has findings: {codes}"
        return "not-graph-code"
    ok = parses(text)
    assert ("MSG001" in codes) == (not ok), (
        f"MSG001 {'reported' if 'MSG001' in codes else 'missing'} but ast.parse "
        f"{'accepts' if ok else 'rejects'} the program\n--- program ---\n{text}")
    return "checked" if ok else "parse-error"
