"""The class server: JupyterHub on one machine, with nbgrader's exchange, the formgrader as a hub service
that only the course's instructors can open, and the sandboxed grader behind it.

:mod:`.class_roster` reads the class roster and makes each person's account; :mod:`.layout` is where a class
keeps its state (the hub's database, the exchange, the configuration every server of the class reads)
and the description of the class that ``autograder hub start`` hands the hub; :mod:`.spawner` starts
each person's server with the limits a shared machine needs, in control groups (:mod:`.groups`) from which
:mod:`.processes` ends what a hub or a server killed mid-run left; :mod:`.config` is the hub's configuration,
made from that description.  Nothing here grades: the formgrader's *Autograde* runs the grader
(:mod:`autograder.adapters.autograde`) in the course directory.

May import: :mod:`autograder.values`.
"""

MAY_IMPORT: tuple[str, ...] = ("values",)
