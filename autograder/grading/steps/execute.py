"""Step 5: each planned run (step 4) in a fresh sandboxed kernel, in ``record`` mode
(:func:`autograder.grading.execute.execute`), in a working folder of its own that holds the submission's
support files and those the release lists (:func:`autograder.grading.workfolder.prepared`), with a private copy
of the reference's compile cache.  The reference's own run keeps the compile cache it makes, for the graded
runs (``run.keep_compile_cache``).  The notebook passed on is the grade's run, executed."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.execute import execute
from autograder.grading.workfolder import keep_compile_cache, prepared
from autograder.values import timing


class ExecuteInSandbox(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        folder = run.student_path.parent if run.student_path is not None else None
        prefix = "grade-" if run.student_path is not None else "reference-"
        for planned in run.runs:
            with prepared(run.data, run.sandbox, prefix, run.compile_cache, folder) as (work, env):
                with timing.phase("execute (kernel run, total)"):
                    planned.executed = execute(planned.nb, work, env=env, limits=run.limits, sandbox=run.sandbox)
                if run.keep_compile_cache is not None and not planned.executed.error:
                    keep_compile_cache(work, run.keep_compile_cache)
        return run.graded.executed.nb, resources
