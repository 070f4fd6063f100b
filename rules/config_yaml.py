"""MSG601–MSG609: parallel-layout arithmetic of MindSpore Transformers run configs.

One family: every rule reads the same normalised view of a config (the degrees of
data/tensor/pipeline/context/expert parallelism, the attention shape, the layer
split, recompute selections, sequence lengths) and checks one constraint that
MindSpore Transformers (MindFormers) or MindSpore enforces when the job starts —
usually minutes into a multi-node launch — or silently works around.

Two YAML layouts are recognised (anything else, e.g. CI or pre-commit files, is
never looked at):

* the run config of ``run_mindformer.py`` (graph mode, legacy and mcore models):
  a top-level ``model:`` mapping with ``model_config:``, or a ``parallel_config:``
  mapping holding a parallel degree (``data_parallel``, ``model_parallel``, …);
* the PyNative trainer config (TorchTitan-style): a ``parallelism:`` mapping with a
  degree (``tensor_parallel``, ``pipeline_parallel``, …) next to a ``model:`` mapping.

Key names and their aliases are MindFormers' own (``COMMON_CONFIG_MAPPING`` in
``mindformers/parallel_core/transformer_config_utils.py``, mindformers 2.1.0): e.g.
``num_heads``/``num_attention_heads``/``n_head``, ``n_kv_heads``/``num_key_value_heads``/
``num_query_groups``, ``num_layers``/``num_hidden_layers``/``n_layer``,
``model_parallel``/``tensor_model_parallel_size``.

The same arithmetic runs on literal keyword arguments of ``TransformerConfig(...)``
calls: :func:`check_parallel_values` (for Python rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from msgraphlint.rule import Invalid, Rule, Severity, Valid

__all__ = ["check_parallel_values", "config_format", "analyse_document", "Issue"]

_MISSING = object()

# --------------------------------------------------------------------------------------
# aliases (MindFormers 2.1.0 COMMON_CONFIG_MAPPING, plus the PyNative ParallelismConfig
# fields, plus the article's spellings for Python literals)
# --------------------------------------------------------------------------------------
RUN_DP = ("data_parallel", "data_parallel_size")
RUN_TP = ("model_parallel", "tensor_model_parallel_size")
RUN_PP = ("pipeline_stage", "pipeline_model_parallel_size")
RUN_CP = ("context_parallel", "context_parallel_size")
RUN_EP = ("expert_parallel", "expert_model_parallel_size")
HEADS = ("num_heads", "num_attention_heads", "n_head")
KV_HEADS = ("n_kv_heads", "num_key_value_heads", "num_query_groups")
LAYERS = ("num_layers", "num_hidden_layers", "n_layer")
HEAD_DIM = ("head_dim", "kv_channels")
MTP = ("mtp_depth", "num_nextn_predict_layers", "mtp_num_layers")
EXPERTS = ("expert_num", "n_routed_experts", "num_experts", "num_moe_experts")
VPP = ("pp_interleave_num", "virtual_pipeline_model_parallel_size")
RECOMPUTE_FIELDS = ("recompute", "select_recompute", "select_comm_recompute",
                    "select_recompute_exclude", "select_comm_recompute_exclude")
SEQ_SCHEDULERS = ("seqpipe", "seqvpp", "seqsmartvpp")

_RUN_MARKERS = set(RUN_DP + RUN_TP + RUN_PP + RUN_CP + RUN_EP + ("micro_batch_num",))
_PYN_MARKERS = {"tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel",
                "data_parallel_shard"}


def config_format(data: Any) -> Optional[str]:
    """``"run"`` (run_mindformer.py config), ``"pynative"`` (PyNative trainer config)
    or None (not a MindSpore Transformers config: never checked)."""
    if not isinstance(data, dict):
        return None
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("model_config"), dict):
        return "run"
    pc = data.get("parallel_config")
    if isinstance(pc, dict) and _RUN_MARKERS & set(pc):
        return "run"
    par = data.get("parallelism")
    if isinstance(par, dict) and _PYN_MARKERS & set(par) and isinstance(model, dict):
        return "pynative"
    return None


# --------------------------------------------------------------------------------------
# the normalised view
# --------------------------------------------------------------------------------------
Path = Tuple[Any, ...]


@dataclass(frozen=True)
class F:
    """One value found in the config, with where it was found."""

    value: Any
    path: Path
    display: str  # how the message names it: "parallel_config.model_parallel" or "model_parallel"

    @property
    def int(self) -> Optional[int]:
        v = self.value
        return v if isinstance(v, int) and not isinstance(v, bool) else None


@dataclass
class Spec:
    fmt: str                              # "run" | "pynative" | "kwargs"
    dp: Optional[F] = None
    tp: Optional[F] = None
    pp: Optional[F] = None
    cp: Optional[F] = None
    ep: Optional[F] = None
    vpp: Optional[F] = None
    micro: Optional[F] = None
    seq_split: Optional[F] = None
    heads: Optional[F] = None
    kv: Optional[F] = None
    hidden: Optional[F] = None
    head_dim: Optional[F] = None
    layers: Optional[F] = None
    mtp: Optional[F] = None
    experts: Optional[F] = None
    seq: Optional[F] = None
    offset: Optional[F] = None
    mla: bool = False
    glm_separate_qkv: bool = False        # legacy ChatGLM with qkv_concat: False (K/V over min(kv, mp))
    pipeline_interleave: Optional[bool] = None  # None: unknown (Python literals)
    scheduler: Optional[str] = None
    run_mode: Optional[str] = None
    use_parallel: Optional[bool] = None
    swap: bool = False
    pp_layers: Optional[F] = None                # PyNative pipeline_parallel_layers_per_stage
    recompute: List[F] = field(default_factory=list)        # per-stage count lists (run, kwargs)
    recompute_specs: List[F] = field(default_factory=list)  # 'a-b' layer-id specs (PyNative)
    dataset_seqs: List[F] = field(default_factory=list)
    device_count: Optional[Tuple[int, str, Path]] = None    # (count, where it comes from, path to report at)
    anchor: Path = ()                                        # the parallel section (for reports)


@dataclass(frozen=True)
class Issue:
    code: str
    path: Path
    fmt: Dict[str, Any]

    def render(self) -> str:
        return RULES_BY_CODE[self.code].message.format(**self.fmt)


Getter = Callable[[Path], Any]


def _display(path: Path) -> str:
    return ".".join(str(p) for p in path)


def _first(get: Getter, base: Path, names: Sequence[str], display_base: bool = True) -> Optional[F]:
    for n in names:
        v = get(base + (n,))
        if v is not _MISSING and v is not None:
            path = base + (n,)
            return F(v, path, _display(path) if display_base else n)
    return None


def _truthy(v: Any) -> bool:
    return v is True or (isinstance(v, str) and v.strip().lower() in ("true", "yes", "on"))


_DEVICE_COMMENT = re.compile(r"\bdevice[ _-]?(?:num|number|count)s?\b\s*(?:=|:|is)?\s*(\d+)", re.I)


def _comment_device_count(doc, key: str) -> Optional[Tuple[int, int]]:
    """MindFormers configs state the device count a parallel layout is meant for in a
    comment right above ``parallel_config:`` ("# default parallel of device num = 8 for
    Atlas 800T A2"). Returns (count, comment line)."""
    if doc is None or not doc.has(key):
        return None
    line = doc.locate(key)[0]
    for lno, text in doc.comments_above(line):
        m = _DEVICE_COMMENT.search(text)
        if m:
            return int(m.group(1)), lno
    return None


def build_spec(get: Getter, fmt: str, doc=None, device_count_option: Optional[int] = None,
               comments: bool = True) -> Spec:
    """Read a config (through ``get``: path → value or _MISSING) into a Spec."""
    kw = fmt == "kwargs"
    s = Spec(fmt)
    if fmt == "run":
        pc, mc = ("parallel_config",), ("model", "model_config")
        s.anchor = pc
        s.dp, s.tp, s.pp = _first(get, pc, RUN_DP), _first(get, pc, RUN_TP), _first(get, pc, RUN_PP)
        s.cp, s.ep = _first(get, pc, RUN_CP), _first(get, pc, RUN_EP)
        s.micro, s.seq_split = _first(get, pc, ("micro_batch_num",)), _first(get, pc, ("seq_split_num",))
        s.vpp = _first(get, mc, VPP) or _first(get, pc, VPP)
        s.offset = _first(get, mc, ("offset",)) or _first(get, pc, ("offset",))
        model_base = mc
        s.pipeline_interleave = _truthy(get(("parallel", "pipeline_config", "pipeline_interleave")))
        sched = get(("parallel", "pipeline_config", "pipeline_scheduler"))
        s.scheduler = sched.strip().lower() if isinstance(sched, str) else None
        rm = get(("run_mode",))
        s.run_mode = rm if isinstance(rm, str) else None
        up = get(("use_parallel",))
        s.use_parallel = up if isinstance(up, bool) else None
        s.swap = _truthy(get(("swap_config", "swap")))
        for section in (("recompute_config",), ("parallel_config", "recompute")):
            for name in RECOMPUTE_FIELDS:
                v = get(section + (name,))
                if v is not _MISSING and v is not None:
                    s.recompute.append(F(v, section + (name,), _display(section + (name,))))
        for ds in ("train_dataset", "eval_dataset"):
            for sub in (("data_loader", "config", "seq_length"),):
                v = get((ds,) + sub)
                if v is not _MISSING:
                    s.dataset_seqs.append(F(v, (ds,) + sub, _display((ds,) + sub)))
    elif fmt == "pynative":
        par = ("parallelism",)
        s.anchor = par
        s.tp = _first(get, par, ("tensor_parallel",))
        s.pp = _first(get, par, ("pipeline_parallel",))
        s.cp = _first(get, par, ("context_parallel",))
        s.ep = _first(get, par, ("expert_parallel",))
        s.dp = _first(get, par, ("data_parallel_shard",))
        s.vpp = _first(get, par, ("pipeline_parallel_interleave_num",))
        lps = get(par + ("pipeline_parallel_layers_per_stage",))
        if lps is not _MISSING:
            s.pp_layers = F(lps, par + ("pipeline_parallel_layers_per_stage",),
                            "parallelism.pipeline_parallel_layers_per_stage")
        s.pipeline_interleave = True
        model_base = ("model",)
        s.offset = None  # PyNative splits by pipeline_parallel_layers_per_stage, not offset
        rc = ("recompute",)
        mode = get(rc + ("mode",))
        mode = mode if isinstance(mode, str) else "None"
        if mode != "None":
            v = get(rc + ("full_recompute_layer",))
            if v is not _MISSING and v is not None:
                s.recompute_specs.append(F(v, rc + ("full_recompute_layer",), "recompute.full_recompute_layer"))
            elif mode == "select":
                sel = get(rc + ("select_module",))
                if isinstance(sel, dict):
                    for k, ranges in sel.items():
                        p = rc + ("select_module", k)
                        s.recompute_specs.append(F(ranges, p, f"recompute.select_module[{k!r}]"))
            exc = get(rc + ("exclude_op",))
            if isinstance(exc, dict):
                for k, ranges in exc.items():
                    p = rc + ("exclude_op", k)
                    s.recompute_specs.append(F(ranges, p, f"recompute.exclude_op[{k!r}]"))
        if _truthy(get(("recompute_comm", "enable"))):
            sel = get(("recompute_comm", "select_module"))
            if isinstance(sel, dict):
                for k, ranges in sel.items():
                    p = ("recompute_comm", "select_module", k)
                    s.recompute_specs.append(F(ranges, p, f"recompute_comm.select_module[{k!r}]"))
        for ds in ("train_dataset", "eval_dataset"):
            for loader in ("dataloader", "data_loader"):
                path = (ds, loader, "config", "seq_length")
                v = get(path)
                if v is not _MISSING:
                    s.dataset_seqs.append(F(v, path, _display(path)))
    else:  # kwargs of a Python TransformerConfig(...) call: flat names
        base = ()
        s.dp = _first(get, base, RUN_DP, False)
        s.tp = _first(get, base, RUN_TP + ("tensor_parallel",), False)
        s.pp = _first(get, base, RUN_PP + ("pipeline_parallel",), False)
        s.cp = _first(get, base, RUN_CP, False)
        s.ep = _first(get, base, RUN_EP, False)
        s.vpp = _first(get, base, VPP, False)
        s.micro = _first(get, base, ("micro_batch_num",), False)
        s.seq_split = _first(get, base, ("seq_split_num",), False)
        s.offset = _first(get, base, ("offset",), False)
        s.pipeline_interleave = None
        model_base = base
        for name in RECOMPUTE_FIELDS:
            v = get((name,))
            if v is not _MISSING and v is not None:
                s.recompute.append(F(v, (name,), name))
        dn = _first(get, base, ("device_num",), False)
        if dn is not None and dn.int:
            s.device_count = (dn.int, "device_num is", dn.path)

    s.heads = _first(get, model_base, HEADS, not kw)
    s.kv = _first(get, model_base, KV_HEADS, not kw)
    if s.kv is None and _truthy(get(model_base + ("multi_query_attention",))):
        s.kv = _first(get, model_base, ("multi_query_group_num",), not kw)  # legacy ChatGLM
        # ChatGLM2's attention (mindformers/models/glm2/glm2_transformer.py) with separate
        # wq/wk/wv (`qkv_concat: False`) shards K and V by min(n_kv_head, mp)
        s.glm_separate_qkv = s.kv is not None and get(model_base + ("qkv_concat",)) is False
    s.hidden = _first(get, model_base, ("hidden_size",), not kw)
    s.head_dim = _first(get, model_base, HEAD_DIM, not kw)
    s.layers = _first(get, model_base, LAYERS, not kw)
    s.mtp = _first(get, model_base, MTP, not kw)
    s.experts = _first(get, model_base, EXPERTS, not kw)
    if s.experts is None and fmt == "run":
        s.experts = _first(get, model_base + ("moe_config",), ("expert_num",))
    s.seq = _first(get, model_base, ("seq_length",), not kw)
    s.mla = _truthy(get(model_base + ("multi_latent_attention",)))

    if not kw:
        if device_count_option:
            s.device_count = (int(device_count_option), "the rule option device_count is", s.anchor)
        elif fmt == "run" and isinstance(get(("parallel", "device_num")), int) \
                and not isinstance(get(("parallel", "device_num")), bool):
            s.device_count = (get(("parallel", "device_num")), "parallel.device_num is", ("parallel", "device_num"))
        elif comments and doc is not None:
            found = _comment_device_count(doc, s.anchor[0])
            if found:
                count, lno = found
                s.device_count = (count, f"the comment on line {lno} says the layout is for", s.anchor)
    return s


# --------------------------------------------------------------------------------------
# arithmetic
# --------------------------------------------------------------------------------------
def _divisors(n: int) -> str:
    return ", ".join(str(d) for d in range(1, n + 1) if n % d == 0)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:g}"


def _val(f: Optional[F], default: Optional[int] = None) -> Optional[int]:
    if f is None:
        return default
    return f.int


def _degree(f: Optional[F]) -> int:
    """A parallel degree: absent means 1; a non-integer or non-positive value is not ours
    to judge (MindFormers rejects it itself), so it reads as 1 too."""
    v = _val(f)
    return v if v is not None and v >= 1 else 1


def _name(f: Optional[F], fallback: str) -> str:
    return f.display if f is not None else fallback


def _vpp(s: Spec) -> int:
    v = _degree(s.vpp)
    if s.pipeline_interleave is False:
        return 1  # MindFormers uses pp_interleave_num only when pipeline_interleave is on
    return v


def _suggest_offset(rem: int, pp: int, vpp: int) -> str:
    """An offset whose entries sum to ``rem``: one extra layer each on the middle stages
    first (the first stage also holds the embedding, the last the output head and loss),
    then the first, then the last."""
    total = pp * vpp
    middle = sorted(range(1, total - 1), key=lambda i: (abs(i - (total - 1) / 2), i))
    order = middle + [0, total - 1] if total > 1 else [0]
    flat = [0] * total
    for k in range(rem):
        flat[order[k % len(order)]] += 1
    if vpp == 1:
        return str(flat)
    return str([flat[r * pp:(r + 1) * pp] for r in range(vpp)])


def _offset_array(value: Any) -> Tuple[Optional[List[List[int]]], Optional[str], int]:
    """(rows, problem, ndim) for an offset: int → 0-d, list → 1-d, list of lists → 2-d."""
    if isinstance(value, bool):
        return None, None, -1
    if isinstance(value, int):
        return [[value]], None, 0
    if isinstance(value, (list, tuple)):
        if all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            return [list(value)], None, 1
        if all(isinstance(x, (list, tuple)) for x in value):
            rows = [list(r) for r in value]
            if not all(isinstance(x, int) and not isinstance(x, bool) for r in rows for x in r):
                return None, None, -1
            if len({len(r) for r in rows}) > 1:
                return None, "its rows have different lengths", 2
            return rows, None, 2
    return None, None, -1


def stage_layers(s: Spec) -> Tuple[Optional[List[List[int]]], Optional[Dict[str, Any]]]:
    """Layers per (interleave, stage), replicating MindFormers' LayerSetting._check_inputs;
    or the MSG604 fmt dict that says why the split fails. (None, None) when unknown."""
    layers, pp = _val(s.layers), _degree(s.pp)
    if layers is None or layers < 1:
        return None, None
    vpp = _vpp(s)
    total = pp * vpp
    stages_desc = (f"{_name(s.pp, 'pipeline stages')} ({pp})" if vpp == 1 else
                   f"{_name(s.pp, 'pipeline stages')} × {_name(s.vpp, 'pp_interleave_num')} ({pp} × {vpp} = {total})")
    if vpp == 1 and _degree(s.vpp) > 1 and s.pipeline_interleave is False:
        stages_desc += (f"; {s.vpp.display} = {_degree(s.vpp)} does not count because "
                        f"parallel.pipeline_config.pipeline_interleave is not True")
    base_fmt = {"layers_key": _name(s.layers, "num_layers"), "layers": layers, "stages": total}
    if total <= 1:
        return [[layers]], None
    base, rem = divmod(layers, total)
    off = s.offset
    rows, problem, ndim = _offset_array(off.value) if off is not None else ([[0]], None, 0)
    offset_key = _name(off, "offset")
    if off is not None and rows is None and problem is None:
        return None, None  # an offset we cannot read: MindFormers will say
    if problem:
        return None, dict(base_fmt, path=off.path, detail=f"{offset_key} = {off.value}: {problem}")
    if ndim >= 1 and len(rows[0]) != pp:
        return None, dict(base_fmt, path=off.path, detail=(
            f"{offset_key} has {len(rows[0])} entries per row but {_name(s.pp, 'pipeline_stage')} is {pp}; "
            f"MindFormers raises ValueError (offset.shape[-1] must equal pp): give one entry per stage, "
            f"e.g. {_suggest_offset(rem, pp, vpp)}"))
    if ndim == 2 and len(rows) != vpp:
        return None, dict(base_fmt, path=off.path, detail=(
            f"{offset_key} has {len(rows)} rows but the pipeline has {vpp} interleaved chunk(s) "
            f"({_name(s.vpp, 'pp_interleave_num')}); MindFormers raises ValueError (offset.shape[-2] must "
            f"equal pp_interleave_num): use e.g. {_suggest_offset(rem, pp, vpp)}"))
    osum = sum(sum(r) for r in rows)
    mtp = _val(s.mtp) or 0
    if osum != rem and mtp > 0 and osum == (layers + mtp) % total:
        # the offset places num_layers + MTP layers: the MindFormers research models
        # (research/deepseek3) count the MTP layers in the split; accept either count. An
        # offset that is not set is MindFormers' default, 0 (TransformerConfig.offset),
        # and is judged as `offset: 0` is
        layers = layers + mtp
        base, rem = divmod(layers, total)
    if osum != rem:
        if off is None or all(x == 0 for r in rows for x in r):
            detail = (f"{layers} = {total} × {base} + {rem} over {stages_desc}, so {rem} layer(s) are left over "
                      f"and {offset_key} {'is not set' if off is None else 'is 0'}; MindFormers raises ValueError "
                      f"(the entries of offset must sum to num_layers % (pp × pp_interleave_num) = {rem}). "
                      f"Place the extra layers with e.g. {offset_key}: {_suggest_offset(rem, pp, vpp)}, "
                      f"or use a layer count divisible by {total}")
            path = s.layers.path
        else:
            detail = (f"the entries of {offset_key} sum to {osum} but must sum to {layers} % {total} = {rem} "
                      f"over {stages_desc} (MindFormers raises ValueError); e.g. {offset_key}: "
                      f"{_suggest_offset(rem, pp, vpp)}")
            path = off.path
        return None, dict(base_fmt, path=path, detail=detail)
    grid = [[base + (rows[0][0] if ndim == 0 else (rows[i] if ndim == 2 else rows[0])[j])
             for j in range(pp)] for i in range(vpp)]
    flat = [x for r in grid for x in r]
    bad = []
    if flat[0] < 0:
        bad.append(f"the first stage gets {flat[0]} layers")
    if flat[-1] < 0:
        bad.append(f"the last stage gets {flat[-1]} layers")
    if total > 2 and any(x < 1 for x in flat[1:-1]):
        k = next(i for i, x in enumerate(flat[1:-1], 1) if x < 1)
        bad.append(f"middle stage {k} gets {flat[k]} layers (each middle stage needs at least 1)")
    if bad:
        return None, dict(base_fmt, path=off.path, detail=(
            f"{offset_key} = {off.value} gives per-stage layer counts {grid}: " + "; ".join(bad)
            + " (MindFormers raises ValueError)"))
    return grid, None


def _spec_problems(specs: Any, total: int) -> List[str]:
    """PyNative layer specs ('5', '0-19'), validated as MindFormers'
    activation_checkpoint._validate_layer_specs does."""
    if not isinstance(specs, (list, tuple)):
        return [f"must be a list of layer ranges, got {specs!r}"]
    out, prev_hi = [], -1
    for i, spec in enumerate(specs):
        m = re.match(r"^(\d+)(?:-(\d+))?$", str(spec).strip())
        if not m:
            out.append(f"entry {i} {spec!r} is not a layer id or 'start-end' range")
            continue
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) is not None else lo
        if lo > hi:
            out.append(f"entry {i} {spec!r} starts after it ends")
        elif hi >= total:
            out.append(f"entry {i} {spec!r} names layer {hi}, but the model has layers 0..{total - 1}")
        elif lo <= prev_hi:
            out.append(f"entry {i} {spec!r} is not after the previous range (ranges must ascend)")
        prev_hi = max(prev_hi, hi)
    return out


def _looks_like_indices(v: Sequence[Any]) -> bool:
    return len(v) >= 2 and list(v) == list(range(len(v)))


def _recompute_problems(value: Any, grid: Optional[List[List[int]]], pp: int, vpp: int,
                        layers: Optional[int], index_mode: bool) -> List[str]:
    """Problems of one recompute selection value, read as MindFormers'
    LayerSetting._format_recompute_list reads it (entry j = how many layers of stage j)."""
    if value is None or isinstance(value, (bool, str)):
        return []
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += [f"[{k!r}] {p}" for p in _recompute_problems(v, grid, pp, vpp, layers, index_mode)]
        return out
    if not isinstance(value, (list, tuple)):
        return []
    v = list(value)
    if not v or all(isinstance(x, str) for x in v):
        return []  # operator-name patterns
    if all(isinstance(x, (int, bool)) for x in v):
        ints = [x for x in v if not isinstance(x, bool)]
        if index_mode:  # swap on: MindFormers reads layer indices
            if layers is not None:
                bad = [x for x in ints if x >= layers or x < 0]
                if bad:
                    return [f"names layer(s) {bad}, but the model has layers 0..{layers - 1} "
                            f"(with swap on, the list holds layer indices)"]
            return []
        out = []
        if len(v) > pp:
            msg = (f"= {v} has {len(v)} entries but the pipeline has {pp} stage(s): MindFormers reads entry j "
                   f"as the number of layers to recompute in stage j and refuses the config (ValueError: length "
                   f"of the list should be equal or less than pipeline_stage number)")
            if _looks_like_indices(v):
                msg += (f". {v} looks like layer indices (as in `recompute_select_layers = [0, 1, 2, 3]`); "
                        f"to recompute the first {len(v)} layers of each stage write [{', '.join([str(len(v))] * pp)}]")
            return [msg]
        if len(v) < pp:
            out.append(f"= {v} has {len(v)} entries for {pp} stages: stages {len(v)}..{pp - 1} get no recompute "
                       f"(MindFormers fills the missing entries with 0)")
        if grid is not None:
            per_stage = [sum(grid[i][j] for i in range(len(grid))) for j in range(pp)]
            over = [(j, x, per_stage[j]) for j, x in enumerate(v[:pp])
                    if not isinstance(x, bool) and x > per_stage[j]]
            if over:
                out.append("asks for more layers than stage(s) hold: " + ", ".join(
                    f"stage {j} {x} > {n}" for j, x, n in over) + " (MindFormers clips the count silently)")
        return out
    if all(isinstance(x, (list, tuple, bool)) for x in v):
        if len(v) != vpp:
            return [f"has {len(v)} rows but the pipeline has {vpp} interleaved chunk(s): MindFormers indexes it as "
                    f"[chunk][stage] and fails with IndexError"]
        out = []
        for i, row in enumerate(v):
            if isinstance(row, bool):
                continue
            if len(row) != pp:
                out.append(f"row {i} has {len(row)} entries but the pipeline has {pp} stage(s) (IndexError)")
                continue
            if grid is not None:
                over = [(j, x, grid[i][j]) for j, x in enumerate(row)
                        if isinstance(x, int) and not isinstance(x, bool) and x > grid[i][j]]
                if over:
                    out.append(f"row {i} asks for more layers than the chunk holds: " + ", ".join(
                        f"stage {j} {x} > {n}" for j, x, n in over) + " (clipped silently)")
        return out
    return [f"= {v} mixes entry types; MindFormers raises ValueError('Illegal input list for select_recompute')"]


def analyse(s: Spec) -> List[Issue]:
    """Every MSG601–MSG609 issue of one Spec."""
    out: List[Issue] = []
    tp, pp, cp, dp, ep = _degree(s.tp), _degree(s.pp), _degree(s.cp), _degree(s.dp), _degree(s.ep)
    heads, kv, hidden, head_dim = _val(s.heads), _val(s.kv), _val(s.hidden), _val(s.head_dim)
    layers = _val(s.layers)
    tp_key = _name(s.tp, "the tensor-parallel degree")

    # MSG601: heads over tensor parallel
    heads_ok = True
    if heads and heads > 0 and tp > 1 and heads % tp:
        heads_ok = False
        out.append(Issue("MSG601", s.heads.path, dict(
            heads_key=s.heads.display, heads=heads, tp_key=tp_key, tp=tp, ratio=_ratio(heads, tp),
            choices=_divisors(heads))))

    # MSG602: hidden over heads (the non-MLA attention of MindFormers)
    hidden_ok = True
    if not s.mla and heads and heads > 0 and hidden and hidden % heads:
        hidden_ok = False
        out.append(Issue("MSG602", s.hidden.path, dict(
            hidden_key=s.hidden.display, hidden=hidden, heads_key=s.heads.display, heads=heads,
            ratio=_ratio(hidden, heads),
            choices=_divisors(hidden) if hidden <= 100000 else "a divisor of hidden_size")))

    # MSG603: fused QKV width / KV heads over tensor parallel (non-MLA, heads already fine)
    if not s.mla and heads and heads > 0 and tp > 1 and heads_ok:
        kv_n = kv if kv and kv > 0 else heads
        hd = head_dim if head_dim and head_dim > 0 else (hidden // heads if hidden and hidden_ok else None)
        if s.glm_separate_qkv:
            hd = None  # separate wk/wv split by kv_mp = min(n_kv_head, mp): whole heads when kv < mp
            if kv_n >= tp and kv_n % tp:
                hd = head_dim if head_dim and head_dim > 0 else (hidden // heads if hidden and hidden_ok else None)
        if hd:
            qkv = (heads + 2 * kv_n) * hd
            if kv_n % tp or qkv % tp:
                per_rank = qkv // tp if qkv % tp == 0 else _ratio(qkv, tp)
                at = s.kv.path if s.kv is not None else s.tp.path
                out.append(Issue("MSG603", at, dict(
                    kv_key=_name(s.kv, _name(s.heads, "num_heads")), kv=kv_n, tp_key=tp_key, tp=tp,
                    heads=heads, head_dim=hd, qkv=qkv, per_rank=per_rank, choices=_divisors(kv_n))))

    # MSG604: layer split over pipeline stages
    grid: Optional[List[List[int]]] = None
    if s.fmt == "pynative":
        if pp > 1 and layers:
            vpp = _vpp(s)
            lps = s.pp_layers.value if s.pp_layers is not None else "auto"
            fmt = {"layers_key": s.layers.display, "layers": layers, "stages": pp * vpp}
            if lps == "auto":
                if layers % (pp * vpp):
                    out.append(Issue("MSG604", s.layers.path, dict(fmt, detail=(
                        f"{layers} is not divisible by pipeline_parallel × pipeline_parallel_interleave_num = "
                        f"{pp * vpp}; with pipeline_parallel_layers_per_stage 'auto' MindFormers raises ValueError: "
                        f"list explicit ranges per stage in pipeline_parallel_layers_per_stage"))))
            elif lps is None:
                out.append(Issue("MSG604", s.pp_layers.path, dict(fmt, detail=(
                    "pipeline_parallel_layers_per_stage is null while pipeline_parallel > 1: set 'auto' "
                    "(equal split) or one 'start-end' range string per stage"))))
            elif isinstance(lps, (list, tuple)):
                probs = []
                if len(lps) != pp:
                    probs.append(f"it has {len(lps)} entries but pipeline_parallel is {pp}")
                for k, entry in enumerate(lps):
                    chunks = str(entry).split(",")
                    if len(chunks) != vpp:
                        probs.append(f"stage {k} has {len(chunks)} chunk(s) but the interleave number is {vpp}")
                    for c in chunks:
                        ids = [x.strip() for x in c.strip().split("-")]
                        if all(x.isdigit() for x in ids) and int(ids[-1]) >= layers:
                            probs.append(f"stage {k} names layer {ids[-1]} of {layers} (0..{layers - 1})")
                if probs:
                    out.append(Issue("MSG604", s.pp_layers.path, dict(fmt, detail="; ".join(probs)
                                                                      + " (MindFormers raises ValueError)")))
    else:
        grid, problem = stage_layers(s)
        if problem is not None:
            path = problem.pop("path")
            out.append(Issue("MSG604", path, problem))

    # MSG605: micro-batches against stages (training)
    if pp > 1 and s.fmt != "pynative" and (s.run_mode or "train") != "predict":
        micro = _val(s.micro, 1)
        if micro is not None:
            split = _degree(s.seq_split)
            sched = s.scheduler or "1f1b"
            if sched in SEQ_SCHEDULERS:
                ok, needed = micro * split >= pp, pp
                rule_desc = (f"scheduler {sched}: micro_batch_num × seq_split_num ({micro} × {split}) must be "
                             f"≥ the stage count")
                eff = micro * split
            elif sched == "zero_bubble_v":
                ok, needed, eff = micro >= 2 * pp, 2 * pp, micro
                rule_desc = "scheduler zero_bubble_v needs at least twice as many micro-batches as stages"
            else:
                ok, needed, eff = micro >= pp, pp, micro
                rule_desc = "a 1F1B pipeline needs at least one micro-batch per stage"
            if not ok:
                at = s.micro.path if s.micro is not None else s.pp.path
                out.append(Issue("MSG605", at, dict(
                    micro_key=_name(s.micro, "micro_batch_num (not set)"), micro=eff, needed=needed,
                    pp_key=_name(s.pp, "pipeline_stage"), pp=pp, rule_desc=rule_desc)))

    # MSG606: recompute selections that name stages/layers that do not exist
    if s.fmt == "pynative":
        total = (layers or 0) + (_val(s.mtp) or 0)
        if layers:
            for f in s.recompute_specs:
                probs = _spec_problems(f.value, total)
                if probs:
                    out.append(Issue("MSG606", f.path, dict(
                        field=f.display, detail="; ".join(probs) + (
                            f" (MindFormers validates against {layers} layers"
                            + (f" + {total - layers} MTP layer(s)" if total > layers else "")
                            + " and raises ValueError)"))))
    else:
        vpp = _vpp(s)
        for f in s.recompute:
            probs = _recompute_problems(f.value, grid, pp, vpp, layers, s.swap)
            if probs:
                out.append(Issue("MSG606", f.path, dict(field=f.display, detail="; ".join(probs))))

    # MSG607: sequence length of the model against the dataset
    model_seq = _val(s.seq)
    if model_seq:
        for f in s.dataset_seqs:
            if f.int is not None and f.int != model_seq:
                out.append(Issue("MSG607", f.path, dict(ds_key=f.display, ds_seq=f.int, model_key=s.seq.display,
                                                        model_seq=model_seq)))

    # MSG608: product of the parallel degrees against the device count
    if s.device_count is not None and s.use_parallel is not False:
        count, source, at = s.device_count
        if s.fmt == "pynative":
            per_dp = tp * pp * cp
            dps = _val(s.dp)
            if dps is not None and dps > 0:
                product = dps * per_dp
                bad = product != count
                desc = f"data_parallel_shard × tensor_parallel × pipeline_parallel × context_parallel = {dps} × {tp} × {pp} × {cp}"
            else:
                product, bad = per_dp, count % per_dp != 0
                desc = f"tensor_parallel × pipeline_parallel × context_parallel = {tp} × {pp} × {cp}"
            if bad:
                out.append(Issue("MSG608", at, dict(desc=desc, product=product, source=source, count=count, detail=(
                    "the world size must be a multiple of tensor × pipeline × context parallel "
                    "(MindFormers' ParallelDims raises ValueError)"))))
        else:
            product = dp * tp * pp * cp
            if product != count:
                parts = [(_name(s.dp, "data_parallel"), dp), (_name(s.tp, "model_parallel"), tp),
                         (_name(s.pp, "pipeline_stage"), pp)]
                if s.cp is not None:
                    parts.append((s.cp.display, cp))
                desc = " × ".join(n.rsplit(".", 1)[-1] for n, _ in parts) + " = " + " × ".join(str(v) for _, v in parts)
                hint = (f"MindFormers needs the degrees to multiply to the number of devices, so a launch on "
                        f"{count} devices fails; correct whichever of the two is wrong")
                if s.ep is not None and ep > 1:
                    hint += " (expert_parallel is not a factor: it is carved out of data × model parallel)"
                out.append(Issue("MSG608", at, dict(desc=desc, product=product, source=source, count=count,
                                                    detail=hint)))

    # MSG609: expert parallel against data × tensor parallel and the expert count
    if ep > 1:
        probs = []
        if s.fmt != "pynative" and (dp * tp) % ep:
            probs.append(f"{s.ep.display} = {ep} must divide data_parallel × model_parallel = {dp} × {tp} = {dp * tp} "
                         f"(expert parallelism is carved out of data × tensor parallelism; MindFormers raises "
                         f"ValueError)")
        experts = _val(s.experts)
        if experts and experts % ep:
            probs.append(f"{s.experts.display} = {experts} experts cannot be spread evenly over {s.ep.display} = "
                         f"{ep} (MindFormers raises ValueError: num_moe_experts must be divisible by "
                         f"expert_model_parallel_size); use an expert_parallel in ({_divisors(experts)})")
        if probs:
            out.append(Issue("MSG609", s.ep.path, dict(detail="; ".join(probs))))
    return out


def analyse_document(doc, device_count: Optional[int] = None, comments: bool = False) -> List[Issue]:
    """All MSG6xx issues of a YamlDocument (empty for YAML that is not a MindFormers config).
    Memoised on the document, so each rule of the family reads the same result."""
    key = ("msgraphlint_rules.config_yaml", device_count, comments)
    if key in doc.cache:
        return doc.cache[key]
    fmt = config_format(doc.data)
    issues: List[Issue] = []
    if fmt is not None:
        spec = build_spec(lambda p: doc.get(*p, default=_MISSING), fmt, doc,
                          device_count_option=device_count, comments=comments)
        issues = analyse(spec)
    doc.cache[key] = issues
    return issues


def check_parallel_values(values: Dict[str, Any]) -> List[Tuple[str, str, str]]:
    """The YAML arithmetic on literal keyword values of a ``TransformerConfig(...)`` call
    (e.g. ``{"hidden_size": 4096, "num_heads": 30, "tensor_model_parallel_size": 8}``).

    Returns ``(key, code, message)`` for each problem: ``key`` is the keyword to point
    at. Names follow MindFormers (``tensor_model_parallel_size``/``model_parallel``,
    ``num_attention_heads``/``num_heads``, ``num_layers``, ``offset``, ``recompute``…)
    and the article's ``tensor_parallel``/``pipeline_parallel``. Non-literal values
    should simply be left out of ``values``."""

    def get(path: Path) -> Any:
        cur: Any = values
        for k in path:
            if isinstance(cur, dict) and k in cur:
                cur = cur[k]
            else:
                return _MISSING
        return cur

    spec = build_spec(get, "kwargs")
    return [(str(i.path[0]), i.code, i.render()) for i in analyse(spec)]


# --------------------------------------------------------------------------------------
# the rules
# --------------------------------------------------------------------------------------
class _ConfigRule(Rule):
    scope = "yaml"
    references = (
        "mindformers 2.1.0 (PyPI wheel): parallel_core/transformer_config.py, "
        "parallel_core/transformer_config_utils.py, parallel_core/training_graph/transformer/utils.py",
        "fixtures/mindformers_configs/ (every config of that wheel) and tests/test_config_yaml.py",
    )

    def check_yaml(self, doc, ctx) -> None:
        opts = getattr(self, "opts", {}) or {}
        for issue in analyse_document(doc, opts.get("device_count"), bool(opts.get("device_count_comments", False))):
            if issue.code != self.code:
                continue
            line, col = doc.locate(*issue.path)
            ctx.report_at(line, col, **issue.fmt)


class HeadsTensorParallel(_ConfigRule):
    code = "MSG601"
    name = "heads-not-divisible-by-tensor-parallel"
    summary = "The attention head count is not divisible by the tensor-parallel degree."
    message = ("{heads_key} = {heads} is not divisible by {tp_key} = {tp}\n"
               "Each tensor-parallel rank must hold whole attention heads ({heads} / {tp} = {ratio}); use a "
               "tensor-parallel degree that divides {heads} ({choices}).")
    hint = "choose model_parallel among the divisors of the head count"
    severity = Severity.ERROR
    rationale = """
        Tensor parallelism splits the attention projections by heads: every rank owns
        `num_heads / model_parallel` whole heads (article 4.3: hidden 4096, 32 heads,
        tensor_parallel 8 → 4 heads of size 128 per card; "num_heads must be divisible
        by tensor_parallel"). MindSpore Transformers 2.1.0 enforces it when the model
        is built, after the cluster is up: `TransformerConfig.__post_init__` raises
        `ValueError: num_attention_heads (…) must be a multiple of
        tensor_model_parallel_size (…)` and the graph-mode attention raises "'num_heads'
        must be a multiple of 'tensor_parallel * ulysses_cp_num'".

        Checked keys (MindFormers' own aliases): `model.model_config.num_heads` /
        `num_attention_heads` / `n_head` against `parallel_config.model_parallel` /
        `tensor_model_parallel_size` (PyNative configs: `model.num_attention_heads`
        against `parallelism.tensor_parallel`). The finding is on the head count.
    """
    VALID = [
        Valid("""
            model:
              model_config:
                hidden_size: 4096
                num_heads: 32
            parallel_config:
              data_parallel: 1
              model_parallel: 8
        """, note="article 4.3: 32 heads over 8 ranks, 4 each", filename="run.yaml"),
        Valid("""
            model:
              model_config:
                num_attention_heads: 30
            parallel_config:
              model_parallel: 1
        """, note="no tensor parallelism", filename="run.yaml"),
        Valid("""
            repos:
              - repo: https://github.com/pre-commit/pre-commit-hooks
                hooks:
                  - id: check-yaml
            num_heads: 30
            model_parallel: 8
        """, note="not a MindSpore Transformers config", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                hidden_size: 4096
                num_attention_heads: 20
            parallel_config:
              data_parallel: 1
              model_parallel: 8
        """, line=4, filename="run.yaml"),
        Invalid("""
            parallelism:
              tensor_parallel: 4
            model:
              num_hidden_layers: 4
              num_attention_heads: 6
        """, line=5, note="PyNative trainer layout", filename="run.yaml"),
    ]


class HiddenHeads(_ConfigRule):
    code = "MSG602"
    name = "hidden-size-not-divisible-by-heads"
    summary = "hidden_size is not a multiple of the attention head count."
    message = ("{hidden_key} = {hidden} is not divisible by {heads_key} = {heads}\n"
               "Head size {hidden} / {heads} = {ratio}: MindFormers requires hidden_size to be a multiple of the "
               "head count; change the head count or hidden_size.")
    hint = "hidden_size must be num_heads × head size"
    severity = Severity.ERROR
    rationale = """
        The attention of MindSpore Transformers 2.1.0 (`parallel_core/training_graph/
        transformer/attention.py`) raises `ValueError: … 'hidden_size' must be a multiple
        of 'num_heads'` when the layer is built, and the head size defaults to
        `hidden_size // num_heads` (`kv_channels`), a floor division (article 4.3:
        4096 / 32 = 128). Multi-latent attention (`multi_latent_attention: True`,
        DeepSeek) sizes its heads with its own keys and is not checked.
    """
    VALID = [
        Valid("""
            model:
              model_config:
                hidden_size: 5120
                num_attention_heads: 64
                head_dim: 128
        """, note="Qwen3-32B: explicit head_dim, 5120 is still a multiple of 64", filename="run.yaml"),
        Valid("""
            model:
              model_config:
                hidden_size: 7000
                num_attention_heads: 128
                multi_latent_attention: True
        """, note="MLA sizes heads separately", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                hidden_size: 4100
                num_heads: 32
        """, line=3, filename="run.yaml"),
    ]


class QkvTensorParallel(_ConfigRule):
    code = "MSG603"
    name = "qkv-width-not-divisible-by-tensor-parallel"
    summary = "The fused QKV projection (its KV heads) does not split evenly over tensor-parallel ranks."
    message = ("{kv_key} = {kv} does not split over {tp_key} = {tp}\n"
               "{kv} KV heads cannot be split over {tp} ranks: the fused QKV projection is ({heads} + 2 × {kv}) × head size {head_dim} = {qkv} columns, "
               "{per_rank} per rank, and a rank's slice must hold whole K and V heads; use a tensor-parallel "
               "degree that divides {kv} ({choices}) or more KV heads.")
    hint = "with grouped-query attention, model_parallel must also divide the KV head count"
    severity = Severity.ERROR
    rationale = """
        Article 4.3: the QKV projection of hidden 4096 is a (4096, 3 × 4096) matrix split
        by columns over the tensor-parallel ranks, so 3 × 4096 / 8 must be an integer.
        For plain multi-head attention that follows from MSG601 (whole heads per rank).
        With grouped-query attention the width is hidden + 2 × kv_heads × head_dim, and
        every rank also needs whole K/V heads: MindSpore Transformers 2.1.0 raises
        `ValueError: … 'kv_num_heads' must be a multiple of 'tensor_parallel * ulysses_cp_num'`
        when the layer is built. Reported only when the query heads themselves divide
        (otherwise MSG601 fires), on the KV head key (`n_kv_heads` / `num_key_value_heads`
        / `num_query_groups`, legacy ChatGLM `multi_query_group_num`).

        Legacy ChatGLM2/3/4 (`multi_query_attention: True`, `multi_query_group_num`) with
        `qkv_concat: False` has separate `wq`/`wk`/`wv` projections, and MindSpore
        Transformers 2.1.0 shards K and V by `kv_mp = min(n_kv_head, mp)`
        (`glm2_transformer.py`: `kv_mp = self.n_kv_head if self.n_kv_head < mp else mp`,
        `shard_wqkv_non_concat`): 2 KV groups over 8 ranks are replicated, not split. Only
        a group count of at least `mp` that `mp` does not divide is reported there.
    """
    VALID = [
        Valid("""
            model:
              model_config:
                hidden_size: 6144
                num_attention_heads: 48
                num_key_value_heads: 8
            parallel_config:
              model_parallel: 8
        """, note="TeleChat3-36B: 8 KV heads over 8 ranks", filename="run.yaml"),
        Valid("""
            model:
              model_config:
                hidden_size: 4096
                num_heads: 32
            parallel_config:
              model_parallel: 8
        """, note="MHA: 3 × 4096 / 8 = 1536 (article 4.3)", filename="run.yaml"),
        Valid("""
            model:
              model_config:
                type: ChatGLM2Config
                hidden_size: 4096
                num_layers: 28
                num_attention_heads: 32
                multi_query_attention: True
                multi_query_group_num: 2
                qkv_concat: False
            parallel_config:
              model_parallel: 8
        """, note="ChatGLM2 with separate wk/wv: K/V sharded by min(2, 8) = 2", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                hidden_size: 4096
                num_attention_heads: 32
                num_key_value_heads: 2
            parallel_config:
              model_parallel: 4
        """, line=5, filename="run.yaml"),
        Invalid("""
            model:
              model_config:
                type: ChatGLM2Config
                hidden_size: 4096
                num_attention_heads: 32
                multi_query_attention: True
                multi_query_group_num: 2
            parallel_config:
              model_parallel: 8
        """, line=7, note="ChatGLM2 with the fused query_key_value (qkv_concat defaults to True)",
                filename="run.yaml"),
    ]


class PipelineLayerSplit(_ConfigRule):
    code = "MSG604"
    name = "layers-not-divisible-by-pipeline-stages"
    summary = "The layers do not split over the pipeline stages (and offset does not make up the difference)."
    message = "{layers_key} = {layers} layers do not split over {stages} pipeline stage(s)\n{detail}"
    hint = "make num_layers divisible by pipeline_stage (× pp_interleave_num) or set offset to place the rest"
    severity = Severity.ERROR
    rationale = """
        Pipeline parallelism gives each stage `num_layers // (pipeline_stage ×
        pp_interleave_num)` layers plus its `offset` entry. MindSpore Transformers 2.1.0
        (`LayerSetting._check_inputs` in `parallel_core/training_graph/transformer/
        utils.py`, used by legacy and mcore models) raises ValueError when the entries
        of `offset` do not sum to `num_layers % (pp × pp_interleave_num)` (so a layer
        count that does not divide needs an offset), when `offset` does not have one
        entry per stage (and one row per interleave chunk), or when a stage ends up with
        no layers. `pp_interleave_num` counts only when `parallel.pipeline_config.
        pipeline_interleave` is on. MTP layers are not part of `num_layers` in 2.1.0's
        own models (they go to the last stage); the research models (`research/deepseek3`)
        count them in the split, so an `offset` that sums to `(num_layers + mtp_depth) %
        stages` is accepted too (it is what those configs write); an `offset` that is not
        set is MindFormers' default 0 (`TransformerConfig.offset`) and is judged as
        `offset: 0` is (`num_layers + mtp_depth` = 61 + 3 over `pp × pp_interleave_num` =
        8 × 2 was reported without an offset key and accepted with `offset: 0`). PyNative
        configs: with `pipeline_parallel_layers_per_stage: auto` the layer count must
        divide `pipeline_parallel × pipeline_parallel_interleave_num`; explicit ranges
        need one entry per stage and existing layer ids. Article 4.4: pipeline problems
        are usually a bad stage split. The message proposes an offset that puts the
        extra layers on the middle stages (the first holds the embedding, the last the
        output head).
    """
    VALID = [
        Valid("""
            model:
              model_config:
                num_layers: 61
                mtp_depth: 1
                offset: [1, 1, 0, 0]
            parallel_config:
              pipeline_stage: 4
              micro_batch_num: 8
        """, note="research/deepseek3 counts the MTP layer: 61 + 1 = 62 = 4 × 15 + 2, the offset sums to 2",
              filename="run.yaml"),
        Valid("""
            model:
              model_config:
                num_layers: 61
                mtp_depth: 3
                pp_interleave_num: 2
            parallel_config:
              pipeline_stage: 8
              micro_batch_num: 16
            parallel:
              pipeline_config:
                pipeline_interleave: True
        """, note="61 + 3 MTP layers = 64 over 8 × 2 chunks, no offset: MindFormers' default offset 0, as `offset: 0`",
              filename="run.yaml"),
        Valid("""
            model:
              model_config:
                num_hidden_layers: 61
                offset: [[1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, -2]]
                pp_interleave_num: 2
            parallel_config:
              pipeline_stage: 8
              micro_batch_num: 32
            parallel:
              pipeline_config:
                pipeline_interleave: True
        """, note="DeepSeek-V3 671B: 61 = 16 × 3 + 13 and the offsets sum to 13", filename="run.yaml"),
        Valid("""
            model:
              model_config:
                num_layers: 40
                offset: [-1, 0, 2, -1]
            parallel_config:
              pipeline_stage: 4
              micro_batch_num: 64
        """, note="GLM4-9B: uneven but consistent split (9, 10, 12, 9)", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                num_hidden_layers: 45
                offset: 0
            parallel_config:
              pipeline_stage: 8
              micro_batch_num: 8
        """, line=3, note="45 = 8 × 5 + 5 and no offset", filename="run.yaml"),
        Invalid("""
            model:
              model_config:
                num_layers: 30
                offset: [1, 1, 0]
            parallel_config:
              pipeline_stage: 4
              micro_batch_num: 4
        """, line=4, note="offset has 3 entries for 4 stages", filename="run.yaml"),
    ]


class MicroBatches(_ConfigRule):
    code = "MSG605"
    name = "fewer-micro-batches-than-stages"
    summary = "Pipeline training with fewer micro-batches than pipeline stages."
    message = ("{micro_key} = {micro} is less than {needed} with {pp_key} = {pp}\n"
               "{rule_desc}: raise micro_batch_num to at least {needed}.")
    hint = "micro_batch_num >= pipeline_stage (2 × for zero_bubble_v)"
    severity = Severity.ERROR
    rationale = """
        A pipeline schedule keeps every stage busy only when there is at least one
        micro-batch per stage. MindSpore 2.10 documents `micro_size must be greater or
        equal to pipeline stages` for `nn.PipelineCell`/`mindspore.parallel.nn.Pipeline`
        (which MindSpore Transformers wraps around the network with
        `micro_size=micro_batch_num`), and its compiler (`libmindspore_frontend.so`,
        2.10.0) rejects the graph: "For 1F1B Scheduler, MicroBatch num must be larger or
        equal than StageNum", "For zero_bubble_v scheduler, micro_size must be greater
        than or equal to twice stage_num", "For seq vpp scheduler, micro_num *
        seq_chunk_size should be greater than or equal to pp". The MindFormers templates
        say the same (`micro_batch_num >= pipeline_stage when pipeline_stage > 1`).
        An unset `micro_batch_num` defaults to 1. Predict configs are not checked.
    """
    VALID = [
        Valid("""
            parallel_config:
              data_parallel: 2
              model_parallel: 2
              pipeline_stage: 2
              micro_batch_num: 2
        """, note="the MindFormers template", filename="run.yaml"),
        Valid("""
            parallel_config:
              pipeline_stage: 1
              micro_batch_num: 1
        """, note="no pipeline", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            parallel_config:
              data_parallel: 1
              model_parallel: 1
              pipeline_stage: 16
              micro_batch_num: 8
        """, line=5, filename="run.yaml"),
        Invalid("""
            parallel_config:
              pipeline_stage: 4
              micro_batch_num: 6
            parallel:
              pipeline_config:
                pipeline_scheduler: zero_bubble_v
        """, line=3, note="zero_bubble_v needs 2 × stages", filename="run.yaml"),
    ]


class RecomputeLayers(_ConfigRule):
    code = "MSG606"
    name = "recompute-names-missing-layers"
    summary = "A recompute selection names pipeline stages or layers that do not exist."
    message = "{field} selects stages or layers the model does not have\n{field} {detail}"
    hint = "recompute lists hold one layer count per pipeline stage (PyNative: 'start-end' layer ranges)"
    severity = Severity.WARNING
    rationale = """
        Article 5.2 selects layers by index: `recompute_select_layers = [0, 1, 2, 3]`.
        MindSpore Transformers 2.1.0 reads a list under `recompute_config` (`recompute`,
        `select_recompute`, `select_comm_recompute`, their `_exclude` forms, or the
        per-pattern lists of a dict) differently: entry j is how many layers of pipeline
        stage j to recompute (`LayerSetting._format_recompute_list`/
        `_alloc_recompute_layer`); a 2-D list is [interleave chunk][stage]. A flat list
        with more entries than stages is refused at start-up (`tools/check_rules.py`
        `_check_recompute`: "length of recompute should be equal or less than
        pipeline_stage number"); a 2-D list of the wrong shape fails with IndexError
        when the layers are built; a shorter flat list leaves the remaining stages
        without recompute; a count larger than the stage's layers is clipped silently. So `[0, 1, 2, 3]` on one stage is an
        error, and on four stages recomputes 0, 1, 2 and 3 layers — not the first four.
        With `swap_config.swap` on, a flat list holds layer indices and each must be
        below `num_layers`. PyNative configs name layers as `'5'`/`'0-19'` ranges
        (`recompute.full_recompute_layer`, `select_module`, `exclude_op`,
        `recompute_comm.select_module`); MindFormers raises ValueError for an id at or
        past `num_layers` + MTP layers or for ranges out of order.
    """
    VALID = [
        Valid("""
            model:
              model_config:
                num_hidden_layers: 64
                pp_interleave_num: 2
            parallel_config:
              pipeline_stage: 2
              micro_batch_num: 4
            parallel:
              pipeline_config:
                pipeline_interleave: True
            recompute_config:
              recompute: [[14, 14], [14, 14]]
        """, note="TeleChat3-36B: 16 layers per chunk and stage", filename="run.yaml"),
        Valid("""
            parallelism:
              tensor_parallel: 1
            recompute:
              mode: full
              full_recompute_layer: [0-42]
            model:
              num_hidden_layers: 43
        """, note="PyNative range syntax, layers 0..42", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                num_layers: 24
            parallel_config:
              pipeline_stage: 1
            recompute_config:
              recompute: [0, 1, 2, 3]
        """, line=7, note="the article's index list read as per-stage counts", filename="run.yaml"),
        Invalid("""
            parallelism:
              tensor_parallel: 1
            recompute:
              mode: full
              full_recompute_layer: [0-43]
            model:
              num_hidden_layers: 43
        """, line=5, filename="run.yaml"),
    ]


class SeqLength(_ConfigRule):
    code = "MSG607"
    name = "seq-length-mismatch"
    summary = "The dataset's seq_length differs from the model's seq_length."
    message = ("{ds_key} = {ds_seq} differs from {model_key} = {model_seq}\n"
               "The dataset yields sequences of {ds_seq} tokens but the model is built for {model_seq}; set both "
               "to the same value.")
    hint = "set model.model_config.seq_length and the dataset's seq_length to the same value (a YAML anchor helps)"
    severity = Severity.ERROR
    rationale = """
        The Megatron dataset loader of MindSpore Transformers 2.1.0
        (`BlendedMegatronDatasetDataLoader`) returns `data_loader.config.seq_length`
        tokens per sample (`sequence_length=config.seq_length`), and MindFormers requires
        `input_sliced_sig: True` with it, so nothing is sliced off; the model builds its
        attention masks, rotary tables and static graph shapes for
        `model.model_config.seq_length`. Two different numbers make the first step fail
        on a shape mismatch (article 5.2 sizes memory by seq_length 2048 — it must be one
        number). PyNative configs: `model.seq_length` against
        `train_dataset.dataloader.config.seq_length`. The finding is on the dataset key.
    """
    VALID = [
        Valid("""
            train_dataset:
              data_loader:
                type: BlendedMegatronDatasetDataLoader
                config:
                  seq_length: 4096
            model:
              model_config:
                seq_length: 4096
        """, filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            train_dataset:
              data_loader:
                type: BlendedMegatronDatasetDataLoader
                config:
                  seq_length: 2048
            model:
              model_config:
                seq_length: 4096
        """, line=5, filename="run.yaml"),
    ]


class DeviceCount(_ConfigRule):
    code = "MSG608"
    name = "parallel-degrees-device-count-mismatch"
    summary = "data × model × pipeline (× context) parallel does not equal the device count the config is for."
    message = "the parallel degrees give {product} devices, but {source} {count}\n{desc} = {product} devices: {detail}."
    hint = "the product of data_parallel, model_parallel, pipeline_stage and context_parallel is the world size"
    severity = Severity.WARNING
    options = {"device_count": None, "device_count_comments": False}
    option_types = {"device_count": int}
    rationale = """
        MindSpore Transformers 2.1.0 requires `data_parallel × model_parallel ×
        pipeline_stage × context_parallel` to equal the number of devices: in
        semi-auto parallel training `tools/check_rules.py` (`_check_parallel`) refuses
        the config at start-up ("… should be equal to device_num"), and the manual
        parallel used for inference raises RuntimeError "total_model_size(…) … which is
        not equal to world_size" (`_valid_parallel_config` in
        `parallel_core/inference/parallel_state.py`).
        `expert_parallel` is not a factor: experts are distributed inside data × model
        parallelism (MSG609). PyNative configs derive data parallelism as
        world / (tensor × pipeline × context), which must divide exactly.

        The device count comes from, in this order: the rule option `device_count`
        (`[tool.msgraphlint.rules.MSG608] device_count = 8`) or `parallel.device_num`.
        The comment MindFormers copies above `parallel_config:` ("# default parallel of
        device num = 8 for Atlas 800T A2") is not evidence by default: in every case an
        outside review checked (26 of 26, MindFormers configs) and in the 2.1.0 wheel's
        own configs (5 of 5: the READMEs train or serve them on 16, 32 or 256 cards) the
        comment was the stale part, not the layout. `device_count_comments = true`
        trusts it again. Configs with `use_parallel: False` run on one device and are
        not checked.
    """
    VALID = [
        Valid("""
            # default parallel of device num = 8 910B
            parallel_config:
              data_parallel: 2
              model_parallel: 2
              pipeline_stage: 2
              context_parallel: 1
              micro_batch_num: 2
        """, note="the MindFormers dense template", filename="run.yaml"),
        Valid("""
            # default parallel of device num = 8 for Atlas 800T A2
            parallel_config:
              data_parallel: 1
              model_parallel: 8
              pipeline_stage: 2
              micro_batch_num: 4
        """, note="a copied boilerplate comment is not evidence (the README trains it on 16 cards)", filename="run.yaml"),
        Valid("""
            use_parallel: False
            # default parallel of device num = 8 for Atlas 800T A2
            parallel_config:
              data_parallel: 1
              model_parallel: 1
        """, note="single-device run", filename="run.yaml"),
    ]
    INVALID = [

        Invalid("""
            parallel_config:
              data_parallel: 2
              model_parallel: 4
            parallel:
              parallel_mode: 1
              device_num: 16
        """, line=6, filename="run.yaml"),
    ]


class ExpertParallel(_ConfigRule):
    code = "MSG609"
    name = "expert-parallel-layout"
    summary = "expert_parallel does not divide data × model parallel, or the expert count."
    message = "expert_parallel does not fit the parallel degrees or the expert count\n{detail}."
    hint = "expert_parallel must divide data_parallel × model_parallel and the number of experts"
    severity = Severity.ERROR
    rationale = """
        MindSpore Transformers 2.1.0 places the expert-parallel groups inside the data ×
        tensor parallel devices: `ffn.py` raises "expert_model_parallel_size must divide
        (data_parallel_size * tensor_model_parallel_size) exactly" and `moe_layer.py`
        raises "Expected num_moe_experts … to be divisible by expert_model_parallel_size"
        (expert count keys: `expert_num`, `n_routed_experts`, `num_experts`,
        `num_moe_experts`). This is also why `expert_parallel` does not multiply into the
        device count (MSG608). PyNative configs: only the expert count is checked (their
        data parallel degree is derived at launch).
    """
    VALID = [
        Valid("""
            model:
              model_config:
                n_routed_experts: 256
            parallel_config:
              data_parallel: 4
              model_parallel: 8
              pipeline_stage: 8
              expert_parallel: 32
              micro_batch_num: 32
        """, note="DeepSeek-V3: 32 divides 4 × 8 and 256", filename="run.yaml"),
    ]
    INVALID = [
        Invalid("""
            model:
              model_config:
                num_experts: 128
            parallel_config:
              data_parallel: 2
              model_parallel: 2
              expert_parallel: 8
        """, line=7, filename="run.yaml"),
    ]


RULES_BY_CODE: Dict[str, type] = {r.code: r for r in (
    HeadsTensorParallel, HiddenHeads, QkvTensorParallel, PipelineLayerSplit, MicroBatches,
    RecomputeLayers, SeqLength, DeviceCount, ExpertParallel)}
