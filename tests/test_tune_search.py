"""The search methods on synthetic costs (no GPU): `evolve` finds faster schedules than `random`
at an equal number of trials, on the real matmul space, averaged over many random landscapes;
neither proposes a point twice, and both exhaust a small space."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from dpl.driver.tune import IN_FLIGHT
from dpl.driver.tune_cache import canonical
from dpl.driver.tune_search import Space, best, make_search
from dpl.transforms.tile.schedule import class_defaults, class_space


def synthetic(space: Space, seed: int):
    """A cost over `space`: each option has a best choice and costs more the further it is from
    it (a weight per option, most options mattering little), two options interact, and the
    corner where both are at their last choice is illegal (None), like a tile too big for
    shared memory."""
    rng = random.Random(seed)
    dims = space.dims
    best_at = {k: rng.randrange(len(v)) for k, v in dims.items()}
    weight = {k: rng.choice([0.01, 0.02, 0.05, 0.3, 0.6]) for k in dims}
    a, b = rng.sample(list(dims), 2)

    def cost(p):
        i = {k: dims[k].index(p[k]) for k in dims}
        if i[a] == len(dims[a]) - 1 and i[b] == len(dims[b]) - 1:
            return None
        t = math.prod(1 + weight[k] * abs(i[k] - best_at[k]) for k in dims)
        return t * (1 + 0.2 * abs((i[a] - best_at[a]) - (i[b] - best_at[b])))

    return cost


def run(method: str, space: Space, default: dict, cost, trials: int, seed: int) -> float:
    """The best cost found in `trials` points, proposed as the tuner does: IN_FLIGHT points
    out at a time, each result told as it comes back."""
    search = make_search(method, space, [default], seed)
    told, out = 0, []
    while told < trials:
        while len(out) < IN_FLIGHT and told + len(out) < trials and (p := search.propose(1)):
            out += p
        if not out:
            break
        p = out.pop(0)
        search.tell(p, cost(p))
        told += 1
    found = best(search)
    assert found is not None
    return found[1]


@pytest.mark.parametrize("trials", [32, 64])
def test_evolve_beats_random_at_equal_trials(trials: int):
    space = Space(class_space("matmul"))
    default = class_defaults("matmul", "sm_90", 132)
    found: dict[str, list[float]] = {"evolve": [], "random": []}
    for landscape in range(40):
        cost = synthetic(space, landscape)
        for method in found:
            found[method].append(run(method, space, default, cost, trials, 1000 + landscape))
    geo = {m: math.exp(statistics.mean(math.log(v) for v in vs)) for m, vs in found.items()}
    wins = sum(e < r for e, r in zip(found["evolve"], found["random"]))
    assert geo["evolve"] < 0.85 * geo["random"], geo
    assert wins >= 28, wins


@pytest.mark.parametrize("method", ["evolve", "random"])
def test_no_repeats_and_small_spaces_run_out(method: str):
    space = Space({"a": (1, 2, 3), "b": (True, False), "c": (8,)})
    search = make_search(method, space, [{"a": 2, "b": True}], seed=3)
    seen = []
    while True:
        points = search.propose(4)
        if not points:
            break
        for p in points:
            seen.append(canonical(p))
            search.tell(p, float(p["a"]))
    assert len(seen) == len(set(seen)) == space.size == 6
    assert seen[0] == canonical({"a": 2, "b": True, "c": 8})  # the default first
    assert best(search)[1] == 1.0


def test_results_from_the_cache_are_not_proposed_again():
    space = Space({"a": tuple(range(10))})
    search = make_search("evolve", space, [{"a": 0}], seed=0)
    for a in range(5):
        search.tell({"a": a}, 10.0 - a)
    rest = []
    while points := search.propose(3):
        rest += [p["a"] for p in points]
    assert sorted(rest) == [5, 6, 7, 8, 9]


def test_unknown_method_is_one_line():
    with pytest.raises(ValueError, match="unknown search method 'sa' \\(known: evolve, random\\)"):
        make_search("sa", Space({"a": (1,)}))
