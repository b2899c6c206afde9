"""Fingerprints of a kernel's state, taken inside the kernel between cells.

A notebook's grade is defined on its grade path (:mod:`autograder.gradepath`), and the tests prove
that on the reference solution every graded cell sees the same values on the path as top to bottom:
before each graded cell, the kernel reports the fingerprints of the names that cell may read and of
torch's settings.  Equal fingerprints mean equal inputs.

Only the reference solution (the instructor's code) is fingerprinted, by the tests: no grade rests on
a fingerprint.  Evaluated as a silent ``user_expression``, nothing here binds a name or leaves history
in the kernel.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import types

from autograder.values.wire import call

_WORK = os.getcwd()  # the kernel's working folder (this module is imported in the kernel, at its start)
_TMP = re.compile(re.escape(tempfile.gettempdir().rstrip("/")) + r"/[^/\s'\"]+")


def _h(*parts) -> str:
    m = hashlib.blake2b(digest_size=10)
    for p in parts:
        m.update(p if isinstance(p, bytes) else repr(p).encode())
        m.update(b"\x00")
    return m.hexdigest()


def _tensor(t) -> str:
    import torch

    if t.layout != torch.strided or t.device.type == "meta" or t.is_quantized:
        return _h("tensor", str(t.dtype), tuple(t.shape), str(t.device), str(t.layout))
    data = t.detach()
    if data.is_conj():
        data = data.resolve_conj()
    if data.is_neg():
        data = data.resolve_neg()
    raw = data.cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    grad = _tensor(t.grad) if getattr(t, "grad", None) is not None else ""
    return _h("tensor", str(t.dtype), tuple(t.shape), t.requires_grad, raw, grad)


def value(v, depth: int = 0, seen: set | None = None) -> str:
    """A fingerprint of ``v``: equal for equal contents, whatever the object's address."""
    seen = set() if seen is None else seen
    if depth > 8:
        return _h("deep", type(v).__qualname__)
    if id(v) in seen:
        return _h("cycle", type(v).__qualname__)
    if isinstance(v, str):  # the working folder and temporary folders are named afresh in every run
        return _h("str", _TMP.sub("<tmp>", v.replace(_WORK, "<work>") if _WORK else v))
    if v is None or isinstance(v, (bool, int, float, complex, bytes)):
        return _h(type(v).__name__, v)
    if isinstance(v, os.PathLike):
        return _h("path", value(os.fspath(v), depth + 1, seen))
    mod = type(v).__module__ or ""
    if isinstance(v, types.ModuleType):
        return _h("module", v.__name__)
    seen = seen | {id(v)}
    if "torch" in sys.modules:
        import torch

        if isinstance(v, torch.Tensor):
            return _tensor(v)
        if isinstance(v, torch.nn.Module):
            sub = tuple((n, m.training, type(m).__qualname__) for n, m in v.named_modules())
            params = tuple((n, _tensor(p)) for n, p in v.named_parameters())
            bufs = tuple((n, _tensor(b) if b is not None else None) for n, b in v.named_buffers())
            return _h("module", sub, params, bufs)
        if isinstance(v, torch.optim.Optimizer):
            return _h("optimizer", type(v).__qualname__, value(v.state_dict(), depth + 1, seen))
        if isinstance(v, (torch.dtype, torch.device, torch.Size)):
            return _h("torch", str(v))
        if isinstance(v, torch.Generator):
            return _h("generator", v.get_state().numpy().tobytes())
    if mod.startswith("numpy") and hasattr(v, "tobytes") and hasattr(v, "dtype"):
        return _h("ndarray", str(v.dtype), getattr(v, "shape", ()), v.tobytes())
    if isinstance(v, (list, tuple)):
        return _h(type(v).__name__, tuple(value(x, depth + 1, seen) for x in v))
    if isinstance(v, (set, frozenset)):
        return _h("set", tuple(sorted(value(x, depth + 1, seen) for x in v)))
    if isinstance(v, dict):
        return _h("dict", tuple((value(k, depth + 1, seen), value(x, depth + 1, seen)) for k, x in v.items()))
    if isinstance(v, types.FunctionType):
        return _h("function", v.__qualname__, _code(v.__code__), value(v.__defaults__, depth + 1, seen),
                  tuple(value(c.cell_contents, depth + 1, seen) if _filled(c) else None
                        for c in (v.__closure__ or ())))
    if isinstance(v, types.MethodType):
        return _h("method", v.__func__.__qualname__, value(v.__self__, depth + 1, seen))
    if isinstance(v, type):
        body = tuple((k, value(x, depth + 1, seen)) for k, x in vars(v).items()
                     if isinstance(x, (types.FunctionType, staticmethod, classmethod, property, int, float, str)))
        return _h("class", v.__qualname__, body)
    if isinstance(v, (staticmethod, classmethod)):
        return value(v.__func__, depth + 1, seen)
    if isinstance(v, property):
        return _h("property", value(v.fget, depth + 1, seen))
    if hasattr(v, "state_dict") and callable(v.state_dict):  # schedulers, scalers, samplers
        try:
            return _h("stateful", type(v).__qualname__, value(v.state_dict(), depth + 1, seen))
        except Exception:  # noqa: BLE001 - fall back to its attributes
            pass
    attrs = getattr(v, "__dict__", None)
    if isinstance(attrs, dict):
        return _h("object", type(v).__qualname__,
                  tuple((k, value(x, depth + 1, seen)) for k, x in attrs.items() if not k.startswith("_")))
    return _h("opaque", type(v).__qualname__)


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
        return True
    except ValueError:
        return False


def _code(code: types.CodeType) -> str:
    consts = tuple(_code(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    return _h(code.co_code, consts, code.co_names)


def settings() -> dict[str, str]:
    """torch's process-wide switches that change what code computes."""
    if "torch" not in sys.modules:
        return {}
    import torch

    return {
        "default_dtype": str(torch.get_default_dtype()),
        "grad": str(torch.is_grad_enabled()),
        "deterministic": str(torch.are_deterministic_algorithms_enabled()),
        "threads": str(torch.get_num_threads()),
        "matmul": torch.get_float32_matmul_precision(),
        "cudnn": str((torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic,
                      torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)),
    }


def report(names) -> str:
    """What a graded cell about to run may see: the named globals' fingerprints (None where unbound) and
    torch's settings.  JSON, for :func:`autograder.gradepath.differences` to compare."""
    main = sys.modules["__main__"].__dict__
    seen = {}
    for n in names:
        try:
            seen[n] = value(main[n]) if n in main else None
        except Exception as exc:  # noqa: BLE001 - an object that cannot be read says so
            seen[n] = f"unreadable: {type(exc).__name__}"
    return json.dumps({"names": seen, "settings": settings()})


def expression(names) -> str:
    """The ``user_expression`` that calls :func:`report` without binding anything in the kernel."""
    return call("autograder.probe.statedigest.report", sorted(names))
