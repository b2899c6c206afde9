"""``autograder feedback``: a feedback page for every graded notebook (:mod:`autograder.adapters.feedback`
builds each, as nbgrader's *Generate Feedback* does), under ``feedback/STUDENT/ASSIGNMENT/``; a page follows
its grade wherever it went (no grade recorded now: the page says so)."""

from __future__ import annotations

import html
from pathlib import Path

import nbformat

from autograder.adapters.feedback import (NOT_FROM_CELLS, TAKEN_BACK, feedback_notebook, page_of, render_html,
                                          summary_markdown, trusted_markdown)
from autograder.grading.store import ResultStore
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.files import kept_folder, kept_line, write_for_people


def _graded(root: Path, store: ResultStore, names: list[str], students: list[str] | None):
    """Every (student, assignment, notebook) with an autograded notebook, a recorded result or a feedback page
    from an earlier run, among ``names`` (and ``students``): a page must follow its grade wherever it went."""
    found = {(p.parent.parent.name, p.parent.name, p.stem) for p in course.folder(root, "autograded").glob("*/*/*.ipynb")}
    found |= {(student, assignment, notebook) for assignment, student, notebook in store.recorded()}
    found |= {(p.parent.parent.name, p.parent.name, p.stem) for p in course.folder(root, "feedback").glob("*/*/*.html")}
    return sorted(t for t in found if t[1] in names and (not students or t[0] in students))


def run(args) -> int:
    root = course.find_root()
    names = course.assignment_names(root, args.assignments or None)
    store = ResultStore(root)
    base = course.folder(root, "autograded")
    if not any(base.glob("*/*/*.ipynb")) and not store.recorded():
        raise UserError(f"nothing graded yet ({base.name}/ holds no notebook): run `autograder grade` first")
    chosen = _graded(root, store, names, args.student)
    if not chosen:
        which = " ".join([*(args.assignments or []), *(f"--student {s}" for s in args.student or [])])
        raise UserError(f"nothing graded for {which}: run `autograder grade {which}` first")
    trusted: dict[tuple[str, str], dict[str, str]] = {}
    marks = course.markers(root)
    for student, assignment, stem in chosen:
        path = base / student / assignment / f"{stem}.ipynb"
        result = store.get(assignment, student, stem)
        if path.is_file():
            if (assignment, stem) not in trusted:
                trusted[assignment, stem] = trusted_markdown(root, assignment, stem)
            nb = nbformat.read(str(path), as_version=4)
            page = render_html(feedback_notebook(nb, result, trusted[assignment, stem], marks))
        elif result is not None:
            page = page_of([summary_markdown(result), NOT_FROM_CELLS])
            print(f"{student} {assignment}/{stem}: not graded from its cells; the page shows the recorded score only")
        else:
            page = page_of([f"# Feedback: {html.escape(assignment)}/{html.escape(stem)}", TAKEN_BACK])
            print(f"{student} {assignment}/{stem}: no grade recorded now; the page says the earlier one was taken back")
        out = course.folder(root, "feedback", student, assignment, f"{stem}.html")
        aside = write_for_people(out, page, root, keep_in=kept_folder(root, out))
        if aside is not None:
            print(kept_line(out, aside))
    print(f"wrote {len(chosen)} feedback file(s) under {course.folder(root, 'feedback').name}/")
    return 0

