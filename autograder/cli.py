"""Command line: ``python -m autograder`` (or ``autograder``): the parser; each command is the ``run`` of the
module of :mod:`autograder.commands` named after it."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

FULL_HELP = ("a diagnostic: also run the notebook top to bottom and say where its verdicts differ from the grade's; "
             "with hidden tests the grade runs the notebook's grade path (the answer and test cells and what they "
             "need), and --full changes no grade")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autograder", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("release", help="regenerate notebooks/ from solutions/ (nbgrader generate_assignment)",
                       description="Regenerate the learner notebooks in notebooks/ from solutions/. A file there "
                                   "that differs from what the last release wrote (a notebook you worked in: its "
                                   "cells, not just its outputs) is first kept beside the fresh one as "
                                   "NAME.mine-TIME.ipynb, and each one kept is listed; files the release does not "
                                   "write are left alone.")
    s.add_argument("assignments", nargs="*", help="assignment names (default: all)")

    s = sub.add_parser("demo", help="the main job on the sample submissions, in a private copy of the course (demo/)",
                       description="Copy the course's solutions/ and nbgrader_config.py into demo/ (a course of its "
                                   "own, with its own gradebook), then release, grade the sample submissions of "
                                   "examples/submissions on the default variant, print the scores, write feedback "
                                   "and the export there. The course itself, its gradebook and its exchange are not "
                                   "touched.")
    s.add_argument("assignments", nargs="*", help="assignment names (default: all)")
    s.add_argument("--to", default=None, help="the demo's folder (default: demo/ in the course folder)")
    s.add_argument("--workers", type=int, default=None, help="notebooks graded at once (as for grade)")

    s = sub.add_parser("handout", help="write the student pack: released notebooks, the checker, a README",
                       description="Write a student pack (a folder, or a .zip when --to ends in .zip): the "
                                   "released notebooks and their support files, the learner side of the "
                                   "autograder, install files and a README. It holds no solution and no hidden "
                                   "test: the pack is scanned for every line of them before it is kept.")
    s.add_argument("assignments", nargs="*", help="assignment names (default: all)")
    s.add_argument("--to", required=True, help="a folder (new or empty) or a .zip file; with --roster, a folder")
    s.add_argument("--student", help="the student this pack is for: notebooks with per-student variants get theirs")
    s.add_argument("--roster", help="an LMS roster CSV (as for collect): one pack per student, STUDENT.zip in --to")
    s.add_argument("--default-variant", action="store_true",
                   help="a self-study pack of notebooks with per-student variants: each as written, for nobody in particular")

    s = sub.add_parser("collect", help="fill submitted/ from an LMS bulk download (Canvas, Moodle, Blackboard)",
                       description="Collect the notebooks of an LMS bulk download (.zip) into submitted/STUDENT/"
                                   "ASSIGNMENT/ with nbgrader's zip_collect. Files it cannot place (not a notebook, "
                                   "an unknown name or id, another notebook's name, an older duplicate, older than "
                                   "what was already collected) are kept aside in downloaded/ASSIGNMENT/kept-aside/"
                                   "DOWNLOAD-TIME/ with a report and listed. Nothing changes unless everything "
                                   "succeeds.")
    s.add_argument("download", help="the LMS's bulk download of the submissions (.zip)")
    s.add_argument("--assignment", required=True, help="the assignment the download is for")
    s.add_argument("--roster", default=None, help="LMS roster CSV: columns lms_id,student_id (any case), or Canvas's "
                        "gradebook export (default: LMS ids as student ids)")

    s = sub.add_parser("fmt", help="strip outputs and normalize committed notebooks",
                       description="Strip outputs, execution counts and editor metadata so notebooks diff cleanly.")
    s.add_argument("notebooks", nargs="*", help="notebooks (default: solutions/ and notebooks/)")
    s.add_argument("--check", action="store_true", help="only report; exit 1 if anything would change")

    s = sub.add_parser("check", help="run a notebook and report each exercise (for learners)",
                       description="Run NOTEBOOK in a fresh kernel and report each exercise as passed, failed "
                                   "(with the test's message) or not attempted. Exit 0 when all passed, 1 when "
                                   "something failed, 3 when nothing failed but some exercises are not attempted.")
    s.add_argument("notebook")
    s.add_argument("--hidden", action="store_true",
                   help="also run the hidden tests from solutions/ (their source is never shown)")
    s.add_argument("--seed", type=int, default=None, help="seed for hidden-test inputs (default: fixed)")
    s.add_argument("--full", action="store_true", help=FULL_HELP)

    s = sub.add_parser("progress", help="report every exercise of every notebook (for self-study)",
                       description="Check every notebook (notebooks/*/*.ipynb, or those in PATH) and print which "
                                   "exercises pass, fail (with the test's message and the concept and notebook "
                                   "section to revisit) or are not attempted. Notebooks with no answer changed "
                                   "are reported as not attempted without running them. Exit 0 when all passed, "
                                   "1 when something failed, 3 when nothing failed but some exercises are not "
                                   "attempted.")
    s.add_argument("path", nargs="?", default=None,
                   help="a notebook, or a folder of notebooks (default: the course's notebooks/)")
    s.add_argument("--hidden", action="store_true",
                   help="also run the hidden tests from solutions/: failures name the concept and section, "
                        "the tests' source and expected values are never shown")
    s.add_argument("--seed", type=int, default=None, help="seed for hidden-test inputs (default: fixed)")
    s.add_argument("--full", action="store_true", help=FULL_HELP)

    s = sub.add_parser("grade", help="autograde submissions into the nbgrader gradebook (for instructors)",
                       description="Autograde submitted/STUDENT/ASSIGNMENT/*.ipynb into gradebook.db and "
                                   "autograded/. A result is kept while everything that decides it is unchanged "
                                   "(the submission, the tests and reference, the grader, the seed, the limits); "
                                   "a change of due date, extension, late policy or submission time re-records "
                                   "it without running anything. Every run ends with what changed and why.")
    s.add_argument("assignments", nargs="*", help="assignment names (default: all that have submissions)")
    s.add_argument("--submissions", default=None, help="folder in nbgrader's submitted/ layout (default: submitted/)")
    s.add_argument("--student", action="append", default=None, help="only this student (repeatable)")
    s.add_argument("--seed", type=int, default=None,
                   help="grade one run with this hidden-test seed and keep nothing: its scores are printed beside "
                        "the recorded ones, and no grade, autograded notebook or result changes (default: the "
                        "assignment's seed for the term, drawn once and kept in .autograder/seeds.json)")
    s.add_argument("--new-seed", action="store_true",
                   help="draw a new term seed for the assignments graded (they are all graded again)")
    s.add_argument("--submitted-at", default=None, metavar="TIME",
                   help="the submission time of the --student given, e.g. '2026-11-20 17:05:00 UTC' (kept in "
                        ".autograder/times/, outside the submission; it outranks every other source)")
    s.add_argument("--force", action="store_true", help="regrade even what is already graded")
    s.add_argument("--default-variant", action="store_true",
                   help="grade every student on the default variant (the one notebooks/ holds) rather than their "
                        "own: for a class handed one copy for all (handout --default-variant) and for the sample "
                        "submissions of make demo")
    s.add_argument("--full", action="store_true", help=FULL_HELP)
    s.add_argument("--retry-errors", action="store_true",
                   help="regrade the notebooks whose recorded result is a grader error (kept otherwise)")
    s.add_argument("--workers", type=int, default=None,
                   help="submissions graded at once (default: one per GPU on a GPU runner, else one per core); "
                        "each worker is pinned to its GPU with CUDA_VISIBLE_DEVICES")
    s.add_argument("--backend", choices=["local", "slurm"], default="local",
                   help="local worker processes, or Slurm job arrays through submitit (see docs/cluster.md)")
    s.add_argument("--partition", default=None, help="Slurm partition")
    s.add_argument("--gpus-per-job", type=int, default=0, help="GPUs per Slurm task (gres gpu:N)")
    s.add_argument("--time-limit", type=int, default=30, help="minutes per Slurm task")
    s.add_argument("--array-parallelism", type=int, default=16, help="Slurm tasks running at once")
    s.add_argument("--chunk", type=int, default=1, help="submissions per Slurm task")
    s.add_argument("--cpus-per-job", type=int, default=2, help="CPUs per Slurm task")
    s.add_argument("--mem-gb", type=int, default=None, help="memory per Slurm task (GiB; a cgroup limit)")
    s.add_argument("--no-sandbox", action="store_true", help="run learner code without the sandbox (trusted input only)")

    s = sub.add_parser("feedback", help="write feedback HTML that never shows hidden tests",
                       description="Write feedback/STUDENT/ASSIGNMENT/NOTEBOOK.html from the autograded notebooks; a "
                                   "notebook graded without its cells (it did not read), or whose grade was taken "
                                   "back, gets a page that says so instead of an earlier one.")
    s.add_argument("assignments", nargs="*")
    s.add_argument("--student", action="append", default=None)

    s = sub.add_parser("report", help="one HTML page per assignment: scores, pass rates, what the class missed",
                       description="Write reports/ASSIGNMENT.html: a histogram of the scores, the pass rate of "
                                   "every exercise, and every failed check with how many students failed it and "
                                   "the concept it names.")
    s.add_argument("assignments", nargs="*")
    s.add_argument("--to", default="reports", help="output folder (default: reports/)")

    s = sub.add_parser("similarity", help="one HTML page of the students' most similar answers (for instructors)",
                       description="Compare the students' answer cells of submitted/STUDENT/ASSIGNMENT/*.ipynb, "
                                   "each exercise across the class and each notebook's answers as a whole, with "
                                   "copydetect's winnowing fingerprints (as MOSS does). Lines of the course's own "
                                   "cells, and lines both students of a pair were handed or reach by fixing their "
                                   "own copy (the released stubs; in the debugging exam, the fixes every correct "
                                   "copy shares), are left out. Writes one page with the "
                                   "most similar pairs side by side, shared passages highlighted, and prints one "
                                   "line per pair listed. Similarity is not proof: read the passages. Changes no "
                                   "grade; never writes over a file it did not write.")
    s.add_argument("assignment", help="the assignment to compare")
    s.add_argument("--submissions", default=None, help="folder in nbgrader's submitted/ layout (default: submitted/)")
    s.add_argument("--to", default=None,
                   help="the HTML file to write (default: reports/ASSIGNMENT-similarity.html in the course folder)")
    s.add_argument("--top", type=int, default=None,
                   help="pairs listed of whole notebooks, and of single exercises (default: 10 each)")
    s.add_argument("--default-variant", action="store_true",
                   help="the class was handed one copy for all (handout --default-variant): compare each student "
                        "against the default variant rather than their own")

    s = sub.add_parser("export", help="write a CSV of grades from the gradebook",
                       description="Write one row per student and assignment due or graded: score, lateness, "
                                   "penalty, final score and notes (a student with no submission: 0, 'no "
                                   "submission', once it is due for them).")
    s.add_argument("--to", default="grades.csv", help="output CSV path (default: grades.csv)")
    s.add_argument("--format", choices=["rows", "canvas"], default="rows",
                   help="rows: one per student and assignment, with lateness and notes; canvas: Canvas's "
                        "gradebook import (one row per student, final scores)")
    s.add_argument("--roster", default=None, help="LMS roster CSV: columns lms_id,student_id (any case), or Canvas's "
                        "gradebook export; every roster student gets a row, and Canvas IDs come from it")
    s.add_argument("--all-assignments", action="store_true",
                   help="export every assignment of the gradebook (default: those due or graded; one never due and "
                        "never graded would give every student a 0)")

    s = sub.add_parser("hub", help="a class server on this machine: JupyterHub, nbgrader's exchange, the formgrader "
                                   "for instructors (run as root)",
                       description="Start, stop, check or back up the class server: JupyterHub with an account "
                                   "per roster member, nbgrader's exchange, the Assignment List and Validate for "
                                   "learners, and the formgrader (grading in the sandbox) for the instructors alone.")
    s.add_argument("action", choices=["start", "stop", "status", "backup"],
                   help="start again keeps every setting of the class's last start that is not given anew")
    s.add_argument("--roster", default=None, help="class roster CSV, columns username,role (instructor or student); "
                                                  "needed the first time, and to add people later")
    s.add_argument("--class-dir", default=None, help="where the class keeps its state (default /srv/pytorch-course)")
    s.add_argument("--course", default=None, help="the course directory the formgrader runs in (default: the class's "
                                                  "own once started, else this one)")
    s.add_argument("--ip", default=None, help="address the hub listens on (default 127.0.0.1; put a "
                                             "TLS proxy in front before opening it to a network)")
    s.add_argument("--port", type=int, default=None, help="port of the hub (default 8000)")
    s.add_argument("--proxy-api-port", type=int, default=None, help="the proxy's API port (default: the hub's port + 1)")
    s.add_argument("--hub-api-port", type=int, default=None, help="the hub's API port (default: the hub's port + 2)")
    s.add_argument("--service-port", type=int, default=None,
                   help="the formgrader service's port behind the hub (default: the hub's port + 3)")
    s.add_argument("--mem-limit", default=None, help="memory per person's server, its kernels included (default 4G)")
    s.add_argument("--max-processes", type=int, default=None, help="processes per person's server (default 256)")
    s.add_argument("--cull-idle", type=int, default=None, help="seconds before an idle server is stopped (default 3600)")
    s.add_argument("--spawner", choices=["local", "slurm"], default=None,
                   help="run people's servers on this machine, or as Slurm jobs (batchspawner; see docs/cluster.md)")
    s.add_argument("--partition", default=None, help="Slurm partition for people's servers")
    s.add_argument("--gpus", type=int, default=None, help="GPUs per person's server on Slurm (gres gpu:N; default 0)")
    s.add_argument("--wait", type=int, default=90, help="seconds to wait for the hub to answer")
    return p


def _keep_class_course_private() -> None:
    """On a class server's course, this command writes with umask 077 and first closes whatever of the course's
    grading state another command left open, saying so (:mod:`autograder.values.private`)."""
    from autograder.values import course, private

    try:
        root = course.find_root()
    except course.CourseNotFound:  # not in a course: the command itself says so, where it needs one
        return
    for line in private.keep_closed(root):
        print(line)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from autograder.adapters.generate import tool_env

    # nbgrader's gradebook runs `alembic` from PATH: make this interpreter's tools findable
    os.environ["PATH"] = tool_env()["PATH"]
    args = build_parser().parse_args(argv)
    from autograder.values.errors import UserError

    try:
        if args.command != "hub":  # hub start closes the course itself, before it marks it a class's
            _keep_class_course_private()
        return importlib.import_module(f"autograder.commands.{args.command}").run(args)
    except UserError as exc:
        print(f"autograder {args.command}: {exc}", file=sys.stderr)
        return exc.code
