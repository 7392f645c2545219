"""Search over a kernel's schedule space: evolutionary search seeded by the cost model, or random.

    space = Space({"rows": (1, 2, 4, 8), "k_tile": (8, 16, 32, 64), ...})
    search = make_search("evolve", space, seeds=[default_point, ...], seed=0)
    for point in search.propose(8):         # new points, never one proposed before
        search.tell(point, measure(point))  # its time, or None where it is illegal or wrong

Both methods measure the seeds first: the heuristics' own pick (the launch model's choice, see
`schedule.default_point`) and, for `evolve`, the model's runner-ups (the schedule's other matmul
tile, the epilogue split the other way). Then:

- `random`: uniformly random points of the space, without repeats (every point once where the
  space is no larger than what is asked of it);
- `evolve`: until 12 results are in, half the new points are random (a first look around the
  space); the others, and all later ones, are children of parents picked by tournament among
  the best points measured so far: a mutation (one option, sometimes two or three, moved to a
  neighbouring choice, now and then to any choice), a uniform crossover of two parents, or, one
  time in three, a parent with about half its options set to the choice whose measured points
  are fastest on average (a per-option model of the cost fitted to the measurements). The
  choices of an option are listed so that neighbours are alike (k-tile 16 next to 32), which is
  what makes small steps from good points pay: a schedule's time changes smoothly along most
  options, and only a few options matter much for a given kernel, which random sampling of a
  product space of ten options spends most of its trials ignoring.

`best(search)` is the fastest point told so far. The search is deterministic for a given seed and
sequence of results, so the comparison of the methods (bench/tune_methods.py on the GPU,
tests/test_tune_search.py on a synthetic cost) is repeatable.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from dpl.driver.tune_cache import canonical

Point = dict[str, Any]
METHODS = ("evolve", "random")


class Space:
    """A product of option choices (name -> choices, in neighbour order)."""

    def __init__(self, dims: Mapping[str, Sequence[Any]]):
        self.dims = {k: tuple(v) for k, v in dims.items()}

    @property
    def size(self) -> int:
        return math.prod(len(v) for v in self.dims.values())

    def random(self, rng: random.Random) -> Point:
        return {k: rng.choice(v) for k, v in self.dims.items()}

    def complete(self, point: Mapping[str, Any]) -> Point:
        """`point` with every dimension it lacks at its first choice, and only this space's."""
        return {k: point.get(k, v[0]) for k, v in self.dims.items()}

    def all(self) -> Iterable[Point]:
        points: list[Point] = [{}]
        for k, v in self.dims.items():
            points = [{**p, k: c} for p in points for c in v]
        return points

    def mutate(self, point: Point, rng: random.Random) -> Point:
        """One option (sometimes two or three) moved to a neighbouring choice (one time in five
        to any choice)."""
        names = [k for k, v in self.dims.items() if len(v) > 1]
        if not names:
            return dict(point)
        new = dict(point)
        count = min(len(names), rng.choices((1, 2, 3), weights=(6, 3, 1))[0])
        for name in rng.sample(names, count):
            choices = self.dims[name]
            i = choices.index(new[name]) if new[name] in choices else 0
            if rng.random() < 0.2:
                j = rng.choice([c for c in range(len(choices)) if c != i])
            else:
                j = min(len(choices) - 1, max(0, i + rng.choice((-1, 1))))
                if j == i:
                    j = i + 1 if i == 0 else i - 1
            new[name] = choices[j]
        return new

    def crossover(self, a: Point, b: Point, rng: random.Random) -> Point:
        return {k: (a if rng.random() < 0.5 else b)[k] for k in self.dims}


class Search:
    """What both methods share: seeds first, no point proposed twice, results by point."""

    name = ""

    def __init__(self, space: Space, seeds: Sequence[Mapping[str, Any]] = (), seed: int = 0,
                 normalize: Callable[[Point], Point] | None = None):  # fmt: skip
        self.space = space
        self.normalize = normalize  # a point as it schedules (options it leaves unused at one value)
        self.rng = random.Random(seed)
        self.seen: set[str] = set()
        self.results: dict[str, tuple[Point, float | None]] = {}
        self._seeds = [space.complete(s) for s in seeds]

    def tell(self, point: Mapping[str, Any], us: float | None) -> None:
        """The result of `point` (its time, or None where it cannot run or runs wrong); a point
        told without being proposed (a result from the cache) counts as proposed."""
        key = canonical(point)
        self.seen.add(key)
        self.results[key] = (dict(point), us)

    def propose(self, n: int) -> list[Point]:
        """Up to `n` points never proposed before (fewer once the space runs out)."""
        out: list[Point] = []
        while self._seeds and len(out) < n:
            p = self._seeds.pop(0)
            if self._take(p):
                out.append(p)
        if len(out) < n and len(self.seen) < self.space.size:
            out += self._propose(n - len(out))
        return out

    def _take(self, point: Point) -> bool:
        """Whether `point` (normalized in place) is new; it is proposed from now on."""
        if self.normalize is not None:
            point.update(self.normalize(point))
        key = canonical(point)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def _propose(self, n: int) -> list[Point]:
        raise NotImplementedError

    def _unseen_random(self, tries: int = 200) -> Point | None:
        for _ in range(tries):
            p = self.space.random(self.rng)
            if self._take(p):
                return p
        if self.space.size <= 100_000:  # nearly exhausted: take the first point left
            for p in self.space.all():
                if self._take(p):
                    return p
        return None

    def measured(self) -> list[tuple[Point, float]]:
        """The points with a time, fastest first."""
        ok = [(p, us) for p, us in self.results.values() if us is not None]
        return sorted(ok, key=lambda r: r[1])


class RandomSearch(Search):
    name = "random"

    def _propose(self, n: int) -> list[Point]:
        out = []
        for _ in range(n):
            p = self._unseen_random()
            if p is None:
                break
            out.append(p)
        return out


class EvolveSearch(Search):
    name = "evolve"

    #: Parents are drawn from this many of the best points, by tournaments of TOURNAMENT.
    ELITE = 8
    TOURNAMENT = 3
    #: Until this many results are in, half the new points are random (a first look around).
    EXPLORE = 12

    def _parent(self, ranked: list[tuple[Point, float]]) -> Point:
        pool = ranked[: self.ELITE]
        picks = [self.rng.randrange(len(pool)) for _ in range(min(self.TOURNAMENT, len(pool)))]
        return pool[min(picks)][0]

    def _guided(self, parent: Point, ranked: list[tuple[Point, float]]) -> Point:
        """`parent` with about half its options set to the choice whose measured points are
        fastest on average (geometric mean): a model of the cost, one option at a time, fitted to
        what was measured."""
        child = dict(parent)
        for name in self.space.dims:
            logs: dict[Any, list[float]] = {}
            for p, us in ranked:
                logs.setdefault(p[name], []).append(math.log(max(us, 1e-9)))
            if len(logs) > 1 and self.rng.random() < 0.5:
                child[name] = min(logs, key=lambda c: sum(logs[c]) / len(logs[c]))
        return self.space.mutate(child, self.rng) if self.rng.random() < 0.5 else child

    def _child(self, ranked: list[tuple[Point, float]]) -> Point:
        r = self.rng.random()
        if len(ranked) >= 4 and r < 0.3:
            return self._guided(self._parent(ranked), ranked)
        if len(ranked) >= 2 and r < 0.55:
            child = self.space.crossover(self._parent(ranked), self._parent(ranked), self.rng)
            return self.space.mutate(child, self.rng) if self.rng.random() < 0.5 else child
        return self.space.mutate(self._parent(ranked), self.rng)

    def _propose(self, n: int) -> list[Point]:
        ranked = self.measured()
        out: list[Point] = []
        for _ in range(n):
            p = None
            explore = not ranked or (len(self.results) < self.EXPLORE and self.rng.random() < 0.5)
            for _attempt in range(0 if explore else 50):
                child = self._child(ranked)
                if self._take(child):
                    p = child
                    break
            if p is None:
                p = self._unseen_random()
            if p is None:
                break
            out.append(p)
        return out


def make_search(method: str, space: Space, seeds: Sequence[Mapping[str, Any]] = (), seed: int = 0,
                normalize: Callable[[Point], Point] | None = None) -> Search:  # fmt: skip
    """A search by `method` ("evolve" or "random"); random keeps only the first seed (the
    default schedule, which every run measures as the reference). `normalize` maps a point to
    the one that schedules alike with its unused options at one value, so that points differing
    only there are proposed once (a tensor-core point's SIMT options)."""
    if method == "evolve":
        return EvolveSearch(space, seeds, seed, normalize)
    if method == "random":
        return RandomSearch(space, list(seeds)[:1], seed, normalize)
    raise ValueError(f"unknown search method '{method}' (known: {', '.join(METHODS)})")


def best(search: Search) -> tuple[Point, float] | None:
    ranked = search.measured()
    return ranked[0] if ranked else None
