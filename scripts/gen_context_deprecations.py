"""Generate msgraphlint/data/context_deprecations.json from an installed MindSpore.

Reads the tables MindSpore itself uses to warn about deprecated and removed
``set_context`` keys (``mindspore.context._check_context_deprecated`` and the
graph-kernel keys handled in ``set_context``), by parsing their source with ``ast``
(nothing is guessed), and the keys whose deprecation ``set_context`` logs inline or states in its
docstring. ``warned`` says whether MindSpore itself logs a warning at run time.

    .venv/bin/python scripts/gen_context_deprecations.py [--out FILE]
"""

import ast
import inspect
import io
import json
import logging
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "msgraphlint", "data", "context_deprecations.json")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    out_path = ap.parse_args().out
    import mindspore
    from mindspore import context

    src = inspect.getsource(context._check_context_deprecated)
    tree = ast.parse(src.lstrip())
    tables = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Dict):
            tables[node.targets[0].id] = ast.literal_eval(node.value)
    entries = {}
    for key, repl in tables.get("deprecated_context_dict", {}).items():
        entries[key] = {"status": "deprecated", "replacement": " ".join(str(repl).split())}
    for key, info in tables.get("invalid_context_dict", {}).items():
        entries[key] = {"status": "removed", "since": info["version"], "replacement": info["interface"]}
    set_src = inspect.getsource(context.set_context)
    # keys warned about inline in set_context (the graph-kernel ones)
    for m in re.finditer(r"if key == '(\w+)':\s*logger\.warning\((.*?)\)\n", set_src, re.S):
        text = "".join(re.findall(r'"([^"]*)"', m.group(2)))
        if "deprecated" in text:
            rep = re.search(r"Please use (.+?) instead", text)
            entries.setdefault(m.group(1), {"status": "deprecated", "replacement": rep.group(1) if rep else "",
                                            "warned": True})
    # keys deprecated in the docstring only (no run-time warning)
    doc = context.set_context.__doc__ or ""
    for m in re.finditer(r"^\s{8}(\w+) \(\w+\):(.*?)(?=^\s{8}\w+ \(|\Z)", doc, re.S | re.M):
        key, body = m.group(1), " ".join(m.group(2).split())
        if "deprecated" in body and key not in entries:
            rep = re.search(r"Please use (?:the )?(.+?) instead", body)
            entries[key] = {"status": "deprecated", "replacement": (rep.group(1) if rep else "").replace(":func:", ""),
                            "warned": False}
    for e in entries.values():
        e.setdefault("warned", e["status"] != "removed")
    entries["enable_graph_kernel"]["cpu_note"] = (
        "on CPU, jit_level O1 does not turn graph-kernel fusion on; set the environment variable "
        "MS_DEV_GRAPH_KERNEL_FLAGS=\"--opt_level=2\" (measured with MindSpore 2.10 CPU: only then does the "
        "final IR hold Fused_* kernels)")
    doc = {"mindspore_version": mindspore.__version__, "source": "mindspore.context._check_context_deprecated "
           "and set_context's source and docstring", "keys": dict(sorted(entries.items()))}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"{len(entries)} keys -> {out_path}")


if __name__ == "__main__":
    main()
