"""Precision and recall of each rule family against the labeled ground truth.

``fixtures/labeled/*.py`` are small graph-mode snippets; each ``.json`` beside one was
produced by ``scripts/label_fixtures.py`` compiling it with MindSpore 2.10 (default and
STRICT levels, IR facts, PyNative comparison). A positive snippet marks its defect
line with ``# defect``; ``confirmed`` says the compiler showed the family's effect
(or, for a negative, its absence). Only confirmed snippets count.

A family's true positive is a finding of one of its rules on a positive snippet's
defect line; a false positive is a finding of its rules on any negative snippet, or
off the defect line of one of its own positives. Findings on positives of other
families are not judged (a snippet may legitimately show two effects), nor are the
call-site copies of a helper's finding (MSG004 ``reached-from-call``, carrying the code it
repeats as ``origin``), except that such a copy on the defect line counts as the hit when
the helper lives in a module outside the labeled set.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest

from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELED = os.path.join(ROOT, "fixtures", "labeled")
MIN_PRECISION, MIN_RECALL = 0.95, 0.90

# family (label) -> the rule modules that implement it
FAMILY_MODULES = {
    "control_flow": ("control_flow", "branch_join"),
    "dynamic_shape": ("dynamic_shape",),
    "inplace": ("inplace",),
    "side_effect": ("side_effects", "print_in_graph"),
    "fallback": ("fallback", "graph_outputs", "builtin_fallback", "sequence_ops", "python_objects"),
    "syntax": ("unsupported_syntax",),
    "api": ("jit_forbidden", "deprecated_api", "torch_leftovers", "tensor_signatures", "attribute_errors"),
    "mode": ("dropout",),
}


def family_codes():
    out = defaultdict(set)
    for code, rule in load_rules().items():
        mod = rule.__module__.rsplit(".", 1)[-1]
        for fam, mods in FAMILY_MODULES.items():
            if mod in mods:
                out[fam].add(code)
    return out


def load_labels():
    labels = []
    for name in sorted(os.listdir(LABELED)):
        if name.endswith(".json"):
            with open(os.path.join(LABELED, name), encoding="utf-8") as fh:
                lab = json.load(fh)
            lab["path"] = os.path.join(LABELED, lab["file"])
            if os.path.exists(lab["path"]):
                labels.append(lab)
    return labels


def score():
    labels = [l for l in load_labels() if l.get("confirmed")]
    codes = family_codes()
    all_codes = sorted(set().union(*codes.values())) if codes else []
    result = run_paths([l["path"] for l in labels], select=(all_codes or ["MSG0"]) + ["MSG004"])
    by_file = defaultdict(list)
    for fr in result.files:
        by_file[os.path.basename(fr.path)].extend(fr.findings)
    table = {}
    for fam, fam_codes in codes.items():
        tp = fp = fn = 0
        misses, false = [], []
        for lab in labels:
            # a helper's finding repeated at its call site in construct is derived, not judged
            found = [f for f in by_file[lab["file"]] if f.code in fam_codes]
            if lab["polarity"] == "neg":
                fp += len(found)
                false += [f"{lab['file']}:{f.line} {f.code}" for f in found]
            elif lab["family"] == fam:
                derived = [f for f in by_file[lab["file"]] if f.origin is not None and f.origin[0] in fam_codes]
                hit = [f for f in found + derived if f.line == lab["defect_line"]]
                off = [f for f in found if f.line != lab["defect_line"]]
                tp += 1 if hit else 0
                fn += 0 if hit else 1
                fp += len(off)
                false += [f"{lab['file']}:{f.line} {f.code}" for f in off]
                if not hit:
                    misses.append(lab["file"])
        n_pos = sum(1 for l in labels if l["family"] == fam and l["polarity"] == "pos")
        n_neg = sum(1 for l in labels if l["family"] == fam and l["polarity"] == "neg")
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        table[fam] = dict(pos=n_pos, neg=n_neg, tp=tp, fp=fp, fn=fn, precision=precision, recall=recall,
                          misses=misses, false=false)
    return table


def format_table(table) -> str:
    rows = [f"{'family':<14}{'pos':>5}{'neg':>5}{'TP':>5}{'FP':>5}{'FN':>5}{'precision':>11}{'recall':>8}"]
    for fam, t in sorted(table.items()):
        rows.append(f"{fam:<14}{t['pos']:>5}{t['neg']:>5}{t['tp']:>5}{t['fp']:>5}{t['fn']:>5}"
                    f"{t['precision']:>11.3f}{t['recall']:>8.3f}")
    return "\n".join(rows)


def test_ground_truth_has_both_polarities_in_every_family():
    labels = load_labels()
    if not labels:
        pytest.fail("no labeled fixtures: run scripts/label_fixtures.py")
    fams = defaultdict(set)
    for l in labels:
        fams[l["family"]].add(l["polarity"])
    assert set(FAMILY_MODULES) <= set(fams)
    assert all(v == {"pos", "neg"} for k, v in fams.items() if k in FAMILY_MODULES)


def test_precision_and_recall_per_family(capsys):
    table = score()
    report = format_table(table)
    with capsys.disabled():
        print("\n" + report)
    bad = {f: t for f, t in table.items() if t["pos"] and (t["precision"] < MIN_PRECISION or t["recall"] < MIN_RECALL)}
    details = "\n".join(f"{f}: misses {t['misses']}; false {t['false']}" for f, t in bad.items())
    assert not bad, report + "\n" + details


if __name__ == "__main__":  # python tests/test_ground_truth.py: print the table
    t = score()
    print(format_table(t))
    for fam, row in sorted(t.items()):
        if row["misses"] or row["false"]:
            print(f"{fam}: misses {row['misses']}\n  false {row['false']}")
