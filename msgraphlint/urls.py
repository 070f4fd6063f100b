"""Where the project's documentation lives (rule pages, SARIF ``helpUri``): read from the
installed metadata or the checkout's pyproject.toml. Below ``rule.py`` and ``ruledocs.py``,
which both need it."""

from __future__ import annotations

import os


def docs_base_url() -> str:
    """Where the rule pages live: ``MSGRAPHLINT_DOCS_URL`` when set (a fork or a mirror),
    else the ``Documentation`` URL of ``[project.urls]`` in pyproject.toml (read from the
    installed package's metadata) + ``rules/``."""
    env = os.environ.get("MSGRAPHLINT_DOCS_URL")
    if env:
        return env.rstrip("/") + "/"
    return _declared_docs_url().rstrip("/") + "/rules/"


_DOCS_URL = None


def _declared_docs_url() -> str:
    global _DOCS_URL
    if _DOCS_URL is None:
        url = None
        try:
            from importlib.metadata import PackageNotFoundError, metadata
            for entry in metadata("msgraphlint").get_all("Project-URL") or []:
                label, _, value = entry.partition(",")
                if label.strip().lower() == "documentation":
                    url = value.strip()
        except (ImportError, PackageNotFoundError):  # pragma: no cover - running from a bare checkout
            url = None
        if url is None:  # not installed: read the checkout's pyproject.toml
            url = _pyproject_docs_url()
        _DOCS_URL = url
    return _DOCS_URL


def _pyproject_docs_url() -> str:
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    with open(path, "rb") as fh:
        return tomllib.load(fh)["project"]["urls"]["Documentation"]


def repository_url() -> str:
    """The ``Repository`` URL of ``[project.urls]`` (SARIF's ``informationUri``): an address
    the project declares, not a documentation site it has none of."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata
        for entry in metadata("msgraphlint").get_all("Project-URL") or []:
            label, _, value = entry.partition(",")
            if label.strip().lower() == "repository":
                return value.strip()
    except (ImportError, PackageNotFoundError):  # pragma: no cover - running from a bare checkout
        pass
    import sys
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    with open(path, "rb") as fh:
        return tomllib.load(fh)["project"]["urls"]["Repository"]
