"""What a learner may be told about a failed test, and from where it may come.

A graded kernel runs the learner's code after hidden tests have been in it, so anything
that kernel prints could carry the hidden tests' source: an assertion message that formats
a learner's object, an exception's text, a traceback.  Messages that reach a learner are
therefore built here from trusted text only:

* a failed visible assert is reported with the *instructor's* message, taken from the test
  cell's own source at the line the traceback names (an f-string's values become ``…``, but for
  a per-student variant's parameter, named alone, whose value the grader itself drew); at worst a
  forged traceback chooses among the instructor's messages;
* any other exception is named only when it is one of Python's own exception classes, with where it
  was raised: the cell (the exercise's answer cell, another exercise's, a cell of the learner's own, or
  the test cell) and the line, read from the traceback's frames as numbers only (:func:`raised`).  A
  forged traceback can only move the line named.

The raw text stays in the instructor's record (``detail``), never in feedback.  Each failure is also
kept as a :class:`Failure` (what failed, the concept to revisit, the cause and where), which the
learner's message, the feedback page and the class report are all written from.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import asdict, dataclass

_EXCEPTIONS = {name for name, obj in vars(builtins).items() if isinstance(obj, type) and issubclass(obj, BaseException)}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_LINE = re.compile(r"^\s*(?:Cell\s+)?In\s*\[\s*(\d*)\s*\],\s*line\s+(\d+)")
NOT_STARTED = "the answer cell still holds the stub"
# what a learner is told of the grade path (autograder.gradepath), wherever grading is explained to them
GRADE_PATH = "grading runs your answer cells and what they need; your demos and scratch cells are yours"
STILL_STUB = "the answer cell still raises the stub's NotImplementedError: replace the stub with your answer"
STUB_ERROR, STUB_MESSAGE = "NotImplementedError", "exercise not attempted yet"  # what the released stub raises


def is_stub_error(error: object) -> bool:
    """Whether an error text ("NotImplementedError: exercise not attempted yet") is the released stub's own.
    Its words decide a label only (not attempted, rather than failed: both earn nothing), never a message."""
    return exception_name(error) == STUB_ERROR and STUB_MESSAGE in str(error)


def exception_name(error: object) -> str:
    """The exception an error text names, when it is one of Python's own or torch's OOM; else 'an exception'."""
    name = str(error).split(":", 1)[0].strip().rsplit(".", 1)[-1]
    return name if name in _EXCEPTIONS or name in ("OutOfMemoryError", "AcceleratorError") else "an exception"


def traceback_frames(traceback: object) -> list[tuple[int | None, int]]:
    """The notebook cells' frames a Jupyter traceback names, outermost first: (the cell's execution count, or
    None where the traceback gives none, and the line).  Only each entry's first line is read (the frame's
    header), and only numbers are kept."""
    if not isinstance(traceback, list):
        return []
    frames = []
    for entry in traceback[:200]:
        m = _CELL_LINE.match(_ANSI.sub("", str(entry)).split("\n", 1)[0])
        if m and len(m.group(1)) < 10 and len(m.group(2)) < 10:
            frames.append((int(m.group(1)) if m.group(1) else None, int(m.group(2))))
    return frames


def exercise_number(exercise: str) -> str:
    """``ex1_3`` as a learner reads it: ``1.3``."""
    return exercise[2:].replace("_", ".") if exercise.startswith("ex") else exercise


@dataclass
class Failure:
    """One reason an exercise failed, as every report of it is written: ``check`` (a hidden check's name,
    "visible tests", "answer cell"), the ``concept`` to revisit (a hidden check's hint or a visible
    assert's message; empty where none is known), the ``cause`` where it is not the concept (an
    exception), and ``where`` it was raised ("answer cell, line 4").  Trusted text only."""

    check: str
    concept: str = ""
    cause: str = ""
    where: str = ""

    def text(self) -> str:
        """The learner's line for it: the cause and where, else the concept."""
        if self.cause:
            return self.cause + (f" ({self.where})" if self.where else "")
        return self.concept

    def visible_text(self) -> str:
        """The line for a failure of the visible tests: a failed assert as Python shows it, with the
        instructor's message ("AssertionError: ..."), else :meth:`text`."""
        return f"AssertionError: {self.concept}" if self.concept else self.text()

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v or k == "check"}

    @classmethod
    def from_dict(cls, d: object) -> "Failure":
        d = d if isinstance(d, dict) else {}
        return cls(*(str(d.get(k, "") or "") for k in ("check", "concept", "cause", "where")))


def raised(name: object, origin: str | None, line: int | None, exercise: str) -> tuple[str, str]:
    """The cause and the place of an exception (``name``: its class, or its text "Name: value"), for
    ``exercise``'s tests: ``origin`` is the exercise whose answer cell holds the innermost frame ("your
    function raised"), "" for a cell of the learner's own, None for the test cell or where no frame names
    a cell."""
    stub, name = is_stub_error(name), exception_name(name)
    at = f", line {line}" if line else ""
    if origin is None:
        return f"the tests raised {name}", (f"test cell{at}" if line else "")
    if origin == "":
        return f"your code raised {name}", f"a cell of your own{at}"
    if origin == exercise:
        return f"your function raised {name}", f"answer cell{at}"
    cause = f"your function raised {name}"
    if stub:
        cause += f": exercise {exercise_number(origin)} is not attempted yet, and these tests use it"
    return cause, f"answer cell of exercise {exercise_number(origin)}{at}"


def answer_cause(name: str) -> str:
    """What an answer cell's own error means: why the tests could not use the answer."""
    name = exception_name(name)
    if name in ("SyntaxError", "IndentationError", "TabError"):
        return f"{name} in the answer cell: the code does not parse, so nothing it defines exists"
    if name in ("ImportError", "ModuleNotFoundError"):
        return f"import error ({name}) in the answer cell: it imports a module or name that is not there"
    return f"the answer cell raised {name}"


NO_MESSAGE = "(this assert has no message)"


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
            return NO_MESSAGE
    return None


def visible_assert(name: str | None, line: int | None, test_source: str | None,
                   known: dict | None = None) -> Failure | None:
    """A failed assert of the visible tests at ``line`` of the test cell, its message as the concept (None
    when ``name`` is not an AssertionError of theirs)."""
    if name != "AssertionError":
        return None
    template = assert_template(test_source or "", line, known)
    if template and template != NO_MESSAGE:
        return Failure("visible tests", template)
    cause = "AssertionError in the visible tests" + (f" {NO_MESSAGE}" if template else "")
    return Failure("visible tests", "", cause, f"test cell, line {line}" if line else "")
