"""torch.nn of the harness's PyTorch stand-in: only ``functional``."""
from . import functional  # noqa: F401
