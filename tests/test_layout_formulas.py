"""The MindSpore Transformers layout formulas behind MSG603 (issue 22 item 3 false pattern).

MindSpore Transformers 2.1.0, mindformers/models/glm2/glm2_transformer.py (ChatGLM2's
attention, also GLM3/GLM4 legacy): `kv_mp = self.n_kv_head if self.n_kv_head < mp else mp`;
with `qkv_concat: False` the separate `wk`/`wv` are sharded `((dp * cp, 1), (kv_mp, 1))`
(`shard_wqkv_non_concat`), so fewer KV groups than `mp` are replicated, not split; with
`qkv_concat: True` (the default) the fused `query_key_value` is sharded by `mp`.
"""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

GLM2 = """
    model:
      model_config:
        type: ChatGLM2Config
        hidden_size: 4096
        num_layers: 28
        num_attention_heads: 32
        multi_query_attention: True
        multi_query_group_num: {kv}
        {concat}
    parallel_config:
      model_parallel: {mp}
"""


def _msg603(tmp_path, **kw):
    write_tree(tmp_path, {"run_glm2.yaml": GLM2.format(**kw)})
    return codes_at(f for f in lint([tmp_path / "run_glm2.yaml"]) if f.code == "MSG603")


def test_separate_kv_projections_are_sharded_by_min_groups_mp(tmp_path):
    assert _msg603(tmp_path, kv=2, concat="qkv_concat: False", mp=8) == []
    assert _msg603(tmp_path, kv=2, concat="qkv_concat: False", mp=2) == []


def test_the_fused_projection_and_uneven_groups_are_still_reported(tmp_path):
    assert _msg603(tmp_path, kv=2, concat="", mp=8) == [("run_glm2.yaml", 8, "MSG603")]
    assert _msg603(tmp_path, kv=2, concat="qkv_concat: True", mp=8) == [("run_glm2.yaml", 8, "MSG603")]
    # 6 groups over 4 ranks: kv_mp = 4 does not divide 6
    assert _msg603(tmp_path, kv=6, concat="qkv_concat: False", mp=4) == [("run_glm2.yaml", 8, "MSG603")]


PIPE = """
    model:
      model_config:
        num_layers: 61
        {mtp}
        pp_interleave_num: 2
        {offset}
    parallel_config:
      pipeline_stage: 8
      micro_batch_num: 16
    parallel:
      pipeline_config:
        pipeline_interleave: True
"""


def _msg604(tmp_path, **kw):
    write_tree(tmp_path, {"run_ds.yaml": PIPE.format(**kw)})
    return codes_at(f for f in lint([tmp_path / "run_ds.yaml"]) if f.code == "MSG604")


def test_an_offset_not_set_is_mindformers_default_zero(tmp_path):
    # MindFormers' TransformerConfig.offset defaults to 0: no offset key is judged as `offset: 0`
    # (61 + 3 MTP layers = 64 over pp 8 x pp_interleave_num 2 = 16: the research models' count)
    assert _msg604(tmp_path, mtp="mtp_depth: 3", offset="offset: 0") == []
    assert _msg604(tmp_path, mtp="mtp_depth: 3", offset="") == []


def test_layers_that_split_under_no_count_are_still_reported(tmp_path):
    assert _msg604(tmp_path, mtp="", offset="") == [("run_ds.yaml", 3, "MSG604")]
    assert _msg604(tmp_path, mtp="mtp_depth: 2", offset="") == [("run_ds.yaml", 3, "MSG604")]  # 63 % 16
