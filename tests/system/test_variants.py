"""Per-student variants, end to end with real nbgrader: drawn from the student id and the assignment's
secret, handed out through nbgrader's exchange (fixed at fetch, the same on a refetch) and in a per-student
pack, checked by the learner's own ``check``, and graded against the reference run on each student's
own variant, so that an answer copied from a classmate with another variant fails.

The fixture's exercise 0.1 becomes "add your variant's STEP": a variant cell binds ``STEP`` to one of
four choices, and the visible and hidden tests read it by name.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import attacks
import nbformat
import pytest
from support import COURSE_ID, LIMITS, bare_fixture_course, nbgrader, release, run_cli, run_command, set_answers

from autograder.grading import seeds
from autograder.values import variants

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("variants")]

A = "00_fixture"
CHOICES = [1, 2, 3, 5]
RIGHT = {"ex0_1_solution": "def add_one(x):\n    return x + STEP\n", "ex0_2_solution": "def double(x):\n    return x + x\n"}
SECRET = bytes(range(32))
# exercise 0.2 is handed out with one of these bugs planted, drawn per student (as the debugging exam's parts)
BUGS = {"halves": [["    return 2 * x\n", "    return x / 2\n"]], "squares": [["    return 2 * x\n", "    return x * x\n"]],
        "adds": [["    return 2 * x\n", "    return x + 2\n"]]}


def copied(step: int) -> dict:
    """What a classmate whose variant has ``step`` hands over for exercise 0.1: their number written in."""
    return {"ex0_1_solution": f"def add_one(x):\n    return x + {step}\n"}


def body(bug: str) -> str:
    """Exercise 0.2's answer cell as handed out with ``bug``."""
    return f"def double(x):\n    \"\"\"Exercise 0.2: return 2 * x as a new tensor.\"\"\"\n{BUGS[bug][0][1]}".rstrip()


def variant_course(dest: Path) -> Path:
    """The fixture course with a variant cell in exercise 0.1, its secret fixed, released."""
    course = bare_fixture_course(dest)
    path = course / "solutions" / A / f"{A}.ipynb"
    nb = nbformat.read(path, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "ex0_1_solution")
    cell = nbformat.v4.new_code_cell("# Your variant: the grader uses this same number for you.\nSTEP = 1\n")
    cell.metadata = {"nbgrader": {"grade": False, "solution": False, "locked": True, "grade_id": "ex0_1_variant",
                                  "schema_version": 3}, "autograder": {"variant": {"STEP": CHOICES}}}
    nb.cells.insert(at, cell)
    answer, tests = nb.cells[at + 1], nb.cells[at + 2]
    answer.source = answer.source.replace("return x + 1", "return x + STEP")
    tests.source = tests.source.replace("assert torch.equal(add_one(torch.zeros(2)), torch.ones(2)), \"add_one(0) must be 1\"",
                                        "assert torch.equal(add_one(torch.zeros(2)), torch.full((2,), float(STEP))), "
                                        "f\"add_one(0) must be STEP = {STEP}, your variant's\"")
    assert "STEP" in tests.source and "STEP" in answer.source
    planted = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex0_2_solution")
    planted.metadata["autograder"] = {"plant": BUGS}
    from autograder.values import course as course_mod

    assert not variants.problems(nb, course_mod.Markers())
    nbformat.write(nb, path)
    (course / ".autograder").mkdir(exist_ok=True)
    (course / ".autograder" / "variant_seeds.json").write_text(json.dumps({A: SECRET.hex()}))
    return release(course)


def step_of(student: str, course: Path) -> int:
    nb = nbformat.read(course / "solutions" / A / f"{A}.ipynb", as_version=4)
    return variants.draw(nb, seeds.variant_secret(course, A), A, A, student)["STEP"]


def two_students(course: Path) -> tuple[str, str]:
    """Two students whose variants differ, and not the default one for the second."""
    names = [f"student{i}" for i in range(40)]
    first = next(n for n in names if step_of(n, course) == CHOICES[0])
    second = next(n for n in names if step_of(n, course) != CHOICES[0])
    return first, second


def held_step(nb_path: Path) -> int:
    nb = nbformat.read(nb_path, as_version=4)
    return next(variants.values_in(c)["STEP"] for c in nb.cells if variants.is_variant_cell(c))


def autograder(course: Path, *args: str, ok: bool = True):
    out = run_command(list(args), course, env=LIMITS)
    assert (out.returncode == 0) == ok, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    return out


def test_a_variant_is_the_students_own_and_spreads_over_a_class(tmp_path):
    course = variant_course(tmp_path / "course")
    nb = nbformat.read(course / "solutions" / A / f"{A}.ipynb", as_version=4)
    secret = seeds.variant_secret(course, A)
    class_ = [variants.draw(nb, secret, A, A, f"s{i:03d}")["STEP"] for i in range(60)]
    assert set(class_) == set(CHOICES)  # every choice in use
    assert max(class_.count(c) for c in CHOICES) < 30  # and none for half the class
    assert all(variants.draw(nb, secret, A, A, f"s{i:03d}")["STEP"] == class_[i] for i in range(60))  # the same again
    other = [variants.draw(nb, bytes(32), A, A, f"s{i:03d}")["STEP"] for i in range(60)]
    assert other != class_  # another secret, other variants
    # a rendered notebook differs only in the bound literal, and nbgrader's checksum follows it
    released = nbformat.read(course / "notebooks" / A / f"{A}.ipynb", as_version=4)
    mine = variants.render(released, {"STEP": 5})
    changed = [(a.source, b.source) for a, b in zip(released.cells, mine.cells) if a.source != b.source]
    assert changed == [(released.cells[3].source, released.cells[3].source.replace("STEP = 1", "STEP = 5"))]
    from nbgrader.utils import compute_checksum

    assert mine.cells[3].metadata.nbgrader.checksum == compute_checksum(mine.cells[3])
    # a secret drawn by the grader is the instructor's alone
    seeds.variant_secret(course, "another")
    assert (course / ".autograder" / "variant_seeds.json").stat().st_mode & 0o077 == 0
    assert json.loads((course / ".autograder" / "variant_seeds.json").read_text())[A] == SECRET.hex()


def test_exchange_fetch_pack_check_and_grade(tmp_path):
    """A term's worth of variants: handed out through the exchange and in packs, checked, graded."""
    course = variant_course(tmp_path / "course")
    first, second = two_students(course)
    assert step_of(first, course) != step_of(second, course)
    for who in (first, second):
        assert nbgrader("db", "student", "add", who, cwd=course).returncode == 0
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    ex = f"--Exchange.root={exchange}"
    fetch = "--ExchangeFactory.fetch_assignment=autograder.adapters.exchange.VariantFetch"
    # nbgrader's own generate_assignment hands out the default bug, as `autograder release` did
    assert handed(course / "notebooks" / A / f"{A}.ipynb") == body("adds")
    out = nbgrader("generate_assignment", A, "--force", "--CourseDirectory.release_directory=release2", cwd=course)
    assert out.returncode == 0 and handed(course / "release2" / A / f"{A}.ipynb") == body("adds"), out.stderr
    shutil.rmtree(course / "release2")
    out = nbgrader("release_assignment", A, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr

    def fetched(who: str):
        home = tmp_path / "home" / who
        (home / "work").mkdir(parents=True, exist_ok=True)
        return home, nbgrader("fetch_assignment", A, "--course", COURSE_ID, ex, fetch, cwd=home / "work", user=who,
                              home=home)

    work = {}
    for who in (first, second):
        home, out = fetched(who)
        assert out.returncode == 0, out.stdout + out.stderr
        nb_path = home / "work" / A / f"{A}.ipynb"
        assert held_step(nb_path) == step_of(who, course), who
        assert handed(nb_path) == body(bug_of(who, course)), who
        assert not (home / "work" / A / ".variants").exists()  # nobody else's copies come along
        work[who] = (home, nb_path)
    # a refetch changes nothing: the same variant from scratch, and a notebook the student holds is kept
    home, nb_path = work[second]
    set_answers(nb_path, RIGHT)
    kept = nb_path.read_bytes()
    shutil.move(str(nb_path.parent), str(home / "elsewhere"))
    _, out = fetched(second)
    assert out.returncode == 0 and held_step(nb_path) == step_of(second, course)
    nb_path.write_bytes(kept)
    out = nbgrader("fetch_assignment", A, "--course", COURSE_ID, ex, fetch, "--replace", cwd=home / "work",
                   user=second, home=home)
    assert out.returncode == 0 and nb_path.read_bytes() == kept, out.stdout + out.stderr
    # a student the release has no copy for is told so in one line, and gets nothing
    _, out = fetched("latecomer")
    assert out.returncode != 0 and "No copy of 00_fixture was released for latecomer" in out.stdout + out.stderr
    assert not (tmp_path / "home" / "latecomer" / "work" / A).exists()

    # both submit: the first the right answers, the second the first's number written in and the bug left
    set_answers(work[first][1], RIGHT)
    set_answers(work[second][1], {**copied(step_of(first, course)), "ex0_2_solution": body(bug_of(second, course))})
    for who in (first, second):
        home, _ = work[who]
        out = nbgrader("submit", A, "--course", COURSE_ID, f"--student={who}", ex, cwd=home / "work", user=who, home=home)
        assert out.returncode == 0, out.stdout + out.stderr
    # a third hands in a notebook with the first's variant and number written in: graded on their own variant
    third = next(f"student{i}" for i in range(40, 80) if step_of(f"student{i}", course) != step_of(first, course))
    (course / "submitted" / third / A).mkdir(parents=True)
    forged = course / "submitted" / third / A / f"{A}.ipynb"
    shutil.copy(work[first][1], forged)
    set_answers(forged, copied(step_of(first, course)))
    assert nbgrader("collect", A, ex, cwd=course).returncode == 0
    out = autograder(course, "grade", A).stdout
    results = {p.parent.name: json.loads(p.read_text())["result"]
               for p in (course / ".autograder" / "results" / A).glob(f"*/{A}.json")}
    ex1 = {who: next(e for e in r["exercises"] if e["id"] == "ex0_1") for who, r in results.items()}
    assert ex1[first]["status"] == "passed", out
    assert ex1[second]["status"] != "passed", out  # the copied number is not theirs
    # told with the instructor's words and the value the grader drew for them
    assert f"add_one(0) must be STEP = {step_of(second, course)}, your variant's" in ex1[second]["message"], ex1[second]
    assert ex1[third]["status"] != "passed", out
    ex2 = {who: next(e for e in r["exercises"] if e["id"] == "ex0_2") for who, r in results.items()}
    assert ex2[first]["status"] == "passed" and ex2[second]["status"] != "passed", out  # judged by behaviour
    assert any("holds another variant" in t for t in results[third]["tampering"]), results[third]
    assert f"graded on that one: {third}" in out, out
    # nbgrader's own autograde (the formgrader's button) grades the same, with no warning for a student's own variant
    scores = attacks.gradebook_scores(course)
    out = nbgrader("autograde", A, f"--student={second}", "--force", cwd=course)  # a variant other than the default
    assert out.returncode == 0 and "ex0_1_variant" not in out.stderr, out.stdout[-2000:] + out.stderr[-3000:]
    assert attacks.gradebook_scores(course).get(second, 0) == scores.get(second, 0) == 0

    # a pack per student: the student's own variant, and their check judges it
    refused = autograder(course, "handout", "--to", str(tmp_path / "pack"), ok=False)
    assert "--student ID" in refused.stdout + refused.stderr and not (tmp_path / "pack").exists()
    autograder(course, "handout", "--student", second, "--to", str(tmp_path / "pack"))
    pack = tmp_path / "pack"
    for where in ("notebooks", ".release"):
        assert held_step(pack / where / A / f"{A}.ipynb") == step_of(second, course)
        assert handed(pack / where / A / f"{A}.ipynb") == body(bug_of(second, course))
    assert "This pack is" in (pack / "README.md").read_text()
    mine = pack / "notebooks" / A / f"{A}.ipynb"
    mine.unlink()
    autograder(pack, "release", A)  # started again in the pack: the same variant, the same bug
    assert handed(mine) == body(bug_of(second, course)) and held_step(mine) == step_of(second, course)
    set_answers(mine, RIGHT)
    good = run_cli(["check", str(mine)], pack, env=LIMITS)
    set_answers(mine, copied(step_of(first, course)))
    bad = run_cli(["check", str(mine)], pack, env=LIMITS)
    assert good.returncode == 0 and bad.returncode != 0, good.stdout + bad.stdout
    roster = tmp_path / "roster.csv"
    roster.write_text(f"lms_id,student_id\n1,{first}\n2,{second}\n")
    autograder(course, "handout", "--roster", str(roster), "--to", str(tmp_path / "packs"))
    for who in (first, second):
        with zipfile.ZipFile(tmp_path / "packs" / f"{who}.zip") as z:
            name = next(n for n in z.namelist() if n.endswith(f"notebooks/{A}/{A}.ipynb"))
            nb = nbformat.reads(z.read(name).decode(), as_version=4)
        assert next(variants.values_in(c)["STEP"] for c in nb.cells if variants.is_variant_cell(c)) == step_of(who, course)


def handed(nb_path: Path) -> str:
    nb = nbformat.read(nb_path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex0_2_solution")
    assert "plant" not in cell.metadata.get("autograder", {})  # the bug list is the instructor's alone
    return cell.source


def bug_of(student: str, course: Path) -> str:
    nb = nbformat.read(course / "solutions" / A / f"{A}.ipynb", as_version=4)
    return variants.draw(nb, seeds.variant_secret(course, A), A, A, student)["ex0_2_solution/bug"]


def test_a_class_handed_one_copy_for_all_is_graded_on_it(tmp_path):
    """``handout --default-variant`` hands the whole class the default variant; ``grade --default-variant`` grades
    everyone on it, so an answer right for the copy a student was handed is not failed for a variant they never saw.
    Switching between the two never reuses a grade."""
    course = variant_course(tmp_path / "course")
    _, second = two_students(course)  # a student whose own variant is not the default
    autograder(course, "handout", "--default-variant", "--to", str(tmp_path / "pack"))
    handed_out = tmp_path / "pack" / "notebooks" / A / f"{A}.ipynb"
    assert held_step(handed_out) == CHOICES[0]
    (course / "submitted" / second / A).mkdir(parents=True)
    submission = course / "submitted" / second / A / f"{A}.ipynb"
    shutil.copy(handed_out, submission)
    set_answers(submission, {**copied(CHOICES[0]), "ex0_2_solution": RIGHT["ex0_2_solution"]})

    def ex1_status(out) -> str:
        result = json.loads((course / ".autograder" / "results" / A / second / f"{A}.json").read_text())["result"]
        return next(e for e in result["exercises"] if e["id"] == "ex0_1")["status"]

    on_own = autograder(course, "grade", A).stdout
    assert ex1_status(on_own) != "passed" and f"graded on that one: {second}" in on_own, on_own
    assert "grade with --default-variant" in on_own, on_own
    on_default = autograder(course, "grade", A, "--default-variant").stdout
    assert ex1_status(on_default) == "passed", on_default
    assert "graded 1 notebook(s)" in on_default and "another variant" not in on_default, on_default
    again = autograder(course, "grade", A).stdout  # the default's grade is not kept for the student's own variant
    assert "graded 1 notebook(s)" in again and ex1_status(again) != "passed", again


def test_each_reference_run_says_which_variant_it_is(tmp_path):
    """Two students on two variants: grade runs the reference once for each, and its lines say which variant each
    run is, rather than the same line twice."""
    course = variant_course(tmp_path / "course")
    for who in two_students(course):
        (course / "submitted" / who / A).mkdir(parents=True)
        shutil.copy(course / "notebooks" / A / f"{A}.ipynb", course / "submitted" / who / A / f"{A}.ipynb")
    out = autograder(course, "grade", A).stdout
    lines = [ln for ln in out.splitlines() if ln.startswith("reference run: ")]
    assert len(lines) == 2 and len(set(lines)) == 2, out
    assert all("variant" in ln for ln in lines), lines  # (the default variant, or the values it binds)
