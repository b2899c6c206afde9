"""Grading through a real (single-node) Slurm cluster with submitit.

One array of four tasks, two at a time, one fake GPU each: an honest and an empty
submission, one that outlives its task's time limit, and one whose task the
test cancels while it runs.  Every submission ends with a recorded result (the
last two with the reason), results land in the same gradebook as the local
path, and each task saw its own ``CUDA_VISIBLE_DEVICES``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import attacks
import pytest
import slurm_cluster
from attacks import gradebook_scores
from support import fix_term_seed, fixture_course, results, tool_env

from autograder.sandbox import launch as sandbox

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("slurm"),
              pytest.mark.skipif(not slurm_cluster.available() or not sandbox.available(),
                                 reason="needs slurm-wlm, munge and bubblewrap as root (make setup)")]

LOOP = "import time\nwhile True:\n    time.sleep(1)\n"


def test_grade_on_slurm(tmp_path):
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    cases = [attacks.Case("a_timeout", "runs past the task's time limit", 0, answers=attacks.answers(LOOP)),
             attacks.Case("b_cancelled", "its task is cancelled", 0, answers=attacks.answers(LOOP)),
             attacks.Case("c_honest", "right", 3, answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)),
             attacks.Case("d_empty", "untouched", 0)]
    attacks.build(cases, release, course / "submitted")
    fix_term_seed(course, 5)
    with slurm_cluster.cluster(tmp_path / "slurm") as env:
        e = tool_env()
        e.update(env)
        e.update({"AUTOGRADER_LIMIT_CELL_TIMEOUT": "900", "AUTOGRADER_LIMIT_NOTEBOOK_TIMEOUT": "900"})

        def grade(*extra):
            return subprocess.Popen(
                [sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, "--backend", "slurm",
                 "--partition", "grading", "--gpus-per-job", "1", "--cpus-per-job", "1",
                 "--array-parallelism", "2", *extra],
                cwd=course, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        # the time limit is the array's: the one that must run past it gets a run of its own (1 minute),
        # the others a limit no loaded machine gets near (15 minutes), so an honest notebook never times out
        first = grade("--student", "a_timeout", "--time-limit", "1")
        out1, err1 = first.communicate(timeout=600)
        assert first.returncode == 0, out1[-3000:] + err1[-3000:]
        proc = grade("--student", "b_cancelled", "--student", "c_honest", "--student", "d_empty",
                     "--time-limit", "15")
        # cancel task 0 (b_cancelled) once it runs
        deadline = time.monotonic() + 300
        cancelled = False
        while time.monotonic() < deadline and not cancelled and proc.poll() is None:
            out = subprocess.run(["squeue", "-h", "-o", "%i %T"], env=e, capture_output=True, text=True, timeout=20)
            for line in out.stdout.splitlines():
                jid, state = line.split()
                if jid.endswith("_0") and state == "RUNNING":
                    time.sleep(3)
                    subprocess.run(["scancel", jid], env=e, timeout=20)
                    cancelled = True
            time.sleep(1)
        stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stdout[-3000:] + stderr[-3000:]
    assert cancelled, "task 0 never ran"
    r = results(course)
    assert set(r) == {c.student for c in cases}
    assert "time limit" in r["a_timeout"]["error"], r["a_timeout"]["error"]
    assert "cancelled" in r["b_cancelled"]["error"], r["b_cancelled"]["error"]
    scores = gradebook_scores(course)
    assert scores == {"a_timeout": 0, "b_cancelled": 0, "c_honest": 3, "d_empty": 0}
    for student in ("c_honest", "d_empty"):
        runner = json.loads((course / ".autograder" / "results" / attacks.ASSIGNMENT / student /
                             f"{attacks.ASSIGNMENT}.json").read_text())["runner"]
        assert runner.get("cuda_visible_devices") in ("0", "1"), runner
        assert runner.get("slurm_job_id")
