"""Packs, releases and kernels see only the release: the files beside a solution notebook ship only
when the notebook lists them (``metadata.autograder.support_files``, :mod:`autograder.values.support`).

The fixture course gets a listed helper module, and beside it what an author's tools leave: a
jupytext copy of the notebook (its solutions and hidden tests in plain Python), an editor's backup
and notes.  None of them may reach ``notebooks/``, a handout pack, nbgrader's own
``generate_assignment`` or a grading kernel; the leak scan must find a pack that holds one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from support import ROOT, bare_fixture_course, release, run_cli, run_tool

from autograder.commands import handout
from autograder.values import course, support
from autograder.values.errors import UserError

A = "00_fixture"
SECRET_LINE = 'obs.value("random", add_one(x))'  # a hidden test's line, as the jupytext copy holds it
STRAYS = {f"{A}.py": f"# %%\ndef _(obs):\n    {SECRET_LINE}\n", f"{A}.ipynb~": "{}", "notes.txt": "answers: x + 1\n",
          "drafts/old.py": f"{SECRET_LINE}\n"}


def _list(folder: Path, names: list) -> None:
    nb_path = folder / f"{A}.ipynb"
    nb = json.loads(nb_path.read_text())
    nb["metadata"].setdefault("autograder", {})["support_files"] = names
    nb_path.write_text(json.dumps(nb, indent=1))


@pytest.fixture(scope="module")
def authored(tmp_path_factory):
    """The fixture course with a listed helper (read by the visible test) and an author's strays."""
    root = bare_fixture_course(tmp_path_factory.mktemp("support") / "course")
    folder = root / "solutions" / A
    (folder / "helper.py").write_text("GREETING = 'from the listed helper'\n")
    for rel, text in STRAYS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    _list(folder, ["helper.py"])
    nb = json.loads((folder / f"{A}.ipynb").read_text())
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    first["source"] = "import torch\nimport helper\nimport os\nprint('SEEN', sorted(os.listdir('.')))"
    (folder / f"{A}.ipynb").write_text(json.dumps(nb, indent=1))
    return release(root)


def test_a_release_holds_the_notebook_and_the_files_it_lists(authored):
    shipped = sorted(p.relative_to(authored / "notebooks" / A).as_posix()
                     for p in (authored / "notebooks" / A).rglob("*") if p.is_file())
    assert shipped == [f"{A}.ipynb", "helper.py"]
    assert support.unlisted(authored / "solutions" / A) == sorted(STRAYS)


def test_nbgrader_generate_assignment_obeys_the_list(authored, tmp_path):
    course_copy = tmp_path / "c"
    shutil.copytree(authored, course_copy)
    shutil.rmtree(course_copy / "notebooks")
    out = run_tool(["nbgrader", "generate_assignment", A, "--force"], course_copy)
    assert out.returncode == 0, out.stdout + out.stderr
    shipped = sorted(p.name for p in (course_copy / "notebooks" / A).rglob("*") if p.is_file())
    assert shipped == [f"{A}.ipynb", "helper.py"], shipped


def test_a_pack_holds_only_listed_files_and_the_leak_scan_reads_every_file(authored, tmp_path):
    out = run_cli(["handout", "--to", str(tmp_path / "pack")], authored)
    assert out.returncode == 0, out.stdout + out.stderr
    files = {p.relative_to(tmp_path / "pack").as_posix() for p in (tmp_path / "pack").rglob("*") if p.is_file()}
    assert f"notebooks/{A}/helper.py" in files and f".release/{A}/helper.py" in files
    assert not [f for f in files if any(f.endswith(s) for s in STRAYS)], files
    # a jupytext copy in solutions/ does not make its lines "public": a pack that holds one is refused
    assert SECRET_LINE in handout.secret_lines(authored)
    shutil.copy(authored / "solutions" / A / f"{A}.py", tmp_path / "pack" / "notebooks" / A / "stray.bin")
    assert any(f.startswith(f"notebooks/{A}/stray.bin") for f in handout.leaks(tmp_path / "pack", authored))


def test_a_grading_kernel_sees_only_the_listed_files(authored, tmp_path):
    from autograder.grading.coursedata import NotebookData
    from autograder.grading.pipeline import grade_notebook

    data = NotebookData.load(course.Assignment(A, authored), A)
    assert data.support_files == ("helper.py",)
    sub = tmp_path / "submitted" / f"{A}.ipynb"
    sub.parent.mkdir()
    shutil.copy(authored / "notebooks" / A / f"{A}.ipynb", sub)
    _, executed = grade_notebook(sub, data, student_id="s", seed=1, refs=None)
    printed = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []))
    seen = next(line for line in printed.splitlines() if line.startswith("SEEN"))
    assert "helper.py" in seen and not any(s.split("/")[0] in seen for s in STRAYS), seen


def test_the_tests_change_with_a_listed_file_and_not_with_an_unlisted_one(authored, tmp_path):
    from autograder.grading.coursedata import NotebookData

    root = tmp_path / "c"
    shutil.copytree(authored, root)
    before = NotebookData.load(course.Assignment(A, root), A).solution_sha
    (root / "solutions" / A / "notes.txt").write_text("changed\n")
    assert NotebookData.load(course.Assignment(A, root), A).solution_sha == before
    (root / "solutions" / A / "helper.py").write_text("GREETING = 'changed'\n")
    assert NotebookData.load(course.Assignment(A, root), A).solution_sha != before


@pytest.mark.parametrize("entry", ["../outside.py", "/etc/passwd", ".hidden", "missing.py", f"{A}.ipynb", "link.py", 3])
def test_a_list_that_does_not_check_out_is_one_clear_line(tmp_path, entry):
    folder = tmp_path / "solutions" / A
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), folder / f"{A}.ipynb")
    (tmp_path / "outside.py").write_text("x = 1\n")
    (folder / ".hidden").write_text("x = 1\n")
    (folder / "link.py").symlink_to(tmp_path / "outside.py")
    _list(folder, [entry])
    with pytest.raises(UserError) as err:
        support.listed(folder)
    assert "support_files" in str(err.value) and "\n" not in str(err.value)


def test_release_says_which_listed_file_is_missing_in_one_line(authored, tmp_path):
    root = tmp_path / "c"
    shutil.copytree(authored, root)
    (root / "solutions" / A / "helper.py").unlink()
    out = run_cli(["release"], root)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "helper.py" in out.stderr and "support_files" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_every_file_beside_a_course_notebook_is_listed():
    """The course's own folders: each file is one its notebook lists, and each helper module a
    notebook imports is listed."""
    for a in course.assignments(ROOT):
        assert support.unlisted(a.solution_dir) == [], f"{a.solution_dir}: list these in the notebook or remove them"
        listed = set(support.listed(a.solution_dir))
        for name in a.notebooks():
            text = a.solution(name).read_text()
            for module in (p.stem for p in a.solution_dir.glob("*.py")):
                if f"import {module}" in text:
                    assert f"{module}.py" in listed, (name, module)

