"""Random small PyTorch programs keep PyTorch's meaning at every level (bench/program_fuzz.py):
a fixed set of seeds, among them the programs that found bugs (an unbatched max pool, reductions
over a dim of a 0-d tensor, an executor's flipped view, a dead reduce loop in fuse-loops), each
run on the torch, tensor, loop, tile and kernel executors against PyTorch in float64."""

from __future__ import annotations

import pytest

from dpl.bench.program_fuzz import check, random_program

SEEDS = [*range(12), 23, 35, 64, 69]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_matches_pytorch(seed: int):
    prog = random_program(seed)
    status, why = check(prog, sms=4 if seed % 2 else None)
    assert status == "ok", f"seed {seed}: {status} {why}\n{prog.source}"


def test_programs_are_drawn_the_same_way_each_time():
    a, b = random_program(7), random_program(7)
    assert a.source == b.source and all((x == y).all() for x, y in zip(a.inputs, b.inputs))
    assert len({random_program(s).source for s in range(8)}) == 8
