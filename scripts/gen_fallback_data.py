#!/usr/bin/env python
"""Generate msgraphlint/data/fallback_map.json: the data behind the MSG4xx fallback rules.

* ``replacements``: host functions (NumPy, math, SciPy, random) → the native MindSpore
  spelling a message suggests (``numpy.tanh`` → ``ops.tanh``). The table is written here by
  hand; every target is checked against the installed MindSpore (``ops.X``/``mint.X``/
  ``Tensor.X`` must exist) and the script fails if one does not.
* ``interpreted_modules``: top-level modules MindSpore 2.10 runs through the interpreter
  (JIT Fallback / PyExecute) when graph code calls them: its own whitelist
  (``mindspore/graph/_parse/jit_fallback_modules/third_party_modules.py``), read from the
  installed package, plus tokenizer/vision/ML packages this project adds (``EXTRA_HOST``):
  not on MindSpore's list, their objects (a tokenizer, a cv2 image) still cannot be compiled.

Usage: .venv/bin/python scripts/gen_fallback_data.py   (needs MindSpore 2.10; the linter
itself only reads the JSON).
"""
from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "msgraphlint", "data", "fallback_map.json")

# host function -> native replacement (first spelling that exists wins; alternatives after " / ")
TABLE = {
    # numpy: elementwise
    "numpy.tanh": "ops.tanh", "numpy.exp": "ops.exp", "numpy.log": "ops.log", "numpy.log1p": "ops.log1p",
    "numpy.expm1": "ops.expm1", "numpy.log2": "ops.log2", "numpy.log10": "ops.log10",
    "numpy.sqrt": "ops.sqrt", "numpy.square": "ops.square", "numpy.abs": "ops.abs",
    "numpy.absolute": "ops.abs", "numpy.sign": "ops.sign", "numpy.sin": "ops.sin", "numpy.cos": "ops.cos",
    "numpy.tan": "ops.tan", "numpy.arctan": "ops.atan", "numpy.arctan2": "ops.atan2", "numpy.arcsin": "ops.asin",
    "numpy.arccos": "ops.acos", "numpy.sinh": "ops.sinh", "numpy.cosh": "ops.cosh", "numpy.floor": "ops.floor",
    "numpy.ceil": "ops.ceil", "numpy.round": "ops.round", "numpy.rint": "ops.round", "numpy.trunc": "ops.trunc",
    "numpy.power": "ops.pow", "numpy.maximum": "ops.maximum", "numpy.minimum": "ops.minimum",
    "numpy.clip": "ops.clamp", "numpy.reciprocal": "ops.reciprocal", "numpy.negative": "ops.neg",
    "numpy.add": "ops.add", "numpy.subtract": "ops.sub", "numpy.multiply": "ops.mul", "numpy.divide": "ops.div",
    "numpy.true_divide": "ops.div", "numpy.floor_divide": "ops.floor_divide", "numpy.mod": "ops.remainder",
    "numpy.remainder": "ops.remainder", "numpy.isnan": "ops.isnan", "numpy.isinf": "ops.isinf",
    "numpy.isfinite": "ops.isfinite", "numpy.nan_to_num": "ops.nan_to_num", "numpy.logical_and": "ops.logical_and",
    "numpy.logical_or": "ops.logical_or", "numpy.logical_not": "ops.logical_not", "numpy.equal": "ops.equal",
    "numpy.not_equal": "ops.ne", "numpy.greater": "ops.gt", "numpy.less": "ops.lt", "numpy.where": "ops.where",
    # numpy: reductions
    "numpy.sum": "ops.sum", "numpy.mean": "ops.mean", "numpy.max": "ops.amax", "numpy.amax": "ops.amax",
    "numpy.min": "ops.amin", "numpy.amin": "ops.amin", "numpy.prod": "ops.prod", "numpy.std": "ops.std",
    "numpy.var": "ops.var", "numpy.argmax": "ops.argmax", "numpy.argmin": "ops.argmin", "numpy.all": "ops.all",
    "numpy.any": "ops.any", "numpy.cumsum": "ops.cumsum", "numpy.cumprod": "ops.cumprod",
    "numpy.median": "ops.median", "numpy.linalg.norm": "ops.norm",
    # numpy: shape and layout
    "numpy.reshape": "ops.reshape", "numpy.transpose": "ops.transpose", "numpy.swapaxes": "ops.swapaxes",
    "numpy.moveaxis": "ops.moveaxis", "numpy.expand_dims": "ops.expand_dims", "numpy.squeeze": "ops.squeeze",
    "numpy.concatenate": "ops.cat", "numpy.stack": "ops.stack", "numpy.split": "ops.split",
    "numpy.tile": "ops.tile", "numpy.repeat": "ops.repeat_interleave", "numpy.flip": "ops.flip",
    "numpy.roll": "ops.roll", "numpy.broadcast_to": "ops.broadcast_to", "numpy.pad": "ops.pad",
    "numpy.triu": "ops.triu", "numpy.tril": "ops.tril", "numpy.diag": "ops.diag", "numpy.ravel": "ops.flatten",
    "numpy.take": "ops.gather", "numpy.take_along_axis": "ops.gather_elements",
    # numpy: products, sorting, creation from a tensor
    "numpy.matmul": "ops.matmul", "numpy.dot": "ops.matmul", "numpy.einsum": "ops.einsum",
    "numpy.outer": "ops.outer", "numpy.sort": "ops.sort", "numpy.argsort": "ops.argsort",  "numpy.zeros_like": "ops.zeros_like", "numpy.ones_like": "ops.ones_like",
    "numpy.full_like": "ops.full_like", "numpy.array": "the tensor itself (or ops.stack for a list of tensors)",
    "numpy.asarray": "the tensor itself", "numpy.float32": "ops.cast(x, mindspore.float32)",
    "numpy.float16": "ops.cast(x, mindspore.float16)", "numpy.int32": "ops.cast(x, mindspore.int32)",
    "numpy.int64": "ops.cast(x, mindspore.int64)",
    # math
    "math.sqrt": "ops.sqrt", "math.exp": "ops.exp", "math.log": "ops.log", "math.log2": "ops.log2",
    "math.log10": "ops.log10", "math.log1p": "ops.log1p", "math.expm1": "ops.expm1", "math.tanh": "ops.tanh",
    "math.sin": "ops.sin", "math.cos": "ops.cos", "math.tan": "ops.tan", "math.atan": "ops.atan",
    "math.atan2": "ops.atan2", "math.erf": "ops.erf", "math.erfc": "ops.erfc", "math.floor": "ops.floor",
    "math.ceil": "ops.ceil", "math.trunc": "ops.trunc", "math.fabs": "ops.abs", "math.pow": "ops.pow",
    "math.isnan": "ops.isnan", "math.isinf": "ops.isinf", "math.isfinite": "ops.isfinite",
    "math.fsum": "ops.sum", "math.prod": "ops.prod",
    # scipy
    "scipy.special.erf": "ops.erf", "scipy.special.erfc": "ops.erfc", "scipy.special.expit": "ops.sigmoid",
    "scipy.special.logit": "ops.logit", "scipy.special.softmax": "ops.softmax",
    "scipy.special.log_softmax": "ops.log_softmax", "scipy.special.logsumexp": "ops.logsumexp",
    "scipy.special.gammaln": "ops.lgamma", "scipy.special.digamma": "ops.digamma",
    # random on tensors
    "random.shuffle": "ops.shuffle", "random.choice": "ops.multinomial", "random.sample": "ops.randperm + gather",
    "numpy.random.shuffle": "ops.shuffle", "numpy.random.permutation": "ops.randperm",
}

# Packages whose objects cannot be compiled, beyond MindSpore's own whitelist.
EXTRA_HOST = ("cv2", "transformers", "tokenizers", "sentencepiece", "tiktoken", "torchvision", "timm",
              "jieba", "PIL", "skimage", "sklearn", "pandas", "torch", "tensorflow", "jax", "scipy", "numpy",
              "math", "cmath", "random", "statistics", "imageio", "albumentations", "pycocotools", "shapely",
              "pyclipper", "editdistance", "Levenshtein", "nltk", "spacy")


def _check(target: str, ms) -> bool:
    head = target.split(" ")[0].split("(")[0]
    if not head.startswith(("ops.", "mint.", "Tensor.")):
        return True  # prose ("the tensor itself")
    owner, name = head.split(".", 1)
    obj = {"ops": ms.ops, "mint": ms.mint, "Tensor": ms.Tensor}[owner]
    return hasattr(obj, name)


def _host_exists(dotted: str) -> bool:
    import importlib
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return False
        return True
    return False


def main() -> int:
    import mindspore as ms
    from mindspore.graph._parse.jit_fallback_modules.third_party_modules import third_party_modules_whitelist

    missing = [f"{k} -> {v}" for k, v in TABLE.items() if not _check(v, ms)]
    missing += [f"{k} (no such host function)" for k in TABLE if not _host_exists(k)]
    if missing:
        print("replacement targets missing from MindSpore %s:\n  %s" % (ms.__version__, "\n  ".join(missing)))
        return 1
    data = {
        "mindspore_version": ms.__version__,
        "generated_by": "scripts/gen_fallback_data.py",
        "replacements": dict(sorted(TABLE.items())),
        "interpreted_modules": sorted(set(third_party_modules_whitelist)),
        "host_packages": sorted(set(EXTRA_HOST)),
    }
    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(data, fh, indent=1, sort_keys=False)
        fh.write("\n")
    print(f"wrote {OUT}: {len(TABLE)} replacements, {len(data['interpreted_modules'])} interpreted modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
