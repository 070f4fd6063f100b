"""The bundled reference GPT layer (installed as the package ``msgraphlint_reference``).

Importing this package does not import MindSpore; ``gpt_layer`` does, and only the
``msgraphlint verify`` child process loads it.
"""

import os

GPT_LAYER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpt_layer.py")
