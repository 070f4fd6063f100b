"""Which IR events each rule family explains: data, in the style of a graph-break registry.

An *IR event* is something the compiled graph shows that a clean, graph-friendly layer
does not: an interpreter-fallback node, a control-flow kernel graph, a side-effect op,
an elementwise op that did not fuse, a dynamic-shape graph, a recompile for inputs of
unchanged shapes, a compile error, or an input mutated differently in graph mode and
PyNative. ``EVENT_KINDS`` says, for each kind, what in the IR produces it and which rule
families (code prefixes) explain it. A static finding (in the compiled code) is
*confirmed* when an event of a kind its family explains is present at its line (within
``slack`` lines), or when an event the IR gives no line (TensorMove, a recompile...) is
one its rule predicts (``UNLOCATED``). ``KNOCK_ON`` says which events follow from an
earlier one (attributed to it, never unexplained), ``EXPECTED_NATIVE`` which ops the rules'
own advice puts in the graph.

Edit the tables, not the code in ``crosscheck.py``, to teach the cross-check a new effect.
"""

from __future__ import annotations

from typing import Dict, List, Optional

#: Version of these tables (reported in the JSON output; the cache does not depend on it:
#: events are computed again from the cached IR on every run).
EVIDENCE_VERSION = 3

#: event kind -> description, the IR ops that make it (where it is op-based), the rule
#: families that explain it, and whether the IR carries a usable line for it.
EVENT_KINDS: Dict[str, dict] = {
    "fallback": {
        "what": "interpreter-fallback node (the op runs in Python, not in the graph)",
        "ops": ["PyExecute", "PyInterpret"],
        "families": ["MSG4", "MSG2", "MSG3"],
        "located": True,
    },
    "control_flow": {
        "what": "tensor-valued control flow: Switch nodes and extra kernel graphs",
        "ops": ["Switch", "SwitchLayer"],
        "families": ["MSG1"],
        "located": True,
    },
    "side_effect": {
        "what": "side-effect op in the kernel graph (writes, copies, host I/O)",
        "ops": ["Assign", "AssignAdd", "AssignSub", "TensorMove", "Print", "TensorScatterUpdate",
                "ScatterNdUpdate", "ScatterUpdate", "InplaceCopy", "InplaceAddExt", "InplaceMul",
                "InplaceIndexPut", "InplaceFillScalar", "InplaceCopy", "SliceToIndices"],
        "families": ["MSG2"],
        "located": False,  # TensorMove/Assign/Print often carry no source line
    },
    "inplace_write": {
        "what": "in-place write in the frontend graph (validate stage), at its statement: an Inplace* op or "
                "an Assign (`x += y` on a tensor; `a &= b` compiles to a plain BitwiseAnd and makes none)",
        "ops": [],  # see is_inplace_op
        "families": ["MSG2"],
        "located": True,
        "slack": 0,  # the validate stage locates it at its own statement: the next line is another write
    },
    "unfused_elementwise": {
        "what": "elementwise op left unfused (a clean equivalent fuses it on this device: device_facts.json)",
        "ops": [],  # see facts.DeviceFacts.fusible
        "families": ["MSG1", "MSG2", "MSG3", "MSG4"],
        "located": True,
    },
    "data_dependent_shape": {
        "what": "op whose output shape depends on the data (dynamic shape from here on)",
        "ops": ["MaskedSelect", "NonZero", "NonZeroExt", "Unique", "UniqueConsecutive",
                "BooleanMask", "Where"],
        "families": ["MSG3", "MSG2"],
        "located": True,
    },
    "host_sync": {
        "what": "tensor -> Python scalar round trip in the graph (a host sync: float(t), .item()); "
                "one event for all its ops, at all their lines",
        "ops": ["TensorToScalar", "ScalarToTensor", "TensorToTuple", "TensorToList", "ScalarDiv",
                "ScalarMul", "ScalarAdd", "ScalarSub", "ScalarFloorDiv", "ScalarMod", "ScalarPow",
                "ScalarCast", "ScalarUadd", "ScalarUsub", "ScalarLog", "ScalarGt", "ScalarLt"],
        "families": ["MSG4", "MSG2", "MSG3"],
        "located": True,
    },
    "dynamic_shape": {
        "what": "the graph is compiled with dynamic shapes (fusion is lost)",
        "ops": [],
        "families": ["MSG3", "MSG4"],
        "located": False,
    },
    "recompile": {
        "what": "a new compile for inputs whose tensor shapes did not change",
        "ops": [],
        "families": ["MSG3"],
        "located": False,
    },
    "compile_error": {
        "what": "the compile failed",
        "ops": [],
        "families": ["MSG1", "MSG2", "MSG3", "MSG4", "MSG5"],
        "located": True,
    },
    "mutation_divergence": {
        "what": "graph mode and PyNative mutate the caller's input tensors differently",
        "ops": [],
        "families": ["MSG2"],
        "located": False,
    },
    "numeric_divergence": {
        "what": "graph mode and PyNative return different values",
        "ops": [],
        "families": ["MSG1", "MSG2", "MSG3", "MSG4"],
        "located": False,
    },
}

def default_facts():
    """The device facts of the default verify target: MindSpore 2.10 on CPU (measured)."""
    from .facts import lookup

    return lookup("2.10.0", "CPU")


def fusible_ops(facts=None) -> frozenset:
    """Ops that fuse on the device (``device_facts.json``: on CPU with 2.10, measured, Div,
    Sigmoid, Erf, Sin, Cos, FastGeLU, SiLU, AddExt never fuse, so they are not losses there).
    Reshape/Transpose are not judged: a Reshape feeding a MatMul stays unfused in a clean layer."""
    facts = facts or default_facts()
    return frozenset(op for op in facts.fuse if facts.fusible(op))


#: ops that write their input in place, as the validate stage names them (besides Inplace*)
INPLACE_OPS = frozenset({"Assign", "AssignAdd", "AssignSub"})


def is_inplace_op(op: str) -> bool:
    return op.startswith("Inplace") or op in INPLACE_OPS

#: rule family (code prefix) -> what it claims in the graph, and the event kinds that
#: confirm one of its findings. A family absent here is "not checkable" by a compile.
FAMILIES: Dict[str, dict] = {
    "MSG1": {"name": "control flow",
             "claims": "a tensor-valued condition becomes Switch/extra kernel graphs, or fails to compile",
             "confirmed_by": ["control_flow", "compile_error", "fallback", "unfused_elementwise"]},
    "MSG2": {"name": "in-place writes and side effects",
             "claims": "the write/side effect appears as Assign/TensorMove/scatter/Print ops, a "
                       "fallback, or diverges from PyNative",
             "confirmed_by": ["side_effect", "inplace_write", "mutation_divergence", "fallback", "compile_error",
                              "numeric_divergence", "unfused_elementwise", "host_sync"]},
    "MSG3": {"name": "dynamic shapes and recompiles",
             "claims": "recompiles per value, or a dynamic-shape graph that loses fusion",
             "confirmed_by": ["recompile", "dynamic_shape", "data_dependent_shape", "compile_error",
                              "fallback", "host_sync"]},
    "MSG4": {"name": "interpreter fallback and unsupported syntax",
             "claims": "PyExecute/PyInterpret nodes at the line, or a compile error",
             "confirmed_by": ["fallback", "compile_error", "host_sync", "dynamic_shape"]},
}

#: per-code overrides of FAMILIES (same keys), for rules whose effect differs from the family's.
#: In-place writes are settled by the located in-place op of the validate stage (``x += y``
#: -> InplaceAddExt at the line), never by the line-less TensorMove/Assign of the kernel graph
#: or the inputs' mutation, which any in-place write anywhere would make (``a &= b`` on a
#: tensor compiles to a plain BitwiseAnd: nothing at its line, not confirmed).
_INPLACE_CLAIM = {"name": "in-place write",
                  "claims": "an in-place op (Inplace*/Assign) in the frontend graph at the statement, or a "
                            "scatter/Assign the kernel graph locates there (a subscript write)",
                  "confirmed_by": ["inplace_write", "side_effect", "compile_error", "fallback"],
                  "located_only": True}
CODES: Dict[str, dict] = {code: _INPLACE_CLAIM for code in ("MSG202", "MSG204", "MSG205", "MSG206")}

#: codes whose finding predicts that the device has no kernel for the op at its line (a
#: kernel-select failure there confirms it instead of making the run unjudgeable)
NO_KERNEL_CODES = frozenset({"MSG212"})

_WRITE_OPS = ["TensorMove", "Assign"]
_SCATTER_OPS = ["TensorScatterUpdate", "ScatterNdUpdate", "ScatterUpdate", "SliceToIndices", "InplaceIndexPut",
                "InplaceCopy", "TensorMove", "Assign"]
_INPLACE_OPS = ["TensorMove", "Assign", "InplaceAddExt", "InplaceMul", "InplaceFillScalar", "InplaceCopy"]

#: What a rule predicts among the events the IR prints no source line for: code -> {event
#: kind: the ops (None: any)}. An event without a line matches only a finding, in the
#: compiled code, whose code predicts that kind (and one of its ops); the report says it
#: was matched without a line. A code absent here is never matched to an unlocated event.
UNLOCATED: Dict[str, Dict[str, Optional[List[str]]]] = {
    "MSG101": {"control_flow": None},
    "MSG102": {"control_flow": None},
    "MSG103": {"control_flow": None},
    "MSG201": {"side_effect": ["Print"]},
    "MSG202": {"side_effect": _WRITE_OPS, "mutation_divergence": None},
    "MSG203": {"side_effect": _SCATTER_OPS, "mutation_divergence": None},
    "MSG204": {"side_effect": _WRITE_OPS, "mutation_divergence": None},
    "MSG205": {"side_effect": _INPLACE_OPS, "mutation_divergence": None},
    "MSG206": {"side_effect": _WRITE_OPS, "mutation_divergence": None},
    "MSG210": {"numeric_divergence": None},
    "MSG212": {"side_effect": _INPLACE_OPS},
    "MSG301": {"dynamic_shape": None},
    "MSG302": {"dynamic_shape": None},
    "MSG303": {"dynamic_shape": None},
    "MSG304": {"recompile": None},
    "MSG305": {"dynamic_shape": None},
    "MSG401": {"fallback": None, "dynamic_shape": None},
    "MSG402": {"fallback": None, "dynamic_shape": None},
    "MSG403": {"host_sync": None},
    "MSG404": {"fallback": None},
    "MSG405": {"fallback": None, "control_flow": None},
    "MSG406": {"fallback": None},
    "MSG410": {"compile_error": None},
    "MSG411": {"compile_error": None},
    "MSG412": {"compile_error": None},
}

#: Knock-on effects: event kind -> the earlier event kinds it follows from. After a
#: fallback the graph is cut and what follows is dynamic-shape: later ops get Switch nodes
#: (shape checks) and host syncs; a declared (set_inputs) or data-dependent dynamic shape
#: brings host syncs for the shape arithmetic and costs fusion. An event that no finding
#: explains but that follows such a cause (at or after its line, or either has no line) is
#: attributed to it (``knock_on``), never counted as unexplained: the cause is the one event
#: to judge. Measured on MindSpore 2.10 CPU (tests/data/ir/fallback_mlp: Switch at the two
#: Dense calls after a .asnumpy() round trip).
KNOCK_ON: Dict[str, List[str]] = {
    "side_effect": ["inplace_write"],
    "mutation_divergence": ["inplace_write", "side_effect"],
    "control_flow": ["fallback"],
    "host_sync": ["fallback", "dynamic_shape", "data_dependent_shape"],
    "dynamic_shape": ["fallback", "data_dependent_shape"],
    "unfused_elementwise": ["fallback", "dynamic_shape", "data_dependent_shape", "control_flow"],
    "numeric_divergence": ["fallback"],
}

#: (event kind, cause kind) -> the only ops of the event that may follow from that cause: an
#: in-place op leaves TensorMove/Assign copies in the kernel graph, never a Print
KNOCK_ON_OPS: Dict[tuple, frozenset] = {
    ("side_effect", "inplace_write"): frozenset({"TensorMove", "Assign", "InplaceCopy"}),
    ("mutation_divergence", "side_effect"): frozenset({"TensorScatterUpdate", "ScatterNdUpdate", "ScatterUpdate",
                                                       "InplaceIndexPut", "InplaceCopy", "Assign"}),
}

#: Native ops that rules recommend (MSG201: ``ops.print_``/``ops.Print``; MSG206:
#: ``ops.assign`` on a Parameter): their ops in the graph are expected, not disagreements.
#: op -> the calls that make it (dotted, as imports resolve them); ``first_arg``:
#: "parameter" when only a call on a ``self.<Parameter>`` counts.
EXPECTED_NATIVE: Dict[str, dict] = {
    "Print": {"calls": ["mindspore.ops.print_", "mindspore.ops.Print", "mindspore.ops.operations.Print",
                        "mindspore.ops.operations.debug_ops.Print", "mindspore.ops.function.print_"]},
    "Assign": {"calls": ["mindspore.ops.assign", "mindspore.ops.Assign", "mindspore.ops.operations.Assign",
                         "mindspore.ops.function.assign", "mindspore.ops.auto_generate.assign"],
               "first_arg": "parameter"},
}


def family_of(code: str) -> str:
    return code[:4] if len(code) >= 4 else code


def confirming_kinds(code: str) -> List[str]:
    entry = CODES.get(code) or FAMILIES.get(family_of(code))
    return list(entry["confirmed_by"]) if entry else []


def slack_for(kind: str, slack: int) -> int:
    """The line slack for matching an event of ``kind`` (some are exact)."""
    return min(slack, EVENT_KINDS[kind].get("slack", slack))


def located_only(code: str) -> bool:
    """Whether only events located at the finding's statement confirm it (no line-less one)."""
    entry = CODES.get(code) or FAMILIES.get(family_of(code)) or {}
    return bool(entry.get("located_only"))


def explaining_families(kind: str) -> List[str]:
    return list(EVENT_KINDS[kind]["families"])


def predicts_unlocated(code: str, kind: str, ops: List[str]) -> bool:
    """Whether a finding of ``code`` predicts an event of ``kind`` (with ``ops``) that the
    IR gives no line."""
    entry = UNLOCATED.get(code, {})
    if kind not in entry:
        return False
    want = entry[kind]
    return want is None or not ops or any(op in want for op in ops)


def op_kind(op: str, facts=None) -> str:
    """The event kind an unfused op makes, or '' when it makes none (an op that never fuses
    on the device, or one the device's facts do not cover, makes none)."""
    for kind in ("fallback", "control_flow", "side_effect", "data_dependent_shape", "host_sync"):
        if op in EVENT_KINDS[kind]["ops"]:
            return kind
    facts = facts or default_facts()
    if facts.fusible(op):
        return "unfused_elementwise"
    return ""
