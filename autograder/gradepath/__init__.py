"""The grade path: the cells a grade runs, and nothing else.

A hidden test observes the learner's functions on inputs it draws from its own seed.  What the
notebook's demos do with the learner's code is for the learner to see, not for the grade, so a
notebook's grade is defined on its grade path (:func:`grade_path`), read from the cells' sources
(:mod:`autograder.gradepath.cells`), never by running them:

- its graded cells: the answer cells, the test cells, and the cells that bind a per-student variant;
- every cell that binds a name a cell on the path reads, or changes the object it names, from that
  name's last plain rebinding on (``x = ...`` not reading ``x``, ``def x``, ``import x``): the
  instructor's imports, data, constants and helpers, and the learner's own cells where the path
  needs what they bind.  A name read when a cell runs is looked for before that cell; a name read by
  a function a cell defines, which may be called from any later cell, up to the last graded cell.
  A test cell calls the functions it defines before it ends (it binds only ``_exN_M_`` names, which no
  other cell calls), so what they read is read there.  A file written by ``%%writefile`` is bound like a
  name, and read by a cell that names it in a string.

Nothing else runs when grading: not in ``grade``, not in nbgrader's *Autograde*, not in
``check --hidden``, not on Slurm.  A demo runs only if a graded cell reads what it binds.  Validate,
which the learner runs, still runs every cell, and so does ``--full``, a diagnostic that runs the
notebook top to bottom beside its path and says where the verdicts differ.

**One rule for what code reaches without naming it.**  The path follows the names cells spell.  Code
that reaches the namespace another way (``dir()``, ``globals()``, ``vars()``, ``eval``/``exec``,
``__main__``, ``sys.modules``, a frame's globals, IPython's history and output cache, a file a demo
wrote) sees the namespace as the path left it, and what it finds there is the grade's, whether the
answer passes or fails because of it.  No spelling is looked for.

Proven on the reference, not assumed (``tests/grading/test_notebooks.py``): before every graded cell of every
course notebook, every name it reads (its functions' globals included) holds the same value on the
path as top to bottom, and torch's settings are the same (:func:`differences`, on fingerprints the
kernel reports, :mod:`autograder.probe.statedigest`); every answer variant of ``tests/answers``, right
and wrong, gets the same verdict on the path as top to bottom.

May import: :mod:`autograder.values`.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field

import nbformat

from autograder.gradepath.cells import BUILTIN_NAMES, analyze, file_name
from autograder.values import course
from autograder.values.messages import GRADE_PATH

MAY_IMPORT: tuple[str, ...] = ("values",)
# what an off-path cell shows in the graded notebook (trusted text: it names nothing of the learner's)
OFF_PATH_NOTE = f"[not run when grading: no answer or test cell reads what this cell makes; {GRADE_PATH}]\n"


@dataclass
class GradePath:
    """A notebook's grade path: indexes into its ``cells``."""

    cells: set[int]  # the code cells on the path
    code_cells: int  # code cells in the notebook
    why: dict[int, str] = field(default_factory=dict)  # why each is on it
    inputs: dict[int, set[str]] = field(default_factory=dict)  # each graded cell's names, its functions' globals included

    @property
    def summary(self) -> str:
        return f"path: {len(self.cells)} of {self.code_cells} code cells"


def grade_path(nb) -> GradePath:
    """The grade path of ``nb`` (this module's docstring says what it holds)."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    facts = {i: analyze(nb.cells[i].get("source", "")) for i in code}
    modules = set().union(*(f.modules for f in facts.values())) if facts else set()
    writes = {i: f.binds | f.changed(modules) for i, f in facts.items()}
    files = {n[len(file_name("")):] for f in facts.values() for n in f.binds if n.startswith(file_name(""))}
    graded = [i for i in code if course.grade_id(nb.cells[i])]
    path = GradePath(set(graded), len(code), {i: f"graded cell {course.grade_id(nb.cells[i])}" for i in graded})
    if not graded:
        return path
    end = max(graded)

    def writers(name: str, at: int, late: bool) -> list[int]:
        """The cells that bind or change ``name`` where a read of it by cell ``at`` (``late``: by a function
        cell ``at`` defines, called from any later cell up to the last graded one) may see what they did."""
        start = max((j for j in code if j < at and name in facts[j].kills), default=-1)
        stop = end if late else at
        return [j for j in code if start <= j <= stop and j != at and (name in writes[j] or facts[j].star)]

    def named(strings: set[str]) -> set[str]:
        return {file_name(f) for f in files if any(f in s for s in strings)}

    def reads(i: int) -> list[tuple[str, bool]]:
        f = facts[i]
        late = not course.is_tests(nb.cells[i])
        now = (f.reads - BUILTIN_NAMES) | named(f.strings)
        return [(n, False) for n in sorted(now)] + \
               [(n, late) for n in sorted((f.late_reads - BUILTIN_NAMES) | named(f.late_strings)) if n not in now]

    todo = list(graded)
    while todo:
        i = todo.pop()
        for name, late in reads(i):
            for j in writers(name, i, late):
                if j not in path.cells:
                    path.cells.add(j)
                    path.why[j] = f"it binds or changes {name}, which code cell {code.index(i) + 1} reads"
                    todo.append(j)
    for i in graded:  # what each graded cell reads, and what the path's functions it reads read in turn
        seen, names = set(), {n for n, _ in reads(i)}
        while names - seen:
            n = min(names - seen)
            seen.add(n)
            for j in writers(n, i, False):
                names |= facts[j].late_reads - BUILTIN_NAMES
        path.inputs[i] = {n for n in seen if not n.startswith(file_name(""))}
    return path


def mark(nb, path: GradePath) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose code cells off ``path`` the executor does not run: each shows
    :data:`OFF_PATH_NOTE` instead (:func:`autograder.grading.execute.skip_reason`)."""
    out = copy.deepcopy(nb)
    for i, cell in enumerate(out.cells):
        if cell.cell_type == "code" and i not in path.cells:
            cell.setdefault("metadata", {}).setdefault("autograder", {})["skipped"] = OFF_PATH_NOTE
    return out


def differences(nb, path: GradePath, full: dict[int, str], on_path: dict[int, str]) -> list[str]:
    """Where the graded cells of ``nb`` saw other values on the path than top to bottom, said plainly, one
    line per graded cell: ``full`` and ``on_path`` map each graded cell to what the kernel reported just
    before it ran (:func:`autograder.probe.statedigest.report` of :attr:`GradePath.inputs`)."""
    out = []
    for i in sorted(path.inputs):
        label = f"{course.grade_id(nb.cells[i])} (cell {i})"
        try:
            a, b = json.loads(full.get(i) or ""), json.loads(on_path.get(i) or "")
        except ValueError:
            out.append(f"{label} could not be fingerprinted: {(full.get(i) or '')[:150]} / {(on_path.get(i) or '')[:150]}")
            continue
        for part, what in (("names", "the value of"), ("settings", "torch's setting")):
            diff = sorted(k for k in set(a.get(part, {})) | set(b.get(part, {}))
                          if a.get(part, {}).get(k) != b.get(part, {}).get(k))
            if diff:
                out.append(f"before {label}, {what} {', '.join(diff[:6])} differs between top to bottom and the path")
    return out
