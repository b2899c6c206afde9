"""The class report's numbers and the learner's feedback page, from made-up results (no grading).

The graded class of ``tests/system/test_class.py`` checks the same through the commands; these check the
rules one at a time: what a gap is and what caused it, counting per student, the histogram's bins,
the score block of the feedback page, which Markdown renders, the figures' alternative text, and
the one line a command says when nothing is graded yet.
"""

from __future__ import annotations


import nbformat
import pytest
from bs4 import BeautifulSoup
from support import ROOT, bare_fixture_course, run_cli

from autograder.adapters import feedback
from autograder.commands import report
from autograder.values import messages, outputs
from autograder.values.records import ExerciseResult, NotebookResult

EX1, EX2, EX3 = "Exercise 1.1 — Shapes", "Exercise 1.2 — Broadcasting", "Exercise 2.1 — Devices"


def _ex(id_, title, status, message="", checks=(), points=1.0):
    return ExerciseResult(id_, title, points, points if status == "passed" else 0.0, status, message,
                          failed_checks=[dict(c) for c in checks])


def _nb(student, notebook, *exercises, penalty=0.0, late=0.0):
    return NotebookResult(student, "01_a", notebook, list(exercises), late_penalty=penalty, seconds_late=late)


SYNTAX_CAUSE = messages.answer_cause("SyntaxError")
SYNTAX = (f"{SYNTAX_CAUSE} (answer cell, line 2): fix it first, the tests use what it defines",
          [{"check": "answer cell", "cause": SYNTAX_CAUSE, "where": "answer cell, line 2"}])


def test_a_gap_is_the_cause_the_grader_recorded_never_a_phrase_cut_from_a_message():
    (gap,) = report.gaps_of(_ex("ex1_1", EX1, "failed", *SYNTAX))
    assert (gap.check, gap.cause, gap.where) == ("answer cell", SYNTAX_CAUSE, "answer cell, line 2")
    assert SYNTAX_CAUSE == "SyntaxError in the answer cell: the code does not parse, so nothing it defines exists"
    # an exception that is not Python's own is named as such, whole (it read "the answer cell raised an")
    assert messages.answer_cause("MyError: x") == "the answer cell raised an exception"
    # the answer cell's error first, a hidden check that failed beside it still counted
    mixed = _ex("ex1_1", EX1, "failed", "", [{"check": "shape", "concept": "keep the batch dimension"},
                                              {"check": "answer cell", "cause": "the answer cell raised ValueError"}])
    assert [(g.check, g.concept or g.cause) for g in report.gaps_of(mixed)] == [
        ("answer cell", "the answer cell raised ValueError"), ("shape", "keep the batch dimension")]
    assert [(g.check, g.cause) for g in report.gaps_of(_ex("ex1_1", EX1, "not attempted", messages.NOT_STARTED))] \
        == [("not attempted", messages.NOT_STARTED)]


def test_students_with_several_notebooks_count_once():
    results = [
        _nb("ann", "01_a", _ex("ex1_1", EX1, "failed", *SYNTAX), _ex("ex1_2", EX2, "passed"), penalty=0.5, late=90000),
        _nb("ann", "02_b", _ex("ex2_1", EX3, "not attempted")),
        _nb("bob", "01_a", _ex("ex1_1", EX1, "failed", *SYNTAX), _ex("ex1_2", EX2, "not attempted")),
        _nb("bob", "02_b", _ex("ex2_1", EX3, "not attempted")),
        _nb("cy", "01_a", _ex("ex1_1", EX1, "passed"), _ex("ex1_2", EX2, "passed")),
    ]
    s = report.summary(results)
    assert s["students"] == 3 and s["max_score"] == 3.0
    assert s["totals"] == {"ann": 0.5, "bob": 0.0, "cy": 2.0}
    assert s["per_student"]["ann"]["late_penalty"] == 0.5 and s["per_student"]["ann"]["notebooks"] == ["01_a", "02_b"]
    assert s["exercises"]["ex1_1"]["pass_rate"] == pytest.approx(1 / 3)
    gaps = [(g["exercise"], g["check"], g["students"]) for g in s["gaps"]]
    # not attempted counts; most students first; exercise titles, never ids
    assert gaps == [(EX1, "answer cell", 2), (EX3, "not attempted", 2), (EX2, "not attempted", 1)]
    assert [(x["exercise"], x["students"]) for x in s["next"]] == [(EX1, 2), (EX3, 2), (EX2, 1)]
    page = BeautifulSoup(report.render("01_a", s, "../feedback"), "html.parser")
    hrefs = [a["href"] for a in page.find_all("a")]
    assert "../feedback/ann/01_a/02_b.html" in hrefs and len(hrefs) == 5
    assert "ex1_1" not in page.get_text() and page.find_all("h2")[-1].get_text() == "What to do next"


def test_histogram_bins_are_whole_points():
    assert report.histogram_counts([0.0, 2.4, 2.0, 2.1, 3.0, 3.0, 0.9], 3.0) == [2, 0, 3, 2]
    assert report.histogram_counts([1.5], 1.5) == [0, 1]


def _graded_notebook():
    """A graded notebook as ``autograded/`` holds it: the learner's Markdown inert, an answer with a figure."""
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    hint = "<details><summary>Hint</summary>\n\nUse `view`.\n</details>"
    answer = nbformat.v4.new_code_cell("plot()", metadata={"nbgrader": {"grade_id": "ex1_1_solution", "solution": True}})
    answer.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
                      nbformat.v4.new_output("display_data", data={"image/png": png},
                                             metadata={"image/png": {"alt": "loss per epoch"}})]
    written = nbformat.v4.new_markdown_cell("<b>mine</b>", metadata={"nbgrader": {"grade_id": "ex1_2_written",
                                                                                  "solution": True}})
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("### Exercise 1.1 — Shapes"),
        nbformat.v4.new_markdown_cell(outputs.inert_markdown(hint)),  # the release's hint, as merge keeps it
        answer,
        nbformat.v4.new_markdown_cell(outputs.inert_markdown("<details><summary>mine</summary>x</details>")),
        written,
    ])
    return nb, {outputs.inert_markdown(hint): hint,
                outputs.inert_markdown("### Exercise 1.1 — Shapes"): "### Exercise 1.1 — Shapes"}


def test_feedback_opens_with_score_penalty_final_days_late_and_extension():
    r = _nb("ann", "01_a", _ex("ex1_1", EX1, "passed", points=2.0), _ex("ex1_2", EX2, "passed"),
            penalty=0.6, late=45 * 3600)
    r.extension_hours = 24.0
    nb, trusted = _graded_notebook()
    text = BeautifulSoup(feedback.render_html(feedback.feedback_notebook(nb, r, trusted)), "html.parser") \
        .get_text(" ", strip=True)
    assert ("Score: 3 / 3 Late penalty: −0.6 Final score: 2.4 / 3 Days late: 1.88 Extension: 24 hours "
            "(the days late count from your extended due date)") in text
    on_time = _nb("bob", "01_a", _ex("ex1_1", EX1, "passed"))
    text = BeautifulSoup(feedback.render_html(feedback.feedback_notebook(nb, on_time, trusted)), "html.parser") \
        .get_text(" ", strip=True)
    assert "Score: 1 / 1 Late penalty: 0 Final score: 1 / 1 Days late: 0 (on time)" in text and "Extension" not in text
    # the page's own text keeps each cell apart, whatever reads it ("Late penalty:0", "not attempted0/3")
    later = _nb("cy", "01_a", _ex("ex1_1", EX1, "not attempted", "the answer cell still holds the stub"))
    raw = BeautifulSoup(feedback.render_html(feedback.feedback_notebook(nb, later, trusted)), "html.parser").get_text()
    assert "Late penalty:\n0" in raw and "not attempted\n0 / 1" in raw, raw


def test_feedback_renders_the_instructors_markdown_only_and_describes_figures(caplog):
    nb, trusted = _graded_notebook()
    page = feedback.render_html(feedback.feedback_notebook(nb, None, trusted))
    soup = BeautifulSoup(page, "html.parser")
    assert [d.summary.get_text() for d in soup.find_all("details")] == ["Hint"]  # the learner's stays text
    assert "&lt;details&gt;&lt;summary&gt;mine" in page and soup.find("b", string="mine") is None
    assert [i["alt"] for i in soup.select("img[src^='data:image/png']")] == ["figure 1 of cell 3", "loss per epoch"]
    assert "Alternative text" not in caplog.text


@pytest.mark.parametrize("command", ["feedback", "report"])
def test_nothing_graded_is_one_line(tmp_path, command):
    course = bare_fixture_course(tmp_path / "course")
    out = run_cli([command], course)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "run `autograder grade" in lines[0] and "first" in lines[0], out.stderr


def test_a_feedback_page_follows_its_grade(tmp_path):
    """A page from an earlier run never outlives its grade: a resubmission that did not read gets a page with
    the recorded score and no cells, a grade taken back gets a page that says so, and a page a person edited
    is kept under .autograder/kept/ (never beside it, where nbgrader's release_feedback would hand it out)."""
    from autograder.grading.store import Entry, ResultStore

    course = bare_fixture_course(tmp_path / "course")
    fb = course / "feedback"
    store = ResultStore(course)
    unread = NotebookResult("carol", "00_fixture", "00_fixture", [_ex("ex0_1", "Exercise 0.1", "failed", points=3.0)],
                            error="the submitted notebook could not be read (NotJSONError)")
    store.put(Entry("k", unread))
    for student, text in (("carol", "Final score: 2 / 3"), ("dave", "Final score: 3 / 3"), ("erin", "my own notes")):
        (fb / student / "00_fixture").mkdir(parents=True)
        (fb / student / "00_fixture" / "00_fixture.html").write_text(text)
    out = run_cli(["feedback"], course)
    assert out.returncode == 0, out.stdout + out.stderr
    carol = (fb / "carol" / "00_fixture" / "00_fixture.html").read_text()
    assert "could not be graded from its cells" in carol and "0 / 3" in carol and "2 / 3" not in carol
    for who in ("dave", "erin"):
        page = (fb / who / "00_fixture" / "00_fixture.html").read_text()
        assert "No grade is recorded for this notebook now" in page and "3 / 3" not in page, who
    assert "carol 00_fixture/00_fixture: not graded from its cells" in out.stdout, out.stdout
    assert "dave 00_fixture/00_fixture: no grade recorded now" in out.stdout, out.stdout
    # each page from before stands as it was under .autograder/kept/, and nothing but pages is under feedback/
    kept = sorted(p.read_text() for p in (course / ".autograder" / "kept" / "feedback").rglob("*.html"))
    assert kept == ["Final score: 2 / 3", "Final score: 3 / 3", "my own notes"], kept
    assert sorted(p.name for p in fb.rglob("*") if p.is_file()) == ["00_fixture.html"] * 3
    again = run_cli(["feedback"], course)
    assert again.returncode == 0 and "kept as" not in again.stdout, again.stdout  # its own pages: replaced
    assert len(list((course / ".autograder" / "kept").rglob("*.html"))) == 3


def test_report_keeps_a_page_of_yours_and_names_a_misspelt_assignment(tmp_path):
    from autograder.grading.store import Entry, ResultStore

    course = bare_fixture_course(tmp_path / "course")
    ResultStore(course).put(Entry("k", NotebookResult("ana", "00_fixture", "00_fixture",
                                                      [_ex("ex0_1", "Exercise 0.1", "passed", points=3.0)])))
    mine = course / "reports" / "00_fixture.html"
    mine.parent.mkdir()
    mine.write_text("<p>my notes on the class</p>")
    out = run_cli(["report"], course)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = list(mine.parent.glob("00_fixture.mine-*.html"))
    assert len(kept) == 1 and kept[0].read_text() == "<p>my notes on the class</p>", out.stdout
    assert kept[0].name in out.stdout and "Class report" in mine.read_text()
    again = run_cli(["report"], course)
    assert again.returncode == 0 and "kept as" not in again.stdout and len(list(mine.parent.glob("*.mine-*"))) == 1
    for args, said in ((["report", "00_fixtur"], "no assignment named 00_fixtur"),
                       (["feedback", "00_fixtur"], "no assignment named 00_fixtur"),
                       (["report", "--to", str(mine)], "is a file: --to names the folder")):
        out = run_cli(args, course)
        assert out.returncode == 2 and said in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_feedback_says_a_student_was_graded_on_their_own_variant():
    """A student who hands in a classmate's variant is graded on their own (the grade table notes it): their
    page says so, with their own values, where it would only read "failed 0/3"."""
    from autograder.grading.coursedata import NotebookData
    from autograder.grading.steps.restore import merge
    from autograder.values import course, variants

    data = NotebookData.loaded(course.Assignment("01_tensors", ROOT), "01_tensors")
    theirs = {name: values[1] for name, values in variants.params(data.solution).items()}  # not the default's
    mine = data.for_variant(theirs)
    _, tampering, _ = merge(data.release, mine.release, mine.solution)  # the default variant, handed in
    result = NotebookResult("ann", "01_tensors", "01_tensors", [_ex("ex1_2", "Exercise 1.2", "failed", points=3.0)],
                            tampering=tampering)
    text = BeautifulSoup(feedback.render_html(feedback.feedback_notebook(nbformat.v4.new_notebook(), result)),
                         "html.parser").get_text(" ", strip=True)
    assert (f"Your notebook holds another variant than yours (cell ex1_2_variant): it was graded on your own, "
            f"PATCH_LAYOUT = {theirs['PATCH_LAYOUT']!r}") in text, text
    assert text.count("another variant than yours") == len({v for v in tampering if "variant cell" in v}) > 0
