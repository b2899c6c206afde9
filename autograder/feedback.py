"""``autograder feedback``, and the same feedback inside nbgrader (:class:`LearnerFeedback`).

Stock ``nbgrader generate_feedback`` renders the autograded notebook as it is,
hidden tests included (nbgrader issue 917).  Here the feedback notebook keeps
only the visible part of every test cell and opens with a table of each exercise's
result and the concept to revisit.

Once a hidden test has run in the kernel, the learner's code could read its source
(``In``, ``linecache``, frames, memory) and print it in any form.  So the feedback shows
the grading run's outputs only for the cells that ran before the first hidden test; after
it, every cell's outputs are withheld and each test cell shows the grader's verdict, built
from trusted text alone (:mod:`autograder.messages`).  Outputs carry no active content
(:mod:`autograder.outputs`).
"""

from __future__ import annotations

import html
import json

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from . import course, outputs, release
from .records import NotebookResult
from .store import ResultStore


def summary_markdown(result: NotebookResult) -> str:
    lines = [f"# Feedback: {result.assignment}/{result.notebook}", "",
             f"**Score: {result.score:g} / {result.max_score:g}**", "",
             "| exercise | result | points | what to look at |", "|---|---|---|---|"]
    for e in result.exercises:
        what = e.hint or ("" if e.status == "passed" else e.message.splitlines()[0] if e.message else "")
        lines.append(f"| {html.escape(e.title or e.id)} | {e.status} | {e.score:g}/{e.points:g} | "
                     f"{html.escape(what).replace('|', '/')} |")
    if result.error:
        lines += ["", f"The run stopped early: {html.escape(result.error)}"]
    return "\n".join(lines)


WITHHELD = ("Outputs are shown up to the first hidden test. After it, code in the notebook could read "
            "the hidden tests, so what the cells printed is not shown here: each test cell shows the "
            "grader's verdict instead. Run your notebook to see its outputs.")


def feedback_notebook(nb: nbformat.NotebookNode, result: NotebookResult | None) -> nbformat.NotebookNode:
    nb = outputs.clean_notebook(nbformat.from_dict(json.loads(json.dumps(nb))), 16 << 20)
    by_ex = {e.id: e for e in result.exercises} if result is not None else {}
    first_hidden = next((i for i, c in enumerate(nb.cells)
                         if c.cell_type == "code" and course.HIDDEN_BEGIN in c.source), len(nb.cells))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if course.is_tests(cell):
            cell.source = release.visible_source(cell).rstrip()
        if i < first_hidden:
            for out in cell.outputs:
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
            continue
        cell.outputs = []
        r = by_ex.get(course.exercise_of(cell) or "")
        if course.is_tests(cell) and r is not None and r.status != "passed":
            text = r.message or r.status
            cell.outputs = [nbformat.v4.new_output("error", ename="TestFailed", evalue=text,
                                                   traceback=[f"TestFailed: {line}" for line in text.splitlines()])]
    if result is not None:
        cells = [nbformat.v4.new_markdown_cell(summary_markdown(result))]
        if first_hidden < len(nb.cells):
            cells.append(nbformat.v4.new_markdown_cell(f"*{WITHHELD}*"))
        nb.cells[0:0] = cells
    return nb


def render_html(nb: nbformat.NotebookNode) -> str:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    body, _ = exporter.from_notebook_node(nb)
    return body


def feedback_command(args) -> int:
    root = course.find_root()
    store = ResultStore(root)
    base = course.folder(root, "autograded")
    written = 0
    for path in sorted(base.glob("*/*/*.ipynb")):
        student, assignment = path.parent.parent.name, path.parent.name
        if args.assignments and assignment not in args.assignments:
            continue
        if args.student and student not in args.student:
            continue
        nb = nbformat.read(str(path), as_version=4)
        fb = feedback_notebook(nb, store.get(assignment, student, path.stem))
        out = course.folder(root, "feedback", student, assignment, f"{path.stem}.html")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_html(fb), encoding="utf-8")
        written += 1
    print(f"wrote {written} feedback file(s) under feedback/")
    return 0 if written else 1


class LearnerFeedback(NbGraderPreprocessor):
    """nbgrader's extension point for the same feedback: a preprocessor for ``GenerateFeedback``.

    ``nbgrader_config.py`` adds it to ``GenerateFeedback.preprocessors``, so the formgrader's
    *Generate Feedback* button and ``nbgrader generate_feedback`` (whose files
    ``nbgrader release_feedback`` hands out) show learners what ``autograder feedback`` shows.
    """

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        result = ResultStore(course.find_root()).get(info.get("assignment", ""), info.get("student", ""),
                                                     info.get("notebook", ""))
        return feedback_notebook(nb, result), resources
