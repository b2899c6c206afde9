"""The meta-device check applies CUDA's device rules (autograder/probe/devicerules.py), op family by op family.

Why this file exists: the hidden tests' ``obs.on_meta`` is the only device check a CPU runner has.
Meta alone takes a CPU index in ``gather``, ``scatter_``, ``index_select`` and ``embedding`` where
CUDA refuses it; these tests pin, for each operator family the course's answers use, that a CPU
index, target or mask next to a meta tensor is a "device bug" and that every form CUDA accepts
(0-dim CPU scalars, CPU indices in ``x[idx]``, tensors moved with ``.to(device)`` or made with
``device=``) is "device ok".  They call ``device_verdict`` directly: no kernel, a few seconds.
On a GPU runner ``test_cuda_agrees`` asks CUDA itself the same question for every case.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from autograder.probe import Observations, device_verdict, devicerules

L = torch.long


def x34():
    return torch.randn(3, 4)


def idx(*shape, high=3):
    return torch.randint(0, high, shape)


# (name, fn, args, keep): fn runs with args on meta, but for the positions in keep (left on the CPU)
BUGS = [
    # indices: meta alone takes these, CUDA refuses them ("when checking argument for argument index")
    ("gather_cpu_index", lambda x, i: x.gather(1, i), (x34(), idx(3, 1)), (1,)),
    ("take_along_dim_cpu_index", lambda x, i: torch.take_along_dim(x, i, 1), (x34(), idx(3, 1)), (1,)),
    ("scatter_cpu_index", lambda x, i: torch.zeros_like(x).scatter_(1, i, 1.0), (x34(), idx(3, 1)), (1,)),
    ("scatter_src_cpu_index", lambda x, i: x.scatter(1, i, x[:, :1]), (x34(), idx(3, 1)), (1,)),
    ("scatter_add_cpu_index", lambda x, i: x.scatter_add(1, i, x[:, :1]), (x34(), idx(3, 1)), (1,)),
    ("index_select_cpu_index", lambda x, i: x.index_select(0, i), (x34(), idx(2)), (1,)),
    ("index_add_cpu_index", lambda x, i: x.index_add(0, i, x[:2]), (x34(), idx(2)), (1,)),
    ("index_copy_cpu_index", lambda x, i: x.index_copy(0, i, x[:2]), (x34(), idx(2)), (1,)),
    ("scatter_reduce_cpu_index", lambda x, i: x.scatter_reduce(1, i, x[:, :1], "amax"), (x34(), idx(3, 1)), (1,)),
    ("embedding_cpu_index", lambda e, i: e(i), (torch.nn.Embedding(5, 3), idx(4, high=5)), (1,)),
    ("f_embedding_cpu_index", lambda w, i: F.embedding(i, w), (torch.randn(5, 3), idx(4, high=5)), (1,)),
    ("one_hot_cpu_index", lambda x, i: (F.one_hot(i, 4) * x).sum(), (x34(), idx(3)), (1,)),
    ("bincount_cpu", lambda x, i: torch.bincount(i, minlength=4) * x, (torch.randn(4), idx(3)), (1,)),
    ("tensor_index_cpu_self", lambda i: torch.eye(4)[i], (idx(3),), ()),
    # targets
    ("cross_entropy_cpu_target", lambda x, y: F.cross_entropy(x, y), (x34(), idx(3)), (1,)),
    ("nll_loss_cpu_target", lambda x, y: F.nll_loss(x.log_softmax(1), y), (x34(), idx(3)), (1,)),
    ("mse_cpu_target", lambda x, y: F.mse_loss(x, y), (x34(), x34()), (1,)),
    ("model_cpu_input", lambda m, x: m(x), (torch.nn.Linear(4, 2), x34()), (1,)),
    # masks
    ("masked_fill_cpu_mask", lambda x, m: x.masked_fill(m, 0.0), (x34(), x34() > 0), (1,)),
    ("masked_fill_0d_cpu_mask", lambda x, m: x.masked_fill(m, 0.0), (x34(), torch.tensor(True)), (1,)),
    ("masked_fill__cpu_mask", lambda x, m: x.clone().masked_fill_(m, 0.0), (x34(), x34() > 0), (1,)),
    ("where_cpu_mask", lambda x, m: torch.where(m, x, 0.0), (x34(), x34() > 0), (1,)),
    ("masked_select_cpu_mask", lambda x, m: torch.masked_select(x, m), (x34(), x34() > 0), (1,)),
    ("multiply_cpu_mask", lambda x, m: x * m, (x34(), x34() > 0), (1,)),
    # tensors made inside without device=
    ("arange_no_device", lambda x: x + torch.arange(4), (x34(),), ()),
    ("full_no_device", lambda x: torch.full((3, 4), 0.5) * x, (x34(),), ()),
    ("index_put_cpu_value", lambda x, i: x.index_put((i,), torch.zeros(2, 4)), (x34(), idx(2)), (1,)),
    ("cat_cpu_part", lambda x: torch.cat([x, torch.zeros(1, 4)]), (x34(),), ()),
    ("returned_on_cpu", lambda x: torch.zeros(3), (x34(),), ()),
]

OK = [
    # moved or made on the device, every spelling
    ("gather_moved_to", lambda x, i: x.gather(1, i.to(x.device)), (x34(), idx(3, 1)), (1,)),
    ("gather_on_device", lambda x, i: x.gather(1, i), (x34(), idx(3, 1)), ()),
    ("scatter_as_tensor_device", lambda x, i: torch.zeros_like(x).scatter_(1, torch.as_tensor(i, device=x.device), 1.0),
     (x34(), idx(3, 1)), (1,)),
    ("embedding_moved", lambda e, i: e(i.to(e.weight.device)), (torch.nn.Embedding(5, 3), idx(4, high=5)), (1,)),
    ("cross_entropy_moved", lambda x, y: F.cross_entropy(x, y.to(x.device)), (x34(), idx(3)), (1,)),
    ("one_hot_moved", lambda x, i: (F.one_hot(i.to(x.device), 4) * x).sum(), (x34(), idx(3)), (1,)),
    ("masked_fill_moved_mask", lambda x, m: x.masked_fill(m.to(x.device), 0.0), (x34(), x34() > 0), (1,)),
    ("arange_device", lambda x: x + torch.arange(4, device=x.device), (x34(),), ()),
    ("new_full", lambda x: x.new_full((3, 4), 0.5) * x, (x34(),), ()),
    ("model_input_moved", lambda m, x: m(x.to(next(m.parameters()).device)), (torch.nn.Linear(4, 2), x34()), (1,)),
    # 0-dim CPU tensors are scalars to CUDA's TensorIterator (and to where, masked_fill's value, index_put_'s value)
    ("add_0d_cpu", lambda x: x + torch.tensor(2.0), (x34(),), ()),
    ("mul_0d_cpu_first", lambda x: torch.tensor(2.0) * x, (x34(),), ()),
    ("where_0d_cpu", lambda x: torch.where(x > 0, x, torch.tensor(0.0)), (x34(),), ()),
    ("masked_fill_0d_cpu_value", lambda x: x.masked_fill(x > 0, torch.tensor(0.0)), (x34(),), ()),
    ("clamp_0d_cpu", lambda x: torch.maximum(x, torch.tensor(0.0)), (x34(),), ()),
    # advanced indexing takes CPU index tensors on CUDA (TensorAdvancedIndexing.cpp)
    ("index_cpu_indices", lambda x, i: x[i], (x34(), idx(2)), (1,)),
    ("index_cpu_arange", lambda x, i: x[torch.arange(3), i], (x34(), idx(3, high=4)), ()),
    ("index_put_cpu_indices", lambda x, i: x.clone().index_put_((torch.arange(3), i), torch.tensor(1.0)),
     (x34(), idx(3, high=4)), (1,)),
    ("setitem_cpu_arange_scalar", lambda x, i: x.clone().__setitem__((torch.arange(3), i), 0.9),
     (x34(), idx(3, high=4)), ()),
    # copies cross devices by design
    ("copy_from_cpu", lambda x: x.clone().copy_(torch.ones(3, 4)), (x34(),), ()),
    # needs the data: inconclusive, recorded as ok
    ("item", lambda x: x.sum().item(), (x34(),), ()),
    ("nonzero", lambda x: x.nonzero(), (x34(),), ()),
    # sizes only
    ("expand_as_cpu", lambda x: torch.ones(1, 4, device=x.device).expand_as(torch.ones(3, 4)), (x34(),), ()),
]


@pytest.mark.parametrize("name,fn,args,keep", BUGS, ids=[b[0] for b in BUGS])
def test_cuda_refuses(name, fn, args, keep):
    assert device_verdict(fn, *args, keep=keep) == "device bug"


@pytest.mark.parametrize("name,fn,args,keep", OK, ids=[o[0] for o in OK])
def test_cuda_accepts(name, fn, args, keep):
    assert device_verdict(fn, *args, keep=keep) == "device ok"


def test_meta_alone_is_lenient():
    """Why the rules exist: without them, these CPU indices pass on meta (if this fails, torch's meta
    kernels became strict, and the rules for these ops are merely redundant)."""
    x, i = torch.empty(3, 4, device="meta"), idx(3, 1)
    assert x.gather(1, i).device.type == "meta"
    assert x.index_select(0, i[:, 0]).device.type == "meta"
    assert F.embedding(i[:, 0], x).device.type == "meta"
    with pytest.raises(RuntimeError, match="same device"), devicerules.CudaDeviceRules():
        x.gather(1, i)


def test_keep_by_keyword_and_position():
    def loss(x, y=None):
        return F.nll_loss(x.log_softmax(1), y)

    assert device_verdict(loss, x34(), y=idx(3), keep=("y",)) == "device bug"
    assert device_verdict(loss, x34(), y=idx(3)) == "device ok"
    obs = Observations("ex0_0", 1)
    assert obs.on_meta("d", lambda x, i: x.gather(1, i), x34(), idx(3, 1), keep=(1,)) == "device bug"
    assert obs.items[-1]["value"] == {"t": "str", "v": "device bug"}


def test_the_rules_read_the_installed_torch():
    """The TensorIterator/same-device split comes from the native_functions.yaml torch was built from."""
    table = devicerules.device_check_table()
    assert table is not None, "torchgen's native_functions.yaml not found: only the fallback rule applies"
    assert table["add.Tensor"] == "ti" and table["where.self"] == "ti" and table["copy_"] == "nocheck"
    for name in ("gather", "index_select", "nll_loss_forward", "scatter.src", "embedding", "masked_select"):
        assert name not in table, name  # the generated CUDA wrapper checks every tensor argument


def test_the_rules_are_off_outside_device_verdict():
    x = torch.empty(3, 4, device="meta")
    assert x.gather(1, idx(3, 1)).device.type == "meta"  # no mode left behind


def _cuda_verdict(fn, *args, keep=()):
    """device_verdict's question asked of CUDA itself: the same call with the arguments on the GPU."""
    import copy

    from autograder.probe import verdict_of

    def move(v):
        if isinstance(v, torch.nn.Module):
            return copy.deepcopy(v).to("cuda")
        return v.to("cuda") if isinstance(v, torch.Tensor) else v

    args = tuple(a if i in keep else move(a) for i, a in enumerate(args))

    def call():
        out = fn(*args)
        torch.cuda.synchronize()  # an asynchronous CUDA error shows here
        return out
    return verdict_of(call, "cuda")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this runner")
@pytest.mark.parametrize("name,fn,args,keep,want", [b + ("device bug",) for b in BUGS] + [o + ("device ok",) for o in OK],
                         ids=[b[0] for b in BUGS] + [o[0] for o in OK])
def test_cuda_agrees(name, fn, args, keep, want):
    """GPU tier: CUDA gives every case above the verdict the rules give it on meta."""
    assert _cuda_verdict(fn, *args, keep=keep) == want
