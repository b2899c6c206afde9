"""Claims of notebook 04 (mixed precision) that its cells cannot show on a CPU-only machine.

The notebook's own cells assert what they can compute where they run. The CUDA autocast
lists are checked here without a GPU: autocast's CUDA rules are dispatched on the CUDA
dispatch key, which fake tensors on a ``cuda`` device carry (``FakeTensorMode`` computes
dtypes and shapes, never data). The rest are behaviours of the installed torch that the
notebook states in prose: the deprecated spellings, the scaler's error messages, a
disabled scaler, and that autocast is per thread and per device type.
"""

from __future__ import annotations

import inspect
import threading
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


@pytest.fixture
def fake_cuda():
    """A FakeTensorMode in which tensors can live on ``cuda`` (skipped where torch cannot fake one)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    mode = FakeTensorMode()
    try:
        with mode:
            torch.empty(1, device="cuda")
    except Exception as exc:  # noqa: BLE001 - a torch build without CUDA support
        pytest.skip(f"cannot make a fake CUDA tensor here: {exc}")
    return mode


class _cuda_autocast:
    """Turn CUDA autocast on for this thread. ``torch.autocast("cuda")`` switches itself off
    when no GPU is present, so the thread-local switches are set directly."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.saved = (torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda"))
        torch.set_autocast_dtype("cuda", self.dtype)
        torch.set_autocast_enabled("cuda", True)

    def __exit__(self, *exc):
        torch.set_autocast_enabled("cuda", self.saved[0])
        torch.set_autocast_dtype("cuda", self.saved[1])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cuda_autocast_lists(fake_cuda, dtype):
    """Section 2: on CUDA, matmul, linear, conv, bmm and addmm run in the autocast dtype (relu follows
    them); softmax, log_softmax, layer_norm, sum, pow, exp, log and the loss functions run in float32."""
    with fake_cuda, _cuda_autocast(dtype):
        x = torch.randn(8, 16, device="cuda")
        w = torch.randn(4, 16, device="cuda")
        t = torch.randint(0, 4, (8,), device="cuda")
        logits = x @ w.T
        low = {"matmul": logits, "linear": F.linear(x, w), "relu": torch.relu(logits),
               "conv1d": F.conv1d(x[None], torch.randn(3, 8, 2, device="cuda")),
               "bmm": torch.bmm(x[None], w.T[None]), "addmm": torch.addmm(torch.zeros(8, 4, device="cuda"), x, w.T)}
        fp32 = {
            "softmax": torch.softmax(logits, -1), "log_softmax": F.log_softmax(logits, -1),
            "layer_norm": F.layer_norm(logits, (4,)), "sum": logits.sum(), "pow": logits**2,
            "(logits**2).mean()": (logits**2).mean(), "exp": logits.exp(), "log": logits.abs().log(),
            "cross_entropy": F.cross_entropy(logits, t), "mse_loss": F.mse_loss(logits, torch.zeros_like(logits)),
            "nll_loss": F.nll_loss(logits, t), "l1_loss": F.l1_loss(logits, torch.zeros_like(logits)),
            "bce_with_logits": F.binary_cross_entropy_with_logits(logits, torch.zeros_like(logits)),
        }
    assert {k: v.dtype for k, v in low.items()} == {k: dtype for k in low}
    assert {k: v.dtype for k, v in fp32.items()} == {k: torch.float32 for k in fp32}


def test_cpu_autocast_lists():
    """Section 2 and the introduction: on the CPU, conv, bmm and addmm run in bfloat16, and softmax,
    log_softmax, layer_norm, sum, pow, mean, exp and log follow their bfloat16 input; the loss
    functions run in float32."""
    x, w = torch.randn(8, 16), torch.randn(4, 16)
    t = torch.randint(0, 4, (8,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = x @ w.T
        low = [torch.softmax(logits, -1), F.log_softmax(logits, -1), F.layer_norm(logits, (4,)), logits.sum(),
               logits**2, logits.mean(), logits.exp(), logits.abs().log(), F.conv1d(x[None], torch.randn(3, 8, 2)),
               torch.bmm(x[None], w.T[None]), torch.addmm(torch.zeros(8, 4), x, w.T)]
        losses = [F.cross_entropy(logits, t), F.nll_loss(F.log_softmax(logits, -1), t),
                  F.mse_loss(logits, torch.zeros_like(logits)), F.l1_loss(logits, torch.zeros_like(logits)),
                  F.binary_cross_entropy_with_logits(logits, torch.zeros_like(logits)),
                  F.binary_cross_entropy(torch.sigmoid(logits), torch.zeros_like(logits))]
    assert all(v.dtype == torch.bfloat16 for v in low)
    assert all(v.dtype == torch.float32 for v in losses)


def test_cuda_autocast_refuses_binary_cross_entropy(fake_cuda):
    """Section 2: the one loss function CUDA autocast refuses."""
    with fake_cuda, _cuda_autocast(torch.float16):
        p = torch.sigmoid(torch.randn(8, 4, device="cuda") @ torch.randn(4, 4, device="cuda"))
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, torch.zeros_like(p))


def test_autocast_is_per_device_type(fake_cuda):
    """Section 2: CUDA autocast leaves CPU tensors alone, and CPU autocast leaves CUDA tensors alone."""
    x, w = torch.randn(8, 16), torch.randn(4, 16)
    with _cuda_autocast(torch.float16):
        assert (x @ w.T).dtype == torch.float32
    with fake_cuda, torch.autocast("cpu", dtype=torch.bfloat16):
        xc, wc = torch.randn(8, 16, device="cuda"), torch.randn(4, 16, device="cuda")
        assert (xc @ wc.T).dtype == torch.float32


def test_autocast_is_thread_local():
    x, w = torch.randn(8, 16), torch.randn(4, 16)
    seen = []
    with torch.autocast("cpu", dtype=torch.bfloat16):
        worker = threading.Thread(target=lambda: seen.append((x @ w.T).dtype))
        worker.start()
        worker.join()
        seen.append((x @ w.T).dtype)
    assert seen == [torch.float32, torch.bfloat16]


def test_deprecated_spellings_warn_and_use_the_new_api():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = [torch.cuda.amp.autocast(), torch.cpu.amp.autocast(), torch.cuda.amp.GradScaler()]
    future = [w for w in caught if issubclass(w.category, FutureWarning)]
    assert len(future) == 3 and all("deprecated" in str(w.message) for w in future)
    assert isinstance(old[0], torch.amp.autocast) and isinstance(old[1], torch.amp.autocast)
    assert isinstance(old[2], torch.amp.GradScaler)


def test_backward_runs_in_the_forward_dtype():
    """Section 3: the backward of a float16 op produces float16 gradients; the docs advise
    against backward under autocast and say backward ops run in the forward op's dtype."""
    lin = nn.Linear(4, 3)
    seen = []
    with torch.autocast("cpu", dtype=torch.float16):
        out = lin(torch.randn(5, 4))
        out.register_hook(lambda g: seen.append(g.dtype))
        loss = out.float().sum()
    loss.backward()
    assert seen == [torch.float16] and lin.weight.grad.dtype == torch.float32
    doc = " ".join(torch.autocast.__doc__.split())
    assert "Backward passes under autocast are not recommended." in doc
    assert "Backward ops run in the same type that autocast used for corresponding forward ops." in doc


def _fp16_step(model, scaler, opt):
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(torch.randn(4, 3)).sum()
    scaler.scale(loss).backward()
    return loss


def test_scaler_error_messages():
    """Section 3: forgetting update(), or stepping the optimizer directly, raise these errors."""
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    _fp16_step(model, scaler, opt)
    scaler.step(opt)
    _fp16_step(model, scaler, opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)"):
        scaler.step(opt)

    scaler = torch.amp.GradScaler("cpu")
    _fp16_step(model, scaler, opt)
    opt.step()
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()


def test_disabled_scaler_is_a_pass_through():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    loss = model(torch.randn(4, 3)).sum()
    assert scaler.scale(loss) is loss
    before = model.weight.detach().clone()
    loss.backward()
    grad = model.weight.grad.clone()
    scaler.unscale_(opt)
    assert torch.equal(model.weight.grad, grad)
    scaler.step(opt)
    assert torch.allclose(model.weight.detach(), before - 0.1 * grad)
    scaler.update()
    assert scaler.state_dict() == {}


def test_is_bf16_supported_counts_emulation_by_default():
    """Section 2's comment: is_bf16_supported() counts emulated bfloat16 unless including_emulation=False."""
    sig = inspect.signature(torch.cuda.is_bf16_supported)
    assert sig.parameters["including_emulation"].default is True
    src = inspect.getsource(torch.cuda.is_bf16_supported)
    assert "including_emulation" in src and "major >= 8" in src
    # "on ROCm, torch says True for every GPU either way": the ROCm answer comes before either check
    assert src.index("torch.version.hip") < src.index("major >= 8") < src.index("if not including_emulation")
    # "is_bf16_supported() alone says True on every CUDA GPU that can hold a bfloat16 tensor"
    assert "torch.tensor([1.0], dtype=torch.bfloat16, device=device)" in inspect.getsource(
        torch.cuda._check_bf16_tensor_supported)
