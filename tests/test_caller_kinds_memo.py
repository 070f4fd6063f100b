"""The editor's replay of the caller-kind pass per top-level def (``CallerKinds._scan_kept``):
after each edit, an analysis with the document's scope cache reports exactly what an analysis
from an empty cache reports, whether the edit is in the caller, in the callee, in a module
constant the caller passes, or elsewhere; and unchanged defs are replayed, not scanned."""

from __future__ import annotations

import textwrap

from msgraphlint.infer import paramkinds
from msgraphlint.run.runner import prepare, run_source

BASE = textwrap.dedent('''
    import mindspore as ms
    from mindspore import nn, Tensor, ops

    SCALE = 2


    def pick(v):
        return 1


    class Gate(nn.Cell):
        def construct(self, x, flag):
            if flag:
                return x * 2
            return x


    class Gate2(nn.Cell):
        def construct(self, x, flag):
            if flag:
                return x * 3
            return x


    class Scale(nn.Cell):
        def construct(self, x, k):
            return ops.reshape(x, (k, -1))


    class Parent(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gate = Gate()
            self.gate2 = Gate2()
            self.scale = Scale()

        def construct(self, x):
            y = self.gate(x, SCALE)
            z = self.gate2(y, pick(x))
            return self.scale(z, 2)


    class Other(nn.Cell):
        def construct(self, x):
            return x + 1


    def main():
        net = Parent()
        net(Tensor([1.0]))
''')

EDITS = [
    ("a print in another Cell", lambda t: t.replace("            return x + 1", "            print(x)\n            return x + 1")),
    ("the module constant the parent passes becomes a tensor", lambda t: t.replace("SCALE = 2", "SCALE = Tensor([2])")),
    ("back to a Python int", lambda t: t.replace("SCALE = Tensor([2])", "SCALE = 2")),
    ("a helper the caller's pass calls returns a tensor (the caller's text unchanged)",
     lambda t: t.replace("    return 1\n", "    return ops.ones((1,)) > v\n", 1)),
    ("and a Python value again", lambda t: t.replace("    return ops.ones((1,)) > v\n", "    return 1\n", 1)),
    ("the caller passes a tensor", lambda t: t.replace("self.gate(x, SCALE)", "self.gate(x, x > 0)")),
    ("the callee's own text", lambda t: t.replace("            if flag:\n", "            if flag:  # edited\n")),
    ("a line above every def", lambda t: "# moved\n" + t),
    ("the caller passes the constant again", lambda t: t.replace("self.gate(x, x > 0)", "self.gate(x, SCALE)")),
]


def _findings(result):
    return sorted((f.code, f.line, f.col, f.message) for f in result.findings)


def test_replayed_caller_kinds_report_what_a_fresh_analysis_reports(tmp_path, monkeypatch):
    path = tmp_path / "model.py"
    path.write_text(BASE, encoding="utf-8")
    settings = prepare([str(path)], None)
    cache: dict = {}
    replays = []
    real = paramkinds.CallerKinds._replay

    def counting(self, events):
        ok = real(self, events)
        replays.append(ok)
        return ok

    monkeypatch.setattr(paramkinds.CallerKinds, "_replay", counting)
    text = BASE
    run_source(text, str(path), settings=settings, scope_cache=cache)
    seen = set()
    for what, edit in EDITS:
        text = edit(text)
        warm = _findings(run_source(text, str(path), settings=settings, scope_cache=cache))
        fresh = _findings(run_source(text, str(path), settings=settings, scope_cache={}))
        assert warm == fresh, what
        seen.add(tuple(warm))
    assert any(replays), "no def was replayed: the test does not reach the memo"
    assert len(seen) >= 2, "the edits change no finding: the test cannot tell a stale replay"
