"""From a submitted notebook to per-exercise verdicts, in the trusted grader process.

1. :func:`merge` rebuilds the notebook to run: the learner's answer cells and
   scratch cells, with every test cell restored from the instructor's copy
   (tampering is recorded, not silently fixed).
2. :func:`autograder.execute.execute` runs it in a fresh (sandboxed) kernel in
   ``record`` mode: hidden tests emit observations, never verdicts.
3. :func:`score` judges each exercise: the visible asserts must pass and the
   observations must match the reference solution's on the same seed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from . import course, judge, messages, outputs, probe
from .execute import ExecResult, Limits, execute

MAX_SUPPORT_FILE = 50 * 1024 * 1024
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


@dataclass
class ExerciseResult:
    id: str
    title: str
    points: float
    score: float
    status: str  # passed | failed | not attempted
    message: str = ""  # for the learner: trusted text only (autograder.messages)
    hint: str = ""
    detail: str = ""  # for the instructor: the raw errors the run printed (the learner's code wrote them)


@dataclass
class NotebookResult:
    student: str
    assignment: str
    notebook: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)
    error: str | None = None
    seed: int = 0
    seconds: float = 0.0
    submission_sha: str = ""
    submitted_at: str | None = None
    submitted_at_source: str = ""  # collector, the learner's timestamp.txt, or the file's time

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.points for e in self.exercises)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "NotebookResult":
        d = json.loads(text)
        d["exercises"] = [ExerciseResult(**e) for e in d["exercises"]]
        return cls(**d)


# ---------------------------------------------------------------- reading


def read_submission(path: Path) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse a submitted notebook without trusting it; return (notebook, problem)."""
    try:
        if path.is_symlink() or not path.is_file():
            return None, "the submitted notebook is missing"
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None, f"the submitted notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB"
        text = path.read_text(encoding="utf-8", errors="replace")
        nb = nbformat.reads(text, as_version=4)
        if not isinstance(nb.get("cells"), list):
            return None, "the submitted notebook has no cell list"
        for cell in nb.cells:
            if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
                return None, "the submitted notebook has a malformed cell"
            if not isinstance(cell.get("source", ""), str):
                cell["source"] = "".join(map(str, cell.get("source", [])))
            if not isinstance(cell.get("metadata"), dict):
                cell["metadata"] = nbformat.NotebookNode()
            nbg = cell["metadata"].get("nbgrader")
            if nbg is not None and (not isinstance(nbg, dict) or not isinstance(nbg.get("grade_id", ""), str)):
                cell["metadata"]["nbgrader"] = {"malformed": True}  # run as a plain cell, reported
        return nb, None
    except Exception as exc:  # malformed JSON, wrong nbformat, bad encoding
        return None, f"the submitted notebook could not be read ({type(exc).__name__}: {str(exc)[:200]})"


def sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


# ---------------------------------------------------------------- merging


def _meta_signature(cell) -> dict:
    m = course.nbgrader_meta(cell)
    return {k: m.get(k) for k in ("grade", "solution", "locked", "points", "task")}


def merge(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode,
          solution: nbformat.NotebookNode, hidden: bool = True) -> tuple[nbformat.NotebookNode, list[str]]:
    """The notebook to grade, and what the submission changed that it should not have.

    Answer cells (nbgrader solution cells) and the learner's own extra cells come
    from the submission; every test cell comes from ``solution`` (with hidden
    tests) or ``release`` (visible tests only), whatever the submission holds.
    """
    tamper: list[str] = []
    sol_by_id = {course.grade_id(c): c for c in solution.cells if course.grade_id(c)}
    rel_by_id = {course.grade_id(c): c for c in release.cells if course.grade_id(c)}
    template_ids = [course.grade_id(c) for c in release.cells if course.grade_id(c)]

    def trusted(gid: str):
        src = sol_by_id.get(gid) if hidden else None
        cell = copy.deepcopy(src if src is not None else rel_by_id[gid])
        cell.outputs = [] if cell.cell_type == "code" else cell.get("outputs")
        if cell.cell_type != "code":
            cell.pop("outputs", None)
        return cell

    out: list = []
    emitted: set[str] = set()

    def emit_missing_before(k: int) -> None:
        for gid in template_ids[:k]:
            if gid not in emitted:
                out.append(trusted(gid) if not course.is_solution(rel_by_id[gid]) else copy.deepcopy(rel_by_id[gid]))
                emitted.add(gid)
                kind = "answer" if course.is_solution(rel_by_id[gid]) else "test"
                tamper.append(f"{kind} cell {gid} was deleted (restored from the release)")

    if student is None:
        student = copy.deepcopy(release)
    if student.get("metadata", {}).get("kernelspec", {}).get("name", "python3") != "python3":
        tamper.append("kernelspec changed to %r (ignored: graded with python3)"
                      % str(student.metadata.kernelspec.get("name"))[:40])
    seen_ids: set[str] = set()
    for cell in student.cells:
        if course.nbgrader_meta(cell).get("malformed"):
            tamper.append("a cell's nbgrader metadata is malformed (run as a plain cell)")
        gid = course.grade_id(cell)
        if gid and gid in seen_ids:
            tamper.append(f"cell id {gid} appears more than once (the copy was run as a plain cell)")
            gid = None
        if gid and gid not in rel_by_id:
            tamper.append(f"unknown graded cell id {str(gid)[:40]} (run as a plain cell)")
            gid = None
        if gid is None:
            # the learner's own cells; their Markdown is shown as text (no HTML or script reaches a reader)
            plain = nbformat.v4.new_code_cell(cell.get("source", "")) if cell.get("cell_type") == "code" \
                else nbformat.v4.new_markdown_cell(outputs.inert_markdown(cell.get("source", "")))
            out.append(plain)
            continue
        seen_ids.add(gid)
        emit_missing_before(template_ids.index(gid))
        ref = rel_by_id[gid]
        if _meta_signature(cell) != _meta_signature(ref):
            tamper.append(f"nbgrader metadata of {gid} changed (points or flags; the original was used)")
        if course.is_solution(ref):
            answer = copy.deepcopy(ref)
            answer.source = cell.get("source", "")
            if answer.cell_type == "code":
                answer.outputs = []
            out.append(answer)
        else:
            if cell.get("source", "") not in (ref.source, getattr(sol_by_id.get(gid), "source", None)):
                tamper.append(f"test cell {gid} was edited (the original tests were run)")
            out.append(trusted(gid))
        emitted.add(gid)
    emit_missing_before(len(template_ids))
    nb = nbformat.v4.new_notebook(cells=out, metadata=copy.deepcopy(release.metadata))
    for i, cell in enumerate(nb.cells):
        cell.id = course.grade_id(cell) or f"cell-{i}"
    return nb, tamper


def arm_hidden_tests(nb: nbformat.NotebookNode, seed: int) -> nbformat.NotebookNode:
    """Write each hidden test's own seed into its block (:func:`autograder.probe.arm`).

    The kernel's environment holds no seed: code that runs before a hidden test cannot work out
    its inputs, and what a later cell can read of one test's seed says nothing of another's."""
    for cell in nb.cells:
        ex = course.exercise_of(cell)
        if ex and course.is_tests(cell) and course.HIDDEN_BEGIN in cell.source:
            head, tail = cell.source.split(course.HIDDEN_BEGIN, 1)
            first, _, rest = tail.partition("\n")
            line = probe.arm_line(ex, probe.derive_seed(seed, ex))
            cell.source = f"{head}{course.HIDDEN_BEGIN}{first}\n{line}{rest}"
    return nb


def attempted(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode, ex: course.Exercise) -> bool:
    """Whether the learner changed any of the exercise's answer cells from the released stub."""
    if student is None:
        return False
    stubs = {course.grade_id(c): c.source.strip() for c in release.cells
             if course.exercise_of(c) == ex.id and course.is_solution(c)}
    for cell in student.cells:
        gid = course.grade_id(cell)
        if gid in stubs and cell.get("source", "").strip() != stubs[gid]:
            return True
    return False


# ---------------------------------------------------------------- running


def copy_support_files(src: Path, dest: Path) -> None:
    """Copy the regular non-notebook files of ``src`` (no links, nothing huge) into ``dest``."""
    if not src.is_dir():
        return
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "feedback")]
        for f in files:
            p = Path(root) / f
            if p.suffix == ".ipynb" or p.is_symlink() or not p.is_file() or p.stat().st_size > MAX_SUPPORT_FILE:
                continue
            target = dest / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)


def cell_outcome(cell, exercise: str) -> dict:
    """What one executed test cell produced: whether it ran, its first error, its observations payload."""
    entry: dict = {"ran": False, "payload": None, "error": None, "error_name": None, "error_line": None}
    if cell is None or cell.get("outputs") is None:
        return entry
    entry["ran"] = cell.get("execution_count") is not None or bool(cell.outputs)
    for out in cell.outputs:
        if not isinstance(out, dict):
            continue
        if out.get("output_type") == "error" and entry["error"] is None:
            entry["error"] = outputs.safe_text(f"{out.get('ename', 'Error')}: {str(out.get('evalue', ''))[:400]}",
                                               600).rstrip(": ")
            entry["error_name"] = str(out.get("ename", "Error"))[:100]
            entry["error_line"] = messages.traceback_line(out.get("traceback"))
        data = out.get("data") if isinstance(out.get("data"), dict) else {}
        if probe.MIME in data and entry["payload"] is None:
            payload = data[probe.MIME]
            if isinstance(payload, str):
                try:
                    payload = json.loads(payload)
                except ValueError:
                    payload = None
            if isinstance(payload, dict) and payload.get("exercise") == exercise:
                entry["payload"] = payload
    return entry


def collect(nb: nbformat.NotebookNode, exercises: list[course.Exercise]) -> dict[str, dict]:
    """The outcome of each exercise's test cell in an executed notebook."""
    by_gid = {course.grade_id(c): c for c in nb.cells if course.grade_id(c)}
    found = {}
    for ex in exercises:
        entry = cell_outcome(by_gid.get(f"{ex.id}_tests"), ex.id)
        answer = cell_outcome(by_gid.get(f"{ex.id}_solution"), ex.id)
        entry["answer_error"] = answer["error"]
        found[ex.id] = entry
    return found


def verdict(entry: dict, reference: dict | None, visible_source: str | None = None) -> tuple[bool, str, str]:
    """Pass/fail of one executed test cell (visible asserts passed and observations match the
    reference), the message, and the concepts that failed.

    Given the test cell's ``visible_source``, a failed visible test is told from trusted text
    only (:mod:`autograder.messages`); without it, the raw error is returned (for authors' tools)."""
    if not entry.get("ran"):
        return False, "the tests did not run", ""
    if entry.get("error"):
        if visible_source is None:
            return False, entry["error"], ""
        return False, messages.visible_failure(entry, visible_source), ""
    v = judge.judge(reference, entry.get("payload"))
    if v.passed:
        return True, "", ""
    return False, v.message(), "; ".join(sorted({c.hint for c in v.failures() if c.hint}))


COMPILE_CACHE = ".compile-cache"  # torch.compile's on-disk caches, inside a run's working folder


def compile_cache_env(work: Path) -> dict[str, str]:
    """Point Inductor's and Triton's caches into the run's own folder (the sandbox's /tmp is private)."""
    base = Path(work) / COMPILE_CACHE
    return {"TORCHINDUCTOR_CACHE_DIR": str(base / "inductor"), "TRITON_CACHE_DIR": str(base / "triton")}


def compile_cache_store(cache_dir: Path, assignment: course.Assignment, notebook: str) -> Path:
    """Where the reference run's compiled kernels are kept, by solution content."""
    key = sha(assignment.solution(notebook).read_bytes())[:16]
    return Path(cache_dir) / "compile" / assignment.name / f"{notebook}-{key}"


def _copy_regular_files(src: Path, dest: Path) -> None:
    """Copy a folder's regular files and folders; links (and anything else) are left out, never followed."""
    def skip(folder, names):
        return [n for n in names if os.path.islink(os.path.join(folder, n))
                or not (os.path.isfile(os.path.join(folder, n)) or os.path.isdir(os.path.join(folder, n)))]

    shutil.copytree(src, dest, ignore=skip)


def seed_compile_cache(work: Path, store: Path | None) -> None:
    """Give a run a private copy of the reference's compile cache, so that it does not recompile what
    the notebook's own code compiles.  Each run gets its own copy: nothing it writes reaches another."""
    dest = Path(work) / COMPILE_CACHE
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    shutil.rmtree(dest, ignore_errors=True)
    if store is not None and store.is_dir():
        _copy_regular_files(store, dest)


def run_reference(assignment: course.Assignment, notebook: str, seed: int, limits: Limits | None = None,
                  sandbox=None, cache_dir: Path | None = None) -> dict[str, dict]:
    """Observations of the reference solution on ``seed``, per exercise (cached by content and seed).

    Sandboxed and with ``cache_dir``, the compile caches the solution leaves behind are kept
    too (:func:`compile_cache_store`), for the graded runs of the same notebook.
    """
    sol_path = assignment.solution(notebook)
    key = sha(sol_path.read_bytes() + f"/{seed}".encode())[:24]
    cache = (cache_dir / f"{notebook}-{key}.json") if cache_dir else None
    if cache and cache.is_file():
        return json.loads(cache.read_text())
    solution = course.read(sol_path)
    exercises = course.exercises(solution)
    store = compile_cache_store(cache_dir, assignment, notebook) if cache_dir and sandbox is not None else None
    with tempfile.TemporaryDirectory(prefix="reference-", dir=sandbox.tmp_parent() if sandbox else None) as tmp:
        copy_support_files(assignment.solution_dir, Path(tmp))
        seed_compile_cache(Path(tmp), store)
        # unsandboxed, torch's own cache under /tmp is shared and warm already
        cc = compile_cache_env(Path(tmp)) if sandbox is not None else {}
        res = execute(arm_hidden_tests(copy.deepcopy(solution), seed), tmp, env={"AUTOGRADER_MODE": "record", **cc},
                      limits=limits, sandbox=sandbox)
        made = Path(tmp) / COMPILE_CACHE
        if store is not None and not res.error and made.is_dir() and any(made.rglob("*")):
            staging = store.with_name(f"{store.name}.{os.getpid()}.tmp")
            shutil.rmtree(staging, ignore_errors=True)
            _copy_regular_files(made, staging)
            shutil.rmtree(store, ignore_errors=True)
            os.replace(staging, store)
    if res.error:
        raise RuntimeError(f"reference solution {notebook} did not run to the end: {res.error}")
    for i, cell in enumerate(res.nb.cells):  # every cell of the solution runs cleanly where submissions will
        failed = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        if failed is not None:
            raise RuntimeError(f"reference solution {notebook}, cell {i}, raised "
                               f"{failed.get('ename')}: {str(failed.get('evalue'))[:300]}")
    got = collect(res.nb, exercises)
    refs = {}
    for ex in exercises:
        entry = got[ex.id]
        if entry["error"] or not entry["payload"] or entry["payload"].get("error"):
            why = entry["error"] or (entry["payload"] or {}).get("error") or res.error or "no observations"
            raise RuntimeError(f"reference solution {notebook} failed its own test {ex.id}: {why}")
        refs[ex.id] = entry["payload"]
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmpf = cache.with_suffix(".tmp")
        tmpf.write_text(json.dumps(refs))
        os.replace(tmpf, cache)
    return refs


def score(exercises: list[course.Exercise], got: dict[str, dict], refs: dict[str, dict] | None,
          student: nbformat.NotebookNode | None, release: nbformat.NotebookNode,
          run_error: str | None = None) -> list[ExerciseResult]:
    visible = {course.exercise_of(c): c.source for c in release.cells if course.is_tests(c) and course.exercise_of(c)}
    results = []
    for ex in exercises:
        entry = got.get(ex.id, {})
        r = ExerciseResult(ex.id, ex.title, ex.points, 0.0, "failed")
        if not attempted(student, release, ex):
            r.status, r.message = "not attempted", "the answer cell still holds the stub"
        elif not entry.get("ran"):
            r.message = "the tests did not run" + (f": {run_error}" if run_error else "")
        elif refs is None:
            if entry.get("error"):
                r.message = messages.visible_failure(entry, visible.get(ex.id))
            else:
                r.status, r.score = "passed", ex.points  # visible tests only
        else:
            ok, r.message, r.hint = verdict(entry, refs.get(ex.id), visible.get(ex.id, ""))
            if ok:
                r.status, r.score = "passed", ex.points
        if r.status == "failed":
            raw = [entry.get("answer_error"), entry.get("error"), ((entry.get("payload") or {}).get("error")
                                                                  if isinstance(entry.get("payload"), dict) else None)]
            r.detail = outputs.safe_text("\n".join(str(x) for x in raw if x), 2000)
            if entry.get("answer_error"):
                r.message = f"your answer cell raised {messages.exception_name(entry['answer_error'])}\n{r.message}".strip()
        results.append(r)
    return results


def pristine_release(solution: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The learner notebook as ``nbgrader generate_assignment`` makes it from ``solution`` (sources and
    grading metadata, without checksums), built in memory with nbgrader's own preprocessors.

    Grading compares with this, never with a file in ``notebooks/``: learners edit their copy there
    in place, and an edited copy must not become the template it is judged against.
    """
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions
    from traitlets.config.loader import PyFileConfigLoader

    from . import nbfmt

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    nb = nbformat.from_dict(copy.deepcopy(solution))
    nb, resources = ClearSolutions(config=cfg).preprocess(nb, {})
    nb, _ = ClearHiddenTests(config=cfg).preprocess(nb, resources)
    return nbfmt.normalize(nb)


def grade_notebook(student_path: Path, assignment: course.Assignment, notebook: str, *, student_id: str,
                   seed: int, refs: dict[str, dict] | None, limits: Limits | None = None, sandbox=None,
                   hidden: bool = True, compile_cache: Path | None = None
                   ) -> tuple[NotebookResult, nbformat.NotebookNode | None]:
    """Grade one submitted notebook; return its result and the executed notebook.

    Sandboxed, the run gets a private copy of ``compile_cache``, the compiled kernels the
    reference run left (:func:`compile_cache_store`)."""
    solution = course.read(assignment.solution(notebook))
    release = pristine_release(solution, assignment.root)
    exercises = course.exercises(solution)
    result = NotebookResult(student_id, assignment.name, notebook, seed=seed)
    raw = student_path.read_bytes() if student_path.is_file() and not student_path.is_symlink() else b""
    result.submission_sha = sha(raw)
    student, problem = read_submission(student_path)
    if problem:
        result.error = problem
        result.exercises = [ExerciseResult(e.id, e.title, e.points, 0.0, "failed", problem) for e in exercises]
        return result, None
    merged, result.tampering = merge(student, release, solution, hidden=hidden)
    if not any(course.grade_id(c) in {course.grade_id(r) for r in release.cells if course.grade_id(r)}
               for c in student.cells):
        result.tampering.append(f"the notebook does not look like {assignment.name}/{notebook} (no matching cells)")
    with tempfile.TemporaryDirectory(prefix="grade-", dir=sandbox.tmp_parent() if sandbox else None) as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        copy_support_files(student_path.parent, work)
        copy_support_files(assignment.solution_dir, work)  # what the release ships beside the notebook
        cc = {}
        if sandbox is not None:
            seed_compile_cache(work, compile_cache)
            cc = compile_cache_env(work)
        if hidden:
            arm_hidden_tests(merged, seed)
        res: ExecResult = execute(merged, work, env={"AUTOGRADER_MODE": "record", **cc},
                                  limits=limits, sandbox=sandbox)
    result.error, result.seconds = res.error, res.seconds
    got = collect(res.nb, exercises)
    result.exercises = score(exercises, got, refs if hidden else None, student, release, res.error)
    # what leaves this function is stored and shown: it must serialise and hold no active content
    limits = limits or Limits()
    return result, outputs.clean_notebook(res.nb, limits.max_notebook_output_kb * 1024)
