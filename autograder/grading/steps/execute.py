"""Steps 5 and 7: run the notebook in a fresh sandboxed kernel, in ``record`` mode
(:func:`autograder.grading.execute.execute`), in a working folder of its own that holds the submission's
support files and those the release lists (:func:`autograder.grading.workfolder.prepared`, as the reference's
run makes it).

``mode="path"`` runs what grading runs (step 4's notebook: its grade path, with hidden tests); ``mode="full"``
runs the whole notebook top to bottom beside it, for ``--full``'s diagnostic only, where there is a path."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum

from autograder.grading.execute import execute
from autograder.grading.workfolder import prepared
from autograder.values import timing


class ExecuteInSandbox(NbGraderPreprocessor):
    mode = Enum(["path", "full"], default_value="path",
                help="Which run: the grade's own (its path), or the notebook top to bottom for --full's "
                     "diagnostic.").tag(config=True)

    def preprocess(self, nb, resources):
        run = resources["grading"]
        if self.mode == "full" and not (run.full and run.path is not None):
            return nb, resources
        data = run.data
        with prepared(data, run.sandbox, "grade-", run.compile_cache, run.student_path.parent) as (work, env):
            with timing.phase("execute (kernel run, total)"):
                done = execute(run.todo if self.mode == "path" else run.merged, work, env=env, limits=run.limits,
                               sandbox=run.sandbox)
        if self.mode == "path":
            run.executed = done
        else:
            run.top_to_bottom = done
        return done.nb, resources
