"""The grading core: merge a submission with the instructor's cells, execute its grade path in the sandbox,
judge the observations, score, and limit the outputs; and how those jobs are scheduled.

:mod:`.pipeline` grades one notebook (:func:`~autograder.grading.pipeline.grade_notebook`):
:mod:`.submission` reads and merges, :mod:`.execute` runs, :mod:`.scoring` judges and scores, against
the reference of :mod:`.references` for the course notebooks of :mod:`.coursedata`.  :mod:`.jobs` says
what decides a result, :mod:`.store` keeps results, :mod:`.seeds` the term's seeds; :mod:`.workers` and
:mod:`.slurm` run jobs in local processes or on a cluster.

May import: :mod:`autograder.values`, :mod:`autograder.probe`, :mod:`autograder.sandbox` and
:mod:`autograder.gradepath`.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'gradepath')
