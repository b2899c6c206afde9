"""GPU tier for notebook 04 (mixed precision): the CUDA paths of the reference answers.

The graded hidden tests of 04_mixed_precision run on the CPU only, so that a verdict does
not depend on the grading machine. These tests run the same reference functions on a
GPU: float16 autocast with ``torch.amp.GradScaler("cuda")``, bfloat16 autocast without
a scaler, clipping under a scaler, and the CUDA autocast op lists. They also run the
solution notebook top to bottom, which takes its ``device == "cuda"`` branches (the
float16 training run and the time/peak-memory cell).

Every test is marked ``gpu`` and is skipped, with the reason, where CUDA is not
available. Run them with ``pytest -m gpu tests/gpu/test_gpu_amp.py``.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "solutions" / "04_mixed_precision" / "04_mixed_precision.ipynb"
DEVICE = "cuda"

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: these are the GPU paths of notebook 04"),
]


def _bf16_supported() -> bool:
    return torch.cuda.is_available() and torch.cuda.is_bf16_supported()


needs_bf16 = pytest.mark.skipif(torch.cuda.is_available() and not _bf16_supported(),
                               reason="this GPU has no bfloat16 support")


@pytest.fixture(scope="module")
def ref() -> SimpleNamespace:
    """The answer cells of the solution notebook, executed in a namespace with torch, nn and F."""
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    ns: dict = {"torch": torch, "nn": nn, "F": F}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            exec(compile(cell.source, f"<{meta.get('grade_id')}>", "exec"), ns)
    return SimpleNamespace(**{k: ns[k] for k in ("autocast_dtypes", "amp_step", "clipped_amp_step")})


def _flat(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten().float().cpu() for p in model.parameters()])


def _problem(seed: int = 0, n: int = 256, d_in: int = 32, d_out: int = 8, width: int = 64):
    """A seeded regression problem on the GPU (a noisy linear teacher) and a model for it."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(d_in, width), nn.Tanh(), nn.Linear(width, d_out)).to(DEVICE)
    x = torch.randn(n, d_in, generator=g)
    teacher = torch.randn(d_in, d_out, generator=g) / math.sqrt(d_in)
    y = x @ teacher + 0.1 * torch.randn(n, d_out, generator=g)
    return model, x.to(DEVICE), y.to(DEVICE)


def _train(ref, dtype, scaler_factory, steps=30, lr=0.2, loss_fn=F.mse_loss, seed=0):
    model, x, y = _problem(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = scaler_factory() if scaler_factory else None
    losses = [ref.amp_step(model, x, y, opt, loss_fn, dtype, scaler) for _ in range(steps)]
    return model, losses, scaler


# ---------------------------------------------------------------- exercise 4.1 on CUDA


@pytest.mark.parametrize("dtype", [torch.float16, pytest.param(torch.bfloat16, marks=needs_bf16)])
def test_autocast_dtypes_follow_the_cuda_lists(ref, dtype):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4), nn.LogSoftmax(dim=-1)).to(DEVICE)
    x = torch.randn(8, 16, device=DEVICE)
    out, report = ref.autocast_dtypes(model, x, DEVICE, dtype)
    assert report["0"] == dtype and report["2"] == dtype, "linear runs in the autocast dtype on CUDA"
    assert report["1"] == dtype, "relu follows its input"
    # the CUDA float32 list holds log_softmax (the CPU list does not): see the autocast op reference
    assert report["3"] == torch.float32, "log_softmax autocasts to float32 on CUDA"
    assert out.dtype == torch.float32
    assert all(len(m._forward_hooks) == 0 for m in model.modules())
    assert all(p.dtype == torch.float32 for p in model.parameters())


# ---------------------------------------------------------------- exercise 4.2 on CUDA


def test_fp16_with_cuda_scaler_tracks_float32(ref):
    fp32, l32, _ = _train(ref, torch.float32, None)
    fp16, l16, scaler = _train(ref, torch.float16, lambda: torch.amp.GradScaler(DEVICE))
    assert l16[-1] < 0.7 * l16[0], f"float16 + GradScaler did not train ({l16[0]:.4f} -> {l16[-1]:.4f})"
    # 30 SGD steps from float16 matmuls (eps ~1e-3 per op): the weights stay within ~1e-3
    # relative of the float32 run; 2e-2 leaves a wide margin and still catches a broken step
    rel = ((_flat(fp16) - _flat(fp32)).norm() / _flat(fp32).norm()).item()
    assert rel < 2e-2, f"float16 + GradScaler weights drifted from float32 by {rel:.3g}"
    assert scaler.get_scale() == 2.0**16, "no overflow is expected here: the scale stays at its initial 2**16"


@needs_bf16
def test_bf16_without_scaler_tracks_float32(ref):
    fp32, _, _ = _train(ref, torch.float32, None)
    bf16, lb, _ = _train(ref, torch.bfloat16, None)
    assert lb[-1] < 0.7 * lb[0]
    # bfloat16 has eps 7.8e-3: a few times float16's drift, still far below a broken step
    rel = ((_flat(bf16) - _flat(fp32)).norm() / _flat(fp32).norm()).item()
    assert rel < 5e-2, f"bfloat16 weights drifted from float32 by {rel:.3g}"


def test_tiny_fp16_gradients_survive_with_the_scaler(ref):
    # a loss of ~2**-24 gives float16 gradients below its smallest subnormal; lr is scaled
    # up by the same factor so that the SGD steps have a normal size
    def tiny(out, y):
        return F.mse_loss(out, y) * 2.0**-24

    fp32, _, _ = _train(ref, torch.float32, None, steps=3, lr=0.05 * 2.0**24, loss_fn=tiny)
    fp16, _, _ = _train(ref, torch.float16, lambda: torch.amp.GradScaler(DEVICE, init_scale=2.0**30),
                        steps=3, lr=0.05 * 2.0**24, loss_fn=tiny)
    start, _, _ = _problem(0)
    moved32 = _flat(fp32) - _flat(start)
    moved16 = _flat(fp16) - _flat(start)
    assert moved16.norm() > 0.5 * moved32.norm(), "the scaled float16 gradients were lost"
    rel = ((moved16 - moved32).norm() / moved32.norm()).item()
    assert rel < 5e-2, f"scaled float16 updates differ from float32 by {rel:.3g}"

    # the same backward without a scaler loses them (this is what the scaler is for)
    model, x, y = _problem(0)
    with torch.autocast(device_type=DEVICE, dtype=torch.float16):
        loss = tiny(model(x), y)
    loss.backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters()])
    assert (grads == 0).float().mean() > 0.5, "expected most unscaled float16 gradients to underflow"


def test_overflow_step_is_skipped_on_cuda(ref):
    model, x, y = _problem(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(DEVICE, init_scale=2.0**40)
    before = _flat(model)
    loss = ref.amp_step(model, x, y, opt, F.mse_loss, torch.float16, scaler)
    assert math.isfinite(loss)
    assert torch.equal(_flat(model), before), "a step with inf gradients must leave the weights unchanged"
    assert scaler.get_scale() == 2.0**39


def test_fp16_without_scaler_refuses_on_cuda(ref):
    model, x, y = _problem(2)
    with pytest.raises(ValueError):
        ref.amp_step(model, x, y, torch.optim.SGD(model.parameters(), lr=0.1), F.mse_loss, torch.float16, None)


# ---------------------------------------------------------------- exercise 4.3 on CUDA


def _clip_case(ref, dtype, scaler, max_norm=0.5, lr=0.1, seed=3):
    model, x, y = _problem(seed)
    y = 4 * y  # a large error, so the true gradient norm is above max_norm
    check = _problem(seed)[0]
    F.mse_loss(check(x), y).backward()
    true_norm = torch.cat([p.grad.flatten() for p in check.parameters()]).norm().item()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    before = _flat(model)
    loss, norm = ref.clipped_amp_step(model, x, y, opt, F.mse_loss, dtype, scaler, max_norm)
    moved = (_flat(model) - before).norm().item()
    return true_norm, norm, moved


def test_clipping_uses_unscaled_gradients_on_cuda(ref):
    true_norm, norm, moved = _clip_case(ref, torch.float16, torch.amp.GradScaler(DEVICE, init_scale=2.0**12))
    assert true_norm > 0.5
    # float16 gradients: ~1e-3 relative error on the norm; 2 % is generous
    assert abs(norm - true_norm) < 0.02 * true_norm, f"norm {norm:.4g} vs float32 {true_norm:.4g}"
    # a clipped SGD step moves the weights by lr * max_norm = 0.05
    assert abs(moved - 0.05) < 0.002, f"the weights moved by {moved:.4g}, expected lr * max_norm = 0.05"


@needs_bf16
def test_clipping_bf16_without_scaler_on_cuda(ref):
    true_norm, norm, moved = _clip_case(ref, torch.bfloat16, None)
    assert abs(norm - true_norm) < 0.05 * true_norm
    assert abs(moved - 0.05) < 0.002


def test_clipping_overflow_is_skipped_on_cuda(ref):
    model, x, y = _problem(4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(DEVICE, init_scale=2.0**40)
    before = _flat(model)
    _, norm = ref.clipped_amp_step(model, x, 4 * y, opt, F.mse_loss, torch.float16, scaler, 0.5)
    assert not math.isfinite(norm), "an overflowed step has a non-finite gradient norm"
    assert torch.equal(_flat(model), before), "the scaler must skip the step, clipping or not"
    assert scaler.get_scale() == 2.0**39


# ---------------------------------------------------------------- the notebook's CUDA branches


def test_solution_notebook_runs_on_cuda():
    from autograder.grading.execute import Limits, execute

    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    with tempfile.TemporaryDirectory(prefix="gpu-amp-") as tmp:
        res = execute(nb, tmp, limits=Limits(cell_timeout=300, notebook_timeout=600))
    assert res.error is None, res.error
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, c in enumerate(res.nb.cells)
              if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors, "\n".join(errors)
    text = "".join(o.get("text", "") for c in res.nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "device: cuda" in text
    assert "float16" in text and "peak memory" in text, "the time/memory cell should report float16 on a GPU"
