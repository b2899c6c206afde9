"""The late policy's arithmetic, and lateness from a submission time and a due date."""

from __future__ import annotations

import math

import pytest

from autograder.adapters.late import LatePolicy, parse_time


@pytest.mark.parametrize("seconds,penalty", [(0, None), (1, 0.4), (86400, 0.4), (86401, 0.8),
                                             (5 * 86400, 2.0), (5 * 86400 + 1, 4.0)])
def test_ten_percent_per_started_day_then_all(seconds, penalty):
    p = LatePolicy(percent_per_day=10.0, max_days=5.0)
    got = p.late_submission_penalty("s", 4.0, seconds)
    assert (got is None and penalty is None) or got == pytest.approx(penalty)


def test_no_policy_takes_nothing_and_a_penalty_never_exceeds_the_score():
    assert LatePolicy().late_submission_penalty("s", 3.0, 10 * 86400) == pytest.approx(0.0)
    assert LatePolicy(percent_per_day=60.0).late_submission_penalty("s", 3.0, 2 * 86400) == pytest.approx(3.0)
    assert LatePolicy(percent_per_day=10.0).late_submission_penalty("s", 0.0, 86400) is None
    assert LatePolicy().max_days == math.inf


def test_times_are_read_as_nbgrader_writes_them():
    assert parse_time("2026-11-20 12:00:00.000000 UTC").isoformat().startswith("2026-11-20T12:00:00")
    assert parse_time("not a time") is None and parse_time(None) is None


def _terms(when, source="collector", due="2026-11-20T12:00:00+00:00", ext=0.0):
    from autograder.adapters.late import Terms

    return Terms(due, ext, 10.0, 5.0, when, source)


def test_a_penalty_rests_only_on_a_time_that_says_when_work_was_handed_in():
    from autograder.values.records import ExerciseResult, NotebookResult

    r = NotebookResult("s", "a", "a", exercises=[ExerciseResult("ex0_1", "", 3, 3, "passed")])
    _terms("2026-11-21 13:00:00 UTC").apply(r)
    assert r.late_penalty == pytest.approx(0.6) and r.notes == []
    _terms("2026-11-21 13:00:00 UTC", source="file time in the submissions folder").apply(r)
    assert r.late_penalty == 0.0 and r.seconds_late == 25 * 3600
    assert r.notes and r.notes[0].startswith("late by the file's time only")
    _terms("next tuesday").apply(r)  # never taken as on time; and the notes of one policy never pile up on the next
    assert r.late_penalty == 3.0 and len(r.notes) == 1 and "does not read as a time" in r.notes[0]
    _terms("next tuesday", due=None).apply(r)  # no due date: nothing to be late for
    assert r.late_penalty == 0.0 and r.notes == []
    _terms("2026-11-21 13:00:00 UTC", ext=48.0).apply(r)
    assert r.late_penalty == 0.0 and r.notes == [] and r.extension_hours == 48.0


def test_a_change_of_policy_is_named():
    before = _terms("2026-11-21 13:00:00 UTC").as_dict()
    assert _terms("2026-11-21 13:00:00 UTC").changes(before) == []
    assert _terms("2026-11-21 13:00:00 UTC", ext=24).changes(before) == ["extension"]
    assert _terms("2026-11-22 13:00:00 UTC", due=None).changes(before) == ["due date", "submission time"]


def test_a_long_lived_process_sees_a_due_date_set_after_it_started(tmp_path):
    """The formgrader's server grades in its own process for a whole term: a due date or an extension
    written into nbgrader_config.py after its first grade decides the next one."""
    import os

    from autograder.adapters.late import Terms

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    on_time = Terms.of(tmp_path, "01_tensors", "ana", "2026-11-22 12:00:00 UTC", "collector")
    assert on_time.due is None and on_time.seconds_late == 0
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.LatePolicy.due_dates = {'01_tensors': '2026-11-20 12:00:00 UTC'}\n"
        "c.LatePolicy.percent_per_day = 10.0\nc.LatePolicy.extensions = {'01_tensors': {'ana': 24}}\n")
    st = (tmp_path / "nbgrader_config.py").stat()
    os.utime(tmp_path / "nbgrader_config.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    late = Terms.of(tmp_path, "01_tensors", "ana", "2026-11-22 12:00:00 UTC", "collector")
    assert late.due is not None and late.extension_hours == 24 and late.seconds_late == 86400
    assert late.penalty(3.0) == pytest.approx(0.3)


def test_lateness_is_nbgraders_own_arithmetic():
    """The seconds late are what nbgrader's gradebook model computes from the same due date, extension and time."""
    import datetime as dt

    from nbgrader.api import Assignment, SubmittedAssignment

    t = _terms("2026-11-22 13:30:00 UTC", ext=24.0)
    orm = SubmittedAssignment(timestamp=parse_time(t.submitted_at), extension=dt.timedelta(hours=24),
                              assignment=Assignment(name="a", duedate=parse_time(t.due)))
    assert t.seconds_late == orm.total_seconds_late == 25.5 * 3600


def _course_with(tmp_path, settings: str):
    """The fixture course with ``settings`` added to its nbgrader_config.py, and alice's and bob's submissions."""
    import shutil

    from support import bare_fixture_course

    course = bare_fixture_course(tmp_path / "course")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("\n" + settings + "\n")
    for student in ("alice", "bob"):
        (course / "submitted" / student / "00_fixture").mkdir(parents=True)
        shutil.copy(course / "solutions" / "00_fixture" / "00_fixture.ipynb",
                    course / "submitted" / student / "00_fixture" / "00_fixture.ipynb")
    return course


def _grade(course, *args):
    import sys

    from support import run_tool

    return run_tool([sys.executable, "-m", "autograder", "grade", "00_fixture", *args], course, timeout=300)


@pytest.mark.parametrize("settings,said", [
    ('c.LatePolicy.due_dates = {"00_fixture": "next friday"}\nc.LatePolicy.extensions = {"00_fixture": {"alice": 48}}',
     "c.LatePolicy.due_dates['00_fixture'] is 'next friday', which is not a due date: give a date and time"),
    ('c.LatePolicy.percent_per_day = -10', "c.LatePolicy.percent_per_day is -10: give a number of percent, 0 or more"),
])
def test_a_setting_that_does_not_read_stops_grade_in_one_line_before_anything_runs(tmp_path, settings, said):
    course = _course_with(tmp_path, settings)
    out = _grade(course)
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.strip().splitlines() == [out.stderr.strip()] and said in out.stderr, out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    assert not (course / "autograded").exists() and not (course / ".autograder" / "results").exists()


@pytest.mark.parametrize("settings,said", [
    ('c.LatePolicy.due_dates = {"00_fixture": 20261207}', "due_dates['00_fixture'] is 20261207, which is not a due"),
    ('c.LatePolicy.due_dates = {"00_fixture": "friday"}', "is 'friday', which is not a due date"),  # today decides it
    ('c.LatePolicy.due_dates = {"00_fixture": "Dec 7"}', "is 'Dec 7', which is not a due date"),
    ('c.LatePolicy.due_dates = {"00_fixture": "2026-12-07 23:59 CEST"}', "which is not a due date"),  # not UTC
    ('c.LatePolicy.due_dates = {"00_fixture": "2026-12-07 23:59:00 +0200"}', "which is not a due date"),  # 200 s
    ('c.LatePolicy.due_dates = "2026-12-07"', "c.LatePolicy.due_dates is '2026-12-07': give a dict of assignment"),
    ('c.LatePolicy.extensions = {"00_fixture": {"alice": "two days"}}',
     "c.LatePolicy.extensions['00_fixture']['alice'] is 'two days': give the hours added to alice's due date"),
    ('c.LatePolicy.extensions = {"00_fixture": {"alice": -24}}', "['alice'] is -24: give the hours"),
    ('c.LatePolicy.extensions = {"00_fixture": {"alice": True}}', "['alice'] is True: give the hours"),
    ('c.LatePolicy.extensions = {"00_fixture": 48}', "c.LatePolicy.extensions['00_fixture'] is 48: give a dict of"),
    ('c.LatePolicy.extensions = [("alice", 48)]', "c.LatePolicy.extensions is [('alice', 48)]: give a dict"),
    ('c.LatePolicy.extensions = {"00_fixture": {7: 48}}', "names the student 7: student ids are text"),
    ('c.LatePolicy.percent_per_day = "ten"', "c.LatePolicy.percent_per_day is 'ten': give a number of percent"),
    ('c.LatePolicy.percent_per_day = float("nan")', "c.LatePolicy.percent_per_day is nan"),
    ('c.LatePolicy.max_days = -1', "c.LatePolicy.max_days is -1: give a number of days"),
    ('c.LatePolicy.percent_per_days = 10', "c.LatePolicy.percent_per_days is not a setting of the course's late "
                                           "policy (its settings are due_dates, extensions, percent_per_day, "
                                           "max_days; the closest is percent_per_day)"),
    ('c.LatePolicy.penalty_method = "zero"', "c.LatePolicy.penalty_method is not a setting"),
    ('c.LatePolicy.due_dates.update({"00_fixture": "soon"})', "due_dates['00_fixture'] is 'soon', which is not a due date"),
])
def test_every_setting_that_does_not_read_is_named_with_its_value(tmp_path, settings, said):
    from autograder.adapters import late
    from autograder.values.errors import UserError

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + settings + "\n")
    with pytest.raises(UserError) as caught:
        late.policy(tmp_path)
    assert str(caught.value).startswith("nbgrader_config.py: ") and said in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("due", ["2026-12-07 23:59:00 UTC", "2026-12-07T23:59:00-05:00", "2026-12-07",
                                 "2026-12-07 23:59:00 America/New_York", "7 December 2026 23:59 UTC"])
def test_the_forms_of_a_due_date_that_read_are_taken(tmp_path, due):
    from autograder.adapters import late

    (tmp_path / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.LatePolicy.due_dates = {{'a': {due!r}, 'b': None}}\n"
        "c.LatePolicy.extensions = {'a': {'ana': '48', 'bo': 0, 'cy': 2.5}}\nc.LatePolicy.max_days = float('inf')\n")
    rules = late.policy(tmp_path)
    assert late.due_date(rules, "a") == parse_time(due) and late.due_date(rules, "b") is None
    assert late.extension(rules, "a", "ana").total_seconds() == 48 * 3600 and late.extension(rules, "a", "bo") is None


def test_nbgraders_own_late_penalty_step_is_held_to_the_same_rule():
    from traitlets import TraitError

    with pytest.raises(TraitError, match="percent_per_day is -5.0: give a number of percent"):
        LatePolicy(percent_per_day=-5.0)
    with pytest.raises(TraitError, match="is 'next friday', which is not a due date"):
        LatePolicy(due_dates={"01_tensors": "next friday"})


def test_nbgraders_autograde_stops_at_a_setting_that_does_not_read(tmp_path, monkeypatch):
    """nbgrader's own autograde (and the formgrader's button) grade through ``grade``: the same line stops them."""
    from autograder.adapters.autograde import GradeInSandbox

    course = _course_with(tmp_path, 'c.LatePolicy.due_dates = {"00_fixture": "next friday"}')
    monkeypatch.chdir(course)
    info = {"nbgrader": {"assignment": "00_fixture", "student": "alice", "notebook": "00_fixture"}}
    with pytest.raises(RuntimeError, match="is 'next friday', which is not a due date"):
        GradeInSandbox().preprocess(None, info)
    assert not (course / "autograded").exists()


def test_an_extension_of_an_assignment_with_no_due_date_changes_nothing(tmp_path):
    """nbgrader cannot extend a due date there is not (its gradebook's lateness fails on it)."""
    from autograder.adapters.late import Terms

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.LatePolicy.extensions = {'a': {'ana': 24}}\n")
    t = Terms.of(tmp_path, "a", "ana", "2026-11-22 12:00:00 UTC", "collector")
    assert t.extension_hours == 0.0 and t.seconds_late == 0 and t.penalty(3.0) == 0.0
    assert _terms("2026-11-22 12:00:00 UTC", due=None, ext=24.0).seconds_late == 0


def test_names_that_name_nothing_are_said_one_line_each_and_grading_goes_on(tmp_path, monkeypatch):
    """A misspelt assignment or student changes nothing, so grade says so; a student who has not handed in
    and is not in the gradebook yet may be added by a later roster, so nothing stops for it."""
    from nbgrader.api import Gradebook
    from support import tool_env

    from autograder.values import course as course_mod

    course = _course_with(tmp_path, "\n".join([
        'c.LatePolicy.due_dates = {"00_fixture": "2026-11-20 12:00:00 UTC", "00_fixtrue": "2026-11-20 12:00:00 UTC"}',
        'c.LatePolicy.extensions = {"00_fixture": {"alice": 48, "bbo": 72, "dave": 24, "zed": 1},'
        ' "01_tensor": {"carol": 24}}']))
    monkeypatch.setenv("PATH", tool_env()["PATH"])  # nbgrader makes its gradebook with alembic
    with Gradebook(course_mod.gradebook_url(course)) as gb:
        gb.add_student("dave")  # on the roster, nothing handed in yet: no warning
    out = _grade(course, "--student", "nobody")  # stops at planning, after the policy is read
    warnings = [line for line in out.stdout.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: nbgrader_config.py: c.LatePolicy.due_dates names '00_fixtrue', which is not an assignment of this "
        "course (the closest is 00_fixture): it applies to nothing",
        "warning: nbgrader_config.py: c.LatePolicy.extensions names '01_tensor', which is not an assignment of this "
        "course (the assignments are 00_fixture): it applies to nothing",
        "warning: nbgrader_config.py: c.LatePolicy.extensions['00_fixture'] names 'bbo', who has no submission of "
        "00_fixture and is not in the gradebook (the closest is bob): it applies once they hand it in or a roster "
        "adds them",
        "warning: nbgrader_config.py: c.LatePolicy.extensions['00_fixture'] names 'zed', who has no submission of "
        "00_fixture and is not in the gradebook: it applies once they hand it in or a roster adds them"], out.stdout
    assert "no submission of nobody" in out.stderr and "Traceback" not in out.stderr


def test_an_extension_with_no_due_date_to_extend_is_said(tmp_path):
    from autograder.adapters import late

    course = _course_with(tmp_path, "c.LatePolicy.extensions = {'00_fixture': {'alice': 24, 'bob': 12}}")
    said = late.check(course, course / "submitted", f"sqlite:///{course / 'gradebook.db'}")
    assert said == ["warning: nbgrader_config.py: c.LatePolicy.extensions['00_fixture'] extends the due date of "
                    "alice, bob, but 00_fixture has no due date in c.LatePolicy.due_dates: no extension applies"]
    assert not (course / "gradebook.db").exists()  # reading the roster never makes a gradebook


def test_a_recorded_time_still_vouches_for_its_notebooks_beside_a_stray_file(tmp_path):
    """The collector's time stands while every notebook it vouches for is there as it was: a scratch notebook
    added beside them does not drop it to the file's time (which applies no penalty); a resubmission does."""
    from autograder.adapters import times

    folder = tmp_path / "submitted" / "erin" / "01_a"
    folder.mkdir(parents=True)
    (folder / "01_a.ipynb").write_text('{"cells": []}')
    times.record(tmp_path, "01_a", "erin", folder, "2026-11-20 12:00:00 UTC", times.COLLECTOR)
    (folder / "scratch.ipynb").write_text('{"cells": [1]}')
    assert times.recorded(tmp_path, "01_a", "erin", folder) == ("2026-11-20 12:00:00 UTC", times.COLLECTOR)
    (folder / "01_a.ipynb").write_text('{"cells": [2]}')  # resubmitted: the record no longer speaks for it
    assert times.recorded(tmp_path, "01_a", "erin", folder) is None
    empty = tmp_path / "submitted" / "fay" / "01_a"
    empty.mkdir(parents=True)
    times.record(tmp_path, "01_a", "fay", empty, "2026-11-20 12:00:00 UTC", times.COLLECTOR)
    (empty / "01_a.ipynb").write_text('{"cells": []}')  # a record of no notebook vouches for none added later
    assert times.recorded(tmp_path, "01_a", "fay", empty) is None
