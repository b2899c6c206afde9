"""Fingerprints of a kernel's state, taken inside the kernel between cells.

The short run (:mod:`autograder.shortrun`) may skip cells only where that leaves what the graded
cells see unchanged.  To check it, the reference solution runs in full and short, and before each
graded cell both kernels report these fingerprints: the values of the names the cell may read,
the global random-number generators, torch's global settings and the files in the working folder.
Equal fingerprints mean equal inputs.

Only the reference solution (the instructor's code) is fingerprinted: a submission could forge
what it reports, so no verdict ever rests on a submission's fingerprint.  Evaluated as a silent
``user_expression``, nothing here binds a name or leaves history in the kernel.
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

_SKIP_DIRS = {".compile-cache", "__pycache__", ".ipynb_checkpoints"}
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


def rng() -> dict[str, str]:
    """The global random-number generators' states."""
    import random

    out = {"random": _h(random.getstate())}
    if "numpy" in sys.modules:
        import numpy as np

        st = np.random.get_state()
        out["numpy"] = _h(st[0], st[1].tobytes(), st[2:])
    if "torch" in sys.modules:
        import torch

        out["torch"] = _h(torch.get_rng_state().numpy().tobytes())
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            out["cuda"] = _h(tuple(s.numpy().tobytes() for s in torch.cuda.get_rng_state_all()))
    return out


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


def files(root: str = ".") -> dict[str, str]:
    """The working folder's files (path -> size and content fingerprint)."""
    out = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for n in sorted(names):
            p = os.path.join(folder, n)
            try:
                with open(p, "rb") as f:
                    out[os.path.relpath(p, root)] = _h(f.read(1 << 24))
            except OSError:
                out[os.path.relpath(p, root)] = "unreadable"
    return out


def report(names) -> str:
    """What a graded cell about to run may see: the named globals' fingerprints (None where unbound),
    the generators, torch's settings and the files.  JSON, for the grader to compare."""
    main = sys.modules["__main__"].__dict__
    seen = {}
    for n in names:
        try:
            seen[n] = value(main[n]) if n in main else None
        except Exception as exc:  # noqa: BLE001 - an object that cannot be read says so
            seen[n] = f"unreadable: {type(exc).__name__}"
    return json.dumps({"names": seen, "rng": rng(), "raw": rng_raw(), "settings": settings(), "files": files()})


def expression(names) -> str:
    """The ``user_expression`` that calls :func:`report` without binding anything in the kernel."""
    return call("autograder.probe.statedigest.report", sorted(names))


def rng_raw() -> dict:
    """The seeded generators' full states, JSON-able, for :func:`restore`."""
    import base64
    import random

    out = {"random": [random.getstate()[0], list(random.getstate()[1]), random.getstate()[2]]}
    if "numpy" in sys.modules:
        import numpy as np

        st = np.random.get_state()
        out["numpy"] = [st[0], st[1].tolist(), int(st[2]), int(st[3]), float(st[4])]
    if "torch" in sys.modules:
        import torch

        out["torch"] = base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            out["cuda"] = [base64.b64encode(s.numpy().tobytes()).decode() for s in torch.cuda.get_rng_state_all()]
    return out


def snapshot_json() -> str:
    """The generators' fingerprints and full states, as JSON."""
    return json.dumps({"rng": rng(), "raw": rng_raw(), "files": files()})


def restore(expect: dict, raw: dict) -> str:
    """Move the generators named in ``raw`` to those states, if the generators named in ``expect``
    are where the reference had them (fingerprints); else change nothing and say so."""
    import base64
    import random

    now = rng()
    for g, fp in expect.items():
        if now.get(g) != fp:
            return f"diverged: {g}"
    for g, st in raw.items():
        if g == "random":
            random.setstate((st[0], tuple(st[1]), st[2]))
        elif g == "numpy":
            import numpy as np

            np.random.set_state((st[0], np.array(st[1], dtype=np.uint32), st[2], st[3], st[4]))
        elif g == "torch":
            import torch

            torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(st)), dtype=torch.uint8))
        elif g == "cuda":
            import torch

            torch.cuda.set_rng_state_all([torch.frombuffer(bytearray(base64.b64decode(s)), dtype=torch.uint8)
                                          for s in st])
    return "ok"
