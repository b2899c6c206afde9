"""GPU tier of notebook 07: the reference answers run with NCCL, one GPU per rank.

On a CPU the notebook runs its ranks with gloo; these tests run the same reference
answers (taken from ``solutions/07_distributed``) on two GPUs with NCCL, through the
same ``distlab.run``, and compare with one process on one GPU.  They skip, saying
why, unless ``torch.cuda.device_count() >= 2``.

Tolerances: everything is float64, so DDP and one process differ only in the order
in which gradients are summed (~1e-16 relative per step); 1e-9 is far above that and
far below what any bug changes.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from harness import ROOT

from autograder.values import course

NB_DIR = ROOT / "solutions" / "07_distributed"
RTOL, ATOL = 1e-9, 1e-12

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def distlab():
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if n < 2:
        pytest.skip(f"NCCL with 2 ranks needs 2 CUDA devices; this machine has {n}")
    sys.path.insert(0, str(NB_DIR))
    import distlab

    assert distlab.backend_for(2) == "nccl"
    return distlab


def reference_file(exercise: str, folder: Path) -> Path:
    """Write the reference answer of ``exercise`` (a ``%%writefile`` cell) into ``folder``."""
    nb = course.read(NB_DIR / "07_distributed.ipynb")
    cell = next(c for c in nb.cells if course.grade_id(c) == f"{exercise}_solution")
    first, *body = cell.source.splitlines()
    assert first.startswith("%%writefile "), f"{exercise}: expected a %%writefile answer cell"
    path = folder / first.split()[1]
    path.write_text("\n".join(line for line in body if "### BEGIN SOLUTION" not in line
                              and "### END SOLUTION" not in line) + "\n")
    return path


def mlp(d_in, hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, d_out)).double()


def flat(model):
    return torch.cat([p.detach().reshape(-1).cpu() for p in model.parameters()])


def one_process(model, batches, lr):
    model = copy.deepcopy(model).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in batches:
        opt.zero_grad()
        F.mse_loss(model(x.cuda()), y.cuda()).backward()
        opt.step()
    return flat(model)


PROBE = '''
import torch.distributed as dist


def where(model):
    return dist.get_backend(), str(next(model.parameters()).device)
'''


def test_ranks_run_nccl_on_their_own_gpu(distlab, tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    out = distlab.run(f"{tmp_path / 'probe.py'}:where", mlp(3, 4, 1), show_output=False)
    assert [r.result for r in out] == [("nccl", "cuda:0"), ("nccl", "cuda:1")]


def test_ddp_step_nccl_matches_one_process(distlab, tmp_path):
    answer = reference_file("ex7_1", tmp_path)
    torch.manual_seed(0)
    net = mlp(7, 16, 3)
    b, k, lr = 8, 5, 0.1
    xs, ys = torch.randn(k, 2 * b, 7, dtype=torch.float64), torch.randn(k, 2 * b, 3, dtype=torch.float64)
    shards = distlab.per_rank([[(x[r * b:(r + 1) * b], y[r * b:(r + 1) * b]) for x, y in zip(xs, ys)]
                               for r in range(2)])
    out = distlab.run(f"{answer}:train_ddp", net, shards, lr, show_output=False)
    single = one_process(net, list(zip(xs, ys)), lr)
    for r in out:
        assert len(r.result) == k
        torch.testing.assert_close(flat(r.args[0]), single, rtol=RTOL, atol=ATOL)


def test_accumulation_nccl_one_allreduce_per_step(distlab, tmp_path):
    answer = reference_file("ex7_4", tmp_path)
    sys.path.insert(0, str(NB_DIR))
    import checks07

    torch.manual_seed(1)
    net = mlp(6, 10, 2)
    steps = [[[(torch.randn(3, 6, dtype=torch.float64), torch.randn(3, 2, dtype=torch.float64)) for _ in range(4)]
              for _ in range(2)] for _ in range(2)]
    out = distlab.run(checks07.accumulation_run, str(answer), net, distlab.per_rank(steps), 0.2, show_output=False)
    whole = [(torch.cat([x for r in range(2) for x, _ in steps[r][s]]),
              torch.cat([y for r in range(2) for _, y in steps[r][s]])) for s in range(2)]
    single = one_process(net, whole, 0.2)
    for r in out:
        assert r.result["allreduces"] == 2
        torch.testing.assert_close(flat(r.args[1]), single, rtol=RTOL, atol=ATOL)


def test_checkpoint_resume_nccl(distlab, tmp_path):
    answer = reference_file("ex7_3", tmp_path)
    sys.path.insert(0, str(NB_DIR))
    import checks07

    torch.manual_seed(2)
    net = mlp(4, 6, 2)
    data = [(torch.randn(5, 4, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64)) for _ in range(6)]
    path = tmp_path / "ckpt.pt"
    out = distlab.run(checks07.checkpoint_run, str(answer), net, distlab.per_rank([data[0::2], data[1::2]]),
                      0.05, str(path), True, show_output=False)
    assert [r.result["saves"] for r in out] == [1, 0]
    assert [r.result["exists_on_return"] for r in out] == [True, True]
    state = torch.load(path, map_location="cpu", weights_only=True)
    mlp(4, 6, 2).load_state_dict(state["model"])
    for r in out:
        assert r.result["step"] == 2
        torch.testing.assert_close(r.result["resumed"], r.result["uninterrupted"], rtol=RTOL, atol=ATOL)
