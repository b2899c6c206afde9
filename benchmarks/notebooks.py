"""Run every solution notebook once, top to bottom, and record its wall time and the figures it reports.

    .venv/bin/python benchmarks/notebooks.py      # writes benchmarks/results/notebooks.json

Figures are lines a notebook prints as ``NAME: VALUE`` that this script knows, such as
``digits test accuracy: 0.9733`` from notebook 03.  Each notebook runs in a fresh kernel
(hidden tests in their ``local`` mode), in a scratch folder holding its support files.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import execute
from autograder.values import (
    course,  # noqa: E402
    support,  # noqa: E402
)

FIGURES = {"digits test accuracy": re.compile(r"digits test accuracy:\s*([0-9.]+)")}


def main() -> int:
    out = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                       "loadavg_start": list(os.getloadavg())},
           "notebooks": {}}
    for a in course.assignments(ROOT):
        for name in a.notebooks():
            nb = course.read(a.solution(name))
            with tempfile.TemporaryDirectory() as tmp:
                support.copy_listed(a.solution_dir, support.listed(a.solution_dir), Path(tmp))
                res = execute.execute(nb, tmp, env={"AUTOGRADER_COURSE_ROOT": str(ROOT)})
            text = "".join(str(o.get("text", "")) for c in res.nb.cells if c.cell_type == "code"
                           for o in c.get("outputs", []))
            errors = [f"{o.get('ename')}: {o.get('evalue')}"[:200] for c in res.nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []) if o.get("output_type") == "error"]
            figures = {k: float(m.group(1)) for k, rx in FIGURES.items() if (m := rx.search(text))}
            out["notebooks"][name] = {"seconds": round(res.seconds, 2), "errors": errors, "stopped": res.error,
                                      **figures}
            print(f"{name:22s} {res.seconds:6.1f} s  {figures}  {'ERRORS ' + str(errors) if errors else ''}",
                  flush=True)
    out["machine"]["loadavg_end"] = list(os.getloadavg())
    dest = ROOT / "benchmarks" / "results" / "notebooks.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1) + "\n")
    return 0 if all(not v["errors"] and not v["stopped"] for v in out["notebooks"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
