"""A hostile or broken submission cannot cheat, crash the batch, or touch another student's record.

One batch grades, in the sandbox, with tight limits: an honest learner, an empty
submission, every attack of ``attacks.attacks`` and every fault of
``attacks.faults``.  Then:

* each attack earns exactly what the empty submission earns;
* each fault keeps the points earned before it and records a clear reason;
* tampering is reported; the honest learner's record is untouched; the gradebook
  is intact; nothing was written outside the submission's folder; no output
  shows the solutions, the hidden tests, the gradebook or the grader's environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import attacks
import pytest
from attacks import gradebook_scores
from support import LIMITS, SEED, fix_term_seed, fixture_course, grade, results, run_cli, run_tool, tool_env

from autograder.sandbox import launch as sandbox

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("security"),
              pytest.mark.skipif(not sandbox.available(), reason="needs bubblewrap and root (make setup)")]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    course = fixture_course(tmp_path_factory.mktemp("sec") / "course")
    cases = attacks.attacks(course) + attacks.faults() + attacks.after_cases()
    honest = attacks.Case("honest", "answers both exercises right", 3, attack=False,
                          answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))
    empty = attacks.Case("empty", "submits the released notebook untouched", 0, attack=False)
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([honest, empty, *cases], release, course / "submitted")
    start = time.monotonic()
    out = grade(course, "--workers", "2")
    elapsed = time.monotonic() - start
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return {"course": course, "cases": cases, "out": out, "results": results(course), "seconds": elapsed}


def _text(result: dict) -> str:
    return " ".join([result.get("error") or ""] + [e["message"] for e in result["exercises"]])


def test_honest_and_empty(batch):
    r = batch["results"]
    assert sum(e["score"] for e in r["honest"]["exercises"]) == 3
    assert sum(e["score"] for e in r["empty"]["exercises"]) == 0
    assert gradebook_scores(batch["course"])["honest"] == 3


CASES = attacks.attacks(Path("/nonexistent")) + attacks.faults() + attacks.after_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.student for c in CASES])
def test_case(batch, case):
    r = batch["results"].get(case.student)
    assert r is not None, f"{case.student}: no recorded result"
    score = sum(e["score"] for e in r["exercises"])
    empty = sum(e["score"] for e in batch["results"]["empty"]["exercises"])
    want = empty if case.attack else case.score
    assert score == want, f"{case.what}: scored {score}, expected {want}; {_text(r)}"
    assert gradebook_scores(batch["course"]).get(case.student, 0.0) == want
    if case.reason:
        assert case.reason.lower() in _text(r).lower(), f"{case.what}: reason {case.reason!r} not in {_text(r)!r}"
    if case.tamper:
        assert any(case.tamper in t for t in r["tampering"]), f"{case.what}: tampering not reported: {r['tampering']}"


def test_nothing_leaks_into_outputs(batch):
    course = batch["course"]
    for nb in (course / "autograded").glob(f"*/{attacks.ASSIGNMENT}/*.ipynb"):
        if nb.parent.parent.name.startswith("leak_"):
            continue  # they print the hidden tests they ran: the autograded notebook is the instructor's alone
        text = nb.read_text()
        for marker in attacks.LEAK_MARKERS:
            # the autograded notebook holds the hidden tests it ran, so only outputs are searched
            # (tracebacks of failed test cells quote the instructor's own test source; instructors only)
            data = json.loads(text)
            outputs = json.dumps([[{k: v for k, v in o.items() if k != "traceback"} for o in c.get("outputs", [])]
                                  for c in data["cells"]])
            assert marker not in outputs, f"{nb.parent.parent.name}: output shows {marker!r}"
            assert "UPDATED" not in outputs and "CONNECTED" not in outputs  # (/tmp inside is private)


def test_nothing_written_outside(batch):
    course = batch["course"]
    assert not (course / "PWNED").exists() and not Path("/tmp/PWNED").exists()
    assert not list(course.parent.glob("PWNED"))


def test_tampering_in_instructor_table(batch):
    assert "test cell ex0_1_tests was edited" in batch["out"].stdout
    assert "kernel died" in batch["out"].stdout


def test_regrade_is_idempotent(batch):
    course = batch["course"]
    before = gradebook_scores(course)
    out = grade(course)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "graded 0 notebook(s)" in out.stdout
    assert gradebook_scores(course) == before


def test_kernel_that_never_starts(batch):
    course = batch["course"]
    # a runner whose memory limit is too small for Python to start: the kernel dies before it replies
    out = grade(course, "--student", "honest", "--force", env={"AUTOGRADER_LIMIT_MEMORY_MB": "40"})
    assert out.returncode == 0, out.stderr[-3000:]
    r = results(course)["honest"]
    assert sum(e["score"] for e in r["exercises"]) == 0 and "kernel" in (r["error"] or "")
    out = grade(course, "--student", "honest", "--force")
    assert sum(e["score"] for e in results(course)["honest"]["exercises"]) == 3


def test_killed_run_resumes(tmp_path):
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    cases = [attacks.Case(f"s{i}", "honest", 3, answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))
             for i in range(4)]
    attacks.build(cases, release, course / "submitted")
    e = tool_env()
    e.update(LIMITS)
    fix_term_seed(course)
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT],
                            cwd=course, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and len(results(course)) < 1:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(results(course))
    assert 1 <= finished < 4
    out = grade(course)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"{finished} notebook(s) already graded with the same submission, tests, grader, seed and policy: kept" in out.stdout
    assert f"graded {4 - finished} notebook(s)" in out.stdout
    assert all(v == 3 for v in gradebook_scores(course).values()) and len(gradebook_scores(course)) == 4


def _hidden_lines(course: Path) -> list[str]:
    """The non-trivial lines of every hidden-test block of the fixture's solution."""
    import nbformat

    from autograder.values import course as course_mod

    nb = nbformat.read(str(course / "solutions" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"), 4)
    lines = []
    for cell in nb.cells:
        if course_mod.Markers().hides_tests(cell.source):
            block = course_mod.Markers().hidden_block(cell.source)
            lines += [l.strip() for l in block.splitlines() if len(l.strip()) > 12]
    return lines


def test_honest_students_after_hostile_ones_keep_full_marks(batch):
    scores = gradebook_scores(batch["course"])
    for student in attacks.AFTER:
        assert scores.get(student) == 3, (student, _text(batch["results"][student]))


def test_feedback_never_shows_hidden_tests(batch):
    import base64
    import html

    course = batch["course"]
    out = run_cli(["feedback"], course)
    assert out.returncode == 0, out.stderr[-3000:]
    hidden = _hidden_lines(course)
    assert hidden
    pages = list((course / "feedback").glob(f"*/{attacks.ASSIGNMENT}/*.html"))
    assert {p.parent.parent.name for p in pages} >= {"leak_hidden", "leak_by_raising", "honest"}
    for page in pages:
        text = html.unescape(page.read_text())
        who = page.parent.parent.name
        assert attacks.LEAK_PROBE not in text, f"{who}: feedback shows what the learner's code printed after a hidden test"
        for marker in attacks.LEAK_MARKERS:
            assert marker not in text, f"{who}: feedback shows {marker!r}"
        for line in hidden:
            assert line not in text, f"{who}: feedback shows hidden test source {line!r}"
            assert base64.b64encode(line.encode()).decode()[:16] not in text
    # the feedback still says what failed, in the grader's words
    raised = html.unescape((course / "feedback" / "leak_by_raising" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html").read_text())
    assert "ValueError" in raised


def test_the_kernel_is_given_no_grading_seed(batch):
    nb = json.loads((batch["course"] / "autograded" / "leak_hidden" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").read_text())
    printed = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert "SEED=None" in printed and f"SEED={SEED}" not in printed


def test_no_active_content_reaches_the_instructor(batch):
    course = batch["course"]
    nb = json.loads((course / "autograded" / "active_content" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").read_text())
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            assert set(o.get("data", {})) <= {"text/plain", "image/png", "image/jpeg"}, o
        if cell["cell_type"] == "markdown":
            assert "<script" not in "".join(cell["source"]), cell["source"]
    run_cli(["feedback", "--student", "active_content"], course)
    page = (course / "feedback" / "active_content" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html").read_text()
    # as source code or escaped text it is inert; as markup it would run in the instructor's browser
    assert "<script>window." + attacks.XSS_MARK not in page and "<svg onload" not in page


def test_output_volume_is_bounded_per_notebook(batch):
    path = batch["course"] / "autograded" / "output_volume" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    assert path.stat().st_size < (2048 + 512) << 10, path.stat().st_size


def test_a_grader_error_is_kept_not_retried_forever(batch):
    from autograder.grading.store import Entry, ResultStore
    from autograder.values.records import NotebookResult

    store = ResultStore(batch["course"].parent / "cache-check")
    store.put(Entry("some-key", NotebookResult("honest", attacks.ASSIGNMENT, attacks.ASSIGNMENT, error="grader error: x")))
    again = store.get(attacks.ASSIGNMENT, "honest", attacks.ASSIGNMENT, key="some-key")
    assert again is not None and again.grader_error and again.error == "grader error: x"
    assert store.get(attacks.ASSIGNMENT, "honest", attacks.ASSIGNMENT, key="another-key") is None


def test_a_reference_that_fails_in_the_sandbox_stops_grade_before_anything_is_recorded(tmp_path):
    import nbformat

    course = fixture_course(tmp_path / "course")
    sol = course / "solutions" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    nb = nbformat.read(str(sol), 4)
    # a solution that works only outside the sandbox (as with kernels that import another copy of the grader), in a
    # cell its grade path runs
    answer = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ex0_1_solution")
    answer.source = "import os\nassert os.getuid() == 0, 'not where the grader is'\n" + answer.source
    nbformat.write(nb, str(sol))
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([attacks.Case("s1", "honest", 3, answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))],
                  release, course / "submitted")
    out = grade(course)
    assert out.returncode == 2, out.stdout[-2000:] + out.stderr[-2000:]
    assert "stopped before recording anything" in out.stderr and "not where the grader is" in out.stderr
    assert not results(course) and not (course / "autograded").exists()


def test_nbgraders_own_feedback_and_export_are_the_safe_ones(batch):
    """The formgrader's buttons run nbgrader's commands: configured with our feedback step and export
    plugin, they show learners no hidden test and export the same columns."""
    import csv
    import html

    course = batch["course"]
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    out = run_tool([nbgrader, "generate_feedback", attacks.ASSIGNMENT, "--student", "leak_hidden", "--force"], course)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    page = html.unescape((course / "feedback" / "leak_hidden" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.html").read_text())
    assert attacks.LEAK_PROBE not in page and "BEGIN HIDDEN TESTS" not in page and "hidden_test(" not in page
    assert "Score:" in page  # our summary table
    out = run_tool([nbgrader, "export", "--to", "nbgrader-export.csv"], course)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    rows = list(csv.DictReader(open(course / "nbgrader-export.csv")))
    assert rows and "timestamp_source" in rows[0] and "notes" in rows[0]
    assert {r["student"] for r in rows} >= {"honest", "leak_hidden"}
