"""The grading core: merge a submission with the instructor's cells, execute its grade path in the sandbox,
judge the observations, score, and limit the outputs; and how those jobs are scheduled.

:mod:`.pipeline` grades one notebook (:func:`~autograder.grading.pipeline.grade_notebook`) through the
steps of :mod:`.steps`, each of which holds its logic (read, restore, arm, plan the runs, execute in the
sandbox with :mod:`.execute`, in a folder :mod:`.workfolder` makes, judge and score), against the reference that
:mod:`.references` runs through the same steps, for the
course notebooks of :mod:`.coursedata`.  :mod:`.jobs`
says what decides a result, :mod:`.store` keeps results, :mod:`.seeds` the term's seeds; a
:class:`~autograder.grading.backend.Backend` (:mod:`.workers`, :mod:`.slurm`) runs jobs in local
processes or on a cluster.

May import: :mod:`autograder.values`, :mod:`autograder.probe`, :mod:`autograder.sandbox` and
:mod:`autograder.gradepath`.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'gradepath')
