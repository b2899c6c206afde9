"""Running a class: due dates and the late policy, the exports (ours and Canvas's), the class report
and the learners' feedback.

A class of generated submissions of the two-exercise fixture (with a folded hint in its release) is
graded for real; the numbers the report, the feedback and the exports show are checked against what
the class was built to contain.
"""

from __future__ import annotations

import csv
import json
import sys

import attacks
import pytest
from bs4 import BeautifulSoup
from support import bare_fixture_course, grade, release, run_cli, run_tool

from autograder.adapters.times import COLLECTOR
from autograder.adapters.times import record as record_time
from autograder.commands import report

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("class")]


HINT = "<details><summary>Hint</summary>\n\nReturn `x + 1`: a new tensor.\n</details>"
# a 1x1 PNG, shown by one honest learner's answer cell
FIGURE = ("from IPython.display import Image, display\nimport base64\ndisplay(Image(data=base64.b64decode("
          "'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==')))\n")
SYNTAX_1 = "def add_one(x)\n    return x + 1\n"
IMPORT_1 = "import a_module_that_is_not_there\ndef add_one(x):\n    return x + 1\n"


def hinted_fixture_course(dest):
    """The fixture course, its first exercise followed by a folded hint as the course's notebooks have them."""
    bare_fixture_course(dest)
    source = dest / "solutions" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    nb = json.loads(source.read_text())
    at = next(i for i, c in enumerate(nb["cells"]) if "Exercise 0.1" in "".join(c["source"]))
    nb["cells"].insert(at + 1, {"cell_type": "markdown", "id": "ex0_1_hint", "metadata": {}, "source": HINT})
    source.write_text(json.dumps(nb, indent=1))
    return release(dest)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = hinted_fixture_course(tmp_path_factory.mktemp("class") / "course")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write('\nc.LatePolicy.due_dates = {"00_fixture": "2026-11-20 12:00:00 UTC"}\n'
                'c.LatePolicy.extensions = {"00_fixture": {"extended": 48, "extended_late": 24}}\n')
    right = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
    cases = [attacks.Case(f"ok{i}", "honest", 3, attack=False, answers=right) for i in range(4)]
    cases[0].answers = attacks.answers(FIGURE + attacks.CORRECT_1, attacks.CORRECT_2)
    cases += [attacks.Case("syntax", "a SyntaxError in the first answer", 2, attack=False,
                           answers=attacks.answers(SYNTAX_1, attacks.CORRECT_2)),
              attacks.Case("imports", "an import error in the first answer", 2, attack=False,
                           answers=attacks.answers(IMPORT_1, attacks.CORRECT_2))]
    cases += [attacks.Case(f"wrong{i}", "ex0_1 wrong", 2, attack=False,
                           answers=attacks.answers(attacks.WRONG_1, attacks.CORRECT_2)) for i in range(2)]
    cases += [attacks.Case("empty", "nothing", 0, attack=False),
              attacks.Case("late", "honest, two days late", 3, attack=False, answers=right),
              attacks.Case("extended", "honest, as late, within a 48-hour extension", 3, attack=False, answers=right),
              attacks.Case("extended_late", "honest, 49 hours past a 24-hour extension", 3, attack=False,
                           answers=right)]
    times = {"late": "2026-11-22 09:00:00.000000 UTC", "extended": "2026-11-22 09:00:00.000000 UTC",
             "extended_late": "2026-11-23 13:00:00.000000 UTC"}
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build(cases, release, course / "submitted")
    for case in cases:
        when = times.get(case.student, "2026-11-20 11:00:00.000000 UTC")
        record_time(course, attacks.ASSIGNMENT, case.student, course / "submitted" / case.student / attacks.ASSIGNMENT,
                    when, COLLECTOR)
    out = grade(course, "--workers", "2")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return course


def test_late_work_is_penalised_as_the_policy_states(graded):
    out = run_cli(["export", "--to", "grades.csv"], graded)
    assert out.returncode == 0, out.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(graded / "grades.csv"))}
    late = rows["late"]
    assert late["timestamp_source"] == "collector"
    assert float(late["days_late"]) == pytest.approx(1.875, abs=1e-3)  # 45 hours: 2 days or part of one
    assert float(late["late_penalty"]) == pytest.approx(0.6)  # 10% per started day, of 3 points
    assert float(late["final_score"]) == pytest.approx(2.4)
    assert float(rows["ok0"]["late_penalty"]) == 0.0 and float(rows["ok0"]["final_score"]) == 3.0
    assert float(rows["wrong0"]["score"]) == 2.0
    # an extension moves that student's due date, in the grader and in nbgrader's gradebook alike
    assert float(rows["extended"]["days_late"]) == 0.0 and float(rows["extended"]["final_score"]) == 3.0
    assert float(rows["extended_late"]["days_late"]) == pytest.approx(49 / 24, abs=1e-3)
    assert float(rows["extended_late"]["late_penalty"]) == pytest.approx(0.9)  # 3 started days
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{graded / 'gradebook.db'}") as gb:
        ext = gb.find_submission(attacks.ASSIGNMENT, "extended")
        assert ext.extension.total_seconds() == 48 * 3600 and ext.total_seconds_late == 0
        assert gb.find_submission(attacks.ASSIGNMENT, "extended_late").total_seconds_late == 49 * 3600


def test_canvas_export(graded, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("lms_id,student_id\n501,ok0\n502,late\n")
    out = run_cli(["export", "--format", "canvas", "--roster", str(roster), "--to", "canvas.csv"], graded)
    assert out.returncode == 0, out.stderr
    table = list(csv.reader(open(graded / "canvas.csv")))
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", attacks.ASSIGNMENT]
    assert table[1][0] == "Points Possible" and float(table[1][5]) == 3.0
    by = {r[0]: r for r in table[2:]}
    assert by["ok0"][1] == "501" and float(by["ok0"][5]) == 3.0
    assert by["late"][1] == "502" and float(by["late"][5]) == pytest.approx(2.4)
    # the ten graded students the roster does not list have no Canvas ID: no row Canvas could match, each named
    assert len(by) == 2 and "not in the roster" in out.stderr and "(10): " in out.stderr, out.stderr


EX1, EX2 = "Exercise 0.1 — Add one", "Exercise 0.2 — Double"


def test_class_report_counts_what_the_class_missed(graded):
    s = report.summary(report.class_results(graded, attacks.ASSIGNMENT))
    assert s["students"] == 12
    ex1, ex2 = s["exercises"]["ex0_1"], s["exercises"]["ex0_2"]
    assert (ex1["passed"], ex1["failed"], ex1["not attempted"]) == (7, 4, 1)
    assert (ex2["passed"], ex2["failed"], ex2["not attempted"]) == (11, 0, 1)
    assert ex1["pass_rate"] == pytest.approx(7 / 12)
    top = s["gaps"][0]
    assert (top["exercise"], top["check"], top["students"], top["who"]) == (EX1, "visible tests", 2,
                                                                            ["wrong0", "wrong1"])
    assert sorted(s["totals"].values()) == pytest.approx([0.0, 2.0, 2.0, 2.0, 2.0, 2.1, 2.4, 3.0, 3.0, 3.0, 3.0, 3.0])
    out = run_cli(["report", "--to", "reports"], graded)
    assert out.returncode == 0, out.stderr
    page = (graded / "reports" / f"{attacks.ASSIGNMENT}.html").read_text()
    assert "data:image/png;base64," in page and "What the class has not got" in page and "58%" in page


@pytest.fixture(scope="module")
def report_page(graded) -> BeautifulSoup:
    """The class report, written by `autograder report` to its default folder."""
    out = run_cli(["report"], graded)
    assert out.returncode == 0, out.stderr
    return BeautifulSoup((graded / "reports" / f"{attacks.ASSIGNMENT}.html").read_text(), "html.parser")


def _table(page: BeautifulSoup, heading: str) -> list[list[str]]:
    table = page.find("h2", string=heading).find_next("table")
    return [[td.get_text(" ", strip=True) for td in tr.find_all(["td", "th"])] for tr in table.find_all("tr")]


def test_class_report_names_the_real_cause(report_page):
    gaps = {(g[0], g[1], g[3]): int(g[2]) for g in _table(report_page, "What the class has not got")[1:]}
    causes = {k[2]: (k[1], n) for k, n in gaps.items()}
    syntax = next(c for c in causes if c.startswith("SyntaxError in the answer cell"))
    imports = next(c for c in causes if c.startswith("import error (ModuleNotFoundError) in the answer cell"))
    assert causes[syntax] == ("answer cell", 1) and causes[imports] == ("answer cell", 1)
    assert not any("NameError" in c for c in causes)


def test_class_report_gaps_not_attempted_and_titles(report_page):
    page = report_page
    gaps = _table(page, "What the class has not got")[1:]
    assert (EX1, "not attempted", "1") in {(g[0], g[1], g[2]) for g in gaps}
    assert (EX2, "not attempted", "1") in {(g[0], g[1], g[2]) for g in gaps}
    counts = [int(g[2]) for g in gaps]
    assert counts == sorted(counts, reverse=True) and counts[0] == 2
    names = {row[0] for row in _table(page, "Exercises")[1:]} | {g[0] for g in gaps}
    assert names == {EX1, EX2}


def test_class_report_histogram_counts_whole_students_per_whole_point(graded, report_page):
    s = report.summary(report.class_results(graded, attacks.ASSIGNMENT))
    # 0 (empty); 2 (wrong x2, syntax, imports, 2.1 extended_late, 2.4 late); 3 (four honest, extended)
    assert report.histogram_counts(list(s["totals"].values()), s["max_score"]) == [1, 0, 6, 5]
    img = report_page.find("img")
    assert "0 points: 1 student; 1 points: 0 students; 2 points: 6 students; 3 points: 5 students" in img["alt"]
    assert "after late penalties" in img["alt"]


def test_class_report_lists_every_student_with_a_link_to_their_feedback(graded, report_page):
    page = report_page
    rows = _table(page, "Students")
    head, by = rows[0], {r[0]: r for r in rows[1:]}
    assert head[1] == "final score (after late penalty)" and "late penalty" in head
    assert len(by) == 12
    late = dict(zip(head, by["late"]))
    assert (late["final score (after late penalty)"], late["score"], late["late penalty"]) == ("2.4", "3", "−0.6")
    assert by["wrong0"][head.index("failed")] == EX1
    assert by["empty"][head.index("not attempted")] == f"{EX1}; {EX2}"
    link = page.find("h2", string="Students").find_next("table").find("a", string=attacks.ASSIGNMENT)["href"]
    # reports/ and feedback/ are siblings in the course folder: the link resolves from the page
    assert link.startswith("../feedback/") and link.endswith(f"/{attacks.ASSIGNMENT}/{attacks.ASSIGNMENT}.html")
    run_cli(["feedback", "--student", "late"], graded)
    late_link = next(a["href"] for a in page.find_all("a") if "/late/" in a["href"])
    assert (graded / "reports" / late_link).resolve().is_file()


def test_class_report_ends_with_what_to_do_next(report_page):
    page = report_page
    assert page.find_all("h2")[-1].get_text() == "What to do next"
    steps = [li.get_text(" ", strip=True) for li in page.find("h2", string="What to do next").find_next("ol")("li")]
    assert steps[0].startswith(EX1) and "5 of 12 students" in steps[0]
    # what to revisit is a concept; the answers that raised are counted (their causes are the gaps above)
    assert steps[0].endswith("Revisit: add_one(0) must be 1") and "SyntaxError" not in steps[0], steps[0]
    assert "(1 did not attempt it, 2 whose answer raised an error)" in steps[0], steps[0]
    assert steps[1].startswith(EX2) and "1 of 12 students" in steps[1]


def _text(path) -> str:
    return BeautifulSoup(path.read_text(), "html.parser").get_text(" ", strip=True)


def test_feedback_shows_the_penalty_and_no_warnings(graded):
    out = run_cli(["feedback"], graded)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "", out.stderr  # no warning lines (display priority, alt text) for an honest class
    page = graded / "feedback" / "late" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html"
    text = _text(page)
    assert "Score: 3 / 3 Late penalty: −0.6 Final score: 2.4 / 3 Days late: 1.88" in text
    assert "Extension" not in text
    extended = _text(graded / "feedback" / "extended" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html")
    assert "Late penalty: 0 Final score: 3 / 3 Days late: 0 (on time) Extension: 48 hours" in extended
    soup = BeautifulSoup(page.read_text(), "html.parser")
    hint = soup.find("details")
    assert hint is not None and hint.summary.get_text() == "Hint" and "&lt;details&gt;" not in page.read_text()
    figure = BeautifulSoup((graded / "feedback" / "ok0" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html")
                           .read_text(), "html.parser").select("img[src^='data:image/png']")
    assert [img["alt"] for img in figure] == ["figure 1 of cell 5"]


def test_nbgrader_generate_feedback_has_no_config_or_alt_text_warnings(graded):
    out = run_tool([sys.executable, "-m", "nbgrader", "generate_feedback", attacks.ASSIGNMENT, "--force"], graded)
    assert out.returncode == 0, out.stderr
    log = out.stdout + out.stderr
    assert "display_data_priority" not in log and "Alternative text" not in log, log
    page = (graded / "feedback" / "ok0" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html").read_text()
    assert "&lt;details&gt;" not in page and "<details>" in page and 'alt="figure 1 of cell 5"' in page
