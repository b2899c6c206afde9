"""What a hidden test records of a learner's value: plain JSON-able data, never a pickle (:func:`encode`).

Runs inside the learner's kernel, as :mod:`autograder.probe` does; a tensor is read as torch's own C code
reads it (:func:`autograder.probe.trusted.tensor_data`), whatever its class says of itself.
"""

from __future__ import annotations

import math
from typing import Any


def _num(x: float) -> Any:
    return x if math.isfinite(x) else repr(float(x))


def encode(value: Any, _depth: int = 0) -> dict:
    """Turn a learner's value into plain JSON-able data (no pickles, ever)."""
    if _depth > 20:
        return {"t": "unsupported", "type": "nesting too deep"}
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is always installed in this course
        torch = None
    if value is None:
        return {"t": "none"}
    if type(value) is bool:
        return {"t": "bool", "v": value}
    if type(value) is int:
        return {"t": "int", "v": value}
    if type(value) is float:
        return {"t": "float", "v": _num(value)}
    if type(value) is str:
        return {"t": "str", "v": value}
    if torch is not None:
        if isinstance(value, torch.Tensor):
            from autograder.probe import trusted

            dtype, shape, numbers = trusted.tensor_data(value)  # as torch's own C code reads them
            if "complex" in dtype:
                return {"t": "unsupported", "type": "complex tensor"}
            if "float" in dtype:
                data = [_num(float(x)) for x in numbers]
            else:
                data = [int(x) for x in numbers]
            return {"t": "tensor", "dtype": dtype, "shape": shape, "data": data}
        if isinstance(value, torch.dtype):
            return {"t": "str", "v": str(value)}
        if isinstance(value, torch.device):
            return {"t": "str", "v": str(value)}
        if isinstance(value, torch.Size):
            return {"t": "list", "v": [encode(int(v)) for v in value]}
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        np = None
    if np is not None:
        if isinstance(value, np.ndarray) and torch is not None:
            return encode(torch.from_numpy(np.ascontiguousarray(value)), _depth + 1)
        if isinstance(value, np.bool_):
            return {"t": "bool", "v": bool(value)}
        if isinstance(value, np.integer):
            return {"t": "int", "v": int(value)}
        if isinstance(value, np.floating):
            return {"t": "float", "v": _num(float(value))}
    if type(value) in (list, tuple):
        return {"t": "list", "v": [encode(v, _depth + 1) for v in value]}
    if type(value) is dict:
        return {"t": "dict", "v": {str(k): encode(v, _depth + 1) for k, v in value.items()}}
    return {"t": "unsupported", "type": type(value).__name__}
