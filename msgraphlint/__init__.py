"""msgraphlint: static analysis for MindSpore graph-mode code.

The static checker never imports ``mindspore``; only ``msgraphlint.verify``
(the compile cross-check) does, inside a child process.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
