"""GPU tier: grading on a GPU worker gives the same verdicts as on a CPU worker.

The fixture assignment is graded twice in the sandbox, once with the GPU visible
(the worker is pinned with CUDA_VISIBLE_DEVICES, the sandbox binds /dev/nvidia*)
and once with CUDA hidden; the scores of an honest, a wrong and an empty
submission must agree, and the GPU run must really have seen CUDA.
"""

import json
import subprocess
import sys

import attacks
import pytest
from support import fix_term_seed, fixture_course, results, tool_env

from autograder.sandbox import launch as sandbox

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.gpu, pytest.mark.slow,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this runner")]

PROBE = "import torch\nprint('CUDA_SEEN', torch.cuda.is_available())\n"


@pytest.mark.parametrize("use_sandbox", [True, False], ids=["sandbox", "no-sandbox"])
def test_same_verdict_on_gpu_and_cpu(tmp_path, use_sandbox):
    if use_sandbox and not sandbox.available():
        pytest.skip("bubblewrap is not installed on this runner")
    scores = {}
    for label, visible in (("gpu", "0"), ("cpu", "")):
        course = fixture_course(tmp_path / label)
        release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
        cases = [attacks.Case("honest", "right", 3, answers=attacks.answers(PROBE + attacks.CORRECT_1, attacks.CORRECT_2)),
                 attacks.Case("wrong", "wrong", 0, answers=attacks.answers(PROBE + attacks.WRONG_1)),
                 attacks.Case("empty", "untouched", 0)]
        attacks.build(cases, release, course / "submitted")
        env = tool_env()
        env["CUDA_VISIBLE_DEVICES"] = visible
        fix_term_seed(course, 11)
        cmd = [sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, "--workers", "1"]
        if not use_sandbox:
            cmd.append("--no-sandbox")
        out = subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-3000:]
        scores[label] = {s: sum(e["score"] for e in r["exercises"]) for s, r in results(course).items()}
        nb = json.loads((course / "autograded" / "honest" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").read_text())
        seen = json.dumps([c.get("outputs", []) for c in nb["cells"]])
        assert f"CUDA_SEEN {label == 'gpu'}" in seen, f"{label} run: the kernel saw the wrong device"
    assert scores["gpu"] == scores["cpu"] == {"honest": 3, "wrong": 0, "empty": 0}
