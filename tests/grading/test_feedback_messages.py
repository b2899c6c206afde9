"""One mistake, one message: what ``check`` tells a learner, their feedback page and the class report agree.

A learner hands in two notebooks with the common mistakes (a crash inside a hidden test, a crash inside the
visible tests, a tensor of the wrong dtype, an exercise whose stub still raises, one left untouched, a
checkpoint without the optimizer's state).  They are graded as a class is (``autograder grade``, in the
sandbox), then ``autograder feedback`` and ``autograder report`` run, and the learner runs ``autograder
check`` on the same files.  For each mistake the three say the same thing: the same message, the same
concept, and for an error raised in the learner's code, the answer's own line.  The feedback page is read
in a real browser, as written by ``autograder feedback`` and by nbgrader's *Generate Feedback*: its
columns stay apart under either stylesheet.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from browser_helpers import CHROMIUM, chromium
from support import ROOT, copy_course, run_command, run_tool, set_answers

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("feedback_messages")]

ANSWERS = ROOT / "tests" / "answers"
STUDENT = "ann"

# answers whose mistake the learner cannot see in the visible tests alone, or can
HIDDEN_CRASH = '''# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    n, d = x.shape
    flat = x.view(n * d)  # a view cannot flatten a transposed (non-contiguous) tensor
    return ((flat.view(n, 1, d) - y[None]) ** 2).sum(-1).sqrt()
'''
VISIBLE_CRASH = '''# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    B, C, H, W = images.shape
    return images.unfold(2, p, p).unfold(3, p, p).reshape(B, -1, C * p * p, 7)
'''
STARTED_STUB = '''# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) -> log_probs at the target class, shape (...)."""
    # gather along the last axis, then drop it
    raise NotImplementedError("exercise not attempted yet")
'''
SUBMISSION = {
    "01_tensors": {"ex1_1_solution": HIDDEN_CRASH, "ex1_2_solution": VISIBLE_CRASH,
                   "ex1_3_solution": (ANSWERS / "01_tensors" / "ex1_3" / "wrong_zeros_default_dtype.py").read_text(),
                   "ex1_4_solution": STARTED_STUB},
    "09_checkpointing": {"ex9_2_solution": (ANSWERS / "09_checkpointing" / "ex9_2" / "wrong_no_optimizer.py").read_text()},
}

# exercise title -> (status, the learner's line, the concept to revisit, the cause, where it was raised)
EXPECTED = {
    "Exercise 1.1 — Pairwise distances": (
        "failed", "- check 'non_contiguous': your function raised RuntimeError (answer cell, line 5) "
                  "(concept: non-contiguous inputs (section 3))",
        "non-contiguous inputs (section 3)", "your function raised RuntimeError", "answer cell, line 5"),
    "Exercise 1.2 — Cut images into patches": (
        "failed", "your function raised RuntimeError (answer cell, line 5)", "",
        "your function raised RuntimeError", "answer cell, line 5"),
    "Exercise 1.3 — Pad a batch of sequences": (
        "failed", "AssertionError: int64 token ids came back as …: nn.Embedding needs integer ids (section 4)",
        "int64 token ids came back as …: nn.Embedding needs integer ids (section 4)", "", ""),
    "Exercise 1.4 — Log-probability of the target class": (
        "not attempted", "the answer cell still raises the stub's NotImplementedError: replace the stub with your "
                         "answer (answer cell, line 5)",
        "", "the answer cell still raises the stub's NotImplementedError: replace the stub with your answer",
        "answer cell, line 5"),
    "Exercise 1.5 — Mask the padding": ("not attempted", "", "", "the answer cell still holds the stub", ""),
    "Exercise 9.2 — Exact resume": (
        "failed", "AssertionError: AdamW's state (step count, moments) was not restored: save the optimizer's "
                  "state_dict",
        "AdamW's state (step count, moments) was not restored: save the optimizer's state_dict", "", ""),
}


def autograder(*args, cwd):
    out = run_command(list(args), cwd)
    assert out.returncode in (0, 1, 3), out.stdout[-3000:] + out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The course after the learner's two notebooks were graded, with feedback pages and class reports, and
    what ``check`` told the learner of each notebook."""
    course = copy_course(tmp_path_factory.mktemp("feedback") / "course")
    for name, answers in SUBMISSION.items():
        dest = course / "submitted" / STUDENT / name / f"{name}.ipynb"
        dest.parent.mkdir(parents=True)
        shutil.copy(course / "notebooks" / name / f"{name}.ipynb", dest)
        set_answers(dest, answers)
    # the notebook handed out to all, graded on it (check runs it as handed out too)
    autograder("grade", *SUBMISSION, "--default-variant", cwd=course)
    autograder("feedback", cwd=course)
    autograder("report", cwd=course)
    checked = {name: autograder("check", f"submitted/{STUDENT}/{name}/{name}.ipynb", *(["--hidden"] * (name == "01_tensors")),
                                cwd=course).stdout for name in SUBMISSION}
    return course, checked


def check_lines(stdout: str) -> dict[str, tuple[str, list[str]]]:
    """``check``'s report: each exercise's title -> (its mark, the lines under it but what the run raised)."""
    found: dict[str, tuple[str, list[str]]] = {}
    title = None
    for line in stdout.splitlines():
        if line.startswith("  [") and "] Exercise" in line:
            mark, rest = line.strip()[1:].split("] ", 1)
            title = rest.rsplit("  (", 1)[0]
            found[title] = (mark, [])
        elif title and line.startswith("         ") and not line.strip().startswith("as raised: "):
            found[title][1].append(line.strip())
        else:
            title = None
    return found


def feedback_rows(page: str) -> dict[str, tuple[str, list[str]]]:
    """The feedback page's table of exercises: title -> (result, the lines of "what to look at")."""
    soup = BeautifulSoup(page, "html.parser")
    table = next(t for t in soup.find_all("table") if "what to look at" in t.get_text())
    rows = {}
    for tr in table.find_all("tr")[1:]:
        cells = tr.find_all("td")
        rows[cells[0].get_text()] = (cells[1].get_text(), [x.strip() for x in cells[3].get_text("\n").splitlines()
                                                           if x.strip()])
    return rows


def report_gaps(page: str) -> tuple[list[list[str]], list[str]]:
    """The class report's gaps (exercise, check, students, concept or cause, who) and its "What to do next"."""
    soup = BeautifulSoup(page, "html.parser")
    table = next(t for t in soup.find_all("table") if "concept or cause" in t.get_text())
    gaps = [[td.get_text() for td in tr.find_all("td")] for tr in table.find_all("tr")[1:]]
    return gaps, [li.get_text() for li in soup.find("ol").find_all("li")]


def test_each_mistake_reads_the_same_in_check_feedback_and_report(term):
    course, checked = term
    said = {**check_lines(checked["01_tensors"]), **check_lines(checked["09_checkpointing"])}
    rows, gaps, steps = {}, [], []
    for name in SUBMISSION:
        rows.update(feedback_rows((course / "feedback" / STUDENT / name / f"{name}.html").read_text()))
        g, r = report_gaps((course / "reports" / f"{name}.html").read_text())
        gaps, steps = gaps + g, steps + r
    symbol = {"failed": "FAIL", "not attempted": "TODO"}
    for title, (status, line, concept, cause, where) in EXPECTED.items():
        mark, check_said = said[title]
        result, page_said = rows[title]
        assert (mark, result) == (symbol[status], status), (title, checked)
        if line:
            assert line in check_said, (title, check_said)
            assert line in page_said, (title, page_said)
        (gap,) = [g for g in gaps if g[0] == title]
        text = f"{cause}; concept: {concept}" if cause and concept else cause or concept
        assert gap[1:] == ["not attempted" if status == "not attempted" else gap[1], "1", text,
                           f"{STUDENT} ({where})" if where else STUDENT], (title, gap)
        (step,) = [x for x in steps if x.startswith(title)]
        # what to revisit is a concept, never an exception (an answer that raised is counted)
        assert step.endswith(f". Revisit: {concept}" if concept else ")"), step
        assert ("1 whose answer raised an error" in step) == (bool(cause) and status == "failed"), step
    assert not any("AssertionError" in x or "raised RuntimeError" in x for x in steps), steps


@pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"{CHROMIUM} is missing (Debian package `chromium`)")
def test_the_feedback_page_in_a_browser_keeps_its_columns_apart(term, tmp_path):
    """Both writers of the page: ``autograder feedback`` (nbconvert's lab template) and nbgrader's Generate
    Feedback (its own template, on Bootstrap, which pads no table in a Markdown cell)."""
    pytest.importorskip("playwright.sync_api")
    course, _ = term
    page_file = course / "feedback" / STUDENT / "01_tensors" / "01_tensors.html"
    pages = {"autograder feedback": tmp_path / "ours.html"}
    shutil.copy(page_file, pages["autograder feedback"])
    out = run_tool([sys.executable, "-m", "nbgrader", "generate_feedback", "01_tensors", "--force"], course)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    pages["nbgrader generate_feedback"] = page_file
    # in each row, the room between the text of one cell and the text of the next cell that has any
    gap_js = """table => [...table.querySelectorAll('tr')].map(tr => {
        const boxes = [...tr.children].filter(td => td.textContent.trim()).map(td => {
            const r = document.createRange(); r.selectNodeContents(td);
            const b = r.getBoundingClientRect(); return [b.left, b.right]; });
        return boxes.slice(1).map((b, i) => b[0] - boxes[i][1]); })"""
    with chromium(tmp_path / "chrome") as ctx:
        page = ctx.new_page()
        for who, path in pages.items():
            page.goto(Path(path).as_uri())
            for table in page.query_selector_all("table"):  # the summary's, and every table of the notebook's text
                gaps = [g for row in table.evaluate(gap_js) for g in row]
                assert gaps and min(gaps) >= 8, (who, table.inner_text(), gaps)  # pixels between two columns' text
            rows = [tr.inner_text() for tr in page.query_selector_all("tr")]
            for title, (status, line, *_) in EXPECTED.items():
                if title.startswith("Exercise 1."):
                    (row,) = [r for r in rows if r.startswith(title)]
                    assert f"\t{status}\t" in row and line in row, (who, row)
            assert "Late penalty:\t0" in rows, (who, rows)
