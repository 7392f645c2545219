"""Random small PyTorch programs keep PyTorch's meaning at every level (bench/program_fuzz.py):
a fixed set of seeds, and the programs the fuzzer found bugs with (an unbatched max pool,
reductions over a dim of a 0-d tensor, an executor's flipped view, a dead reduce loop in
fuse-loops, a padded matmul tile's flipped read below 0, a reduce shared across blocks, a sort
of sums fused twice), each run on the torch, tensor, loop, tile and kernel executors against
PyTorch in float64."""

from __future__ import annotations

import pytest
import torch

from dpl.bench.program_fuzz import RandomProgram, check, random_program

SEEDS = range(12)

#: (source, input shapes) of the programs that found bugs (as the fuzzer printed them)
FOUND = {
    "unbatched_max_pool": ("""def program(a0, w2):
    v0 = F.max_pool2d(a0, 3, 1, 1)
    v1 = v0 @ w2
    v2 = torch.log1p(torch.abs(v1))
    v3 = torch.log_softmax(v2, -2)
    v4 = torch.cat([v3, v1], -3)
    v5 = v4.mean(-3, keepdim=False)
    return v5
""", [(2, 17, 8), (8, 3)]),
    "dims_of_0d": ("""def program(a0, a1):
    v0 = torch.stack([a1, a1 * 2.0], 0)
    v1 = v0.sum()
    v2 = torch.sigmoid(v1)
    v3 = torch.sin(v2)
    v4 = v3 * torch.rsqrt(v3.pow(2).mean(-1, keepdim=True) + 1e-6)
    v5 = v4.expand(3, *v4.shape)
    return v5, v2
""", [(1,), (1,)]),
    "flipped_view": ("""def program(a0, a1):
    v0 = torch.tril(a1)
    v1 = torch.exp(-torch.abs(v0))
    v2 = v1.transpose(-2, 0)
    v3 = v2[1:]
    v4 = torch.log_softmax(v3, 1)
    v5 = v4.flip(0)
    return v5
""", [(17, 7), (17, 7)]),
    "dead_reduce_loop": ("""def program(a0):
    v0 = a0.sum(-1, keepdim=True)
    v1 = torch.topk(v0, 1 + v0.shape[0] // 3, 0)[0]
    v2 = torch.roll(v1, 1, -1)
    v3 = F.gelu(v2)
    v4 = torch.abs(v3)
    v5 = -v4
    return v5
""", [(31,)]),
    "matmul_flipped": ("""def program(a0, w2):
    v0 = a0 + a0
    v1 = v0 @ w2
    v2 = v1.flip(1)
    return v2
""", [(17, 33), (33, 9)]),
    "argmax_broadcast_flat_tile": ("""def program(a0):
    v0 = a0.argmax(0).to(a0.dtype)
    v1 = v0.permute(*reversed(range(v0.dim())))
    return torch.maximum(v1, a0)
""", [(3, 1, 32, 13)]),
    "sort_of_row_sums": ("""def program(a1, w3):
    v1 = a1 @ w3
    v2 = torch.einsum('...i,...i->...', v1, v1)
    return torch.sort(v2, -1)[0]
""", [(33, 33), (33, 16)]),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_matches_pytorch(seed: int):
    prog = random_program(seed)
    status, why = check(prog, sms=4 if seed % 2 else None)
    assert status == "ok", f"seed {seed}: {status} {why}\n{prog.source}"


@pytest.mark.parametrize("name", sorted(FOUND))
@pytest.mark.parametrize("sms", [None, 4])
def test_programs_that_found_bugs(name: str, sms: int | None):
    source, shapes = FOUND[name]
    gen = torch.Generator().manual_seed(0)
    prog = RandomProgram(source, [torch.randn(s, dtype=torch.float64, generator=gen) for s in shapes])
    status, why = check(prog, sms)
    assert status == "ok", f"{name}: {status} {why}"


@pytest.mark.parametrize("seed", [0, 5])
def test_float32_programs_of_mid_sizes_match_pytorch(seed: int):
    """float32 at sizes the tensor cores take (3xTF32 on the kernel executor), each level within
    8 times eager float32's error."""
    prog = random_program(seed, mid=True)
    status, why = check(prog, sms=4 if seed % 2 else None, dtype=torch.float32)
    assert status == "ok", f"seed {seed}: {status} {why}\n{prog.source}"


#: float32 programs (as --f32 printed them) that found bugs of the float32-only passes
FOUND_F32 = {
    # P @ V on the tensor cores with V = where(tril mask, x, 0) read the bool mask as a float4
    "attention_of_masked_value": ("""def program(a0):
    return F.scaled_dot_product_attention(torch.tril(a0), a0, a0)
""", [(128, 128)]),
    # vectorize-access read the map of a 0-d output stored in a loop (an IndexError)
    "scalar_output_in_a_loop": ("""def program(a1, w6):
    v0 = torch.einsum('...i,...i->...', a1, a1)
    v1 = F.softplus(v0)
    v2 = F.softplus(v1)
    v3 = v2 * a1
    v4 = F.linear(v3, w6)
    return v4, v2
""", [(160,), (17, 160)]),
}


@pytest.mark.parametrize("name", sorted(FOUND_F32))
def test_float32_programs_that_found_bugs(name: str):
    source, shapes = FOUND_F32[name]
    gen = torch.Generator().manual_seed(0)
    prog = RandomProgram(source, [torch.randn(s, dtype=torch.float64, generator=gen) for s in shapes])
    status, why = check(prog, None, torch.float32)
    assert status == "ok", f"{name}: {status} {why}"


def test_programs_are_drawn_the_same_way_each_time():
    a, b = random_program(7), random_program(7)
    assert a.source == b.source and all((x == y).all() for x, y in zip(a.inputs, b.inputs))
    assert len({random_program(s).source for s in range(8)}) == 8
