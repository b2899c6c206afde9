"""End to end in a real browser: headless Chromium (the Debian package) driven by Playwright,
against a JupyterLab server started on loopback in a private copy of the course.

* learner: open ``notebooks/01_tensors/01_tensors.ipynb``, type the answer to exercise 1.1,
  run the cells, see its visible test pass, press Validate and read the result;
* instructor: with one sample submission graded by ``python -m autograder grade``, open the
  formgrader from JupyterLab's Nbgrader menu and see the autograded score;
* the students' side of nbgrader's exchange, on a class server, is in ``tests/system/test_class_server.py``.

Screenshots of every step go to ``tests/artifacts/browser/``.  With
``AUTOGRADER_UPDATE_SCREENSHOTS=1`` the final ones are also written (size-reduced) to
``docs/screenshots/`` for the documentation.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from browser_helpers import CHROMIUM, chromium, lab_server, tool_env
from support import ROOT, copy_course

from autograder.grading.store import ResultStore

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"{CHROMIUM} is missing (Debian package `chromium`)"),
]
playwright = pytest.importorskip("playwright.sync_api", reason="the `playwright` Python package is not installed "
                                                               "(pip install playwright; no browser download needed)")

ASSIGNMENT = NOTEBOOK = "01_tensors"
NB_PATH = f"notebooks/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
STUDENT = "alice"  # the sample submission the instructor sees graded
ARTIFACTS = ROOT / "tests" / "artifacts" / "browser"
SCREENSHOTS = ROOT / "docs" / "screenshots"

# Generous but bounded waits (ms) for a loaded 2-core machine.
UI = 60_000           # the UI reacting to a click
RUN = 150_000         # kernel start + torch import + running cells
VALIDATE = 240_000    # nbgrader validate runs the whole notebook in a new kernel
GRADE = 420           # s: `autograder grade` (reference run + one submission), in the background

COMMENT = "Correct. torch.cdist is fine here; compare with the broadcasting version of section 2."
ANSWER = '''# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    diff = x[:, None, :] - y[None, :, :]
    return (diff ** 2).sum(dim=-1).sqrt()
'''


def reference_answer(source: str) -> str:
    """A solution cell of solutions/ without the nbgrader solution markers."""
    return "".join(line for line in source.splitlines(keepends=True)
                   if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def prepare_course(course: Path) -> dict[str, int]:
    """The learner has already answered exercises 1.2–1.5 (so Validate can succeed once 1.1 is typed
    in the browser); the sample submission is in submitted/.  Returns cell indexes by grade_id."""
    solution = nbformat.read(course / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: reference_answer(c.source) for c in solution.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    path = course / NB_PATH
    nb = nbformat.read(path, as_version=4)
    index = {}
    for i, cell in enumerate(nb.cells):
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid:
            index[gid] = i
        if gid in answers and gid != "ex1_1_solution":
            cell.source = answers[gid]
    nbformat.write(nb, path)
    shutil.copytree(course / "examples" / "submissions" / STUDENT / ASSIGNMENT,
                    course / "submitted" / STUDENT / ASSIGNMENT)
    return index


class Steps:
    """Screenshots of each step, in order."""

    def __init__(self, page):
        self.page, self.n, self.files = page, 0, {}

    t0 = time.monotonic()  # reset by the fixture

    def shot(self, name: str, **kw) -> Path:
        self.n += 1
        print(f"[{time.monotonic() - Steps.t0:6.1f} s] {name}", flush=True)
        path = ARTIFACTS / f"{self.n:02d}-{name}.png"
        self.page.screenshot(path=str(path), **kw)
        self.files[name] = path
        return path


def publish(src: Path, name: str, max_bytes: int = 300_000) -> None:
    """Copy a screenshot into docs/screenshots/, palette-reduced so it stays small."""
    if os.environ.get("AUTOGRADER_UPDATE_SCREENSHOTS") != "1":
        return
    from PIL import Image

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dest = SCREENSHOTS / f"{name}.png"
    img = Image.open(src).convert("RGB")
    for colors in (256, 128, 64):
        img.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(dest, optimize=True)
        if dest.stat().st_size <= max_bytes:
            break


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("browser")
    course = copy_course(base / "course")
    index = prepare_course(course)
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    Steps.t0 = time.monotonic()
    # the instructor's grading runs while the learner works in the browser
    grade_log = open(base / "grade.log", "w+")
    grader = subprocess.Popen([sys.executable, "-m", "autograder", "grade", ASSIGNMENT, "--student", STUDENT,
                               "--workers", "1"], cwd=course, env=tool_env(), stdout=grade_log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with lab_server(course, base / "state") as server, chromium(base / "chrome", viewport=(1400, 1000)) as ctx:
            ctx.set_default_timeout(UI)
            page = ctx.new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type == "error" else None)
            yield {"server": server, "page": page, "course": course, "index": index, "grader": grader,
                   "grade_log": grade_log, "steps": Steps(page), "console": console}
            (ARTIFACTS / "jupyter-lab.log").write_text(server.log())
    finally:
        if grader.poll() is None:
            os.killpg(grader.pid, 15)
            grader.wait(timeout=30)
        grade_log.close()
        shutil.copy(base / "grade.log", ARTIFACTS / "grade.log")


# Counts ipywidgets progress bars added to the page (tqdm.auto bars with leave=False vanish when done).
WATCH_PROGRESS_BARS = """() => {
  window.__progressBarsSeen = 0;
  new MutationObserver((mutations) => {
    for (const m of mutations) for (const n of m.addedNodes) {
      if (n.nodeType === 1 && (n.matches('.widget-hprogress, .jupyter-widgets progress, .widget-progress')
                               || n.querySelector('.widget-hprogress, .widget-progress'))) {
        window.__progressBarsSeen += 1;
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def saved_comment(course: Path) -> str | None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return gb.find_comment("ex1_1_solution", NOTEBOOK, ASSIGNMENT, STUDENT).manual_comment


def cell(page, i: int):
    return page.locator(".jp-Notebook .jp-Cell").nth(i)


def type_into(page, i: int, text: str) -> None:
    """Replace the source of cell ``i`` by typing ``text`` into its editor, then leave edit mode."""
    cell(page, i).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")


def wait_executed(page, i: int, timeout: float = RUN) -> None:
    """Wait until code cell ``i`` has run (its prompt shows a number, not ``*``)."""
    from playwright.sync_api import expect

    expect(cell(page, i).locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]"), timeout=timeout)


def error_outputs(page, i: int) -> list[str]:
    return cell(page, i).locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']") \
        .all_inner_texts()


def test_learner_answers_runs_and_validates(env):
    page, server, steps, index = env["page"], env["server"], env["steps"], env["index"]
    sol, tests = index["ex1_1_solution"], index["ex1_1_tests"]
    after = tests + 2  # the nearest-neighbour demo that uses the learner's function

    page.goto(f"{server.url}lab/tree/{NB_PATH}?token={server.token}&reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=RUN)
    page.wait_for_selector(".jp-NotebookPanel-toolbar .validate-button", timeout=UI)
    # the kernel is up (status bar) before anything runs
    page.wait_for_selector(".jp-StatusBar-TextItem:has-text('Idle')", timeout=RUN)

    # the exercise as the learner sees it: header, collapsed hint, answer cell with the stub
    header = cell(page, sol - 1)
    header.scroll_into_view_if_needed()
    assert "Exercise 1.1" in header.inner_text()
    assert header.locator("details").count() == 1 and header.locator("details[open]").count() == 0
    editor = cell(page, sol).locator(".cm-content")
    assert "NotImplementedError" in editor.inner_text()
    page.evaluate("(el) => el.scrollIntoView({block: 'start'})", header.element_handle())
    steps.shot("exercise")

    # type the answer (replacing the stub) and leave edit mode
    type_into(page, sol, ANSWER)
    assert "diff ** 2" in editor.inner_text()
    steps.shot("answer-typed")

    # run everything above the demo cell (imports, demos, the answer, its visible test), then the demo
    page.evaluate(WATCH_PROGRESS_BARS)
    cell(page, after).locator(".jp-InputPrompt").click()
    page.locator(".lm-MenuBar-item", has_text="Run").click()
    page.locator(".lm-Menu-item:visible", has_text="Run All Above Selected Cell").click()
    wait_executed(page, tests)
    page.keyboard.press("Shift+Enter")
    wait_executed(page, after)
    assert error_outputs(page, sol) == [] and error_outputs(page, tests) == [], error_outputs(page, tests)
    demo = cell(page, after).locator(".jp-OutputArea-output").inner_text()
    assert re.search(r"nearest-neighbour test accuracy: 0\.9\d\d", demo), demo
    # the plots above the exercise rendered inline; the training loop's tqdm.auto bars were widgets
    assert page.locator(".jp-Notebook .jp-RenderedImage img").count() >= 1
    assert page.evaluate("window.__progressBarsSeen") > 0, "no ipywidgets progress bar was rendered"
    assert not page.locator(".jp-Notebook .jp-OutputArea-output", has_text="IProgress not found").count()
    page.evaluate("(el) => el.scrollIntoView({block: 'end'})", cell(page, after).element_handle())
    time.sleep(0.5)
    steps.shot("visible-test-passed")

    # Validate (nbgrader's toolbar button): saves, then runs the whole notebook in a fresh kernel
    page.locator(".jp-NotebookPanel-toolbar .validate-button").click()
    dialog = page.locator(".jp-Dialog:has(#validation-message)")
    dialog.wait_for(state="visible", timeout=VALIDATE)
    message = dialog.locator("#validation-message")
    text = message.inner_text()
    steps.shot("validate-result")
    assert "validation-success" in (message.get_attribute("class") or ""), text
    assert "Success! Your notebook passes all the tests." in text
    dialog.locator("button", has_text="Ok").click()

    # the typed answer is what was saved
    saved = nbformat.read(env["course"] / NB_PATH, as_version=4)
    assert "(diff ** 2).sum(dim=-1).sqrt()" in saved.cells[sol].source
    assert not env["console"] or all("nbgrader" not in c.lower() for c in env["console"]), env["console"]

    publish(steps.files["exercise"], "learner-exercise")
    publish(steps.files["visible-test-passed"], "learner-notebook")
    publish(steps.files["validate-result"], "learner-validate")


def test_instructor_sees_autograded_score_in_formgrader(env):
    from playwright.sync_api import expect

    page, steps, grader = env["page"], env["steps"], env["grader"]
    try:
        rc = grader.wait(timeout=GRADE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`autograder grade` did not finish within {GRADE} s")
    env["grade_log"].seek(0)
    log = env["grade_log"].read()
    assert rc == 0, log[-3000:]
    result = ResultStore(env["course"]).get(ASSIGNMENT, STUDENT, NOTEBOOK)
    assert result is not None, log[-3000:]
    score, max_score = result.score, result.max_score
    assert max_score > 0
    assert (env["course"] / "autograded" / STUDENT / ASSIGNMENT / f"{NOTEBOOK}.ipynb").is_file()

    # the formgrader, opened from JupyterLab's Nbgrader menu, in a tab of its own
    if not page.url.startswith(env["server"].url + "lab"):  # this test ran on its own
        page.goto(f"{env['server'].url}lab/tree/notebooks?token={env['server'].token}")
    page.locator(".lm-MenuBar-item", has_text="Nbgrader").click(timeout=RUN)
    page.locator(".lm-Menu-item:visible", has_text="Formgrader").first.click()
    frame = page.frame_locator("iframe[src*='formgrader']")
    # each link by where it leads, which only the page it is on holds: the assignment and its notebook share a
    # name, and a click by name could land on the previous page before it has gone
    frame.locator("a", has_text="Manual Grading").first.click()
    frame.locator(f"a[href$='/formgrader/gradebook/{ASSIGNMENT}']").first.click()
    frame.locator(f"a[href$='/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}']").first.click()
    expect(frame.locator("td.score").first).to_have_text(re.compile(r"\d+ / \d+"), timeout=UI)
    frame.locator("#toggle_names").click()  # names are hidden by default
    name = frame.locator("a.name-shown", has_text=STUDENT)
    expect(name).to_be_visible(timeout=UI)
    row = frame.locator("tr", has=name)
    text = row.inner_text()
    assert re.search(rf"{score:g}\s*/\s*{max_score:g}", text), text
    time.sleep(0.5)
    steps.shot("formgrader-submissions")

    # manual grading is possible: the submission opens in the grading view, autograded scores filled in;
    # a comment typed there is saved to the gradebook
    name.click()
    tests_score = frame.locator("input.score#ex1_1_tests")
    expect(tests_score).to_be_visible(timeout=UI)
    # the autograded score shows as the placeholder; typing a number there overrides it
    expect(tests_score).to_have_attribute("placeholder", re.compile(r"^\d+(\.\d+)?$"), timeout=UI)
    comment = frame.locator("textarea#ex1_1_solution-comment")
    comment.click()
    comment.fill(COMMENT)
    comment.press("Tab")  # a change event saves it
    deadline = time.monotonic() + UI / 1000
    while saved_comment(env["course"]) != COMMENT:
        assert time.monotonic() < deadline, "the formgrader did not save the comment to gradebook.db"
        time.sleep(0.5)
    comment.evaluate("(el) => el.scrollIntoView({block: 'center'})")
    time.sleep(0.5)
    steps.shot("formgrader-grading")

    publish(steps.files["formgrader-submissions"], "instructor-formgrader")
    publish(steps.files["formgrader-grading"], "instructor-grading")

