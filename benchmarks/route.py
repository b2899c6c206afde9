"""How long one submission's way is through the grader's modules, measured on the code as it runs.

One submission of the fixture course (``tests/fixtures/course``) is graded by ``autograder grade --force`` in
this process (one worker, sandboxed; its reference recorded by an earlier ``grade``), with a tracer on every
call the grader's own modules make.  A *move* is a call from one module of the package into another, counted
once per call site (the calling function and the function called), however often a loop repeats it; a module
is *entered* once per distinct function another module calls in it.  What kernels and the zygote run in their
own processes is not counted.

    .venv/bin/python benchmarks/route.py                       # this tree
    .venv/bin/python benchmarks/route.py --tree OTHER_CHECKOUT --label before

Figures in ``benchmarks/results/route.json`` (one entry per label).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ANSWER = "def add_one(x):\n    return x + 1\n"


def measure(tree: Path) -> dict:
    """Run in a child process whose ``autograder`` is ``tree``'s; return its figures."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env["PYTHONPATH"] = str(tree)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    out = subprocess.run([sys.executable, __file__, "--child", str(tree)], env=env, capture_output=True, text=True,
                         timeout=1800)
    if out.returncode:
        raise SystemExit(f"the measured run failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(tree: Path) -> None:
    from autograder import cli

    work = Path(tempfile.mkdtemp(prefix="route-", dir=os.environ.get("TMPDIR_ROUTE", "/var/tmp")))
    try:
        course = work / "course"
        shutil.copytree(tree / "tests" / "fixtures" / "course", course)
        shutil.copy(tree / "nbgrader_config.py", course / "nbgrader_config.py")
        os.chdir(course)
        said = io.StringIO()
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            assert cli.main(["release"]) == 0, said.getvalue()
            release = next((course / "notebooks" / "00_fixture").glob("*.ipynb"))
            sub = course / "submitted" / "alice" / "00_fixture"
            sub.mkdir(parents=True)
            nb = json.loads(release.read_text())
            for cell in nb["cells"]:
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ex0_1_solution":
                    cell["source"] = ANSWER
            (sub / release.name).write_text(json.dumps(nb))
            assert cli.main(["grade", "00_fixture", "--workers", "1"]) == 0, said.getvalue()
            calls: set[tuple[str, str, str, str]] = set()

            def tracer(frame, event, arg):
                if event != "call":
                    return None
                mod = frame.f_globals.get("__name__", "")
                if not mod.startswith("autograder"):
                    return None
                caller = frame.f_back
                while caller is not None and not caller.f_globals.get("__name__", "").startswith("autograder"):
                    caller = caller.f_back
                if caller is not None and caller.f_globals["__name__"] != mod:
                    calls.add((caller.f_globals["__name__"], caller.f_code.co_qualname, mod, frame.f_code.co_qualname))
                return None

            import threading

            threading.settrace(tracer)
            sys.settrace(tracer)
            try:
                code = cli.main(["grade", "00_fixture", "--workers", "1", "--force"])
            finally:
                sys.settrace(None)
                threading.settrace(None)
            assert code == 0, said.getvalue()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    entered: dict[str, set[str]] = {}
    sites: dict[str, int] = {}
    for _, _, mod, fn in calls:
        entered.setdefault(mod, set()).add(fn)
        sites[mod] = sites.get(mod, 0) + 1
    print(json.dumps({"moves": len(calls), "modules": len(entered),
                      "entered": {m: {"functions": len(entered[m]), "moves_in": sites[m]}
                                  for m in sorted(entered, key=lambda m: -sites[m])}}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", default=str(HERE), help="a checkout of the course to measure (default: this one)")
    p.add_argument("--label", default="now")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(Path(args.child))
    figures = measure(Path(args.tree).resolve())
    out = HERE / "benchmarks" / "results" / "route.json"
    kept = json.loads(out.read_text()) if out.is_file() else {}
    commit = subprocess.run(["git", "-C", args.tree, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    kept[args.label] = {"commit": commit, **figures}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(kept, indent=1) + "\n")
    print(json.dumps(kept[args.label], indent=1))


if __name__ == "__main__":
    main()
