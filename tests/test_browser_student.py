"""The student's side of nbgrader's exchange, in a real browser (headless Chromium from the Debian
package, driven by Playwright): in the student's own JupyterLab, fetch the released assignment
from the Assignment List, open it, answer, Validate, Submit; the instructor's ``nbgrader collect``
and ``autograder grade`` then give that submission full marks.

A module of its own: Playwright's sync API runs one browser session at a time, and the module
fixture of ``tests/test_browser.py`` holds the instructor's until that module ends.
"""

from __future__ import annotations

import sys

import nbformat
import pytest
from browser_helpers import CHROMIUM, chromium, lab_server
from support import run_tool
from test_browser import ARTIFACTS, GRADE, RUN, UI, VALIDATE, type_into

from autograder.grading.store import ResultStore

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"{CHROMIUM} is missing (Debian package `chromium`)"),
]
pytest.importorskip("playwright.sync_api", reason="the `playwright` Python package is not installed "
                                                  "(pip install playwright; no browser download needed)")


FIXTURE = "00_fixture"  # the two-exercise notebook of the grader's own tests: quick to validate and grade


def test_student_fetches_works_validates_and_submits_from_the_assignment_list(tmp_path):
    """A student's own JupyterLab (their user name and home, the course's exchange in their nbgrader
    config): fetch from the Assignment List, answer, Validate, Submit; the instructor collects and
    grades what was submitted."""
    import attacks
    from playwright.sync_api import expect
    from support import fixture_course

    course = fixture_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)
    out = run_tool([sys.executable, "-m", "nbgrader", "release_assignment", FIXTURE, f"--Exchange.root={exchange}"],
                   course, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    home = tmp_path / "home" / "alice"
    work = home / "work"
    work.mkdir(parents=True)
    (work / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.Exchange.cache = {str(home / '.nbgrader_cache')!r}\n"
        f"c.Exchange.assignment_dir = {str(work)!r}\n"
        # who submits: a hub gives nbgrader the user's name; this server runs as root, so the config says it
        "c.CourseDirectory.student_id = 'alice'\n")
    student = {"USER": "alice", "LOGNAME": "alice", "JUPYTERHUB_USER": "alice", "HOME": str(home)}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    with lab_server(work, tmp_path / "state", extra_env=student) as server, \
            chromium(tmp_path / "chrome", viewport=(1400, 1000)) as ctx:
        ctx.set_default_timeout(UI)
        page = ctx.new_page()
        # no `&reset` here: the list's links change the URL's hash, and a reset workspace would close the list
        page.goto(f"{server.url}lab?token={server.token}")
        page.locator(".lm-MenuBar-item", has_text="Nbgrader").click(timeout=RUN)
        page.locator("li[data-command='nbgrader:open-assignment-list']:visible").click()

        released = page.locator("#released_assignments_list > .list_item")
        expect(released).to_have_count(1, timeout=RUN)
        expect(released.first.locator(".item_name")).to_have_text(FIXTURE)
        page.screenshot(path=str(ARTIFACTS / "student-1-released.png"))
        released.first.locator(".item_status button").click()  # Fetch
        fetched = page.locator("#fetched_assignments_list > .list_item")
        expect(fetched).to_have_count(1, timeout=RUN)
        path = work / FIXTURE / f"{FIXTURE}.ipynb"
        assert path.is_file() and "BEGIN SOLUTION" not in path.read_text()

        # open the fetched notebook from the list and answer both exercises
        page.locator("#fetched_assignments_list a.assignment-notebooks-link", has_text=FIXTURE).click()
        page.locator(f"#nbgrader-pytorch-course-{FIXTURE} a", has_text=FIXTURE).click()
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=RUN)
        nb = nbformat.read(path, as_version=4)
        index = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
        for gid, text in attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2).items():
            type_into(page, index[gid], text)
        page.keyboard.press("Control+s")
        page.wait_for_timeout(1000)

        # Validate: nbgrader runs the notebook in a fresh kernel
        page.locator(".jp-NotebookPanel-toolbar .validate-button").click()
        dialog = page.locator(".jp-Dialog:has(#validation-message)")
        dialog.wait_for(state="visible", timeout=VALIDATE)
        text = dialog.locator("#validation-message").inner_text()
        page.screenshot(path=str(ARTIFACTS / "student-2-validated.png"))
        assert "Success! Your notebook passes all the tests." in text, text
        dialog.locator("button", has_text="Ok").click()

        # Submit, from the Assignment List tab
        page.locator(".lm-TabBar-tab", has_text="Assignments").click()
        page.locator("#fetched_assignments_list .item_status button:text('Submit')").first.click()
        submitted = page.locator("#submitted_assignments_list > .list_item")
        expect(submitted).to_have_count(1, timeout=RUN)
        expect(submitted.first.locator(".item_name").first).to_have_text(FIXTURE)
        page.screenshot(path=str(ARTIFACTS / "student-3-submitted.png"))

    inbound = list((exchange / "pytorch-course" / "inbound").glob(f"alice+{FIXTURE}+*"))
    assert len(inbound) == 1, list((exchange / "pytorch-course").rglob("*"))
    # the instructor collects and grades what the student submitted from the browser
    out = run_tool([sys.executable, "-m", "nbgrader", "collect", FIXTURE, f"--Exchange.root={exchange}"], course,
                   timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    out = run_tool([sys.executable, "-m", "autograder", "grade", FIXTURE, "--workers", "1"], course, timeout=GRADE)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    result = ResultStore(course).get(FIXTURE, "alice", FIXTURE)
    assert result is not None and result.score == result.max_score == 3, out.stdout[-3000:]
