"""Step 5 (and 6): run the notebook in a fresh sandboxed kernel, in ``record`` mode
(:func:`autograder.grading.execute.execute`), in a working folder of its own that holds the submission's
support files and those the release lists.

``mode="short"`` runs the planned short run, if any; ``mode="full"`` runs the whole notebook unless a
judged short run was accepted (its time adds to the short run's)."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum

from autograder.grading.execute import execute, work_folder
from autograder.grading.references import compile_cache_env, seed_compile_cache
from autograder.grading.submission import copy_support_files
from autograder.values import support, timing


class ExecuteInSandbox(NbGraderPreprocessor):
    mode = Enum(["short", "full"], default_value="full", help="Which run: the planned short run, or the full "
                                                             "notebook where no short run counted.").tag(config=True)

    def preprocess(self, nb, resources):
        run = resources["grading"]
        if self.mode == "short":
            if run.short is None:
                return nb, resources
            todo = run.short
        else:
            if run.accepted:
                return nb, resources
            todo = run.merged
            if run.mode == "short":
                run.short_seconds = run.executed.seconds
        data = run.data
        with work_folder(run.sandbox, "grade-") as work:
            with timing.phase("grader: copy support files"):
                copy_support_files(run.student_path.parent, work)
                support.copy_listed(data.support_dir, data.support_files, work)  # what the release ships
            env = {"AUTOGRADER_MODE": "record"}
            if run.sandbox is not None:
                seed_compile_cache(work, run.compile_cache)
                env.update(compile_cache_env(work))
            with timing.phase("execute (kernel run, total)"):
                run.executed = execute(todo, work, env=env, limits=run.limits, sandbox=run.sandbox)
        run.executed.seconds += run.short_seconds
        run.mode, run.judged = self.mode, False
        return run.executed.nb, resources
