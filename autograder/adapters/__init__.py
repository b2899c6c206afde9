"""The outside tools' formats and rails: nbgrader and the LMS.

nbgrader's code makes the release (:mod:`.generate`; a learner's work in the release folder is kept whoever
writes it, :mod:`.release_folder`, nbgrader's own writers through the course's steps, :mod:`.converters`), holds the grades (:mod:`.gradebook`, the one writer
of scores and late penalties), restores the hidden tests it recorded
(:mod:`.hiddentests`), applies the late policy (:mod:`.late`, from the submission times of
:mod:`.times`), hands each student their own variant, submission and feedback through its exchange
(:mod:`.exchange`, whose folders are the instructor's on a machine shared with students:
:mod:`.exchange_folders`) and collects from it only what each student wrote, as it was read, when it was
written (:mod:`.exchange_collect`), and has its Validate say in one line that an exercise is not attempted
yet (:mod:`.validate`); submissions and rosters come from the LMS (its downloads: :mod:`.lms`; its rosters:
:mod:`.lms_roster`).

They sit on top of the grading core.  A batch of submissions is graded into the gradebook by one library
call (:mod:`.batch`: where each submission is, :mod:`.submitted`; the one writer, :mod:`.recorder`), which
the ``grade`` command and nbgrader's own ``autograde`` both make (:mod:`.autograde`).

May import: :mod:`autograder.values`, :mod:`autograder.probe`, :mod:`autograder.sandbox`,
:mod:`autograder.gradepath` and :mod:`autograder.grading`.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'gradepath', 'grading')
