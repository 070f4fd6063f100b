"""Metadata and file facts of a Python environment, for ``msgraphlint doctor``.

Standard library only, and Python 3.6-compatible syntax: ``msgraphlint doctor
--python PATH`` runs this file's text in the target interpreter (``PATH -c``), and
imports it in-process when the target is the running interpreter. Nothing here
imports MindSpore (or NumPy): versions come from ``importlib.metadata`` (the
``*.dist-info`` directories on older Pythons) and backend facts from the names of the
installed package's files, located with ``importlib.util.find_spec`` (which does not
run the package).

Prints one line ``@@MSGRAPHLINT_DOCTOR@@{json}`` when run as a script.
"""

import json
import os
import re
import sys

MARKER = "@@MSGRAPHLINT_DOCTOR@@"
_WANTED = ("numpy", "decorator")
_MS_NAMES = ("mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-cpu", "mindspore-dev",
             "mindspore-gpu-dev", "mindspore-ascend-dev")


def _norm(name):
    return re.sub(r"[-_.]+", "-", name or "").lower()


def _dist_record(name, version, meta_get, meta_all, location, top_level):
    return {
        "name": name,
        "version": version,
        "requires_python": meta_get("Requires-Python"),
        "requires_dist": list(meta_all("Requires-Dist") or []),
        "classifiers": list(meta_all("Classifier") or []),
        "location": location,
        "top_level": top_level,
    }


def _distributions():
    """[(record)] for every installed distribution, via importlib.metadata when it exists."""
    out = []
    try:
        from importlib import metadata  # Python 3.8+
    except ImportError:
        metadata = None
    if metadata is not None:
        seen = set()
        for dist in metadata.distributions():
            try:
                name = dist.metadata["Name"]
            except Exception:  # noqa: BLE001 - broken metadata: skip that distribution
                continue
            key = _norm(name)
            if not key or key in seen:
                continue  # the first one on sys.path wins, as for imports
            seen.add(key)
            try:
                top = (dist.read_text("top_level.txt") or "").split()
            except Exception:  # noqa: BLE001
                top = []
            try:
                location = str(dist.locate_file(""))
            except Exception:  # noqa: BLE001
                location = None
            md = dist.metadata
            out.append(_dist_record(name, dist.version, md.get, md.get_all, location, top))
        return out
    # Python < 3.8: read *.dist-info/METADATA from sys.path
    from email.parser import Parser

    seen = set()
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        for item in sorted(os.listdir(entry)):
            if not item.endswith(".dist-info"):
                continue
            meta_path = os.path.join(entry, item, "METADATA")
            try:
                with open(meta_path, encoding="utf-8", errors="replace") as fh:
                    md = Parser().parse(fh, headersonly=True)
            except OSError:
                continue
            name = md.get("Name")
            if not name or _norm(name) in seen:
                continue
            seen.add(_norm(name))
            top = []
            try:
                with open(os.path.join(entry, item, "top_level.txt"), encoding="utf-8") as fh:
                    top = fh.read().split()
            except OSError:
                pass
            out.append(_dist_record(name, md.get("Version"), md.get, md.get_all, entry, top))
    return out


def _package_facts():
    """Where ``mindspore`` would be imported from, and what its files say."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("mindspore")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return {}
    root = list(spec.submodule_search_locations)[0]
    facts = {"dir": root}
    try:
        names = os.listdir(root)
    except OSError:
        names = []
    facts["extension_suffixes"] = sorted(
        {n[len("_c_expression"):] for n in names if n.startswith("_c_expression") and not n.endswith(".py")})
    facts["akg"] = os.path.isdir(os.path.join(root, "_akg"))
    check_version = os.path.join(root, "run_check", "_check_version.py")
    facts["check_version"] = check_version if os.path.isfile(check_version) else None
    try:
        with open(os.path.join(root, "default_config.py"), encoding="utf-8") as fh:
            m = re.search(r"__package_name__\s*=\s*['\"]([^'\"]+)", fh.read())
            facts["package_name"] = m.group(1) if m else None
    except OSError:
        facts["package_name"] = None
    devices, cuda = [], []
    lib = os.path.join(root, "lib")
    plugin = os.path.join(lib, "plugin")
    libs = set(os.listdir(lib)) if os.path.isdir(lib) else set()
    plugins = set(os.listdir(plugin)) if os.path.isdir(plugin) else set()
    if "cpu" in plugins or any(n.startswith("libmindspore_ops_cpu") for n in plugins) \
            or any(n.startswith("libmindspore_cpu") for n in libs):
        devices.append("cpu")
    gpu = [n for n in plugins | libs if n.startswith("libmindspore_gpu") or re.match(r"^gpu\d", n)]
    if gpu:
        devices.append("gpu")
        for n in gpu:
            m = re.search(r"(\d+\.\d+)$", n)
            if m and m.group(1) not in cuda:
                cuda.append(m.group(1))
    if "ascend" in plugins or any(n.startswith("libmindspore_ascend") for n in plugins | libs):
        devices.append("ascend")
    facts["devices"] = devices
    facts["cuda"] = sorted(cuda, key=lambda v: tuple(int(x) for x in v.split(".")))
    return facts


def collect():
    import importlib.util
    import platform
    import sysconfig

    dists = _distributions()
    ms = [d for d in dists if "mindspore" in d["top_level"]
          or (not d["top_level"] and _norm(d["name"]) in _MS_NAMES)]
    wanted = {}
    for d in dists:
        if _norm(d["name"]) in _WANTED:
            wanted[_norm(d["name"])] = d
    try:
        decorator_ok = importlib.util.find_spec("decorator") is not None
    except (ImportError, ValueError):
        decorator_ok = False
    return {
        "python": {
            "version": list(sys.version_info[:3]),
            "implementation": platform.python_implementation().lower(),
            "executable": sys.executable,
            "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
            "platform": sys.platform,
            "machine": platform.machine(),
        },
        "mindspore_dists": ms,
        "mindspore_package": _package_facts(),
        "dists": wanted,
        "decorator_importable": decorator_ok,
    }


def main():
    sys.stdout.write("\n" + MARKER + json.dumps(collect()) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
