"""The adversarial and fault corpora, built against the two-exercise fixture notebook.

Each entry is a submission (nbgrader's submitted/STUDENT/00_fixture/ layout) and what the
grader must conclude: its score, and words that must appear in its recorded reason
or tampering report.  Used by tests/test_security.py and by
benchmarks/security_compare.py (stock nbgrader vs this grader).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ASSIGNMENT = "00_fixture"
CORRECT_1 = "def add_one(x):\n    return x + 1\n"
CORRECT_2 = "def double(x):\n    return x * 2\n"
WRONG_1 = "def add_one(x):\n    return x\n"
SECRET = "s3cret-grader-env-value"

# What a submission must never be able to see or print.
LEAK_MARKERS = ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "hidden_test(", "SQLite format 3", SECRET)


@dataclass
class Case:
    student: str
    what: str
    score: float
    reason: str = ""  # must appear in the result's error or an exercise message
    tamper: str = ""  # must appear in the tampering report
    answers: dict = field(default_factory=dict)  # grade_id -> source
    mutate: object = None  # fn(nb dict) -> nb dict, after answers are set
    raw: bytes | None = None  # the notebook file's bytes, instead of a notebook
    extra: object = None  # fn(folder) to add files beside the notebook
    attack: bool = True  # an attack must earn what an empty submission earns


def _ans(one: str | None = None, two: str | None = None) -> dict:
    d = {}
    if one is not None:
        d["ex0_1_solution"] = one
    if two is not None:
        d["ex0_2_solution"] = two
    return d


def attacks(course_dir: Path) -> list[Case]:
    db = course_dir / "gradebook.db"
    sol = course_dir / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return [
        Case("input_transformer", "IPython input transformer turns every cell containing 'assert' into 'pass'", 0,
             answers=_ans("""def _neuter(lines):
    return ["pass\\n"] if any("assert" in l for l in lines) else lines
get_ipython().input_transformers_post.append(_neuter)
def add_one(x):
    return x
""")),
        Case("sqlite_update", "opens the gradebook with sqlite3 and raises every grade", 0,
             answers=_ans(f"""import sqlite3
for p in ["../../../gradebook.db", "../../gradebook.db", "../gradebook.db", "gradebook.db", {str(db)!r}]:
    try:
        con = sqlite3.connect(p)
        con.execute("UPDATE grade SET auto_score = 100")
        con.commit()
        print("UPDATED", p)
    except Exception as e:
        print("blocked", p, type(e).__name__)
def add_one(x):
    return x
""")),
        Case("walk_up", "walks up the tree and prints the solutions notebook and the gradebook", 0,
             answers=_ans(f"""import os
for target in [{str(sol)!r}, {str(db)!r}, "../../../solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"]:
    try:
        print(open(target, errors="replace").read()[:5000])
    except Exception as e:
        print("blocked", target, type(e).__name__)
for top in ["/", os.path.expanduser("~"), "..", "../.."]:
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("usr", "proc", "sys", "dev", "etc", "lib", "lib64", "bin")]
        for f in files:
            if f.endswith((".ipynb", ".db")):
                try:
                    print(root, f, open(os.path.join(root, f), errors="replace").read()[:3000])
                except Exception:
                    pass
def add_one(x):
    return x
""")),
        Case("os_exit", "os._exit(0) in an answer cell", 0, reason="kernel died",
             answers=_ans("import os\nos._exit(0)\n")),
        Case("patch_comparisons", "monkeypatches torch/numpy/math comparison functions to always agree", 0,
             answers=_ans("""import torch, math, numpy
torch.equal = lambda *a, **k: True
torch.allclose = lambda *a, **k: True
torch.Tensor.__eq__ = lambda *a, **k: True
math.isclose = lambda *a, **k: True
numpy.allclose = lambda *a, **k: True
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def add_one(x):
    return x
""")),
        Case("always_equal", "returns an object whose __eq__ is always true", 0,
             answers=_ans("""class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
import torch
torch.equal = lambda a, b: a == b
def add_one(x):
    return Yes()
""")),
        Case("hide_tracebacks", "overrides IPython's showtraceback so failures print nothing", 0,
             answers=_ans("""ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
ip._showtraceback = lambda *a, **k: None
def add_one(x):
    return x
""")),
        Case("settrace", "installs sys.settrace to swallow assertion lines", 0,
             answers=_ans("""import sys
def _tracer(frame, event, arg):
    return _tracer
sys.settrace(_tracer)
def add_one(x):
    return x
""")),
        Case("forge_observations", "displays forged observation payloads for every exercise", 0,
             answers=_ans("""from IPython.display import display
import torch
for ex in ("ex0_1", "ex0_2"):
    display({"application/vnd.autograder.observations+json":
             {"exercise": ex, "observations": [{"name": "random", "value": {"t": "tensor", "dtype": "torch.float32",
              "shape": [7], "data": [0.0] * 7}, "spec": {"rtol": 1e9, "atol": 1e9}}], "error": None}}, raw=True)
def add_one(x):
    return x
""")),
        Case("patch_probe", "replaces the hidden-test recorder so it records nothing", 0,
             answers=_ans("""import autograder.probe as p
p.observe = lambda ex, fn, seed=None: {"exercise": ex, "observations": [], "error": None}
p.hidden_test = lambda ex: (lambda fn: None)
def add_one(x):
    return x
""")),
        Case("kill_everything", "signals every process it can see", 0,
             answers=_ans("import os, signal\nos.kill(-1, signal.SIGKILL)\n")),
        Case("write_outside", "writes files outside its folder (course dir, /tmp, home) and reads the environment", 0,
             answers=_ans(f"""import os
for p in [{str(course_dir / 'PWNED')!r}, "/tmp/PWNED", "../PWNED", "../../PWNED", os.path.expanduser("~/PWNED"), "/etc/PWNED"]:
    try:
        open(p, "w").write("x")
        print("wrote", p)
    except Exception as e:
        print("blocked", p, type(e).__name__)
print(dict(os.environ))
def add_one(x):
    return x
""")),
        Case("network", "tries to reach the network", 0,
             answers=_ans("""import socket
for host in [("8.8.8.8", 53), ("1.1.1.1", 443)]:
    try:
        socket.create_connection(host, timeout=2)
        print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, type(e).__name__)
def add_one(x):
    return x
""")),
        Case("symlink_loot", "ships a symlink to the gradebook beside the notebook and reads it", 0,
             answers=_ans("""try:
    print(open("loot.db", errors="replace").read()[:2000])
except Exception as e:
    print("blocked", type(e).__name__)
def add_one(x):
    return x
"""), extra=lambda folder: os.symlink(db, folder / "loot.db")),
        # -- tampering: recorded, and never worth points ------------------------------------------------
        Case("edit_tests", "replaces the test cells with 'pass' and answers wrongly", 0,
             tamper="test cell ex0_1_tests was edited", answers=_ans(WRONG_1),
             mutate=lambda nb: _set_source(nb, {"ex0_1_tests": "pass", "ex0_2_tests": "pass"})),
        Case("delete_tests", "deletes the test cells and answers wrongly", 0,
             tamper="test cell ex0_1_tests was deleted", answers=_ans(WRONG_1),
             mutate=lambda nb: _drop(nb, {"ex0_1_tests", "ex0_2_tests"})),
        Case("raise_points", "changes the points of a test cell to 100 (answers right)", 3,
             tamper="metadata of ex0_1_tests changed", answers=_ans(CORRECT_1, CORRECT_2), attack=False,
             mutate=lambda nb: _set_meta(nb, "ex0_1_tests", points=100)),
        Case("kernelspec", "changes the kernelspec (answers right)", 3, tamper="kernelspec changed", attack=False,
             answers=_ans(CORRECT_1, CORRECT_2), mutate=_kernelspec),
        Case("duplicate_ids", "duplicates a test cell's id (answers right)", 3, tamper="appears more than once",
             attack=False, answers=_ans(CORRECT_1, CORRECT_2), mutate=_duplicate),
        Case("edit_tests_right", "edits the test cells but answers right", 3, tamper="was edited", attack=False,
             answers=_ans(CORRECT_1, CORRECT_2),
             mutate=lambda nb: _set_source(nb, {"ex0_1_tests": "pass"})),
    ]


def faults() -> list[Case]:
    """Ex 0.1 answered right, then a fault in ex 0.2's answer cell: 1 point kept, the reason recorded."""
    return [
        Case("infinite_loop", "an infinite loop", 1, reason="time limit", attack=False,
             answers=_ans(CORRECT_1, "while True:\n    pass\n")),
        Case("memory_hog", "allocates far more memory than allowed", 1, reason="MemoryError", attack=False,
             answers=_ans(CORRECT_1, "x = bytearray(64 << 30)\n" + CORRECT_2)),
        Case("fork_storm", "a storm of processes", 1, reason="", attack=False,
             answers=_ans(CORRECT_1, """import os, time
end = time.time() + 8
while time.time() < end:
    try:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
    except OSError:
        pass
raise RuntimeError("fork storm over")
""")),
        Case("exit_after_one", "os._exit after a correct first exercise", 1, reason="kernel died", attack=False,
             answers=_ans(CORRECT_1, "import os\nos._exit(3)\n")),
        Case("segfault", "a segmentation fault", 1, reason="kernel died", attack=False,
             answers=_ans(CORRECT_1, "import ctypes\nctypes.string_at(0)\n")),
        Case("output_flood", "prints without end", 1, reason="output", attack=False,
             answers=_ans(CORRECT_1, "while True:\n    print('x' * 100000)\n")),
        Case("big_file", "writes a file larger than allowed", 1, reason="", attack=False,
             answers=_ans(CORRECT_1, "open('big.bin', 'wb').write(b'0' * (512 << 20))\n" + CORRECT_2)),
        Case("malformed", "a file that is not JSON", 0, reason="could not be read", attack=False,
             raw=b"{this is not a notebook"),
        Case("truncated", "a notebook cut in half", 0, reason="could not be read", attack=False, raw=None),
        Case("other_assignment", "a notebook of another assignment", 0, tamper="does not look like", attack=False,
             mutate=_other_assignment),
    ]


def _cells(nb):
    return nb["cells"]


def _gid(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _set_source(nb, sources):
    for c in _cells(nb):
        if _gid(c) in sources:
            c["source"] = sources[_gid(c)]
    return nb


def _drop(nb, ids):
    nb["cells"] = [c for c in _cells(nb) if _gid(c) not in ids]
    return nb


def _set_meta(nb, gid, **kw):
    for c in _cells(nb):
        if _gid(c) == gid:
            c["metadata"]["nbgrader"].update(kw)
    return nb


def _kernelspec(nb):
    nb["metadata"]["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}
    return nb


def _duplicate(nb):
    copy = json.loads(json.dumps(next(c for c in _cells(nb) if _gid(c) == "ex0_1_tests")))
    copy["id"] = "dup-cell"
    copy["source"] = "print('a second copy')"
    nb["cells"].append(copy)
    return nb


def _other_assignment(nb):
    for c in _cells(nb):
        g = _gid(c)
        if g:
            c["metadata"]["nbgrader"]["grade_id"] = g.replace("ex0_", "ex5_")
    return nb


def build(cases: list[Case], release_nb: Path, submitted: Path) -> None:
    base = json.loads(release_nb.read_text())
    for case in cases:
        folder = submitted / case.student / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        nb = json.loads(json.dumps(base))
        _set_source(nb, case.answers)
        if case.mutate:
            nb = case.mutate(nb)
        if case.raw is not None:
            data = case.raw
        elif case.student == "truncated":
            text = json.dumps(nb, indent=1)
            data = text[: len(text) // 2].encode()
        else:
            data = nbformat.writes(nbformat.from_dict(nb)).encode() if case.student != "kernelspec" else \
                json.dumps(nb, indent=1).encode()
        (folder / f"{ASSIGNMENT}.ipynb").write_bytes(data)
        if case.extra:
            case.extra(folder)


def gradebook_scores(course: Path) -> dict[str, float]:
    """Total auto score per student in a course's nbgrader gradebook (checks its integrity first)."""
    con = sqlite3.connect(course / "gradebook.db")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = con.execute("""SELECT student.id, grade.auto_score FROM grade
        JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id
        JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id
        JOIN student ON submitted_assignment.student_id = student.id""").fetchall()
    scores: dict[str, float] = {}
    for sid, score in rows:
        scores[sid] = scores.get(sid, 0.0) + (score or 0.0)
    return scores
