"""What a hidden test reads of the learner's process, with functions taken before any learner code runs.

A hidden test runs in the learner's kernel, after the learner's code, and that code may have replaced any
function a test could call: a ``torch.equal`` that always agrees, a ``torch.is_grad_enabled`` that says no, a
``torch.load`` that takes any file, a ``Tensor.tolist`` that returns old numbers, a torch-function or
dispatch mode left running that rewrites an operator.  No verdict may rest on any of them.  So a comparison
that decides a verdict is made in the grader, on recorded values (:mod:`autograder.values.comparison`), and what
the kernel must still read itself (a tensor's numbers, to record them; whether gradients are on; a module's
mode; what ``torch.load(path, weights_only=True)`` makes of a file) is read here:

* with objects taken when this module is first imported, which is at kernel start
  (:mod:`autograder.probe.kernelinit`), before any cell: torch's C types are immutable
  (``torch._C.TensorBase.tolist`` stays what it is whatever is done to ``torch.Tensor``), and a builtin
  taken here (``torch.is_grad_enabled``, ``object.__getattribute__``, ``os.posix_spawn``) is an object no
  assignment to a module changes;
* inside :func:`plain`, which sets aside the torch-function and dispatch modes on torch's stacks and
  ``__torch_function__`` while a value is read, and puts them back after;
* or in a new Python process (:func:`load_in_fresh_python`: isolated mode, a clean environment), which
  nothing the learner's process patched reaches.

What this does not stop: code that rewrites this module's names, the probe's records or the kernel's messages
forges observations instead of gaming them; ``docs/security.md`` says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

import torch

_SHAPE = torch._C.TensorBase.shape.__get__
_DTYPE = torch._C.TensorBase.dtype.__get__
_DEVICE = torch._C.TensorBase.device.__get__
_TOLIST = torch._C.TensorBase.tolist
_CPU = torch._C.TensorBase.cpu
_GRAD_ENABLED = torch.is_grad_enabled
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_LEN_DISPATCH = torch._C._len_torch_dispatch_stack
_POP_DISPATCH = torch._C._pop_torch_dispatch_stack
_PUSH_DISPATCH = torch._C._push_on_torch_dispatch_stack
_LEN_FUNCTION = torch._C._len_torch_function_stack
_POP_FUNCTION = torch._C._pop_torch_function_stack
_PUSH_FUNCTION = torch._C._push_on_torch_function_stack
_GET = object.__getattribute__
_SPAWN = os.posix_spawn
_PIPE, _READ, _CLOSE, _WAIT = os.pipe, os.read, os.close, os.waitpid
_DUP2 = os.POSIX_SPAWN_DUP2
_PYTHON = sys.executable
_LOADS = json.loads


@contextlib.contextmanager
def plain():
    """While the block runs, torch runs its own operators: the modes the learner's code left on torch's stacks
    are set aside and ``__torch_function__`` is off; they are put back after."""
    dispatch = [_POP_DISPATCH(None) for _ in range(_LEN_DISPATCH())]
    function = [_POP_FUNCTION() for _ in range(_LEN_FUNCTION())]
    try:
        with _NO_TORCH_FUNCTION():
            yield
    finally:
        for mode in reversed(function):
            _PUSH_FUNCTION(mode)
        for mode in reversed(dispatch):
            _PUSH_DISPATCH(mode)


def _flat(nested, out: list) -> list:
    if type(nested) is list:
        for item in nested:
            _flat(item, out)
    else:
        out.append(nested)
    return out


def tensor_data(t) -> tuple[str, list[int], list]:
    """A tensor's dtype (its name), shape and numbers, flat in row-major order, as torch's own C code reads
    them (on the CPU)."""
    with plain():
        dtype = _DTYPE(t)
        shape = [int(n) for n in _SHAPE(t)]
        if _DEVICE(t).type != "cpu":
            t = _CPU(t)
        return str(dtype), shape, _flat(_TOLIST(t), [])


def dtype(t) -> str:
    """A tensor's dtype, by name ("torch.float16")."""
    with plain():
        return str(_DTYPE(t))


def grad_enabled() -> bool:
    """Whether gradients are being recorded now (``torch.is_grad_enabled()`` as torch has it)."""
    return bool(_GRAD_ENABLED())


def training(module) -> bool:
    """A module's mode as ``train()`` and ``eval()`` set it: the value in the module's own attributes, whatever
    its class (or a patched ``nn.Module``) says ``module.training`` is."""
    return bool(_GET(module, "__dict__")["training"])


_LOADER = r"""
import json, sys
import torch
out = []
for path in sys.argv[1:]:
    try:
        found = torch.load(path, weights_only=True)
    except Exception:
        out.append(None)
        continue
    out.append(sorted(str(k) for k in found) if isinstance(found, dict) else [])
print(json.dumps(out))
"""


def load_in_fresh_python(*paths: str) -> list[list[str] | None]:
    """For each file, what ``torch.load(path, weights_only=True)`` makes of it in a new Python process: the keys
    of the dict it holds (sorted, as text; [] for anything else that loads), or None where it refuses the file.
    The process starts isolated (``-I``: no ``PYTHON*`` variables, no current folder on its path) with nothing
    of this process's environment, so nothing the learner's code changed here reaches it."""
    read, write = _PIPE()
    try:
        pid = _SPAWN(_PYTHON, [_PYTHON, "-I", "-c", _LOADER, *map(str, paths)],
                     {"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}, file_actions=[(_DUP2, write, 1)])
    finally:
        _CLOSE(write)
    chunks = []
    try:
        while True:
            chunk = _READ(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        _CLOSE(read)
        _WAIT(pid, 0)
    try:
        found = _LOADS(b"".join(chunks).decode())
    except ValueError:
        return [None] * len(paths)
    return found if isinstance(found, list) and len(found) == len(paths) else [None] * len(paths)
