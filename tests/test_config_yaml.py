"""MSG601–MSG609 over every run config shipped in the mindformers 2.1.0 wheel
(``fixtures/mindformers_configs/``, unmodified; see its README), plus
``msgraphlint.parse.yamlconfig`` and ``check_parallel_values``.

Files with findings (each verified by hand against the file and its README in the wheel):

* ``telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml``
  - MSG604 (line 167, ``num_hidden_layers: &num_layers 45``): ``pipeline_stage: 8``,
    ``pp_interleave_num: 1`` (pipeline_interleave is on, so 8 × 1 = 8 stages) and
    ``offset: 0``. 45 = 8 × 5 + 5, and MindFormers' LayerSetting._check_inputs requires
    the offsets to sum to 45 % 8 = 5: the model build raises ValueError.

Stale "default parallel of device num = N" comments (not reported: MSG608 no longer trusts
the copied comment by default; with ``device_count_comments = true`` these five come back):

* ``telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml`` line 114: the comment on line 113 says
  "device num = 8" but 4 (data) × 8 (model) × 8 (pipeline) = 256; the README in the wheel
  trains it on 256 cards, so the comment is the stale part.
* ``telechat3/pretrain_telechat3_36b.yaml`` (line 90): comment on line 89 says 8,
  1 × 8 × 2 = 16 (README: 16-card training on two Atlas 800T A2).
* ``telechat3/predict_telechat3_36b.yaml`` (line 13): comment on line 12 says 8,
  1 × 2 = 2 (README: "2卡推理", model_parallel 2); use_parallel is True.
* ``deepseek3/predict_deepseek3_671b.yaml`` (line 14): comment on line 13 says 8,
  1 × 32 = 32 (README launches it with model_parallel 32 = the card count).
* ``deepseek3/finetune_deepseek3_12b_16p_pp16.yaml`` (line 94): comment on line 93
  says "device num = 1024", 1 × 1 × 16 = 16 (the file name says 16p).

Clean files and why (26):

* ``convert_config/run_convert.yaml``, ``convert_config/run_reversed_convert.yaml``: weight
  conversion tables, not run configs (no ``model.model_config``/``parallel_config``/
  ``parallelism``): not looked at.
* ``deepseek3/pretrain_deepseek3_671b.yaml``: 61 layers over 8 stages × 2 interleave =
  16; 61 = 16 × 3 + 13 and the offsets ``[[1]*8, [1]*7 + [-2]]`` sum to 13, first stage
  4 layers, last 1; micro 32 ≥ 8 (seqpipe); expert_parallel 32 divides 4 × 8;
  dataset and model seq_length 4096.
* ``deepseek3/finetune_deepseek3_671b.yaml``: same degrees; the layer count comes from
  the Hugging Face checkpoint (``pretrained_model_dir``), so the split cannot be checked.
* ``deepseek3/pretrain_deepseek3_12b_16p_pp16.yaml``: 16 layers on 16 stages, 8 heads with
  model_parallel 1, 1792 / 8 = 224, micro 16 ≥ 16, seq_length 4096 both; no device comment.
* ``deepseek3/pretrain_deepseek3_1b_8p_pynative.yaml`` (PyNative layout): all degrees 1,
  no recompute ranges, seq_length 4096 both.
* ``deepseek4/pretrain_deepseek4_{flash,pro}{,_reduction}.yaml`` (PyNative layout):
  tensor/pipeline parallel 1; ``full_recompute_layer`` 0-42 / 0-60 / 0-2 / 0-2 within
  43 / 61 / 3 / 3 layers (+1 MTP layer); 256 / 384 / 64 / 64 experts divide
  expert_parallel 8; seq_length through one anchor.
* ``general/llm_{pretrain,finetune}_{dense,moe}_template.yaml``: 2 × 2 × 2 × 1 = 8 = the
  comment's "device num = 8"; micro 2 ≥ 2; model sizes come from ``pretrained_model_dir``.
* ``general/run_general_task.yaml``: every degree 1, use_parallel False.
* ``glm4/finetune_glm4_9b.yaml``: 40 layers on 4 stages with offset [-1, 0, 2, -1]
  (sum 0 = 40 % 4; 9, 10, 12, 9 layers); ``recompute: [6, 3, 2, 3]`` within those;
  32 heads, model_parallel 1; 4096 / 32; micro 64 ≥ 4; data × pipeline = 8, no comment.
* ``glm4/predict_glm4_9b_chat.yaml``, ``glm4/predict_glm4_9b_chat_800I_A2.yaml``:
  model_parallel 2 divides 32 heads and the 2 KV groups (``multi_query_group_num``);
  QKV (32 + 2 × 2) × 128 = 4608 over 2; pipeline 1.
* ``glm4/predict_glm4.yaml``, ``qwen3/predict_qwen3.yaml``, ``qwen3_moe/predict_qwen3_moe.yaml``:
  ``use_parallel: False`` — single device, so their "device num = 8" comments are not
  compared (data × model parallel is 1).
* ``glm4_moe/predict_glm4_moe.yaml``: model_parallel 8 = the comment's 8 (and use_parallel False).
* ``qwen2/predict_qwen2.yaml``: 1 = the comment's 1.
* ``qwen3/finetune_qwen3.yaml``: model_parallel 4, pipeline 4, micro 4 ≥ 4; sizes from the
  checkpoint.
* ``qwen3/pretrain_qwen3_32b_4k.yaml``: 64 layers on 4 stages, offset [-1, -1, 1, 1] (15, 15,
  17, 17); 64 heads and 8 KV heads over model_parallel 4; 5120 / 64 = 80 (head_dim 128 is
  explicit); micro 4 ≥ 4; seq_length 4096 both.
* ``qwen3_moe/pretrain_qwen3_30b_a3b_4k.yaml``: 48 layers on 4 stages; 32 heads and 4 KV
  heads over model_parallel 4; 2048 / 32; expert_parallel 4 divides 1 × 4 and 128
  experts; micro 16 ≥ 4.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from msgraphlint.run.runner import run_paths
from msgraphlint.parse.yamlconfig import YamlError, load_document, parse_yaml
from msgraphlint_rules import config_yaml as cy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "fixtures", "mindformers_configs")
CODES = [f"MSG60{i}" for i in range(1, 10)]

EXPECTED = {
    "telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml": {("MSG604", 167)},
}
# with `device_count_comments = true` (the stale boilerplate comments, see above)
STALE_COMMENTS = {
    "deepseek3/finetune_deepseek3_12b_16p_pp16.yaml": {("MSG608", 94)},
    "deepseek3/predict_deepseek3_671b.yaml": {("MSG608", 14)},
    "telechat3/predict_telechat3_36b.yaml": {("MSG608", 13)},
    "telechat3/pretrain_telechat3_36b.yaml": {("MSG608", 90)},
    "telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml": {("MSG608", 114)},
}


def _all_configs():
    out = []
    for dirpath, _, files in os.walk(CONFIGS):
        for name in files:
            if name.endswith(".yaml"):
                out.append(os.path.relpath(os.path.join(dirpath, name), CONFIGS).replace(os.sep, "/"))
    return sorted(out)


class FakeCtx:
    """What a yaml rule needs from the engine's RuleContext."""

    def __init__(self):
        self.rule = None
        self.found = []

    def report_at(self, line, col=0, message=None, **fmt):
        text = (message or self.rule.message).format(**fmt) if fmt else (message or self.rule.message)
        self.found.append((self.rule.code, line, col, text))


def _check_with_fake_ctx(path, rules=None):
    with open(path, encoding="utf-8") as fh:
        doc = load_document(fh.read(), path)
    ctx = FakeCtx()
    for rule_cls in rules or cy.RULES_BY_CODE.values():
        rule = rule_cls()
        ctx.rule = rule
        rule.check_yaml(doc, ctx)
    return ctx.found


# --------------------------------------------------------------------------------------
# the wheel's configs
# --------------------------------------------------------------------------------------
def test_fixtures_are_the_unmodified_wheel_files():
    sums = {}
    with open(os.path.join(CONFIGS, "SHA256SUMS"), encoding="utf-8") as fh:
        for line in fh:
            digest, name = line.split(None, 1)
            sums[name.strip()] = digest
    assert sorted(sums) == _all_configs()
    assert len(sums) == 31
    for name, digest in sums.items():
        with open(os.path.join(CONFIGS, name), "rb") as fh:
            assert hashlib.sha256(fh.read()).hexdigest() == digest, f"{name} was modified"


def test_every_config_exact_findings_with_fake_ctx():
    got = {}
    for rel in _all_configs():
        found = _check_with_fake_ctx(os.path.join(CONFIGS, rel))
        if found:
            got[rel] = {(code, line) for code, line, _, _ in found}
    assert got == EXPECTED


def test_every_config_exact_findings_through_the_runner():
    result = run_paths([CONFIGS], select=CODES, config_file=None)
    got = {}
    for fr in result.files:
        for f in fr.findings:
            rel = os.path.relpath(os.path.abspath(f.path), CONFIGS).replace(os.sep, "/")
            got.setdefault(rel, set()).add((f.code, f.line))
    assert got == EXPECTED
    linted = {os.path.relpath(os.path.abspath(fr.path), CONFIGS).replace(os.sep, "/") for fr in result.files}
    assert set(_all_configs()) <= linted


def test_stale_device_comments_only_with_the_option():
    got = {}
    for rel in _all_configs():
        with open(os.path.join(CONFIGS, rel), encoding="utf-8") as fh:
            doc = load_document(fh.read(), rel)
        ctx = FakeCtx()
        rule = cy.DeviceCount({"device_count_comments": True})
        ctx.rule = rule
        rule.check_yaml(doc, ctx)
        if ctx.found:
            got[rel] = {(code, line) for code, line, _, _ in ctx.found}
    assert got == STALE_COMMENTS


def test_messages_of_the_telechat3_moe_findings():
    found = _check_with_fake_ctx(os.path.join(CONFIGS, "telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml"))
    doc_path = os.path.join(CONFIGS, "telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml")
    with open(doc_path, encoding="utf-8") as fh:
        found += [(c, l, col, t) for c, l, col, t in _comment_run(load_document(fh.read(), doc_path))]
    msgs = {code: text for code, _, _, text in found}
    assert msgs["MSG604"].startswith("model.model_config.num_hidden_layers = 45 layers do not split over 8 "
                                     "pipeline stage(s)\n45 = 8 × 5 + 5")
    assert "e.g. model.model_config.offset: [0, 1, 1, 1, 1, 1, 0, 0]" in msgs["MSG604"]
    assert msgs["MSG608"].startswith("the parallel degrees give 256 devices, but the comment on line 113 says the "
                                     "layout is for 8\ndata_parallel × model_parallel × pipeline_stage = 4 × 8 × 8 = "
                                     "256 devices: ")


def _comment_run(doc):
    ctx = FakeCtx()
    rule = cy.DeviceCount({"device_count_comments": True})
    ctx.rule = rule
    rule.check_yaml(doc, ctx)
    return ctx.found


def test_the_suggested_offset_fixes_the_split(tmp_path):
    src = os.path.join(CONFIGS, "telechat3_moe/pretrain_telechat3_105b_a4b_4k.yaml")
    with open(src, encoding="utf-8") as fh:
        text = fh.read()
    fixed = text.replace("    offset: 0\n", "    offset: [0, 1, 1, 1, 1, 1, 0, 0]\n", 1)
    assert fixed != text
    issues = cy.analyse_document(parse_yaml(fixed))
    assert [i.code for i in issues] == []
    assert [i.code for i in cy.analyse_document(parse_yaml(fixed), comments=True)] == ["MSG608"]


def test_device_count_option_and_comments_switch():
    path = os.path.join(CONFIGS, "telechat3/pretrain_telechat3_36b.yaml")
    with open(path, encoding="utf-8") as fh:
        doc = load_document(fh.read(), path)
    ctx = FakeCtx()
    for opts, expected in (({"device_count": 16}, []), ({"device_count_comments": False}, []), ({}, []),
                           ({"device_count_comments": True}, [90]), ({"device_count": 32}, [90])):
        ctx.found = []
        rule = cy.DeviceCount(opts)
        ctx.rule = rule
        rule.check_yaml(doc, ctx)
        assert [line for _, line, _, _ in ctx.found] == expected, opts
    assert "the rule option device_count is 32" in ctx.found[0][3]


# --------------------------------------------------------------------------------------
# recognition: random YAML is never looked at
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "name: CI\non:\n  push:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest\n",
    "repos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v4.5.0\n    hooks:\n"
    "      - id: check-yaml\n",
    "version: '3'\nservices:\n  web:\n    image: nginx\n    deploy:\n      replicas: 3\n",
    "model:\n  name: resnet\nnum_heads: 30\nmodel_parallel: 8\n",  # a model key without model_config
    "parallel_config: 8\n",
    "- a\n- b\n",
    "just a string\n",
])
def test_other_yaml_is_not_a_mindformers_config(text):
    doc = parse_yaml(text)
    assert cy.config_format(doc.data) is None
    assert cy.analyse_document(doc) == []


def test_both_layouts_are_recognised():
    assert cy.config_format({"model": {"model_config": {}}}) == "run"
    assert cy.config_format({"parallel_config": {"model_parallel": 2}}) == "run"
    assert cy.config_format({"parallelism": {"tensor_parallel": 2}, "model": {}}) == "pynative"
    assert cy.config_format({"parallelism": {"tensor_parallel": 2}}) is None


# --------------------------------------------------------------------------------------
# the arithmetic, on Python literals (what a TransformerConfig(...) rule will call)
# --------------------------------------------------------------------------------------
def _codes(values):
    return [(key, code) for key, code, _ in cy.check_parallel_values(values)]


def test_article_4_3_numbers_are_clean():
    # hidden 4096, 32 heads, tensor_parallel 8: 4 heads of 128 per card, QKV 3 × 4096 / 8 = 1536
    assert cy.check_parallel_values({"hidden_size": 4096, "num_heads": 32, "tensor_parallel": 8}) == []
    assert cy.check_parallel_values({"hidden_size": 512, "num_heads": 8, "tensor_parallel": 2}) == []


def test_parallel_values_each_code():
    assert _codes({"hidden_size": 4096, "num_heads": 30, "tensor_model_parallel_size": 8}) == [
        ("num_heads", "MSG601"), ("hidden_size", "MSG602")]
    assert _codes({"hidden_size": 4096, "num_attention_heads": 32, "num_query_groups": 2,
                   "tensor_model_parallel_size": 4}) == [("num_query_groups", "MSG603")]
    assert _codes({"num_layers": 24, "pipeline_model_parallel_size": 5, "micro_batch_num": 5}) == [
        ("num_layers", "MSG604")]
    assert _codes({"num_layers": 24, "pipeline_stage": 4, "micro_batch_num": 2}) == [("micro_batch_num", "MSG605")]
    assert _codes({"num_layers": 24, "pipeline_stage": 1, "recompute": [0, 1, 2, 3]}) == [("recompute", "MSG606")]
    assert _codes({"data_parallel": 2, "model_parallel": 2, "device_num": 8}) == [("device_num", "MSG608")]
    assert _codes({"data_parallel_size": 2, "tensor_model_parallel_size": 2, "expert_model_parallel_size": 8}) == [
        ("expert_model_parallel_size", "MSG609")]


def test_parallel_values_messages_are_actionable():
    (_, _, m601), (_, _, m602) = cy.check_parallel_values(
        {"hidden_size": 4096, "num_heads": 30, "tensor_parallel": 8})
    assert m601 == ("num_heads = 30 is not divisible by tensor_parallel = 8\nEach tensor-parallel rank must hold "
                    "whole attention heads (30 / 8 = 3.75); use a tensor-parallel degree that divides 30 "
                    "(1, 2, 3, 5, 6, 10, 15, 30).")
    assert "Head size 4096 / 30 = 136.533" in m602
    (_, _, m606), = cy.check_parallel_values({"num_layers": 24, "pipeline_stage": 1, "recompute": [0, 1, 2, 3]})
    assert "looks like layer indices" in m606 and "write [4]" in m606


def test_recompute_count_semantics():
    # per-stage counts: shorter lists leave stages out, larger counts are clipped
    (_, _, m), = cy.check_parallel_values({"num_layers": 24, "pipeline_stage": 4, "micro_batch_num": 4,
                                           "recompute": [7, 1]})
    assert "stages 2..3 get no recompute" in m and "stage 0 7 > 6" in m
    assert cy.check_parallel_values({"num_layers": 24, "pipeline_stage": 4, "micro_batch_num": 4,
                                     "recompute": [6, 6, 6, 6], "select_recompute": True}) == []
    assert cy.check_parallel_values({"num_layers": 24, "pipeline_stage": 4, "micro_batch_num": 4,
                                     "select_recompute": {r"feed_forward\.mul": [2, 2, 2, 2]}}) == []


def test_offset_variants():
    ok = {"num_layers": 10, "pipeline_stage": 4, "micro_batch_num": 4}
    assert cy.check_parallel_values(dict(ok, offset=[1, 0, 0, 1])) == []
    assert _codes(dict(ok, offset=[1, 1, 1, 0])) == [("offset", "MSG604")]     # sums to 3, needs 2
    assert _codes(dict(ok, offset=[3, 1, -2, 0])) == [("offset", "MSG604")]    # middle stage gets 0 layers
    assert _codes(dict(ok, offset=[1, 1])) == [("offset", "MSG604")]           # 2 entries for 4 stages
    assert cy.check_parallel_values({"num_layers": 10, "pipeline_stage": 2, "pp_interleave_num": 2,
                                     "offset": [[1, 0], [1, 0]], "micro_batch_num": 2}) == []


# --------------------------------------------------------------------------------------
# yamlconfig
# --------------------------------------------------------------------------------------
DOC = """\
base: &b
  x: 1
  y: 2
a:
  <<: *b
  y: 3
  z: [1, {q: 2}]
ref: *b
dup: 1
dup: 2
# default parallel of device num = 8
parallel_config:
  model_parallel: 8
"""


def test_locate_keys_values_and_fallback():
    doc = parse_yaml(DOC, "t.yaml")
    assert doc.data["a"] == {"x": 1, "y": 3, "z": [1, {"q": 2}]}
    assert doc.locate("parallel_config", "model_parallel") == (13, 2)
    assert doc.locate("parallel_config", "model_parallel", value=True) == (13, 18)
    assert doc.locate("a", "z", 1, "q") == (7, 10)
    assert doc.locate("a", "y") == (6, 2)          # the local key overrides the merged one
    assert doc.locate("a", "x") == (2, 2)          # merged keys locate at their definition
    assert doc.locate("ref", "y") == (3, 2)        # an alias locates at its anchor
    assert doc.locate("dup") == (10, 0)            # the last duplicate wins, as in data
    assert doc.locate("parallel_config", "missing", "deeper") == (12, 0)  # nearest existing parent
    assert doc.locate("nothing") == (1, 0)
    assert doc.comments_above(12) == [(11, "default parallel of device num = 8")]
    assert doc.get("a", "z", 1, "q") == 2 and doc.get("a", "nope", default=5) == 5


def test_parse_errors_carry_a_line():
    with pytest.raises(YamlError) as err:
        parse_yaml("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml")
    assert err.value.line == 3 and err.value.path == "bad.yaml"
    with pytest.raises(YamlError) as err:
        parse_yaml("a: 1\n  b: 2\n")
    assert err.value.line == 2
    with pytest.raises(YamlError):
        parse_yaml("a: *nosuchanchor\n")


def test_empty_and_multi_document_streams():
    assert parse_yaml("") is None and parse_yaml("# only a comment\n") is None
    doc = parse_yaml("a: 1\n---\nb: 2\n")
    assert doc.data == {"a": 1} and doc.documents == 2


def test_recursive_alias_does_not_hang():
    doc = parse_yaml("a: &x\n  - 1\n  - *x\n")
    assert doc.locate("a", 1) == (1, 3)  # the alias item locates at its anchor (the sequence itself)


# the libyaml fast path (yamlconfig._FastLoader) against the pure-Python reference reader

def _reference(text):
    from msgraphlint.parse import yamlconfig as yc
    try:
        doc = yc._read(yc._BoundedLoader(text, yc.MAX_DEPTH, yc.MAX_ALIAS_NODES), text, "r.yaml")
    except YamlError as exc:
        return ("error", type(exc).__name__, exc.message, exc.line, exc.col)
    except Exception as exc:  # PyYAML's reader rejects a control character before parsing
        return ("raised", type(exc).__name__, str(exc))
    return None if doc is None else (repr(doc.data), doc._index, doc.documents)


def _read_now(text):
    try:
        doc = parse_yaml(text, "r.yaml")
    except YamlError as exc:
        return ("error", type(exc).__name__, exc.message, exc.line, exc.col)
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc))
    return None if doc is None else (repr(doc.data), doc._index, doc.documents)


def test_libyaml_reads_run_configs():
    from msgraphlint.parse import yamlconfig as yc
    assert yc._FastLoader is not None, "PyYAML's wheel carries libyaml; without it every config is read in Python"
    doc = yc._read(yc._FastLoader(DOC, yc.MAX_DEPTH, yc.MAX_ALIAS_NODES), DOC, "t.yaml")
    assert doc.locate("a", "z", 1, "q") == (7, 10) and doc.locate("a", "x") == (2, 2)


@pytest.mark.parametrize("text", [
    DOC,
    "seed:\t 42\nrun_mode: 'finetune'\n",       # libyaml takes this tab; PyYAML: "cannot start any token"
    "se\ufeffed: 1\nb: 2\n",                    # libyaml counts the BOM as a column
    "\ufeffa: 1\n",
    "a: 1\nb: [1, 2\nc: 3\n",                   # errors are the reference reader's words and place
    "a: 1\n  b: 2\n",
    "a: *nosuchanchor\n",
    "a: &x [1, 2]\nb: *x\nc:\n  <<: {k: 1}\n  k: 2\n",
    "a: 1\n---\nb: 2\n",
    "k: \u3000v\n\u00e9: \U0001F600\n",
    "a: \x07\n",                                # a control character: both reject it, PyYAML's words
    "a: 1\r\nb:\r\n  - 2\r\n",
    "",
])
def test_fast_reading_is_the_reference_reading(text):
    assert _read_now(text) == _reference(text)


def test_fast_reading_is_the_reference_reading_on_mutated_configs():
    """Seeded mutations of a run config (the kinds of damage a hand edit does): every text
    reads as the pure-Python reader reads it, errors included."""
    import random
    rnd = random.Random(0)
    pieces = ["\t", ":", " - ", "&a ", "*a ", "<<: *a\n", "'", '"', "{", "}", "[", "]", "#", "\n  ", "? ",
              "!!str ", "%YAML 1.1\n", "---\n", "...\n", "|\n", "> ", "\r\n", "\x85", "\u2028", "\ufeff",
              "@", "`", ".inf", "~", "yes", "\x00", "\u00a0", "!!binary ", "<<: [*a, *b]\n"]
    base = DOC.splitlines(True)
    for _ in range(400):
        lines = list(base)
        for _ in range(rnd.randint(1, 3)):
            j = rnd.randrange(len(lines))
            k = rnd.randrange(len(lines[j]) + 1)
            lines[j] = lines[j][:k] + rnd.choice(pieces) + lines[j][k:]
        text = "".join(lines)
        assert _read_now(text) == _reference(text), repr(text)
