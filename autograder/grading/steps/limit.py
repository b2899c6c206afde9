"""Step 7: what leaves is stored and shown, so the executed notebook is cleaned
(:func:`autograder.values.outputs.clean_notebook`): it always serialises, carries no active content and
stays within the notebook's output limit."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.values import outputs


class LimitOutputs(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        return outputs.clean_notebook(run.graded.executed.nb, run.limits.max_notebook_output_kb * 1024), resources
