"""The grading steps one at a time, on the two-exercise fixture course, as nbgrader tests its preprocessors:
each step gets a small notebook and a :class:`~autograder.grading.steps.GradingRun` and must leave what its
docstring says.  The last tests run the whole list in a real (unsandboxed) kernel."""

from __future__ import annotations

import copy
import hashlib
import shutil
from pathlib import Path

import nbformat
import pytest
from support import ROOT

from autograder import probe
from autograder.grading.steps import read as read_step
from autograder.grading.steps import restore as submission
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import ExecResult, Limits
from autograder.grading.pipeline import grade_notebook
from autograder.grading.references import run_reference
from autograder.grading.steps import GradingRun, PlannedRun, default_steps, reference_steps, run_steps
from autograder.grading.steps.arm import ArmHiddenTests
from autograder.grading.steps.limit import LimitOutputs
from autograder.grading.steps.path import PlanGradePath
from autograder.grading.steps.read import ReadSubmission
from autograder.grading.steps.restore import RestoreInstructorCells
from autograder.values import course

NB = "00_fixture"


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> NotebookData:
    root = tmp_path_factory.mktemp("steps") / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "course", root)
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    return NotebookData.load(course.Assignment(NB, root), NB)


def answered(data: NotebookData, add_one: str = "return x + 1", double: str = "return 2 * x"):
    nb = copy.deepcopy(data.release)
    for cell in nb.cells:
        if course.grade_id(cell) == "ex0_1_solution":
            cell.source = f"def add_one(x):\n    {add_one}"
        elif course.grade_id(cell) == "ex0_2_solution":
            cell.source = f"def double(x):\n    {double}"
    return nb


def submit(tmp_path: Path, nb) -> Path:
    path = tmp_path / "sub" / f"{NB}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def new_run(data, path, refs=None, **kw) -> GradingRun:
    return GradingRun(data, Path(path), "s1", 7, refs, Limits(cell_timeout=60, notebook_timeout=120), **kw)


def step(s, nb, run):
    return s.preprocess(nb, {"grading": run})[0]


def test_the_steps_are_nbgrader_preprocessors_in_the_stated_order():
    from nbgrader.preprocessors import NbGraderPreprocessor
    from traitlets.config import Config

    steps = default_steps()
    assert all(isinstance(s, NbGraderPreprocessor) for s in steps)
    assert [type(s).__name__ for s in steps] == ["ReadSubmission", "RestoreInstructorCells", "ArmHiddenTests",
                                                 "PlanGradePath", "ExecuteInSandbox", "JudgeObservations",
                                                 "LimitOutputs"]
    assert [type(s).__name__ for s in reference_steps()] == ["ArmHiddenTests", "PlanGradePath", "ExecuteInSandbox",
                                                             "KeepObservations"]
    # --full is a setting of the plan, as nbgrader's flags set a preprocessor's traits
    assert not steps[3].full and default_steps(full=True)[3].full
    assert PlanGradePath(config=Config({"PlanGradePath": {"full": True}})).full


def test_read_hashes_the_bytes_and_parses_them(data, tmp_path):
    path = submit(tmp_path, answered(data))
    run = new_run(data, path)
    nb = step(ReadSubmission(), None, run)
    assert run.result.submission_sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert nb is run.submitted.nb and not run.done and course.graded_ids(nb)


@pytest.mark.parametrize("content, says", [(None, "missing"), (b"{not json", "could not be read"),
                                           (b'{"cells": 3, "nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
                                            "")])
def test_read_ends_the_run_on_a_file_that_does_not_read(data, tmp_path, content, says):
    path = tmp_path / f"{NB}.ipynb"
    if content is not None:
        path.write_bytes(content)
    run = new_run(data, path)
    assert step(ReadSubmission(), None, run) is None
    assert run.done and says in run.result.error
    assert [e.status for e in run.result.exercises] == ["failed", "failed"]
    assert run_steps(new_run(data, path)) is None  # no later step runs


def test_read_refuses_a_file_past_the_size_limit_without_parsing_it(data, tmp_path, monkeypatch):
    path = submit(tmp_path, answered(data))
    monkeypatch.setattr(read_step, "MAX_NOTEBOOK_BYTES", 100)
    run = new_run(data, path)
    step(ReadSubmission(), None, run)
    assert run.done and "larger than" in run.result.error
    assert run.result.submission_sha == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_handed_notebook_is_read_by_the_rule_a_file_is(data, tmp_path, monkeypatch):
    """nbgrader's Autograde hands over the notebook it read: taken from its own bytes, parsed again without
    trust, within the same size limit, and only while the file it came from is one a grade reads."""
    path = submit(tmp_path, answered(data))
    handed = nbformat.read(path, as_version=4)
    run = new_run(data, path, handed=handed)
    nb = step(ReadSubmission(), None, run)
    assert not run.done and nb is not handed and course.graded_ids(nb) == course.graded_ids(handed)
    assert run.result.submission_sha == hashlib.sha256(nbformat.writes(handed).encode()).hexdigest()
    link = tmp_path / "link.ipynb"
    link.symlink_to(path)
    run = new_run(data, link, handed=handed)
    assert step(ReadSubmission(), None, run) is None and "missing" in run.result.error
    monkeypatch.setattr(read_step, "MAX_NOTEBOOK_BYTES", 100)
    run = new_run(data, path, handed=handed)
    assert step(ReadSubmission(), None, run) is None and "larger than" in run.result.error


def test_restore_puts_back_the_test_cells_and_logs_the_tampering(data, tmp_path):
    nb = answered(data)
    for cell in nb.cells:
        if course.grade_id(cell) == "ex0_1_tests":
            cell.source = "assert True"
    run = new_run(data, "unused", refs=None)
    merged = step(RestoreInstructorCells(), nb, run)
    tests = next(c for c in merged.cells if course.grade_id(c) == "ex0_1_tests")
    assert tests.source == next(c for c in data.release.cells if course.grade_id(c) == "ex0_1_tests").source
    assert any("ex0_1_tests" in t for t in run.result.tampering), run.result.tampering
    answer = next(c for c in merged.cells if course.grade_id(c) == "ex0_1_solution")
    assert "return x + 1" in answer.source


def test_restore_says_when_a_notebook_is_another_one(data):
    other = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    run = new_run(data, "unused")
    step(RestoreInstructorCells(), other, run)
    assert any("does not look like" in t for t in run.result.tampering)


def test_arm_gives_each_hidden_test_its_own_seed_and_nothing_without_hidden_tests(data):
    run = new_run(data, "unused", refs=object())
    nb = step(ArmHiddenTests(), copy.deepcopy(data.solution), run)
    for ex in ("ex0_1", "ex0_2"):
        cell = next(c for c in nb.cells if course.grade_id(c) == f"{ex}_tests")
        assert probe.arm_line(ex, probe.derive_seed(7, ex)) in cell.source
    plain = step(ArmHiddenTests(), copy.deepcopy(data.solution), new_run(data, "unused"))
    assert "probe').probe.arm(" not in "".join(c.source for c in plain.cells)


def test_the_grade_path_is_planned_with_the_hidden_tests_and_every_cell_runs_without(data):
    from autograder.grading.execute import skip_reason

    visible = new_run(data, "unused")
    nb = copy.deepcopy(data.solution)
    nb.cells.append(nbformat.v4.new_code_cell("scratch = 1"))  # a learner's cell nothing graded reads
    step(PlanGradePath(), nb, visible)
    assert [(r.name, r.nb) for r in visible.runs] == [("top to bottom", nb)]
    hidden = new_run(data, "unused", refs=object())
    step(PlanGradePath(), nb, hidden)
    (path,) = hidden.runs
    assert path.name == "grade path" and path.nb is not nb
    assert skip_reason(path.nb.cells[-1]) and not any(skip_reason(c) for c in path.nb.cells[:-1]
                                                      if course.grade_id(c))


def test_full_plans_the_notebook_top_to_bottom_after_the_path_and_only_where_there_is_one(data):
    nb = copy.deepcopy(data.solution)
    hidden = new_run(data, "unused", refs=object())
    step(PlanGradePath(full=True), nb, hidden)
    assert [r.name for r in hidden.runs] == ["grade path", "top to bottom"] and hidden.runs[1].nb is nb
    visible = new_run(data, "unused")
    step(PlanGradePath(full=True), nb, visible)
    assert [r.name for r in visible.runs] == ["top to bottom"]


def test_limit_keeps_what_leaves_within_the_notebook_limit(data):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('x' * 10**6)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * (1 << 20))]
    run = new_run(data, "unused")
    run.limits = Limits(max_notebook_output_kb=64)
    run.runs = [PlannedRun("grade path", nb, ExecResult(nb))]
    out = step(LimitOutputs(), nb, run)
    assert len(nbformat.writes(out)) < 128 * 1024


def test_the_steps_grade_a_right_and_a_wrong_answer_in_a_real_kernel(data, tmp_path):
    """Visible tests only (no reference): one kernel per run, no sandbox."""
    right = submit(tmp_path / "r", answered(data))
    wrong = submit(tmp_path / "w", answered(data, double="return x + x + 1"))
    for path, statuses in ((right, ["passed", "passed"]), (wrong, ["passed", "failed"])):
        result, nb = grade_notebook(path, data, student_id="s1", seed=7, refs=None,
                                    limits=Limits(cell_timeout=60, notebook_timeout=120))
        assert [e.status for e in result.exercises] == statuses, result
        assert result.run == "top to bottom" and nb is not None and result.error is None


def test_the_steps_judge_hidden_tests_against_the_reference(data, tmp_path):
    """With the reference's observations: a right answer passes its hidden tests, one that is right on the
    visible asserts alone fails them (``double`` of a tensor of ones, wrong elsewhere)."""
    refs = run_reference(data, 7, limits=Limits(cell_timeout=60, notebook_timeout=120))
    assert refs.failure is None, refs.failure
    sly = submit(tmp_path / "s", answered(data, double="return x + 1 if bool((x == 1).all()) else 3 * x"))
    right = submit(tmp_path / "r", answered(data))
    for path, statuses in ((right, ["passed", "passed"]), (sly, ["passed", "failed"])):
        result, _ = grade_notebook(path, data, student_id="s1", seed=7, refs=refs,
                                   limits=Limits(cell_timeout=60, notebook_timeout=120))
        assert [e.status for e in result.exercises] == statuses, result


def test_a_job_carries_the_course_notebook_by_reference_and_checks_it_at_the_other_end(tmp_path):
    """Workers and Slurm tasks get a reference (a few hundred bytes), load the notebook once, and refuse one
    whose solution changed after the run was planned."""
    import pickle

    root = tmp_path / "course"
    shutil.copytree(ROOT / "tests" / "fixtures" / "course", root)
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    shared = NotebookData.loaded(course.Assignment(NB, root), NB)
    blob = pickle.dumps(shared)
    assert len(blob) < 1024 and b"BEGIN SOLUTION" not in blob
    assert pickle.loads(blob) is shared
    path = shared.assignment.solution(NB)
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("a later edit"))
    nbformat.write(nb, path)
    with pytest.raises(RuntimeError, match="changed while it was being graded"):
        pickle.loads(blob)


def _cell(nb, gid):
    return next(c for c in nb.cells if course.grade_id(c) == gid)


def test_restore_judges_a_test_cell_against_every_release_the_course_made(data):
    """A test cell as an earlier release handed it out is no edit; one that matches no release is, whatever
    nbgrader's checksum in the submission says (the learner's side writes it); without a record of earlier
    releases, only the current one counts."""
    from nbgrader.utils import compute_checksum

    from autograder.values import released

    earlier = copy.deepcopy(data.release)
    _cell(earlier, "ex0_1_tests").source = _cell(earlier, "ex0_1_tests").source.replace("must be 1", "must be one")
    _cell(earlier, "ex0_1_tests").metadata.nbgrader["points"] = 3
    record = released.versions_of(earlier)
    for gid, versions in released.versions_of(data.release).items():
        record.setdefault(gid, []).extend(v for v in versions if v not in record[gid])

    honest = answered(data)
    for gid in ("ex0_1_tests",):
        honest.cells[[course.grade_id(c) for c in honest.cells].index(gid)] = copy.deepcopy(_cell(earlier, gid))
    _, tamper, older = submission.merge(honest, data.release, data.solution, released_cells=record)
    assert tamper == [] and older == ["ex0_1_tests"]
    _, tamper, older = submission.merge(honest, data.release, data.solution, released_cells=None)
    assert any("ex0_1_tests was edited" in t for t in tamper) and any("metadata of ex0_1_tests" in t for t in tamper)

    forged = answered(data)
    _cell(forged, "ex0_1_tests").source = "assert True"
    _cell(forged, "ex0_1_tests").metadata.nbgrader["checksum"] = compute_checksum(_cell(forged, "ex0_1_tests"))
    _cell(forged, "ex0_2_tests").metadata.nbgrader["points"] = 20
    _, tamper, older = submission.merge(forged, data.release, data.solution, released_cells=record)
    assert "test cell ex0_1_tests was edited (the original tests were run)" in tamper
    assert any("metadata of ex0_2_tests changed" in t for t in tamper) and older == []
    # a mix no release handed out (the earlier source with the current points) is no release either
    mixed = answered(data)
    _cell(mixed, "ex0_1_tests").source = _cell(earlier, "ex0_1_tests").source
    _, tamper, _ = submission.merge(mixed, data.release, data.solution, released_cells=record)
    assert any("metadata of ex0_1_tests changed" in t for t in tamper), tamper
