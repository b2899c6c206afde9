"""The values the zones pass each other, and the rules on them that every zone shares.

Records of results (:mod:`.records`), the wire between grader and kernel (:mod:`.wire`), the course's cell
and folder conventions (:mod:`.course`, :mod:`.support`), what a learner sees of a notebook
(:mod:`.learner_view`) and each student's variant of it (:mod:`.variants`), what may be shown of an
output (:mod:`.outputs`), how a hidden test's observations are compared (:mod:`.comparison`, whose words
are :mod:`.messages`), the committed form of a
notebook (:mod:`.nbfmt`), the one content digest (:mod:`.digest`), the one way a file is written
(:mod:`.files`), the one way a folder another account controls is read (:mod:`.fdcopy`), what of a course
no student may read (:mod:`.private`), the one way a user's mistake is reported (:mod:`.errors`) and where time goes
(:mod:`.timing`).  Nothing here runs a kernel, reads the gradebook or writes a grade.

May import: no other zone (the kernel side imports this zone).
"""

MAY_IMPORT: tuple[str, ...] = ()
