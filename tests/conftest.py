"""Shared fixtures. The tests import their helpers (``support``, ``harness``, ``attacks``) from this folder."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest  # noqa: E402
from support import ROOT, copy_course, run_tool, tool_env  # noqa: E402,F401 - the tests' shared seams

os.environ.setdefault("OMP_NUM_THREADS", "1")  # parallel test workers: one thread per kernel


@pytest.fixture
def course_dir(tmp_path):
    return copy_course(tmp_path / "course")
