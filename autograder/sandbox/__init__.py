"""Where a learner's kernel runs: a bubblewrap sandbox as a fresh unprivileged user.

:mod:`.launch` starts a kernel in it (:class:`~autograder.sandbox.launch.Sandbox`); :mod:`.bwrap` spells
bubblewrap's arguments; :mod:`.uids` hands out the user ids; :mod:`.zygote` (inside the sandbox) and
:mod:`.zygote_client` (outside) fork kernels from one warm sandbox; :mod:`.kernel_client` is the grader's
client of a kernel, with its limits on what a kernel may send back.  ``docs/security.md`` states what
the sandbox guarantees, each with its test.

This ``__init__`` imports nothing, so that the zygote (``python -m autograder.sandbox.zygote``, the
process every kernel is forked from) loads no grader code.

May import: :mod:`autograder.values`.
"""

MAY_IMPORT: tuple[str, ...] = ('values',)
