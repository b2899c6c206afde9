"""Grading and checking for the PyTorch course notebooks.

The package's folders are its zones; each one's ``__init__`` says what it is for and what it may import
(``tests/unit/test_architecture.py`` holds every module to that):

* :mod:`autograder.values`: what the zones pass each other (records, the wire between grader and kernel,
  the course's cell and folder conventions) and the rules on them; imports no other zone.
* :mod:`autograder.probe`: the kernel side, everything a learner's kernel imports of the package.
* :mod:`autograder.sandbox`: where a kernel runs (user ids, bubblewrap, the zygote, the kernel client).
* :mod:`autograder.gradepath`: the grade path, the cells a grade runs (read from their sources).
* :mod:`autograder.grading`: the grading core (merge, execute, judge, score) and how its jobs are scheduled.
* :mod:`autograder.adapters`: nbgrader (generate, gradebook, late penalties) and LMS rosters.
* :mod:`autograder.hub`: the class server (JupyterHub's configuration, accounts, limits); it grades nothing.
* :mod:`autograder.commands`: one module per command of ``python -m autograder`` (:mod:`autograder.cli`).
"""

import os

__version__ = "0.1.0"
# the folder of this package: the copy that kernels import, that sandboxes bind and that packs ship
PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
