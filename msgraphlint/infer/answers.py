"""What the inference answers: how sure it is that a value is a tensor, and where the value
comes from (``ctx.tensor(expr)`` returns a :class:`TensorAnswer`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional


class Certainty(enum.Enum):
    SURELY = "surely a tensor"
    MAYBE = "maybe a tensor"
    SURELY_NOT = "surely not a tensor"


class Provenance(enum.Enum):
    """Where a value comes from, as far as graph compilation is concerned."""
    GRAPH_INPUT = "graph input"                       # a parameter the callers pass a tensor to, or used as one
    GUESSED_INPUT = "parameter without tensor evidence"  # `def construct(self, x, flag)`: `flag` may be a Python value
    PYTHON_VALUE = "Python value from the caller"     # a parameter every caller passes a Python value to
    FOLDED = "constant folded at compile time"        # `Tensor([1.0])`, `self.t = Tensor(...)`, arithmetic on those
    PARAMETER = "Parameter"                           # `self.w = Parameter(...)`
    CELL_ATTRIBUTE = "Cell attribute"                 # another `self.<attr>` (a sub-Cell, a primitive, ...)
    CELL_OUTPUT = "Cell output"                       # `self.fc(x)`, `ops.MatMul()(a, b)`
    COMPUTED = "computed in the graph"                # ops, methods, arithmetic on run-time tensors
    LITERAL = "literal"                               # `1`, `"train"`, `(1, 2)`, `None`
    CONSTANT = "compile-time Python value"            # `x.shape[0]`, `len(x)`, `self.training`, config values
    HOST = "host value pulled from a tensor"          # `.asnumpy()`, `float(t)`, `.item()`
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class TensorAnswer:
    """``certainty``: is the value a tensor; ``provenance``: where it comes from; ``attr``:
    for a local name bound to ``self.<attr>`` (``loss = self.loss``), the attribute it
    aliases (graph mode writes through such a name into the attribute)."""
    certainty: Certainty
    provenance: Provenance
    attr: Optional[str] = None

    @property
    def surely(self) -> bool:
        return self.certainty is Certainty.SURELY

    @property
    def maybe(self) -> bool:
        return self.certainty is Certainty.MAYBE

    @property
    def surely_not(self) -> bool:
        return self.certainty is Certainty.SURELY_NOT

    @property
    def folded(self) -> bool:
        """A constant MindSpore computes while compiling (no run-time data in it)."""
        return self.provenance is Provenance.FOLDED

    @property
    def runtime(self) -> bool:
        """Surely a tensor whose value exists only when the graph runs (not folded)."""
        return self.certainty is Certainty.SURELY and self.provenance is not Provenance.FOLDED

    def __str__(self) -> str:
        via = f" (bound to `self.{self.attr}`)" if self.attr else ""
        return f"{self.certainty.value}: {self.provenance.value}{via}"
