"""The learner's feedback page: what ``autograder feedback`` writes, and the same feedback inside nbgrader
(:class:`LearnerFeedback`).

Stock ``nbgrader generate_feedback`` renders the autograded notebook as it is,
hidden tests included (nbgrader issue 917).  Here the feedback notebook keeps
only the visible part of every test cell and opens with a table of each exercise's
result and the concept to revisit, under the notebook's score, late penalty and final score.

Once a hidden test has run in the kernel, the learner's code could read its source
(``In``, ``linecache``, frames, memory) and print it in any form.  So the feedback shows
the grading run's outputs only for the cells that ran before the first hidden test; after
it, every cell's outputs are withheld and each test cell shows the grader's verdict, built
from trusted text alone (:mod:`autograder.values.messages`).  Outputs carry no active content
(:mod:`autograder.values.outputs`); each figure is shown with alternative text.

Markdown reaches the graded notebook from the submission and is kept there as inert text.  A
Markdown cell whose text is the instructor's own (a cell of the release, such as a folded hint)
is shown rendered, as the notebook shows it; whatever the learner wrote stays text.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import nbformat

from autograder.adapters.converters import CourseStep
from autograder.grading.store import ResultStore
from autograder.grading.steps.restore import learner_variant_lines
from autograder.values import course, learner_view, outputs
from autograder.values.records import NotebookResult, Status


def _points(x: float) -> str:
    return f"{round(x, 2):g}"


# nbgrader's own feedback template (Bootstrap) gives a table in a Markdown cell no padding at all, so its
# columns run together ("not attempted0/3", and in every table of the notebook's text): the page carries
# its own rule for them, and the summary's tables their own style, so they stay apart under any stylesheet.
TABLE_STYLE = ("<style>.rendered_html table td, .rendered_html table th "
               "{padding: 0.3em 1.2em 0.3em 0; text-align: left; vertical-align: top}</style>")
_CELL = 'style="padding:0.3em 1.2em 0.3em 0; text-align:left; vertical-align:top; border-bottom:1px solid #ddd"'
_TABLE = 'style="border-collapse:collapse; margin:0.5em 0 1em 0"'


def _table(header: list[str] | None, rows: list[list[str]]) -> str:
    """An HTML table of cells already escaped, with no blank line (a Markdown cell ends an HTML block there),
    each cell on a line of its own (so that its text stays apart from the next one's, copied or read aloud)."""
    head = ("<thead><tr>\n" + "\n".join(f"<th {_CELL}>{h}</th>" for h in header) + "\n</tr></thead>\n"
            if header else "")
    body = "".join("<tr>\n" + "\n".join(f"<td {_CELL}>{c}</td>" for c in row) + "\n</tr>\n" for row in rows)
    return f"<table {_TABLE}>\n{head}<tbody>\n{body}</tbody></table>"


def score_lines(result: NotebookResult) -> list[str]:
    """The score as the learner's grade is made: raw score, late penalty, final score, days late, extension."""
    days = result.seconds_late / 86400
    extension = float(getattr(result, "extension_hours", 0.0) or 0.0)
    rows = [("Score", f"{_points(result.score)} / {_points(result.max_score)}"),
            ("Late penalty", f"−{_points(result.late_penalty)}" if result.late_penalty else "0"),
            ("Final score", f"<b>{_points(result.final_score)} / {_points(result.max_score)}</b>"),
            ("Days late", f"{days:.2f}" if days > 0 else "0 (on time)")]
    if extension > 0:
        rows.append(("Extension", f"{extension:g} hours (the days late count from your extended due date)"))
    return [_table(None, [[f"<b>{name}:</b>", value] for name, value in rows])]


def what_to_look_at(e) -> str:
    """An exercise's cell of the table: what ``check`` tells the learner of it, line by line (each failed
    check with its reason and concept; for a hidden test, never its inputs)."""
    if e.status == Status.PASSED:
        return ""
    return "<br>".join(html.escape(line) for line in e.learner_lines())


def summary_markdown(result: NotebookResult) -> str:
    rows = [[html.escape(e.title or e.id), e.status, f"{e.score:g} / {e.points:g}", what_to_look_at(e)]
            for e in result.exercises]
    lines = [f"# Feedback: {html.escape(result.assignment)}/{html.escape(result.notebook)}", "", TABLE_STYLE, "",
             *score_lines(result), ""]
    lines += [f"**{html.escape(line)}**\n" for line in learner_variant_lines(result.tampering)]
    lines.append(_table(["exercise", "result", "points", "what to look at"], rows))
    if result.error:
        lines += ["", f"The run stopped early: {html.escape(result.error)}"]
    return "\n".join(lines)


def trusted_markdown(root: Path, assignment: str, notebook: str) -> dict[str, str]:
    """The instructor's Markdown cells of a notebook's release, keyed by the inert text a graded
    notebook holds for them (:func:`autograder.values.outputs.inert_markdown`); empty when there is no source."""
    path = course.Assignment(assignment, root).solution(notebook)
    if not path.is_file() or path.parent.parent != course.folder(root, "source"):
        return {}
    learner = learner_view.pristine_release(course.read(path), root)
    return {outputs.inert_markdown(c.source): c.source for c in learner.cells
            if c.cell_type == "markdown" and not course.is_solution(c)}


def _markdown(nb: nbformat.NotebookNode, trusted: dict[str, str]) -> None:
    """The instructor's Markdown rendered as written; the learner's shown as text."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        if cell.source in trusted:
            cell.source = trusted[cell.source]
        elif course.is_solution(cell):
            # a written answer comes from the submission as it is: make it inert (once, whatever it held)
            cell.source = outputs.inert_markdown(html.unescape(cell.source))


def _alts(nb: nbformat.NotebookNode) -> dict[int, list[str]]:
    """Each code cell's figure descriptions from the outputs' metadata, in output order (before cleaning
    drops the metadata): ``metadata.alt`` or ``metadata[mime].alt``."""
    found: dict[int, list[str]] = {}
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs") or []:
            if not isinstance(out, dict) or out.get("output_type") not in ("display_data", "execute_result"):
                continue
            meta = out.get("metadata") if isinstance(out.get("metadata"), dict) else {}
            alt = meta.get("alt")
            for mime in ("image/png", "image/jpeg"):
                if not isinstance(alt, str) and isinstance(meta.get(mime), dict):
                    alt = meta[mime].get("alt")
            found.setdefault(i, []).append(alt if isinstance(alt, str) else "")
    return found


def _figures(nb: nbformat.NotebookNode, alts: dict[int, list[str]]) -> None:
    """Every image output as an ``<img>`` with alternative text: its own, else "figure N of cell M".

    The tag is built here from the image's checked base64 data and escaped text, so it carries
    nothing the learner's kernel wrote but the picture."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        shown = 0
        displays = [o for o in cell.outputs if o.get("output_type") == "display_data"]
        for k, out in enumerate(displays):
            data = out.get("data") or {}
            mime = next((m for m in ("image/png", "image/jpeg") if m in data), None)
            if mime is None:
                continue
            shown += 1
            given = (alts.get(i) or [])[k:k + 1]
            alt = " ".join((given[0] if given else "").split())[:300] or f"figure {shown} of cell {i + 1}"
            b64 = "".join(str(data[mime]).split())
            out["data"] = {"text/html": f'<img src="data:{mime};base64,{b64}" alt="{html.escape(alt)}">',
                           "text/plain": f"[{alt}]"}

WITHHELD = ("Outputs are shown up to the first hidden test. After it, code in the notebook could read "
            "the hidden tests, so what the cells printed is not shown here: each test cell shows the "
            "grader's verdict instead. Run your notebook to see its outputs.")


def feedback_notebook(nb: nbformat.NotebookNode, result: NotebookResult | None,
                      trusted: dict[str, str] | None = None, marks: course.Markers = course.Markers()
                      ) -> nbformat.NotebookNode:
    """The learner's feedback notebook from a graded one (``trusted``: :func:`trusted_markdown`; ``marks``:
    the course's :func:`~autograder.values.course.markers`)."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    alts = _alts(nb)
    nb = outputs.clean_notebook(nb, 16 << 20)
    _markdown(nb, trusted or {})
    _figures(nb, alts)
    by_ex = {e.id: e for e in result.exercises} if result is not None else {}
    first_hidden = next((i for i, c in enumerate(nb.cells)
                         if c.cell_type == "code" and marks.hides_tests(c.source)), len(nb.cells))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if course.is_tests(cell):
            cell.source = learner_view.visible_source(cell).rstrip()
        if i < first_hidden:
            for out in cell.outputs:
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
            continue
        cell.outputs = []
        r = by_ex.get(course.exercise_of(cell) or "")
        if course.is_tests(cell) and r is not None and r.status != Status.PASSED:
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


NOT_FROM_CELLS = ("Your submission of this notebook could not be graded from its cells (it did not read as a "
                  "notebook of this assignment): the score above is the one recorded. Ask your instructor.")
TAKEN_BACK = ("No grade is recorded for this notebook now: an earlier grade was taken back (a submission time "
              "still to be given, or a submission withdrawn). Your instructor will tell you more.")


def page_of(cells: list[str]) -> str:
    return render_html(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(c) for c in cells]))


class LearnerFeedback(CourseStep):
    """nbgrader's extension point for the same feedback: a preprocessor for ``GenerateFeedback``.

    ``nbgrader_config.py`` adds it to ``GenerateFeedback.preprocessors``, so the formgrader's
    *Generate Feedback* button and ``nbgrader generate_feedback`` (whose files
    ``nbgrader release_feedback`` hands out) show learners what ``autograder feedback`` shows.
    """

    def preprocess(self, nb, resources):
        info = resources.get("nbgrader", {})
        root = course.find_root()
        assignment, notebook = info.get("assignment", ""), info.get("notebook", "")
        result = ResultStore(root).get(assignment, info.get("student", ""), notebook)
        trusted = trusted_markdown(root, assignment, notebook) if assignment and notebook else {}
        return feedback_notebook(nb, result, trusted, course.markers(root)), resources
