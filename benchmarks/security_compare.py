"""Run the adversarial and fault corpora through stock ``nbgrader autograde`` and through
``autograder grade``, and write the side-by-side table into docs/security.md.

    .venv/bin/python benchmarks/security_compare.py

Stock nbgrader runs student code as the caller, unsandboxed: the cases that would
harm this machine (signalling every process, an unbounded process storm, an output
flood held in memory) are not run against it and are marked so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import attacks  # noqa: E402

NOT_ON_STOCK = {"kill_everything": "would signal every process of the machine",
                "fork_storm": "no process limit: unbounded",
                "output_flood": "output is held in memory until the cell times out"}
LIMITS = {"AUTOGRADER_LIMIT_CELL_TIMEOUT": "20", "AUTOGRADER_LIMIT_MEMORY_MB": "3072",
          "AUTOGRADER_LIMIT_MAX_PROCESSES": "96", "AUTOGRADER_LIMIT_MAX_FILE_MB": "64",
          "AUTOGRADER_LIMIT_MAX_OUTPUT_KB": "256"}


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    e["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), e.get("PATH", "")])
    e["AUTOGRADER_TEST_SECRET"] = attacks.SECRET
    return e


def make_course(dest: Path, cases) -> Path:
    shutil.copytree(ROOT / "tests" / "fixtures" / "course", dest)
    shutil.copy(ROOT / "nbgrader_config.py", dest / "nbgrader_config.py")
    subprocess.run([sys.executable, "-m", "autograder", "release"], cwd=dest, env=env(), check=True,
                   capture_output=True)
    release = dest / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build(cases, release, dest / "submitted")
    return dest


def leaked(course: Path, student: str) -> bool:
    for nb in (course / "autograded" / student / attacks.ASSIGNMENT).glob("*.ipynb"):
        data = json.loads(nb.read_text())
        text = json.dumps([[{k: v for k, v in o.items() if k != "traceback"} for o in c.get("outputs", [])]
                           for c in data["cells"] if c.get("cell_type") == "code"])
        if any(m in text for m in attacks.LEAK_MARKERS) or "UPDATED" in text:
            return True
    return False


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        honest = attacks.Case("honest", "answers both exercises right", 3, attack=False,
                              answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))
        stock_course = tmp / "stock"
        ours_course = tmp / "ours"
        cases_stock = [c for c in attacks.attacks(stock_course) + attacks.faults() if c.student not in NOT_ON_STOCK]
        make_course(stock_course, [honest, *cases_stock])
        cases_ours = attacks.attacks(ours_course) + attacks.faults()
        make_course(ours_course, [honest, *cases_ours])

        # one student per run (as an instructor would rerun them), honest first, the gradebook attack last
        order = ["honest"] + sorted(c.student for c in cases_stock if c.student != "sqlite_update") + ["sqlite_update"]
        stock: dict[str, float | None] = {}
        stock_errors = set()
        for student in order:
            out = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", attacks.ASSIGNMENT, "--force",
                                  "--student", student, "--Execute.timeout=20",
                                  "--GradeInSandbox.trusted_input=True"], cwd=stock_course, env=env(),
                                 capture_output=True, text=True, timeout=600)
            if out.returncode != 0 or "ERROR" in out.stderr:
                stock_errors.add(student)
            stock[student] = attacks.gradebook_scores(stock_course).get(student)
        honest_after = attacks.gradebook_scores(stock_course).get("honest")
        for junk in (Path("/tmp/PWNED"),):
            junk.unlink(missing_ok=True)
        stock_pwned = (stock_course / "PWNED").exists()
        stock_leaks = {c.student for c in cases_stock if leaked(stock_course, c.student)}

        e = env()
        e.update(LIMITS)
        subprocess.run([sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, "--workers", "2"],
                       cwd=ours_course, env=e, capture_output=True, text=True, check=True)
        ours = attacks.gradebook_scores(ours_course)
        ours_results = {p.parent.name: json.loads(p.read_text())["result"] for p in
                        (ours_course / ".autograder" / "results" / attacks.ASSIGNMENT).glob("*/*.json")}

    rows = ["| case | what the submission does | deserves | stock nbgrader 0.9.6 | autograder | autograder's record |",
            "|---|---|---|---|---|---|"]
    by_student = {c.student: c for c in attacks.attacks(Path("/x")) + attacks.faults()}
    for student, case in by_student.items():
        want = 0 if case.attack else case.score
        if student in NOT_ON_STOCK:
            s = f"not run ({NOT_ON_STOCK[student]})"
        elif stock.get(student) is None:
            s = "no grade recorded" + (" (nbgrader error)" if student in stock_errors else "")
        else:
            s = f"{stock[student]:g}" + (" **cheated**" if stock[student] > want else "")
            if student in stock_errors:
                s += " (nbgrader error)"
            if student == "sqlite_update" and honest_after != stock.get("honest"):
                s += f" (and set the honest learner's grade to {honest_after:g})"
            if student in stock_leaks:
                s += " (leaked solutions, gradebook or grader environment)"
        r = ours_results.get(student, {})
        note = "; ".join(filter(None, [r.get("error") or ""] + r.get("tampering", [])))[:90]
        rows.append(f"| {student} | {case.what} | {want:g} | {s} | {ours.get(student, 0):g} | {note} |")
    rows.append(f"| honest | answers both exercises right | 3 | {stock.get('honest') or 0:g} | {ours.get('honest', 0):g} | |")
    extra = ["", f"Stock nbgrader graded one student per run, the gradebook attack last; after it, the honest "
             f"learner's recorded score was {honest_after or 0:g}/3. A file planted in the course directory by "
             f"`write_outside` {'existed' if stock_pwned else 'did not exist'} after the stock run; none did after ours."]
    table = "\n".join(rows + extra)
    doc = ROOT / "docs" / "security.md"
    text = doc.read_text()
    start, end = "<!-- compare:start -->", "<!-- compare:end -->"
    text = text[: text.index(start) + len(start)] + "\n" + table + "\n" + text[text.index(end):]
    doc.write_text(text)
    print(table)


if __name__ == "__main__":
    main()
