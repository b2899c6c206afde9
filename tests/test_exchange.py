"""A course through nbgrader's exchange, for real: release, students fetch and submit (one resubmits,
one never submits), collect, grade in the sandbox, feedback generated and released by nbgrader, and
fetched by a student: our feedback, never the hidden tests.

Two student identities are separate home folders and user names (nbgrader's ``--student``, what a
JupyterHub's ``JUPYTERHUB_USER`` gives nbgrader there).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import attacks
import pytest
from support import fixture_course, grade, set_answers, tool_env

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("exchange")]
COURSE_ID = "pytorch-course"


def nbgrader(*args, cwd, user=None, home=None):
    import subprocess

    env = tool_env()
    if user:
        env.update({"JUPYTERHUB_USER": user, "USER": user, "LOGNAME": user, "HOME": str(home)})
    cmd = [str(Path(sys.executable).parent / "nbgrader"), *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_a_course_through_the_exchange(tmp_path):
    course = fixture_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)
    ex = f"--Exchange.root={exchange}"
    out = nbgrader("release_assignment", attacks.ASSIGNMENT, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    students = {}
    for who in ("alice", "bob", "carol"):
        home = tmp_path / "home" / who
        work = home / "work"
        work.mkdir(parents=True)
        out = nbgrader("fetch_assignment", attacks.ASSIGNMENT, "--course", COURSE_ID, ex, cwd=work, user=who, home=home)
        assert out.returncode == 0, out.stdout + out.stderr
        students[who] = (home, work, work / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb")
        assert students[who][2].is_file()
    nb_text = students["alice"][2].read_text()
    assert "BEGIN SOLUTION" not in nb_text and "hidden_test" not in nb_text

    def submit(who):
        home, work, _ = students[who]
        out = nbgrader("submit", attacks.ASSIGNMENT, "--course", COURSE_ID, f"--student={who}", ex, cwd=work,
                       user=who, home=home)
        assert out.returncode == 0, out.stdout + out.stderr

    set_answers(students["alice"][2], attacks.answers(attacks.WRONG_1, attacks.CORRECT_2))
    submit("alice")
    time.sleep(1.1)  # a later submission: the newest counts
    set_answers(students["alice"][2], attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))
    submit("alice")
    set_answers(students["bob"][2], attacks.answers(attacks.CORRECT_1))
    submit("bob")
    # carol never submits

    out = nbgrader("collect", attacks.ASSIGNMENT, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["alice", "bob"]
    out = grade(course)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    scores = attacks.gradebook_scores(course)
    assert scores == {"alice": 3, "bob": 1}, scores

    out = nbgrader("generate_feedback", attacks.ASSIGNMENT, "--force", cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    out = nbgrader("release_feedback", attacks.ASSIGNMENT, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    home, work, _ = students["alice"]
    out = nbgrader("fetch_feedback", attacks.ASSIGNMENT, "--course", COURSE_ID, "--student=alice", ex, cwd=work,
                   user="alice", home=home)
    assert out.returncode == 0, out.stdout + out.stderr
    pages = list((work / attacks.ASSIGNMENT / "feedback").rglob("*.html"))
    assert pages, out.stdout + out.stderr
    page = pages[-1].read_text()
    assert "Score: 3" in page and "BEGIN HIDDEN TESTS" not in page and "hidden_test(" not in page
    home, work, _ = students["carol"]
    out = nbgrader("fetch_feedback", attacks.ASSIGNMENT, "--course", COURSE_ID, "--student=carol", ex, cwd=work,
                   user="carol", home=home)
    assert not list((work / attacks.ASSIGNMENT).rglob("feedback/*/*.html"))
