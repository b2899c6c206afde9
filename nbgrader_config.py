"""This repository is an nbgrader course directory.

``solutions/`` is nbgrader's source directory (instructor notebooks with solution
regions and hidden tests); ``notebooks/`` is its release directory (what learners
open).  Stock nbgrader commands run from this folder work as documented.
"""
import os

c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# On a class server the course is the instructor's alone: nbgrader's own commands, and the formgrader's buttons,
# write into it with umask 077 (autograder.values.private).
from autograder.values.private import guard  # noqa: E402

guard(c.CourseDirectory.root)
c.CourseDirectory.course_id = "pytorch-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
# Only the files a notebook lists in metadata.autograder.support_files ship beside it (a jupytext
# copy or an editor's backup in solutions/ holds the answers): every other file of an assignment
# folder is ignored, as the folders are now, and so are editors' leftovers whenever they appear.
from autograder.values.support import nbgrader_ignores  # noqa: E402

c.CourseDirectory.ignore = nbgrader_ignores(c.CourseDirectory.root, "solutions", "notebooks")

# The stub every answer cell gets in the student version.
from autograder.values.learner_view import CODE_STUB  # noqa: E402

c.ClearSolutions.code_stub = {"python": CODE_STUB}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Notebooks train small models: give each cell time, and route Python warnings
# (PyTorch emits many) to stdout so that a harmless warning does not zero a
# test cell.  A real failure still raises, and an error output scores 0.
c.Execute.timeout = 300
# Every kernel imports autograder.probe.kernelinit first (autograder.values.wire says how kernels start).
from autograder.values.wire import KERNEL_ARGS  # noqa: E402

c.Execute.extra_arguments = list(KERNEL_ARGS)
# nbgrader's Validate says in one line that an exercise is not attempted yet, where its stub raised
# (autograder.adapters.validate), instead of the stub's whole traceback.
from autograder.adapters.validate import HOOKS  # noqa: E402

for _hook, _call in HOOKS.items():
    setattr(c.Execute, _hook, _call)

# nbgrader's own commands and the formgrader's buttons do what `autograder feedback` and
# `autograder export` do: feedback that never shows hidden tests, and the same CSV.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from autograder.adapters.export import GradesExport  # noqa: E402
from autograder.adapters.feedback import LearnerFeedback  # noqa: E402

# nbgrader clears a student's feedback folder before writing it: a page a person put there is kept aside first, as
# `autograder feedback` keeps one, and what it writes is recorded as the course's (autograder.adapters.converters)
from autograder.adapters.converters import KeepPeoplesPages  # noqa: E402

c.GenerateFeedback.preprocessors = [GetGrades, LearnerFeedback, CSSHTMLHeaderPreprocessor, KeepPeoplesPages]

# Due dates (UTC) and the late policy, applied by `autograder grade` and by nbgrader's own autograde:
# e.g. c.LatePolicy.due_dates = {"01_tensors": "2026-12-07 23:59:00 UTC"}; with
# percent_per_day = 10 and max_days = 5, a notebook 2 days late keeps 80% of its score, 6 days late 0.
from autograder.adapters.late import LatePolicy  # noqa: E402

c.LatePolicy.due_dates = {}
# A student's extension, in hours added to that student's due date: e.g. {"01_tensors": {"alice": 48}}.
c.LatePolicy.extensions = {}
c.LatePolicy.percent_per_day = 10.0
c.LatePolicy.max_days = 5.0
c.AssignLatePenalties.plugin_class = LatePolicy
c.ExportApp.plugin_class = GradesExport

# `nbgrader autograde` and the formgrader's Autograde button grade in the sandbox, through
# `autograder grade` in their own process (autograder.adapters.autograde), instead of running the
# learner's code in a plain kernel; `--GradeInSandbox.trusted_input=True` runs nbgrader's own steps.
from autograder.adapters.autograde import autograde_steps  # noqa: E402

c.Autograde.autograde_preprocessors = autograde_steps()

# Grading in the sandbox, the notebook goes on to GradeInSandbox as nbgrader read it: the grade's own steps
# restore the instructor's cells, by one rule.  With trusted_input, nbgrader's sanitize steps run, restoring
# the hidden tests without warning that an honest submission changed the cell (autograder.adapters.hiddentests).
from autograder.adapters.hiddentests import sanitize_steps  # noqa: E402

c.Autograde.sanitize_preprocessors = sanitize_steps()

# Per-student variants (autograder.values.variants) through nbgrader's exchange: `nbgrader release_assignment`
# writes each student's copy beside the release, and `nbgrader fetch_assignment` hands each student their own.
# Learners need the fetch setting in their own nbgrader_config.py too (the class server writes it for them).
c.ExchangeFactory.release_assignment = "autograder.adapters.exchange.VariantRelease"
c.ExchangeFactory.fetch_assignment = "autograder.adapters.exchange.VariantFetch"
# `nbgrader collect` takes from the exchange only what each student wrote themselves (no folder in another's name,
# no link), as it was read when it was checked, judged by when its files were written, not by the time it claims
# (autograder.adapters.exchange_collect).
c.ExchangeFactory.collect = "autograder.adapters.exchange_collect.CheckedCollect"
# Each submission folder is its student's alone, each feedback page is released to its student alone, and a
# student's fetch and submit refuse course folders another account put in place (autograder.adapters.exchange).
c.ExchangeFactory.submit = "autograder.adapters.exchange.CheckedSubmit"
c.ExchangeFactory.release_feedback = "autograder.adapters.exchange.CheckedReleaseFeedback"
# An answer cell with planted bugs (the debugging exam) is handed out with its bug, not the stub; and what a learner
# changed in notebooks/ is kept there, as `autograder release` keeps it, when the formgrader's Generate (nbgrader's
# generate_assignment, which clears the folder) writes the release again (autograder.adapters.converters).
from autograder.adapters.converters import KeepLearnersWork  # noqa: E402
from autograder.values.learner_view import generate_steps  # noqa: E402

c.GenerateAssignment.preprocessors = generate_steps() + [KeepLearnersWork]
