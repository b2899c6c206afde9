"""What a learner may be told about a failed test, and from where it may come.

A graded kernel runs the learner's code after hidden tests have been in it, so anything
that kernel prints could carry the hidden tests' source: an assertion message that formats
a learner's object, an exception's text, a traceback.  Messages that reach a learner are
therefore built here from trusted text only:

* a failed visible assert is reported with the *instructor's* message, taken from the test
  cell's own source at the line the traceback names (an f-string's values become ``…``, but for
  a per-student variant's parameter, named alone, whose value the grader itself drew); at worst a
  forged traceback chooses among the instructor's messages;
* any other exception is named only when it is one of Python's own exception classes.

The raw text stays in the instructor's record (``detail``), never in feedback.
"""

from __future__ import annotations

import ast
import builtins
import re

_EXCEPTIONS = {name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_LINE = re.compile(r"(?:Cell\s+)?In\s*\[\s*\d*\s*\],\s*line\s+(\d+)")


def exception_name(error: object) -> str:
    """The exception an error text names, when it is one of Python's own or torch's OOM; else 'an exception'."""
    name = str(error).split(":", 1)[0].strip().rsplit(".", 1)[-1]
    return name if name in _EXCEPTIONS or name in ("OutOfMemoryError", "AcceleratorError") else "an exception"


def traceback_line(traceback: object) -> int | None:
    """The line of the cell itself (the outermost frame) that a Jupyter traceback names."""
    if not isinstance(traceback, list):
        return None
    for entry in traceback:
        m = _CELL_LINE.search(_ANSI.sub("", str(entry)))
        if m:
            return int(m.group(1))
    return None


def _field(value: ast.FormattedValue, known: dict) -> str:
    """An f-string's field as a learner may see it: a known parameter's value, formatted as written; else ``…``."""
    if not isinstance(value.value, ast.Name) or value.value.id not in known or value.format_spec is not None:
        return "…"
    v = known[value.value.id]
    return {ord("r"): repr, ord("a"): ascii}.get(value.conversion, str)(v)


def assert_template(source: str, line: int | None, known: dict | None = None) -> str | None:
    """The message of the ``assert`` of ``source`` that spans ``line``, values shown as ``…`` (but the
    trusted values ``known`` by name: a per-student variant's parameters)."""
    if line is None:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            msg = node.msg
            if isinstance(msg, ast.Constant) and isinstance(msg.value, str):
                return msg.value
            if isinstance(msg, ast.JoinedStr):
                return "".join(v.value if isinstance(v, ast.Constant) else _field(v, known or {}) for v in msg.values)
            return "(this assert has no message)"
    return None


def visible_failure(name: str | None, line: int | None, test_source: str | None, known: dict | None = None) -> str:
    """The learner-facing message for a test cell that raised ``name`` at its ``line``, from trusted text only
    (``known``: the student's variant, drawn by the grader)."""
    if name == "AssertionError":
        template = assert_template(test_source or "", line, known)
        if template:
            return f"AssertionError: {template}"
        return "AssertionError in the visible tests"
    where = f" (test cell, line {line})" if line else ""
    return f"the tests raised {exception_name(name)}{where}"
