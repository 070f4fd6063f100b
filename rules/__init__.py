"""The built-in msgraphlint rules, installed as the package ``msgraphlint_rules``.

One rule (or one tight family) per module; each module's ``Rule`` subclasses are
collected by ``msgraphlint.engine.registry`` through the ``msgraphlint.rules`` entry point,
exactly like a third-party pack's.
"""
