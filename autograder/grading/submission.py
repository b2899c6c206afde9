"""A submission, read without trusting it, and the notebook that is run for it.

:func:`merge` rebuilds the notebook to run from the instructor's copy: the learner's answer
cells and own cells, every test cell restored (tampering is recorded, not silently fixed),
and each hidden test given its own seed (:func:`arm_hidden_tests`).
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder import probe
from autograder.values import course, outputs, released, variants
from autograder.values.digest import sha

MAX_SUPPORT_FILE = 50 * 1024 * 1024
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


@dataclass
class Submission:
    """A submitted notebook, read once: its digest (of the bytes on disk, ``sha("")`` when it is missing) and
    the notebook parsed without trust, or the problem that kept it from being read."""

    sha: str
    nb: nbformat.NotebookNode | None
    problem: str | None


def read_submission(path: Path) -> Submission:
    """Read a submitted notebook once: hash its bytes and parse them without trusting them."""
    if path.is_symlink() or not path.is_file():
        return Submission(sha(b""), None, "the submitted notebook is missing")
    try:
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            return Submission(digest.hexdigest(), None,
                              f"the submitted notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
        raw = path.read_bytes()
    except OSError as exc:
        return Submission(sha(b""), None, f"the submitted notebook could not be read ({type(exc).__name__})")
    nb, problem = parse_submission(raw)
    return Submission(sha(raw), nb, problem)


def graded_ids_of(path: Path) -> set[str]:
    """The nbgrader grade ids a submitted notebook carries (read without trust; none when it does not read)."""
    submitted = read_submission(path)
    return set() if submitted.problem or submitted.nb is None else course.graded_ids(submitted.nb)


def notebook_ids(assignment: course.Assignment) -> dict[str, set[str]]:
    """Each notebook of ``assignment`` and the nbgrader grade ids of its cells, by which a renamed copy
    is recognised (:func:`renamed_notebook`)."""
    return {nb: course.graded_ids(course.read(assignment.solution(nb))) for nb in assignment.notebooks()}


def renamed_notebook(path: Path, names: dict[str, set[str]]) -> str | None:
    """The notebook of ``names`` (notebook -> grade ids, :func:`notebook_ids`) that a file not named after
    it is: the one whose cells it carries, and no other notebook's (``01_tensors (1).ipynb``,
    ``01_tensors-Copy1.ipynb``, another case).  None when it carries none, several, or does not read."""
    ids = graded_ids_of(path)
    carried = {nb for nb, nb_ids in names.items() if nb_ids & ids}
    return carried.pop() if len(carried) == 1 else None


def parse_submission(raw: bytes) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse a submitted notebook's bytes without trusting them; return (notebook, problem)."""
    try:
        nb = nbformat.reads(raw.decode("utf-8", errors="replace"), as_version=4)
        if not isinstance(nb.get("cells"), list):
            return None, "the submitted notebook has no cell list"
        for cell in nb.cells:
            if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
                return None, "the submitted notebook has a malformed cell"
            if not isinstance(cell.get("source", ""), str):
                cell["source"] = "".join(map(str, cell.get("source", [])))
            if not isinstance(cell.get("metadata"), dict):
                cell["metadata"] = nbformat.NotebookNode()
            nbg = cell["metadata"].get("nbgrader")
            if nbg is not None and (not isinstance(nbg, dict) or not isinstance(nbg.get("grade_id", ""), str)):
                cell["metadata"]["nbgrader"] = {"malformed": True}  # run as a plain cell, reported
        return nb, None
    except Exception as exc:  # malformed JSON, wrong nbformat, bad encoding
        return None, f"the submitted notebook could not be read ({type(exc).__name__}: {str(exc)[:200]})"


VARIANT_NOTE = "holds another variant than the one this student is graded on"
_VARIANT_TAMPER = re.compile(rf"^variant cell (\S+) {VARIANT_NOTE} \(graded with (.+)\)$")


def variant_note(gid: str, values: dict) -> str:
    """The instructor's note for a variant cell that holds another variant than the student's own (``values``)."""
    mine = ", ".join(f"{k} = {v!r}" for k, v in values.items())
    return f"variant cell {gid} {VARIANT_NOTE} (graded with {mine})"


def learner_variant_lines(tampering: list[str]) -> list[str]:
    """What a learner is told of :func:`variant_note`: that the tests ran on their own variant, and which
    (values the grader drew for them, never what the notebook held)."""
    lines = []
    for note in tampering:
        m = _VARIANT_TAMPER.match(str(note))
        if m:
            lines.append(f"Your notebook holds another variant than yours (cell {m.group(1)}): it was graded on your "
                         f"own, {m.group(2)}, so answers written for the other one may fail here. Answer for your "
                         "own variant (ask your instructor for your own copy if you worked in someone else's).")
    return lines


def merge(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode,
          solution: nbformat.NotebookNode, hidden: bool = True,
          released_cells: dict[str, list[tuple[str, str]]] | None = None
          ) -> tuple[nbformat.NotebookNode, list[str], list[str]]:
    """The notebook to grade, what the submission changed that it should not have, and the grade ids of
    the cells it holds as an earlier release handed them out (no edit: the current ones run).

    Answer cells (nbgrader solution cells) and the learner's own extra cells come
    from the submission; every test cell comes from ``solution`` (with hidden
    tests) or ``release`` (visible tests only), whatever the submission holds.
    A submitted cell is judged against every version a release of the course handed out
    (``released_cells``, the course's own record: :mod:`autograder.values.released`) and the
    current one; one that matches none of them was edited.
    """
    tamper: list[str] = []
    earlier: list[str] = []
    sol_by_id = {course.grade_id(c): c for c in solution.cells if course.grade_id(c)}
    rel_by_id = {course.grade_id(c): c for c in release.cells if course.grade_id(c)}
    template_ids = [course.grade_id(c) for c in release.cells if course.grade_id(c)]

    def versions(gid: str, flags_only: bool) -> tuple[set, set]:
        """The versions of a cell as the current release has it (or with its hidden tests, as the instructor
        wrote it), and every version handed out; with ``flags_only``, of its flags and points alone."""
        ref = rel_by_id[gid]
        current = {released.version(ref)}
        if gid in sol_by_id:
            current.add((released.source_digest(sol_by_id[gid].get("source", "")), released.meta_digest(ref)))
        every = current | {tuple(v) for v in (released_cells or {}).get(gid, [])}
        if flags_only:
            return {(None, m) for _, m in current}, {(None, m) for _, m in every}
        return current, every

    def trusted(gid: str):
        src = sol_by_id.get(gid) if hidden else None
        cell = copy.deepcopy(src if src is not None else rel_by_id[gid])
        cell.outputs = [] if cell.cell_type == "code" else cell.get("outputs")
        if cell.cell_type != "code":
            cell.pop("outputs", None)
        return cell

    out: list = []
    emitted: set[str] = set()

    def emit_missing_before(k: int) -> None:
        for gid in template_ids[:k]:
            if gid not in emitted:
                out.append(trusted(gid) if not course.is_solution(rel_by_id[gid]) else copy.deepcopy(rel_by_id[gid]))
                emitted.add(gid)
                kind = "answer" if course.is_solution(rel_by_id[gid]) else "test"
                tamper.append(f"{kind} cell {gid} was deleted (restored from the release)")

    if student is None:
        student = copy.deepcopy(release)
    if student.get("metadata", {}).get("kernelspec", {}).get("name", "python3") != "python3":
        tamper.append("kernelspec changed to %r (ignored: graded with python3)"
                      % str(student.metadata.kernelspec.get("name"))[:40])
    seen_ids: set[str] = set()
    for cell in student.cells:
        if course.nbgrader_meta(cell).get("malformed"):
            tamper.append("a cell's nbgrader metadata is malformed (run as a plain cell)")
        gid = course.grade_id(cell)
        if gid and gid in seen_ids:
            tamper.append(f"cell id {gid} appears more than once (the copy was run as a plain cell)")
            gid = None
        if gid and gid not in rel_by_id:
            tamper.append(f"unknown graded cell id {str(gid)[:40]} (run as a plain cell)")
            gid = None
        if gid is None:
            # the learner's own cells; their Markdown is shown as text (no HTML or script reaches a reader)
            plain = nbformat.v4.new_code_cell(cell.get("source", "")) if cell.get("cell_type") == "code" \
                else nbformat.v4.new_markdown_cell(outputs.inert_markdown(cell.get("source", "")))
            out.append(plain)
            continue
        seen_ids.add(gid)
        emit_missing_before(template_ids.index(gid))
        ref = rel_by_id[gid]
        # an answer cell's source is the learner's, a variant cell's is judged by its values: flags and points alone
        flags_only = course.is_solution(ref) or variants.is_variant_cell(ref)
        current, every = versions(gid, flags_only)
        mine = (None, released.meta_digest(cell)) if flags_only else released.version(cell)
        source_known = mine[0] in {v[0] for v in every}
        if mine in current:
            pass
        elif mine in every:
            earlier.append(gid)  # as an earlier release handed it out: no edit
        elif mine[1] not in {v[1] for v in every} or source_known:  # or a mix of versions that no release made
            tamper.append(f"nbgrader metadata of {gid} changed (points or flags; the original was used)")
        if course.is_solution(ref):
            answer = copy.deepcopy(ref)
            answer.source = cell.get("source", "")
            if answer.cell_type == "code":
                answer.outputs = []
            out.append(answer)
        else:
            if variants.is_variant_cell(ref):
                if variants.values_in(cell) != variants.values_in(ref):
                    tamper.append(variant_note(gid, variants.values_in(ref)))
            elif not source_known:
                tamper.append(f"test cell {gid} was edited (the original tests were run)")
            out.append(trusted(gid))
        emitted.add(gid)
    emit_missing_before(len(template_ids))
    nb = nbformat.v4.new_notebook(cells=out, metadata=copy.deepcopy(release.metadata))
    for i, cell in enumerate(nb.cells):
        cell.id = course.grade_id(cell) or f"cell-{i}"
    return nb, tamper, earlier


def arm_hidden_tests(nb: nbformat.NotebookNode, seed: int, marks: course.Markers, *, variant: dict
                     ) -> nbformat.NotebookNode:
    """Write each hidden test's own seed into its block (:func:`autograder.probe.arm`), and bind again the
    per-student variant's parameters the block names to ``variant``, the values the grader drew.

    The kernel's environment holds no seed: code that runs before a hidden test cannot work out
    its inputs, and what a later cell can read of one test's seed says nothing of another's.  A hidden
    test that builds its inputs from a parameter (a loss lower than the best by ``MIN_DELTA / 2``) reads
    the grader's value, not one the learner's code bound in its place: an answer written for another
    variant cannot bring the tests round to it."""
    for cell in nb.cells:
        ex = course.exercise_of(cell)
        if ex and course.is_tests(cell) and marks.hides_tests(cell.source):
            head, tail = cell.source.split(marks.begin_hidden, 1)
            first, _, rest = tail.partition("\n")
            line = probe.arm_line(ex, probe.derive_seed(seed, ex)) + variants.binding_lines(variant, rest)
            cell.source = f"{head}{marks.begin_hidden}{first}\n{line}{rest}"
    return nb


def attempted(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode, ex: course.Exercise) -> bool:
    """Whether the learner changed any of the exercise's answer cells from the released stub."""
    if student is None:
        return False
    stubs = {course.grade_id(c): c.source.strip() for c in release.cells
             if course.exercise_of(c) == ex.id and course.is_solution(c)}
    for cell in student.cells:
        gid = course.grade_id(cell)
        if gid in stubs and cell.get("source", "").strip() != stubs[gid]:
            return True
    return False


def copy_support_files(src: Path, dest: Path) -> None:
    """Copy the regular non-notebook files of ``src`` (no links, nothing huge) into ``dest``."""
    if not src.is_dir():
        return
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "feedback")]
        for f in files:
            p = Path(root) / f
            if p.suffix == ".ipynb" or p.is_symlink() or not p.is_file() or p.stat().st_size > MAX_SUPPORT_FILE:
                continue
            target = dest / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
