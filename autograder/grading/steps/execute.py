"""Steps 5 and 7: run the notebook in a fresh sandboxed kernel, in ``record`` mode
(:func:`autograder.grading.execute.execute`), in a working folder of its own that holds the submission's
support files and those the release lists.

``mode="path"`` runs what grading runs (step 4's notebook: its grade path, with hidden tests); ``mode="full"``
runs the whole notebook top to bottom beside it, for ``--full``'s diagnostic only, where there is a path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum

from autograder.grading.execute import execute, work_folder
from autograder.grading.references import compile_cache_env, seed_compile_cache
from autograder.values import support, timing


class ExecuteInSandbox(NbGraderPreprocessor):
    mode = Enum(["path", "full"], default_value="path",
                help="Which run: the grade's own (its path), or the notebook top to bottom for --full's "
                     "diagnostic.").tag(config=True)

    def preprocess(self, nb, resources):
        run = resources["grading"]
        if self.mode == "full" and not (run.full and run.path is not None):
            return nb, resources
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
                done = execute(run.todo if self.mode == "path" else run.merged, work, env=env, limits=run.limits,
                               sandbox=run.sandbox)
        if self.mode == "path":
            run.executed = done
        else:
            run.top_to_bottom = done
        return done.nb, resources


MAX_SUPPORT_FILE = 50 * 1024 * 1024


def copy_support_files(src: Path, dest: Path) -> None:
    """Copy the regular non-notebook files of ``src`` (no links, nothing huge) into ``dest``."""
    if not src.is_dir():
        return
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "feedback")]
        for f in files:
            p = Path(root) / f
            if p.suffix == ".ipynb" or p.is_symlink() or not p.is_file() or p.stat().st_size > MAX_SUPPORT_FILE:
                continue
            target = dest / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
