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
