"""The late policy's arithmetic, and lateness from a submission time and a due date."""

from __future__ import annotations

import math

import pytest

from autograder.late import LatePolicy, parse_time


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
