"""Step 2: the notebook to run, rebuilt from the instructor's copy (:func:`merge`):
the learner's answer cells and own cells, every test cell restored, and what was tampered with logged in the
result (not silently fixed); a cell as an earlier release of the course handed it out is no edit
(:mod:`autograder.values.released`).  A notebook with none of the release's cells is noted as not this notebook.
A variant cell that holds another student's values is noted here (:func:`variant_note`), and told to the learner
from that note alone (:func:`learner_variant_lines`)."""

from __future__ import annotations

import copy
import re

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.values import course, outputs, released, timing, variants


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


class RestoreInstructorCells(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        data = run.data
        with timing.phase("grader: merge with the instructor's copy"):
            merged, run.result.tampering, run.result.earlier_release = merge(
                nb, data.release, data.solution, hidden=run.hidden, released_cells=data.released_cells())
        released_ids = {course.grade_id(r) for r in data.release.cells if course.grade_id(r)}
        if not any(course.grade_id(c) in released_ids for c in nb.cells):
            run.result.tampering.append(
                f"the notebook does not look like {data.assignment.name}/{data.name} (no matching cells)")
        return merged, resources
