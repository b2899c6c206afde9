"""GPU tier: every notebook, its reference and its answer variants, with CUDA visible.

The same checks as tests/grading/test_notebooks.py, run where ``torch.cuda.is_available()``:
every notebook's CUDA branches run (autocast with fp16 and a GradScaler, bf16, the
device demos), and the hidden tests, which draw their inputs on the CPU and move
them to ``obs.device``, give every answer variant the same verdict as on the CPU.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grading"))  # the grading tier's checks, run again here
import test_notebooks  # noqa: E402
from test_notebooks import NOTEBOOKS  # noqa: E402

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.gpu, pytest.mark.slow,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this runner")]


@pytest.mark.parametrize("assignment,notebook", NOTEBOOKS, ids=[n for _, n in NOTEBOOKS])
def test_notebook_on_gpu(assignment, notebook):
    test_notebooks.test_notebook(assignment, notebook)
