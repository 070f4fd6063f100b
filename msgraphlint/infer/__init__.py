"""Everything that answers "what is this value?" for the rules, behind one question:
``ctx.tensor(expr)`` (a :class:`TensorAnswer`: a :class:`Certainty` and a :class:`Provenance`).

* ``answers.py``: the answer types;
* ``facade.py``: the question, built on ``ctx.kind`` (``values.py``), the callers' evidence
  (``paramkinds.py``/``evidence.py``) and the parameter-use evidence of ``_params``;
* ``folding.py``: what MindSpore 2.10 folds at compile time (measured);
* ``bindings.py``: what each local name of a function is bound to.
"""

from .answers import Certainty, Provenance, TensorAnswer

__all__ = ["Certainty", "Provenance", "TensorAnswer"]
