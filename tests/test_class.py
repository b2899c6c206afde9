"""Running a class: due dates and the late policy, the exports (ours and Canvas's), and the class report.

A class of generated submissions of the two-exercise fixture is graded for real; the numbers the
report and the exports show are checked against what the class was built to contain.
"""

from __future__ import annotations

import csv
import sys

import pytest

import attacks
from autograder import report
from autograder.submission import COLLECTED_AT
from support import run_tool
from test_security import fixture_course, grade

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("class")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = fixture_course(tmp_path_factory.mktemp("class") / "course")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write('\nc.LatePolicy.due_dates = {"00_fixture": "2026-11-20 12:00:00 UTC"}\n'
                'c.LatePolicy.extensions = {"00_fixture": {"extended": 48, "extended_late": 24}}\n')
    right = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
    cases = [attacks.Case(f"ok{i}", "honest", 3, attack=False, answers=right) for i in range(4)]
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
        (course / "submitted" / case.student / attacks.ASSIGNMENT / COLLECTED_AT).write_text(when)
    out = grade(course, "--workers", "2")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return course


def test_late_work_is_penalised_as_the_policy_states(graded):
    out = run_tool([sys.executable, "-m", "autograder", "export", "--to", "grades.csv"], graded)
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
    out = run_tool([sys.executable, "-m", "autograder", "export", "--format", "canvas", "--roster", str(roster),
                    "--to", "canvas.csv"], graded)
    assert out.returncode == 0, out.stderr
    table = list(csv.reader(open(graded / "canvas.csv")))
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", attacks.ASSIGNMENT]
    assert table[1][0] == "Points Possible" and float(table[1][5]) == 3.0
    by = {r[0]: r for r in table[2:]}
    assert by["ok0"][1] == "501" and float(by["ok0"][5]) == 3.0
    assert by["late"][1] == "502" and float(by["late"][5]) == pytest.approx(2.4)
    assert len(by) == 10 and "no Canvas ID" in out.stderr


def test_class_report_counts_what_the_class_missed(graded):
    s = report.summary(report.class_results(graded, attacks.ASSIGNMENT))
    assert s["students"] == 10
    ex1, ex2 = s["exercises"]["ex0_1"], s["exercises"]["ex0_2"]
    assert (ex1["passed"], ex1["failed"], ex1["not attempted"]) == (7, 2, 1)
    assert (ex2["passed"], ex2["failed"], ex2["not attempted"]) == (9, 0, 1)
    assert ex1["pass_rate"] == pytest.approx(7 / 10)
    top = s["failing_checks"][0]
    assert (top["exercise"], top["students"]) == ("ex0_1", 2)
    assert sorted(s["totals"].values()) == pytest.approx([0.0, 2.0, 2.0, 2.1, 2.4, 3.0, 3.0, 3.0, 3.0, 3.0])
    out = run_tool([sys.executable, "-m", "autograder", "report", "--to", "reports"], graded)
    assert out.returncode == 0, out.stderr
    page = (graded / "reports" / f"{attacks.ASSIGNMENT}.html").read_text()
    assert "data:image/png;base64," in page and "What the class has not got" in page and "70%" in page
