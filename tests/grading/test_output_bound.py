"""A grading kernel holds little of what it prints: a cell that prints in a tight loop reaches the
grader in pieces as it goes, and the kernel keeps none of it.

Without this, ipykernel's stream buffered 0.2 s of printing and IPython kept every printed string,
so a flood ended as a ``MemoryError`` in the learner's cell or as "output past its limit",
depending on how fast the machine was (``tests/grading/test_security.py``, case ``output_flood``).  The
notebook runs through the production executor, in the sandbox.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from autograder.grading.execute import execute
from autograder.sandbox import launch as sandbox

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="the sandbox needs bubblewrap and root")

FLOOD_MB = 8  # below the point where the grader stops a cell (its budget and 16 times more dropped)


def test_a_flood_reaches_the_grader_in_pieces_and_the_kernel_keeps_none_of_it():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"for _ in range({FLOOD_MB * 10}):\n    print('x' * 100000)"),
        nbformat.v4.new_code_cell(
            "import json\n"
            "kept = sum(len(o.bundle.get('stream', [])) for outs in get_ipython().history_manager.outputs.values()"
            " for o in outs)\n"
            "print(json.dumps({'kept': kept}))"),
    ])
    sb = sandbox.Sandbox()
    with sb.work_folder() as work:
        res = execute(nb, work, sandbox=sb)
    assert res.error is None, res.error
    streams = [o for o in res.nb.cells[0].outputs if o.get("output_type") == "stream"]
    # it came in pieces below the cell's budget, so the grader kept its budget's worth and dropped
    # the rest, where one 8 MB message would have been refused and the kernel stopped
    assert any("dropped" in o["text"] for o in streams), streams[-1]["text"][-200:]
    report = json.loads(res.nb.cells[1].outputs[-1]["text"].strip().splitlines()[-1])
    assert report["kept"] == 0, report
