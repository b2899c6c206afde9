"""Claims of notebook 11's exercise 11.5 (random streams per sample) about seeds, on the installed torch.

The exercise text says what a seed packing can promise with a CPU ``torch.Generator``: it keeps only the
low 32 bits of its seed, so there are fewer streams than triples ``(seed, epoch, i)``; the three packings it
names share streams by construction; the mix of its hint shares none within one seed (epochs below 4000,
indices below ``10**6``) and none between two seeds at one epoch and index.  Each is checked here, the
packings through the answers of ``tests/answers/`` and the mix through the reference solution's own class.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from support import ROOT
from torch.utils.data import Dataset

from autograder.values import course

ANSWERS = ROOT / "tests" / "answers" / "11_data_pipeline" / "ex11_5"
P = 1_000_003  # the hint's multiplier


def noise_of(cls, seed: int, epoch: int, i: int) -> torch.Tensor:
    """The noise ``cls`` (a SeededNoise) adds to sample ``i`` at ``epoch`` under ``seed``, as float64."""
    ds = cls(torch.zeros(i + 1, 4, dtype=torch.float64), torch.zeros(i + 1), 1.0, seed)
    ds.set_epoch(epoch)
    return ds[i][0]


def answer_class(source: str):
    space = {"torch": torch, "np": np, "Dataset": Dataset}
    exec(compile(source, "answer", "exec"), space)  # noqa: S102 - the course's own answer files
    return space["SeededNoise"]


def reference_class():
    solution = course.read(ROOT / "solutions" / "11_data_pipeline" / "11_data_pipeline.ipynb")
    cell = next(c for c in solution.cells if course.grade_id(c) == "ex11_5_solution")
    return answer_class("".join(line for line in cell.source.splitlines(keepends=True) if "###" not in line))


@pytest.mark.parametrize("seed", [0, 7, 2**31 - 1, 2**40 + 5])
def test_a_cpu_generator_keeps_the_low_32_bits_of_its_seed(seed):
    def draw(s, dtype):
        return torch.randn(5, generator=torch.Generator().manual_seed(s), dtype=dtype)

    for dtype in (torch.float16, torch.float32, torch.float64):
        assert torch.equal(draw(seed, dtype), draw(seed + 2**32, dtype))
        assert not torch.equal(draw(seed, dtype), draw(seed + 1, dtype))
    torch.Generator().manual_seed(2**64 - 1)
    with pytest.raises((RuntimeError, ValueError, OverflowError)):  # "refuses a number of 2**64 or more"
        torch.Generator().manual_seed(2**64)
    assert 2 * 10**21 < 2**31 * 10**6 * 10**6 < 3 * 10**21  # "2 × 10**21 triples"


def test_the_packings_the_text_names_share_streams_by_construction():
    additive = answer_class((ANSWERS / "wrong_additive_seed.py").read_text())
    assert torch.equal(noise_of(additive, 5, 1, 0), noise_of(additive, 5, 0, 1))
    decimal = answer_class((ANSWERS / "wrong_decimal_packing.py").read_text())
    assert torch.equal(noise_of(decimal, 5, 1, 0), noise_of(decimal, 5, 0, 100))
    assert not torch.equal(noise_of(decimal, 5, 0, 99), noise_of(decimal, 5, 1, 0))  # "from i = 100 on"
    bits = answer_class((ANSWERS / "wrong_bit_packing.py").read_text())
    for epoch, i in ((0, 0), (3, 17), (999, 999_999)):  # "the same noise for every seed"
        assert torch.equal(noise_of(bits, 12345, epoch, i), noise_of(bits, 2**31 - 1, epoch, i))


def test_the_hints_mix_shares_no_stream_within_a_seed_nor_between_seeds_at_one_place():
    # The generator keeps (seed * P**2 + epoch * P + i) mod 2**32.  Within one seed, two triples differ by
    # d_epoch * P + d_i with |d_epoch| < 4000 and |d_i| < 10**6: never 0, and always less than 2**32 in size,
    # so never 0 modulo 2**32.  Between seeds at one (epoch, i), by d_seed * P**2 with P odd and
    # 0 < |d_seed| < 2**31: never a multiple of 2**32.
    assert P > 10**6 - 1 and 3999 * P + 10**6 - 1 < 2**32 and P % 2 == 1
    reference = reference_class()
    seed = 1_234_567
    corners = [(e, i) for e in (0, 1, 2, 3998, 3999) for i in (0, 1, 45_589, 999_998, 999_999)]
    seen = {tuple(noise_of(reference, seed, e, i).tolist()) for e, i in corners}
    assert len(seen) == len(corners)
    at_one_place = {tuple(noise_of(reference, s, 3999, 999_999).tolist()) for s in (0, 1, 2**30, 2**31 - 1)}
    assert len(at_one_place) == 4
    # past the range the text gives, the mix does share streams, as any must: 4294 * P + 954_414 == 2**32
    assert 4294 * P + 954_414 == 2**32
    assert torch.equal(noise_of(reference, seed, 4294, 954_414), noise_of(reference, seed, 0, 0))
