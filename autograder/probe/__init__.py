"""The kernel side: everything of this package that a learner's kernel imports, and nothing else.

This module holds the hidden tests' side; beside it are how they record a value (:mod:`.encoding`), what a
kernel imports first
(:mod:`.kernelinit`), the fingerprints of a kernel's state for the grade path's proof (:mod:`.statedigest`),
CUDA's device rules for CPU runners (:mod:`.devicerules`) and, in local mode only, the reference
rebuilt in the kernel (:mod:`.local_reference`).  Code here imports nothing of the grader: only
:mod:`autograder.values` (the wire's spellings, and in local mode the course's conventions and the
judge), so what a learner's code can reach in its own process is this zone and that one
(``tests/unit/test_architecture.py`` checks both, in a real kernel too).

One module of about 430 lines: the hidden tests' whole API (:func:`hidden_test`, :class:`Observations`, the
seeds and the generators they hold), which every test cell imports by this one name.

May import: :mod:`autograder.values`.

A hidden test never decides a grade by itself.  It *observes* the learner's code
on inputs drawn from a seed and records named observations as plain data:

    ### BEGIN HIDDEN TESTS
    from autograder.probe import hidden_test

    @hidden_test("ex1_1")
    def _(obs):
        g = obs.generator()
        x = torch.randn(5, 3, generator=g, dtype=torch.float64)
        obs.value("dist", pairwise_distances(x, x), rtol=1e-6, atol=1e-9,
                  hint="broadcasting: (n,1,d) - (1,m,d)")
    ### END HIDDEN TESTS

The same test body runs once against the reference solution, with the same seed,
and the two sets of observations are compared with the stated tolerances.

Modes (environment variable ``AUTOGRADER_MODE``):

``record``
    Used by ``autograder grade`` and ``autograder check --hidden``.  Observations
    are emitted as a display output of MIME type :data:`MIME`; the trusted grader
    process (outside this kernel) compares them with the reference observations.
    Expected values never enter this process.
``local`` (default)
    Used when a notebook runs anywhere else: stock ``nbgrader autograde``, an
    instructor running ``solutions/`` in JupyterLab.  The reference is rebuilt in
    this process from the solution cells of ``solutions/`` and the comparison
    happens here, raising ``AssertionError`` on a mismatch.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
import random
import traceback
import types
from typing import Any, Callable

from autograder.probe.encoding import encode
from autograder.values.wire import MIME, call

MAY_IMPORT: tuple[str, ...] = ("values",)

DEFAULT_SEED = 20261129
FLOAT_RTOL = 1e-5  # float32 carries ~7 significant digits; 1e-5 leaves room for reordered sums
FLOAT_ATOL = 1e-6


def grading_seed() -> int:
    return int(os.environ.get("AUTOGRADER_SEED", DEFAULT_SEED))


def mode() -> str:
    return os.environ.get("AUTOGRADER_MODE", "local")


def derive_seed(seed: int, *parts: str) -> int:
    h = hashlib.sha256(("%d/" % seed + "/".join(parts)).encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


# ---------------------------------------------------------------- observations


_ARMED: list[tuple[str, int]] = []


def arm(exercise: str, seed: int) -> None:
    """Give the next hidden test of ``exercise`` its seed (already derived for that exercise).

    The grader writes this call into each hidden-test block of the notebook it runs, instead of
    putting the grading seed in the kernel's environment: code that runs before a hidden test
    has nothing from which to work out its inputs, and one exercise's seed says nothing of
    another's (:func:`derive_seed` is a hash)."""
    _ARMED[:] = [(str(exercise), int(seed))]


def arm_line(exercise: str, seed: int) -> str:
    return call("autograder.probe.arm", exercise, int(seed)) + "\n"


def _exercise_seed(exercise: str, seed: int | None) -> int:
    if seed is not None:
        return derive_seed(seed, exercise)
    if _ARMED and _ARMED[0][0] == exercise:
        return _ARMED.pop()[1]
    return derive_seed(grading_seed(), exercise)


class Observations:
    """What a hidden test sees of the code under test; handed to the test body."""

    def __init__(self, exercise: str, seed: int):
        self.exercise = exercise
        self.seed = seed  # this exercise's own seed (see _exercise_seed)
        self.items: list[dict] = []

    @property
    def device(self) -> str:
        """'cuda' when the grading runner has a GPU, else 'cpu'."""
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def generator(self, name: str = "") -> "Any":
        """A CPU ``torch.Generator`` seeded from the grading seed (draw on the CPU, then ``.to(obs.device)``)."""
        import torch

        g = torch.Generator()
        g.manual_seed(derive_seed(self.seed, "gen", name))
        return g

    def value(self, name: str, value: Any, *, rtol: float | None = None, atol: float | None = None,
              check_dtype: bool = True, hint: str | None = None) -> None:
        """Record one named observation.

        Floating values are compared with ``rtol``/``atol`` (defaults
        FLOAT_RTOL/FLOAT_ATOL); everything else must match exactly.
        ``hint`` names the concept a mismatch points to; learners see it.
        """
        spec = {"rtol": FLOAT_RTOL if rtol is None else float(rtol),
                "atol": FLOAT_ATOL if atol is None else float(atol),
                "check_dtype": bool(check_dtype)}
        if hint:
            spec["hint"] = str(hint)
        self.items.append({"name": str(name), "value": encode(value), "spec": spec})

    def on_meta(self, name: str, fn: Callable, *args: Any, hint: str | None = None, keep: tuple = (),
                **kwargs: Any) -> str:
        """Call ``fn`` with every tensor (and module) argument moved to the ``meta`` device and record
        whether the tensors it returns stay there: a CPU runner's second device.

        A tensor made without ``device=`` inside ``fn`` lands on the CPU, so it is returned on the
        wrong device or mixed with a meta tensor, which is refused ("Expected all tensors to be on
        the same device") exactly as CUDA would refuse it: while ``fn`` runs, CUDA's own device
        rules apply (:mod:`autograder.probe.devicerules`), so a CPU index in ``gather``, a CPU target in
        ``cross_entropy`` or a CPU mask in ``masked_fill`` is caught too, where meta alone takes
        them; a 0-dim CPU scalar and CPU indices in ``x[idx]`` pass, as on CUDA.
        ``keep`` lists the arguments left where they are, positional indexes (into ``args``) or
        keyword names: ``obs.on_meta("device", loss_fn, model, x, y, keep=(2,))`` leaves the target
        ``y`` on the CPU, so an answer must move it to the model's device itself, as it must with a
        model on a GPU and a batch from a ``DataLoader``.
        An operation that needs the data (``.item()``, ``nonzero``, an ``if`` on a tensor) cannot
        run on meta: that is inconclusive, recorded like a pass, so a correct answer written that
        way is never failed here.
        The observation is ``"device ok"`` or ``"device bug"``; it is returned too.
        """
        verdict = device_verdict(fn, *args, keep=keep, **kwargs)
        self.value(name, verdict, hint=hint or "a tensor made inside the function must be on the device of "
                                              "its inputs (pass device=x.device)")
        return verdict

    @property
    def trusted(self) -> types.ModuleType:
        """:mod:`autograder.probe.trusted`: what to read the learner's process with (a tensor's dtype, whether
        gradients are on, a module's mode, what ``torch.load(weights_only=True)`` makes of a file), with
        functions taken before any learner code ran."""
        from autograder.probe import trusted

        return trusted

    def standing_in(self, space: dict, name: str, replacement: Callable):
        """:func:`standing_in`: while the block runs, the function ``space[name]`` runs ``replacement``'s code."""
        return standing_in(space, name, replacement)

    def payload(self, error: str | None, error_at: list[list[int]] | None = None) -> dict:
        return {"exercise": self.exercise, "observations": self.items, "error": error, "error_at": error_at}


_DEVICE_ERRORS = ("expected device", "same device", "two devices", "is on device", "device type",
                  "on a different device", "different devices",
                  "device, but got tensor with")  # ATen's checkSameDevice/checkDeviceType (take_along_dim)


def _to_meta(value: Any, _depth: int = 0) -> Any:
    import copy

    import torch

    if _depth > 10:
        return value
    if isinstance(value, torch.Tensor):
        out = torch.empty_like(value, device="meta")
        return out.requires_grad_(value.requires_grad) if out.is_floating_point() else out
    if isinstance(value, torch.nn.Module):
        return copy.deepcopy(value).to("meta")
    if type(value) in (list, tuple):
        return type(value)(_to_meta(v, _depth + 1) for v in value)
    if type(value) is dict:
        return {k: _to_meta(v, _depth + 1) for k, v in value.items()}
    return value


def _devices(value: Any, _depth: int = 0) -> set[str]:
    import torch

    if _depth > 10:
        return set()
    if isinstance(value, torch.Tensor):
        return {torch.Tensor.device.__get__(value).type}
    if isinstance(value, (list, tuple)):
        return set().union(*[_devices(v, _depth + 1) for v in value]) if value else set()
    if isinstance(value, dict):
        return set().union(*[_devices(v, _depth + 1) for v in value.values()]) if value else set()
    return set()


def device_verdict(fn: Callable, *args: Any, keep: tuple = (), **kwargs: Any) -> str:
    """``"device ok"`` when ``fn`` on meta inputs returns only meta tensors (or cannot run on meta for
    want of data), ``"device bug"`` when it returns a tensor elsewhere or mixes devices where CUDA
    would refuse the mix (:mod:`autograder.probe.devicerules`).  The arguments ``keep`` names (positional
    indexes, keyword names) stay where they are."""
    from autograder.probe.devicerules import CudaDeviceRules

    keep = tuple(keep)
    args = tuple(a if i in keep else _to_meta(a) for i, a in enumerate(args))
    kwargs = {k: v if k in keep else _to_meta(v) for k, v in kwargs.items()}

    def call():
        with CudaDeviceRules():
            return fn(*args, **kwargs)
    return verdict_of(call, "meta")


def verdict_of(call: Callable[[], Any], device_type: str) -> str:
    """``"device bug"`` when ``call()`` fails with a device error or returns a tensor on another device
    than ``device_type``; ``"device ok"`` otherwise (a failure for another reason, such as an operation
    that needs the data on meta, is inconclusive: never a device bug)."""
    try:
        out = call()
    except Exception as exc:  # noqa: BLE001 - the message says which kind of failure it is
        text = str(exc).lower()
        return "device bug" if "device" in text and any(k in text for k in _DEVICE_ERRORS) else "device ok"
    return "device ok" if _devices(out) <= {device_type} else "device bug"


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % (2**32))
    except ImportError:  # pragma: no cover
        pass
    import torch

    torch.manual_seed(seed)


def _describe_error(exc: BaseException) -> str:
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return text[:500]


def _cell_frames(exc: BaseException) -> list[list[int]]:
    """The frames of ``exc`` that run notebook cells, outermost first (the innermost 50): [the cell's execution
    count, the line] each, as IPython names them in a traceback ("Cell In[9], line 4"); none outside IPython.
    The grader reads only these numbers, to say which cell raised (the learner's answer) and at which line."""
    try:
        from IPython import get_ipython

        counts = getattr(getattr(get_ipython(), "compile", None), "_filename_map", None) or {}
    except ImportError:  # pragma: no cover - the kernel always has IPython
        return []
    found = []
    for frame, line in traceback.walk_tb(exc.__traceback__):
        count = counts.get(frame.f_code.co_filename)
        if isinstance(count, int) and isinstance(line, int):
            found.append([count, line])
    return found[-50:]


def observe(exercise: str, fn: Callable[[Observations], Any], seed: int | None = None,
            exercise_seed: int | None = None) -> dict:
    """Run a hidden test body once and return its payload (plain data).

    Its seed: ``exercise_seed`` as given, else derived from ``seed``, else the armed one, else
    derived from the grading seed of the environment."""
    obs = Observations(exercise, exercise_seed if exercise_seed is not None else _exercise_seed(exercise, seed))
    saved = _generator_states()
    _seed_everything(obs.seed)
    error, error_at = None, []
    try:
        fn(obs)
    except Exception as exc:  # the learner's code raised: that is an observation too
        error, error_at = _describe_error(exc), _cell_frames(exc)
    finally:
        # the notebook's random stream goes on as if the hidden test had not run: what the learner's
        # code drew inside it (more, fewer, none) does not shift the numbers any later cell draws
        _restore_generators(saved)
    return obs.payload(error, error_at)


_HELD: list[dict] = []


def hold_generators() -> str:
    """Remember the global generators' states (the grader calls this just before a test cell)."""
    _HELD[:] = [_generator_states()]
    return "ok"


def release_generators() -> str:
    """Put the generators back as :func:`hold_generators` found them (just after a test cell).

    A test cell thus leaves the notebook's random stream as it found it: what it draws, or does
    not draw because an assert stopped it early (a released stub), or reseeds, never moves the
    numbers a later cell draws.  The reference runs the same way, so what it observes stays
    comparable."""
    if _HELD:
        _restore_generators(_HELD.pop())
    return "ok"


def _generator_states() -> dict:
    import torch

    states = {"random": random.getstate(), "torch": torch.get_rng_state()}
    try:
        import numpy as np

        states["numpy"] = np.random.get_state()
    except ImportError:  # pragma: no cover
        pass
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def _restore_generators(states: dict) -> None:
    import torch

    random.setstate(states["random"])
    torch.set_rng_state(states["torch"])
    if "numpy" in states:
        import numpy as np

        np.random.set_state(states["numpy"])
    if "cuda" in states:
        torch.cuda.set_rng_state_all(states["cuda"])


def hidden_test(exercise: str):
    """Decorator that runs a hidden test body at once, in the current mode."""

    def deco(fn):
        if mode() == "record":
            from IPython.display import display

            display({MIME: observe(exercise, fn)}, raw=True)
        else:
            _local_verdict(exercise, fn)
        return None

    return deco


# ---------------------------------------------------------------- stand-ins


@contextlib.contextmanager
def standing_in(space: dict, name: str, replacement: Callable):
    """While the block runs, calling the function ``space[name]`` runs ``replacement``'s code instead, so that a
    part of a script is tested on its own, with a plain step in the place of the learner's.

    The stand-in is the learner's function itself: the same object (an alias the learner's code kept finds it
    too), with its own name, qualified name, documentation, defaults, module, file and first line; only the
    code it runs is ``replacement``'s, its parameters renamed to the function's.  So the learner's code cannot
    tell it from the script's own step by what it can see of the object, as it could a function of another
    name.  ``replacement`` reads any state from its globals, which are the function's.  Where ``space[name]``
    is not a plain function of the same number of parameters (a callable object, a closure), ``name`` is bound
    to ``replacement`` for the block instead."""
    function = space[name]
    code = getattr(function, "__code__", None)
    new = replacement.__code__
    starred = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
    if (isinstance(function, types.FunctionType) and function.__closure__ is None and not new.co_freevars
            and code.co_argcount == new.co_argcount and code.co_kwonlyargcount == new.co_kwonlyargcount
            and not (code.co_flags | new.co_flags) & starred):
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount] + \
            new.co_varnames[new.co_argcount + new.co_kwonlyargcount:]
        if len(set(names)) == len(names):
            function.__code__ = new.replace(co_name=code.co_name, co_qualname=code.co_qualname,
                                            co_filename=code.co_filename, co_firstlineno=code.co_firstlineno,
                                            co_varnames=names)
            try:
                yield
            finally:
                function.__code__ = code
            return
    space[name] = replacement
    try:
        yield
    finally:
        space[name] = function


# ---------------------------------------------------------------- local mode


def _local_verdict(exercise: str, fn: Callable) -> None:
    from autograder.probe.local_reference import reference_namespace
    from autograder.values import comparison

    seed = _exercise_seed(exercise, None)
    student = observe(exercise, fn, exercise_seed=seed)
    with reference_namespace(exercise, fn.__globals__) as ref_globals:
        ref_fn = types.FunctionType(fn.__code__, ref_globals, fn.__name__, fn.__defaults__, fn.__closure__)
        reference = observe(exercise, ref_fn, exercise_seed=seed)
    verdict = comparison.judge(reference, student)
    if not verdict.passed:
        raise AssertionError(verdict.message())
