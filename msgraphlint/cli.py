"""The command line: ``msgraphlint check|rules|explain|verify|doctor|lsp``.

Exit codes (as ruff): 0 no findings, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import List, Optional, Sequence, Tuple

import click

from . import __version__

FORMATS = ("text", "concise", "json", "sarif", "github")


def _split(values: Sequence[str]) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


class _Group(click.Group):
    """Turns unexpected exceptions into exit code 2 with a one-line message (no traceback
    unless MSGRAPHLINT_DEBUG is set)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # pragma: no cover - exercised through a test that injects a failure
            if os.environ.get("MSGRAPHLINT_DEBUG"):
                traceback.print_exc()
            click.echo(f"msgraphlint: internal error: {type(exc).__name__}: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="msgraphlint")
def cli() -> None:
    """Static analysis for MindSpore graph-mode code."""


def _usage_error(message: str) -> None:
    click.echo(f"msgraphlint: error: {message}", err=True)
    sys.exit(2)


def _parse_outputs(fmt: str, output_file: Optional[str], outputs: Sequence[str]) -> List[Tuple[str, Optional[str]]]:
    result: List[Tuple[str, Optional[str]]] = [(fmt, output_file)]
    for spec in outputs:
        name, sep, path = spec.partition("=")
        if not sep or name not in FORMATS or not path:
            _usage_error(f"--output expects FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}, not {spec!r}")
        result.append((name, path))
    return result


def _write(text: str, path: Optional[str]) -> None:
    """stdout for None or ``-``; else ``safe_write.write_output`` (regular files atomically,
    symlinks resolved, FIFOs and devices written directly, never replaced)."""
    if path is None or path == "-":
        click.echo(text, nl=not text.endswith("\n") and bool(text))
        return
    from .safe_write import write_output
    try:
        write_output(text, path)
    except OSError as exc:
        _usage_error(f"cannot write the output to {path}: {exc.strerror or exc}")


@cli.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rule codes, prefixes or names to enable (comma-separated; replaces the config).")
@click.option("--extend-select", multiple=True, help="Rule codes to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rule codes, prefixes or names to disable.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format.")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False), help="Write the output here instead of stdout.")
@click.option("--output", "outputs", multiple=True, metavar="FORMAT=FILE",
              help="An additional output, e.g. --output sarif=results.sarif (repeatable).")
@click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Use this pyproject.toml / msgraphlint.toml.")
@click.option("--target-mindspore", "target", metavar="VERSION", help="MindSpore version the code runs on (default 2.10).")
@click.option("--stdin-filename", metavar="PATH", help="Read the source from stdin and report it as PATH.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--force-exclude", is_flag=True, help="Apply `exclude` to paths given on the command line too.")
@click.option("--color/--no-color", default=None, help="Colour the text output (default: when stdout is a terminal).")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files (atomically), then report what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply fixes marked unsafe.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; change nothing.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False),
              help="Report only findings that are not in this baseline file.")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False),
              help="Record the current findings as the baseline and exit 0.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Result cache location (default: ~/.cache/msgraphlint).")
def check(paths, select, extend_select, ignore, fmt, output_file, outputs, statistics, exit_zero, config_file,
          target, stdin_filename, jobs, force_exclude, color, fix, unsafe_fixes, show_diff, baseline_file,
          write_baseline, no_cache, cache_dir) -> None:
    """Lint PATHS (files or directories; default: the current directory)."""
    from .reporters import render
    from .runner import UsageError, run_paths

    outs = _parse_outputs(fmt, output_file, outputs)
    overrides = None
    paths = list(paths)
    if stdin_filename or paths == ["-"]:
        name = stdin_filename or "<stdin>"
        overrides = {name: sys.stdin.read()}
        paths = [name]
    try:
        result = run_paths(paths or ["."], config_file=config_file,
                           select=_split(select) if select else None, ignore=_split(ignore),
                           extend_select=_split(extend_select), target=target, jobs=jobs,
                           force_exclude=force_exclude, overrides=overrides,
                           cache=not no_cache and overrides is None, cache_dir=cache_dir)
    except UsageError as exc:
        _usage_error(str(exc))
        return
    for message in result.warnings:
        click.echo(f"msgraphlint: warning: {message}", err=True)
    if fix or show_diff:
        if overrides:
            _usage_error("--fix and --diff work on files, not on stdin")
        from .fix_files import fix_paths
        result, changed, errors = fix_paths(result, unsafe=unsafe_fixes, write=not show_diff)
        for message in errors:
            click.echo(f"msgraphlint: warning: {message}", err=True)
        if show_diff:
            for ff in changed:
                click.echo(ff.diff(), nl=False)
            n = sum(ff.applied for ff in changed)
            click.echo(f"Would fix {n} finding{'s' if n != 1 else ''} in {len(changed)} file{'s' if len(changed) != 1 else ''}.", err=True)
            sys.exit(1 if changed and not exit_zero else 0)
        n = sum(ff.applied for ff in changed)
        if n:
            click.echo(f"Fixed {n} finding{'s' if n != 1 else ''} in {len(changed)} file{'s' if len(changed) != 1 else ''}.", err=True)
    if write_baseline:
        from .baseline import write as write_bl
        n = write_bl(write_baseline, result.files)
        click.echo(f"Wrote {n} finding{'s' if n != 1 else ''} to the baseline {write_baseline}.", err=True)
        sys.exit(0)
    baseline_file = baseline_file or result.settings.config.baseline
    if baseline_file:
        from .baseline import BaselineError, apply as apply_bl
        if not os.path.isabs(baseline_file) and result.settings.config.path and not os.path.exists(baseline_file):
            baseline_file = os.path.join(result.settings.config.root, baseline_file)
        try:
            dropped, stale = apply_bl(baseline_file, result.files)
        except BaselineError as exc:
            _usage_error(str(exc))
            return
        for code, path, text in stale:
            click.echo(f"msgraphlint: baseline entry no longer matches: {code} {path}: {text}", err=True)
    use_color = color if color is not None else (output_file is None and sys.stdout.isatty())
    for i, (f, path) in enumerate(outs):
        text = render(f, result.files, result.settings.rules, statistics=statistics and f in ("text", "concise"),
                      color=bool(use_color and path is None and f == "text"))
        _write(text, path)
    if result.internal_errors:  # MSG000: the run completed without some files' findings
        sys.exit(2)
    failed = any(fr.findings or fr.unused_suppressions for fr in result.files)
    sys.exit(0 if exit_zero or not failed else 1)


@cli.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--all", "show_all", is_flag=True, help="Also rules that do not apply to --target-mindspore.")
def rules_cmd(fmt: str, show_all: bool) -> None:
    """List the installed rules."""
    import json

    from .registry import load_rules

    rules = load_rules()
    if fmt == "json":
        click.echo(json.dumps([{
            "code": r.code, "name": r.name, "summary": r.summary, "severity": r.severity.value,
            "fix": r.fix_safety.value if r.fix_safety else None, "mindspore": r.mindspore, "scope": r.scope,
            "module": r.__module__, "default": r.on_by_default(),
            "default_reason": None if r.on_by_default() else (r.default_reason or "informational"),
        } for r in rules.values()], indent=2))
        return
    width = max((len(r.name) for r in rules.values()), default=10)
    for r in rules.values():
        fix = "[*]" if r.fix_safety else "   "
        off = "   " if r.on_by_default() else "off"
        click.echo(f"{r.code}  {r.name:<{width}}  {fix} {off}  {r.summary}")
    click.echo("\n[*] offers a fix; off: not selected by default (informational: advice, not a defect); "
               "turn it on with its code (`--extend-select MSG511`) or `select = [\"ALL\"]`.")


@cli.command("explain")
@click.argument("code")
def explain(code: str) -> None:
    """Show a rule's documentation (code such as MSG201, or its name)."""
    from .registry import find_rule

    try:
        rule = find_rule(code)
    except KeyError:
        _usage_error(f"unknown rule code or name: {code} (see `msgraphlint rules`)")
        return
    click.echo(rule.docs(), nl=False)


def _register_optional() -> None:
    """Subcommands whose modules are heavier; imported only for their own invocation."""

    @cli.command("verify", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                 add_help_option=False)
    @click.pass_context
    def verify(ctx) -> None:
        """Compile a Cell or jit function with fusion on and cross-check findings against the graph IR."""
        from .verify.command import verify_command
        sys.exit(verify_command.main(args=ctx.args, prog_name="msgraphlint verify", standalone_mode=True))

    @cli.command("doctor", context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                 add_help_option=False)
    @click.pass_context
    def doctor(ctx) -> None:
        """Check the MindSpore environment (versions, NumPy, kernel compiler, pins)."""
        from .doctor import doctor_command
        sys.exit(doctor_command.main(args=ctx.args, prog_name="msgraphlint doctor", standalone_mode=True))

    @cli.command("lsp")
    def lsp() -> None:
        """Run the language server on stdio (needs the `lsp` extra)."""
        try:
            from .lsp import main as lsp_main
        except ImportError as exc:
            _usage_error(f"the language server needs pygls: pip install 'msgraphlint[lsp]' ({exc})")
            return
        lsp_main()


_register_optional()


def main(argv: Optional[Sequence[str]] = None) -> None:
    cli.main(args=list(argv) if argv is not None else None, prog_name="msgraphlint")


if __name__ == "__main__":  # pragma: no cover
    main()
