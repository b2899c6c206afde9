"""``tests/support.run_cli``, the in-process runner most tests call the command through, says what
``python -m autograder`` says in a process of its own, and leaves this process as it found it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings

import pytest
from support import run_cli, tool_env

# a user error outside a course (one line, status 2), and argparse's own error (usage, status 2)
CASES = [["report"], ["export", "--format", "sheets"]]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a))
def test_it_says_what_a_process_of_its_own_says(tmp_path, args):
    env = {"COLUMNS": "80"}  # argparse wraps its usage to the terminal's width
    alone = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=tmp_path, env={**tool_env(), **env},
                           capture_output=True, text=True, timeout=120)
    here = run_cli(args, tmp_path, env=env)
    assert (here.returncode, here.stdout, here.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert here.returncode == 2 and here.stdout == "" and len(here.stderr.strip().splitlines()) >= 1
    assert here.stderr.startswith("autograder report: " if args == ["report"] else "usage: autograder export")


def test_it_leaves_the_process_as_it_found_it(tmp_path, monkeypatch):
    """A command on a class's course writes with umask 077 (autograder.values.private), in the course, with its
    own environment, and prints, logs and warns: all of it is the command's alone."""
    from autograder.commands import report
    from autograder.values import files, private

    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    private.mark(course, tmp_path / "class")
    seen = {}

    def probe(args):
        seen.update(umask=files.current_umask(), cwd=os.getcwd(), mark=os.environ.get("RUNNER_TEST_MARK"),
                    argv=sys.argv[1:])
        print("on stdout")
        logging.getLogger("autograder.probe").warning("a log line")
        warnings.warn("a warning", UserWarning)
        return 3

    monkeypatch.setattr(report, "run", probe)
    monkeypatch.setenv("RUNNER_TEST_MARK", "the caller's")
    environ, cwd, argv = dict(os.environ), os.getcwd(), sys.argv[:]
    handlers, filters = logging.getLogger().handlers[:], warnings.filters[:]
    mask = os.umask(0o027)
    try:
        out = run_cli(["report"], course, env={"RUNNER_TEST_MARK": "the command's"})
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(mask)
    assert seen == {"umask": 0o077, "cwd": str(course), "mark": "the command's", "argv": ["report"]}
    assert out.returncode == 3, out
    said = out.stdout.splitlines()
    assert f"made {course / 'nbgrader_config.py'} private (it was open to other accounts, students included)" in said
    assert said[-1] == "on stdout", out.stdout
    assert out.stderr.startswith("a log line\n") and "UserWarning: a warning" in out.stderr, out.stderr
    assert dict(os.environ) == environ and os.getcwd() == cwd and sys.argv == argv
    assert logging.getLogger().handlers == handlers and warnings.filters == filters


def test_the_caller_s_settings_do_not_reach_the_command(tmp_path, monkeypatch):
    """As :func:`support.run_tool`'s process, the command sees none of the caller's ``AUTOGRADER_`` settings."""
    monkeypatch.setenv("AUTOGRADER_COURSE_ROOT", str(tmp_path / "nowhere"))
    out = run_cli(["report"], tmp_path)
    assert out.returncode == 2 and "AUTOGRADER_COURSE_ROOT=" not in out.stderr and str(tmp_path) in out.stderr


def test_an_unexpected_error_is_raised_not_swallowed(tmp_path, monkeypatch):
    from autograder.commands import report

    def broken(args):
        raise RuntimeError("a bug in the command")

    monkeypatch.setattr(report, "run", broken)
    cwd = os.getcwd()
    with pytest.raises(RuntimeError, match="a bug in the command"):
        run_cli(["report"], tmp_path)
    assert os.getcwd() == cwd


def test_a_command_that_hangs_ends_the_process_that_runs_it(tmp_path):
    """A hang in a command run in-process is stopped as a process of its own would be: after ``timeout``
    seconds, with the stack of each thread said."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = ("import sys, time\n"
              f"sys.path.insert(0, {here!r})\n"
              "from autograder import cli\n"
              "cli.main = lambda args: time.sleep(600)\n"
              "from support import run_cli\n"
              f"run_cli(['report'], {str(tmp_path)!r}, timeout=1)\n"
              "print('not stopped')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "not stopped" not in out.stdout, out.stdout + out.stderr
    assert "Timeout (0:00:01)!" in out.stderr and "in <lambda>" in out.stderr, out.stderr
