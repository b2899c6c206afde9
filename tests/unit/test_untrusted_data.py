"""Data from a learner's kernel, handled by the trusted side: it never raises, never serialises badly,
and never reaches a learner-facing message as text.

Unit tests of the three modules that take the adversary's data: :mod:`autograder.values.comparison` (observation
payloads), :mod:`autograder.values.outputs` (everything a run printed) and :mod:`autograder.values.messages`
(what a learner is told).  The end-to-end versions are in ``test_security.py``.
"""

from __future__ import annotations

import json
import math

import nbformat
import pytest
import support

from autograder.grading.steps import judge as scoring
from autograder.values import comparison, messages, outputs

REF = {"exercise": "ex", "error": None, "observations": [
    {"name": "f", "value": {"t": "float", "v": 1.0}, "spec": {"rtol": 1e-5, "atol": 1e-6, "hint": "concept f"}},
    {"name": "t", "value": {"t": "tensor", "dtype": "torch.int64", "shape": [2], "data": [1, 2]}, "spec": {}},
    {"name": "s", "value": {"t": "str", "v": "device ok"}, "spec": {}},
    {"name": "l", "value": {"t": "list", "v": [{"t": "int", "v": 3}]}, "spec": {}},
]}

LEAK = "hidden_test(obs) SECRET-SOURCE"

HOSTILE = [
    None, [], "x", {"observations": "nope"}, {"observations": [None, 7, [], {"name": ["f"]}, {"name": "f"}]},
    {"observations": [{"name": "f", "value": {"t": "int", "v": 10**400}}]},
    {"observations": [{"name": "f", "value": {"t": "int", "v": -10**400}}]},
    {"observations": [{"name": "f", "value": {"t": "float", "v": "NaN-ish"}}]},
    {"observations": [{"name": "f", "value": {"t": "float", "v": float("nan")}}]},
    {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": LEAK, "shape": [2], "data": [1, 2]}}]},
    {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": "torch.int64", "shape": [LEAK], "data": [1]}}]},
    {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": "torch.int64", "shape": [2],
                                              "data": [10**400, LEAK]}}]},
    {"observations": [{"name": "t", "value": {"t": LEAK}}]},
    {"observations": [{"name": "s", "value": {"t": "str", "v": LEAK}}]},
    {"observations": [{"name": "s", "value": {"t": "unsupported", "type": LEAK}}]},
    {"observations": [{"name": "l", "value": {"t": "list", "v": LEAK}}]},
    {"observations": [{"name": "l", "value": {"t": "list", "v": [{"t": "int", "v": LEAK}]}}]},
    {"observations": [], "error": f"ValueError: {LEAK}"},
    {"observations": [], "error": f"{LEAK}: x"},
    {"observations": [], "error": {"a": 10**400}},
]


@pytest.mark.parametrize("payload", HOSTILE, ids=range(len(HOSTILE)))
def test_judge_never_raises_and_never_quotes_the_learner(payload):
    v = comparison.judge(REF, payload)
    assert not v.passed
    text = v.message()
    assert "SECRET" not in text and "hidden_test" not in text, text


def test_judge_still_says_what_is_wrong():
    v = comparison.judge(REF, {"observations": [{"name": "f", "value": {"t": "float", "v": 2.0}}], "error": "ValueError: x"})
    text = v.message()
    assert "value 2 is not within tolerance" in text and "concept f" in text and "raised ValueError" in text
    assert "not reached" in text  # the other checks
    assert comparison.judge(REF, {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": "torch.float32",
                                                                       "shape": [3], "data": [0, 0, 0]}}]}
                       ).checks[1].reason == "shape (3,) is not the expected shape"


def test_exact_integers_compare_as_integers():
    ref = {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": "torch.int64", "shape": [1],
                                                    "data": [2**60 + 1]}, "spec": {}}]}
    got = {"observations": [{"name": "t", "value": {"t": "tensor", "dtype": "torch.int64", "shape": [1],
                                                    "data": [2**60]}}]}
    assert not comparison.judge(ref, got).passed


def test_outputs_always_serialise_and_hold_no_active_content():
    deep: list = []
    for _ in range(2000):
        deep = [deep]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x")])
    nb.cells[0].outputs = [
        {"output_type": "stream", "name": "evil", "text": "a \ud800 b \x00 c"},
        {"output_type": "display_data", "data": {"text/plain": ["\udcff", 7], "text/html": "<script>x</script>",
                                                  "application/json": {"deep": deep, "big": 10**5000}},
         "metadata": {"junk": float("nan")}},
        {"output_type": "execute_result", "data": {"image/png": "not base64 !!", "application/javascript": "x"},
         "execution_count": 3},
        {"output_type": "error", "ename": ["list"], "evalue": 10**400, "traceback": "not a list"},
        "not an output", {"output_type": "unknown"},
    ]
    clean = outputs.clean_notebook(nb, 1 << 20)
    text = nbformat.writes(clean)
    text.encode("utf-8")  # no lone surrogate left
    json.loads(text)
    outs = clean.cells[0].outputs
    assert [o["output_type"] for o in outs] == ["stream", "display_data", "display_data", "error"]
    assert outs[0]["name"] == "stdout" and "\x00" not in outs[0]["text"]
    assert set(outs[1]["data"]) == {"text/plain"} and set(outs[2]["data"]) == {"text/plain"}
    assert "not kept" in outs[2]["data"]["text/plain"]


def test_outputs_are_bounded_per_notebook():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x") for _ in range(50)])
    for cell in nb.cells:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 100_000)]
    clean = outputs.clean_notebook(nb, 1 << 20)
    assert len(nbformat.writes(clean)) < (1 << 20) + 50_000


def test_json_safe_numbers():
    assert outputs.json_safe(float("inf")) == "inf" and outputs.json_safe(10**500) == "(integer too large)"
    assert math.isnan(comparison.observed_number("nan")) and comparison.observed_number(10**400) == math.inf


SOURCE = '''x = f(1)
assert x == 2, f"f(1) gave {x}: is the bias added? (section 2)"
assert (
    x > 0
), "must be positive"
assert x
'''


def test_visible_failures_are_told_with_the_instructors_words():
    # a frame's header is its entry's first line; a line of code that reads like one is not a frame
    tb = ["\x1b[0;31mAssertionError\x1b[0m  Traceback", "Cell \x1b[0;32mIn[7], line 17\x1b[0m\n  f()",
          "Cell In[7], line 2, in f()\n  # Cell In[5], line 1", "File /x.py:3", "Cell In[], line 9"]
    assert messages.traceback_frames(tb) == [(7, 17), (7, 2), (None, 9)]
    outcome = scoring.cell_outcome(nbformat.v4.new_code_cell(SOURCE, execution_count=7, outputs=[
        nbformat.v4.new_output("error", ename="AssertionError", evalue="", traceback=tb)]), "ex0_1")
    line = outcome.error_line
    assert line == 2  # the innermost frame of the test cell itself: the assert, not the call of the test function
    a = "AssertionError"
    assert support.visible_failure(a, line, SOURCE) == "AssertionError: f(1) gave …: is the bias added? (section 2)"
    assert support.visible_failure(a, 4, SOURCE) == "AssertionError: must be positive"
    assert "no message" in support.visible_failure(a, 6, SOURCE)
    assert support.visible_failure(a, 99, SOURCE) == "AssertionError in the visible tests (test cell, line 99)"
    other = support.visible_failure(LEAK, 1, SOURCE)
    assert "SECRET" not in other and "an exception" in other
    assert messages.exception_name("RuntimeError: boom") == "RuntimeError"
    # a per-student variant's parameter, named alone, shows the value the grader drew; nothing else does
    varied = 'assert ok, f"pad on the {SIDE} ({SIDE!r}, {SIDE:>6}, {SIDE.upper()}, {x})"\n'
    assert support.visible_failure(a, 1, varied, {"SIDE": "left"}) == \
        "AssertionError: pad on the left ('left', …, …, …)"
    assert support.visible_failure(a, 1, varied) == "AssertionError: pad on the … (…, …, …, …)"


def test_submission_times_say_where_they_come_from(tmp_path):
    from autograder.adapters import times

    folder = tmp_path / "submitted" / "s" / "a"
    folder.mkdir(parents=True)
    (folder / "nb.ipynb").write_text("{}")
    (folder / ".collected_at").write_text("2026-11-01 09:00:00.000000 UTC")  # the learner's own file: no evidence
    when, source = times.submission_time(tmp_path, "a", "s", folder)
    assert source == "file time in the submissions folder" and when
    (folder / "timestamp.txt").write_text("2026-11-20 12:00:00.000000 UTC\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
    when, source = times.submission_time(tmp_path, "a", "s", folder)
    assert source == "nbgrader's timestamp.txt" and when.startswith("2026-11-20")
    times.record(tmp_path, "a", "s", folder, "2026-11-21 09:00:00.000000 UTC", times.COLLECTOR)
    assert times.submission_time(tmp_path, "a", "s", folder) == ("2026-11-21 09:00:00.000000 UTC", "collector")
    (folder / "nb.ipynb").write_text('{"cells": []}')  # another submission: the record does not vouch for it
    assert times.submission_time(tmp_path, "a", "s", folder)[1] == "nbgrader's timestamp.txt"
