"""CUDA's device rules, applied to the meta device so that a CPU runner sees the device bugs a GPU would.

Why this exists: hidden tests check "works on the device of x" by running the answer on torch's
``meta`` device (:meth:`autograder.probe.Observations.on_meta`).  The meta kernels are more lenient
than the CUDA ones: ``gather``, ``scatter``, ``index_select`` and ``embedding`` take a CPU index
tensor next to a meta tensor, where CUDA raises "Expected all tensors to be on the same device".
An answer that leaves its index, target or mask on the CPU would pass on a CPU runner and crash on
the GPU the course is for.  :class:`CudaDeviceRules` is a dispatch mode, active only while
:func:`autograder.probe.device_verdict` runs, that looks at every ATen operator call that mixes a
meta tensor with a CPU tensor and raises where CUDA would.

Like :mod:`autograder.probe`, this module runs inside the learner's kernel: it imports torch and
the standard library only.

The rules, each taken from PyTorch's source (paths are in the pytorch/pytorch repository):

1. *Default* (an operator whose ``native_functions.yaml`` entry has no ``device_check: NoCheck``):
   the generated CUDA wrapper calls ``c10::impl::check_and_update_common_device`` on every
   positional tensor argument (``torchgen/dest/register_dispatch_key.py``, ``gen_device_check``;
   ``aten/src/ATen/core/op_registration/adaption.h``), with no exception for 0-dim tensors.  So a
   CPU index in ``gather``, ``scatter*``, ``index_select``, ``index_add``, ``index_copy``, a CPU
   target in ``nll_loss_forward`` and a CPU mask in ``masked_select`` are refused.
2. *TensorIterator* (``device_check: NoCheck   # TensorIterator``): ``TensorIteratorBase::
   compute_types`` (``aten/src/ATen/TensorIterator.cpp``) accepts a 0-dim CPU input on a CUDA
   kernel as a scalar and refuses any other CPU tensor; ``where`` moves 0-dim CPU operands to the
   device itself (``aten/src/ATen/native/TensorCompare.cpp``, ``where_self_out``).  CUDA accepts
   at most one CPU scalar in binary ops; this check accepts any number (lenient, never stricter).
3. *Advanced indexing* (``index``, ``_unsafe_index``, ``index_put``, ``index_put_``,
   ``_index_put_impl_``, ``_unsafe_index_put``): index tensors may be on the CPU
   (``check_indices_on_cpu_or_selfdevice`` in ``aten/src/ATen/native/TensorAdvancedIndexing.cpp``);
   the value put may be a 0-dim CPU tensor (``_index_put_impl_`` moves it), any other CPU value is
   refused by the TensorIterator that follows.
4. *masked_fill*: the mask must be on the tensor's device even when it is 0-dim
   (``masked_fill__cuda`` in ``aten/src/ATen/native/cuda/Indexing.cu``: "expected self and mask to
   be on the same device"); a 0-dim CPU fill value is fine (it is read with ``.item()``).
5. Copies (``_to_copy``, ``copy_``, ``_copy_from``, ``_copy_from_and_resize``) cross devices by
   design, and every other ``device_check: NoCheck`` operator does its own checks (views, sizes,
   foreach kernels, CTC loss): this module leaves both alone, so meta's own behaviour decides.

Rules 1, 2 and 5 are told apart by reading the installed torch's own ``native_functions.yaml``
(shipped in ``torchgen/packaged``), once per kernel, on the first meta/CPU mix.  Without that file
every operator outside rules 3 to 5 gets rule 2 (0-dim CPU tensors accepted), which still refuses
every CPU index, target and mask of more than one element.
"""

from __future__ import annotations

import os
from typing import Any

# the words of CUDA's own message (TensorIterator.cpp and adaption.h), which probe._DEVICE_ERRORS matches
MESSAGE = "Expected all tensors to be on the same device, but found at least two devices, meta and cpu! "

_COPIES = frozenset({"_to_copy", "copy_", "_copy_from", "_copy_from_and_resize"})
_INDEXING = frozenset({"index", "_unsafe_index", "index_put", "index_put_", "_index_put_impl_",
                       "_unsafe_index_put"})
_MASKED_FILL = frozenset({"masked_fill", "masked_fill_"})

_TABLE: list[dict[str, str]] = []  # [{"name.overload": "ti" | "nocheck"}] once read


def _yaml_path() -> str | None:
    try:
        import torchgen
    except ImportError:  # a torch install without torchgen: the fallback rule applies
        return None
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")
    return path if os.path.isfile(path) else None


def device_check_table() -> dict[str, str] | None:
    """``{"add.Tensor": "ti", "copy_": "nocheck", ...}`` from the installed torch's
    ``native_functions.yaml``: the operators whose generated CUDA wrapper skips the same-device
    check, "ti" where the file says TensorIterator checks instead.  None without the file."""
    if _TABLE:
        return _TABLE[0] or None
    table: dict[str, str] = {}
    path = _yaml_path()
    if path is not None:
        name = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("- func:"):
                    name = line[len("- func:"):].strip().split("(", 1)[0]
                elif name is not None and "device_check:" in line and "NoCheck" in line:
                    table[name] = "ti" if "TensorIterator" in line else "nocheck"
    _TABLE[:] = [table]
    return table or None


def _op_key(func: Any) -> tuple[str, str]:
    schema = func._schema
    base = schema.name.split("::", 1)[-1]
    return base, (base + "." + schema.overload_name if schema.overload_name else base)


def _flat_tensors(value: Any, out: list) -> list:
    import torch

    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flat_tensors(v, out)
    return out


def _is_cpu_scalar(t: Any) -> bool:
    return t.device.type == "cpu" and t.dim() == 0


def refusal(func: Any, args: tuple, kwargs: dict) -> str | None:
    """Why CUDA would refuse this call with its meta tensors on a GPU, or None when it would accept
    it.  Only calls that mix a meta tensor with a CPU tensor are looked at."""
    tensors = _flat_tensors(list(args) + list(kwargs.values()), [])
    types = {t.device.type for t in tensors}
    if "meta" not in types or "cpu" not in types:
        return None
    base, key = _op_key(func)
    if base in _COPIES:
        return None
    if base in _INDEXING:
        # self (args[0]) must be on the device; indices (args[1]) may be on the CPU; a value
        # (args[2], index_put*) may be a 0-dim CPU tensor
        first = args[0] if args else None
        if first is not None and first.device.type == "cpu":
            return f"{key}: the indexed tensor is on the CPU"
        rest = _flat_tensors(list(args[2:]) + list(kwargs.values()), [])
        bad = [t for t in rest if t.device.type == "cpu" and not _is_cpu_scalar(t)]
        return f"{key}: a value of shape {tuple(bad[0].shape)} is on the CPU" if bad else None
    if base in _MASKED_FILL:
        mask = args[1] if len(args) > 1 else kwargs.get("mask")
        others = [args[0]] + list(args[2:3])
        if mask is not None and mask.device.type == "cpu":
            return f"{key}: the mask is on the CPU (expected self and mask to be on the same device)"
        bad = [t for t in _flat_tensors(others, []) if t.device.type == "cpu" and not _is_cpu_scalar(t)]
        return f"{key}: a tensor of shape {tuple(bad[0].shape)} is on the CPU" if bad else None
    table = device_check_table()
    kind = table.get(key, "exact") if table is not None else "ti"
    if kind == "nocheck":
        return None
    cpu = [t for t in tensors if t.device.type == "cpu"]
    if kind == "ti":
        cpu = [t for t in cpu if t.dim() != 0]
        if not cpu:
            return None
    return f"{key}: a tensor of shape {tuple(cpu[0].shape)} is on the CPU"


def CudaDeviceRules():  # noqa: N802 - a class made on first use, so that importing this module needs no torch
    """A ``TorchDispatchMode`` that raises ``RuntimeError`` where CUDA would (see the module docstring)."""
    if not _MODE:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        class _CudaDeviceRules(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                why = refusal(func, args, kwargs)
                if why is not None:
                    raise RuntimeError(MESSAGE + "(CUDA's rule for " + why + ")")
                value = args[2] if len(args) > 2 else None
                if (_op_key(func)[1] in ("masked_fill.Tensor", "masked_fill_.Tensor") and value is not None
                        and _is_cpu_scalar(value) and args[0].device.type == "meta"):
                    # CUDA reads a 0-dim CPU fill value with .item() (masked_fill__cuda); meta's own
                    # kernel refuses it, so it gets the value as a Python number, as CUDA does
                    scalar = getattr(torch.ops.aten, _op_key(func)[0]).Scalar
                    return scalar(args[0], args[1], value.item())
                return func(*args, **kwargs)

        _MODE.append(_CudaDeviceRules)
    return _MODE[0]()


_MODE: list = []
