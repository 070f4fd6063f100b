"""Codes the engine itself reports (they carry docs like any rule)."""

from msgraphlint.rule import Invalid, Rule, Severity, Valid


class InternalError(Rule):
    code = "MSG000"
    default = True  # an analysis that failed is always reported
    name = "internal-error"
    summary = "The analysis of this file failed (a bug, exhausted stack or memory, or the per-file budget); its findings are missing."
    message = "internal error while checking this file ({reason}); none of its findings are reported"
    severity = Severity.ERROR
    scope = "module"
    rationale = """
        One bad file never takes the run down. When analysing a file raises an
        unexpected exception (`RecursionError`, `MemoryError`, any bug), or runs past
        the per-file budget of CPU time (60 s plus 30 s per MB of source;
        `msgraphlint.run.budget`: a cost linear in the size never reaches it),
        or its `--jobs` worker process dies, that file gets this one finding with the
        exception type, and every other file is reported as usual. The run then exits
        with code 2 (like ruff after a panic), also under `--exit-zero`: a clean report
        with a file missing must not pass CI. It cannot be deselected or suppressed.

        This is a bug in msgraphlint, not in your code (a file Python cannot parse is
        MSG001): please report it with the file, or a reduced copy, and
        `msgraphlint --version`. No source triggers it on purpose, so this rule has no
        INVALID example; `tests/test_fault_isolation.py` injects failures instead.
    """
    VALID = [Valid("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
                   "        return x + " + " + ".join(["x"] * 500) + "\n",
                   note="a chain of 500 additions is analysed, not an internal error")]
    INVALID = []


class ParseError(Rule):
    code = "MSG001"
    name = "parse-error"
    summary = "The file could not be read or parsed; nothing in it was checked."
    message = "cannot analyse this file: {reason}"
    severity = Severity.ERROR
    scope = "module"
    rationale = """
        A file that is not valid Python (a syntax error, an undecodable byte, a bad
        coding cookie, mixed tabs and spaces) becomes this one finding at the place
        Python points to, and the run goes on with the other files. Fix the file:
        MindSpore could not compile it either. Files that never mention `mindspore`,
        `construct` or `jit` are not parsed at all (they cannot hold graph-mode
        code), so they are not reported.

        A YAML run config (a file with a `model_config:`, `parallel_config:` or
        `parallelism:` key) that does not parse is reported too; other YAML that does
        not parse is named on stderr as skipped. Any YAML file whose aliases expand to
        more than 100,000 nodes beyond its own (an alias bomb) or that nests deeper than
        100 levels is this finding, naming the limit: it is refused while parsing.
    """
    VALID = [Valid("x = 1\n"), Valid("\n", note="an empty file is fine")]
    INVALID = [Invalid("import mindspore\ndef f(:\n    pass\n", line=2),
               Invalid("import mindspore\nif x\n    pass\n", line=2),
               Invalid("import mindspore\nif True:\n\tx = 1\n        y = 2\n", line=4, note="inconsistent tabs")]


class UnusedSuppression(Rule):
    code = "MSG002"
    default = True  # engine code: a stale suppression is always worth removing
    name = "unused-suppression"
    summary = "A `# noqa: MSG…` or `# msgraphlint: ignore[…]` comment suppresses nothing."
    message = "unused suppression"
    severity = Severity.INFO
    scope = "module"
    rationale = """
        Suppressions outlive the code they were written for. A suppression comment that
        names an msgraphlint code (or a bare `# msgraphlint: ignore`) but silences no
        finding on its line is reported so it can be deleted. `# noqa` comments that
        name only other tools' codes (E501, F401…) are left alone.

        Codes match exactly, as in ruff: upper case, as `msgraphlint rules` lists them.
        Only a comment without a code list (`# noqa`, `# msgraphlint: ignore`) silences
        every code; a code list never does, whatever it holds. An entry that is not a
        rule code (`msg201`, `MSG2O1` with a letter O, `MSG999`; in a `# noqa`, one that
        carries an installed rule's prefix in any case) suppresses nothing and is
        reported here with the code it probably meant: "`msg201` is not a rule code
        (codes are upper case: did you mean `MSG201`?)". So is `# noqa:` followed by no
        code where it would have silenced a finding, `# msgraphlint: ignore[]` and
        `# msgraphlint: ignore: MSG201` (the codes go in brackets).
        `# msgraphlint: skip-file[MSG201]` silences its codes in the whole file (a bare
        `skip-file` skips the file); a code of it that silences nothing is reported too.
    """
    hint = "remove the stale code from the comment"
    VALID = [Valid("x = 1  # noqa: E501\n", note="another tool's code"),
             Valid("x = 1  # noqa\n", note="a bare noqa may belong to another tool")]
    INVALID = [Invalid("import mindspore\nx = 1  # msgraphlint: ignore\n", line=2),
               Invalid("import mindspore\nx = 1  # noqa: msg201\n", line=2,
                       note="not a rule code (MSG201 is): it suppresses nothing")]


class FixNotWritten(Rule):
    code = "MSG003"
    name = "fix-not-written"
    summary = "`--fix` had fixes for this file but could not write them (a read-only file or folder)."
    message = "the fixes for this file were not written: {reason}"
    severity = Severity.ERROR
    scope = "module"
    rationale = """
        `check --fix` never changes a file's permissions. A file without write
        permission (even for root), or one in a folder without write permission (a fix
        is written to a temporary file next to the file first), is left exactly as it
        is; this finding says so, at line 1 of the file, and the run goes on with the
        other files. The file's own findings are reported as they are on disk. Make the
        file writable and run `--fix` again, or apply the fixes by hand (`--diff` shows
        them).
    """
    hint = "make the file writable and run --fix again, or apply the fixes by hand (--diff shows them)"
    no_invalid_example = "reported only by --fix on a file it cannot write (tests/test_fixes_files.py)"
    VALID = [Valid("import mindspore\nx = 1\n")]


class ReachedFromCall(Rule):
    code = "MSG004"
    default = True  # engine code: a helper's problem shown where the caller looks
    name = "reached-from-call"
    summary = "A call in graph code reaches a finding in a helper or sub-Cell of another file (reported at the call)."
    message = "`{callee}()` reaches {code} ({name}) at {where}"
    severity = Severity.WARNING
    scope = "module"
    rationale = """
        A `print`, an in-place write or an `.asnumpy()` in a helper or sub-Cell is
        compiled into every graph that calls it, but it sits in another file: the file a
        pre-commit hook is given, the buffer open in the editor, may be only the caller.
        So each finding inside a helper or sub-Cell (`self.block = Block()`, then
        `self.block(x)`) reached from graph code in another file is also reported at the
        call in the caller's file, on one line that names the original finding and where
        it is: "`helper()` reaches MSG201 (print-in-graph) at src/utils.py:2"; the
        original's message follows as a note, and its severity is the original's. A file gets one such line per original
        finding, at its first call that reaches it (a helper two calls away is reported at
        the call that leaves the file); a helper in the same file is reported there
        once, not again at its call.

        It is its own code, so `--statistics` counts each original finding once, under
        its own code, and these lines apart, here; `ignore = ["MSG004"]` turns them off.
        The original code governs it too: it is reported only where that code is
        selected and not ignored (`--ignore MSG201` drops its call-site lines too, as
        does a `per-file-ignores` of MSG201 for the caller's file), and only while the
        original is reported (a `# noqa: MSG201` on the `print` silences both).
        Suppress it on the call's line with `# noqa: MSG004` (every such line there) or
        with the original code (`# noqa: MSG201`). It is reported whether or not the
        helper's file is linted in the same run, so a hook given only the caller still
        fails; in JSON it carries `origin` (code, path, line, column), in SARIF a
        `relatedLocations` entry for the original.
    """
    hint = "fix the original finding (where the message points), or suppress it there or on this line"
    no_invalid_example = "reported only across files (tests/test_call_sites.py)"
    VALID = [Valid("import mindspore.nn as nn\n\ndef helper(x):\n    print(x)\n    return x\n\n"
                   "class Net(nn.Cell):\n    def construct(self, x):\n        return helper(x)\n",
                   note="a helper in the same file: its finding (MSG201) is reported there only")]
