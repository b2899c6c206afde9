"""distlab, notebook 07's launcher: a group that cannot form is formed again, code of the caller's never runs twice.

Real ranks (forkserver, gloo over the loopback), run from a script of their own as a notebook would."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from support import ROOT

DRIVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {lab!r})
    import distlab

    if __name__ == "__main__":
        print("sum", sum(r.result for r in distlab.run({target!r} + ":rank_plus", 10, show_output=False)))
        try:
            distlab.run({target!r} + ":count_then_raise", {count!r}, show_output=False)
        except distlab.WorkerError as e:
            print("raised", str(e).splitlines()[0])
        try:
            distlab.run({target!r} + ":rank_plus", 1, backend="no-such-backend", show_output=False)
        except distlab.WorkerError as e:
            print("joining", str(e).splitlines()[0])
""")

TARGET = textwrap.dedent("""
    import torch.distributed as dist

    def rank_plus(x):
        return dist.get_rank() + x

    def count_then_raise(path):
        with open(path, "a") as f:
            f.write("ran\\n")
        raise ValueError("the caller's own error")
""")


def test_caller_code_runs_once_per_rank_and_join_failures_are_reported(tmp_path):
    (tmp_path / "target.py").write_text(TARGET)
    count = tmp_path / "count"
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(lab=str(ROOT / "solutions" / "07_distributed"),
                                    target=str(tmp_path / "target.py"), count=str(count)))
    out = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert "sum 21" in lines
    # a failure in the caller's code is never retried: each rank ran it once
    assert count.read_text().count("ran") == 2
    assert any(l.startswith("raised rank") and "ValueError: the caller's own error" in l for l in lines)
    # a group that cannot form (a backend torch does not have) says why, after its retries
    assert any(l.startswith("joining rank") for l in lines), out.stdout
