"""Exact dice distributions.

A :class:`Dist` is an immutable mapping from outcome to an integer count.
Probabilities are derived as :class:`~fractions.Fraction`; floats exist only
for display. Operations that look like mutation return a new distribution:

>>> d6 = die(6)
>>> two = d6 + d6
>>> two.probability(7)
Fraction(1, 6)
>>> (dice(3, 6) + 2).clamp(3, 18).probability(18)
Fraction(5, 108)
>>> Dist({2: 1, 3: 2, 4: 1})
Dist({2: 1, 3: 2, 4: 1})
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm
from typing import Any, Generic, TypeVar

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)

__all__ = ["Dist", "die", "dice", "roll", "prob_json", "Roll"]


class Dist(Mapping[T, int], Generic[T]):
    """An exact distribution: outcome -> positive integer count.

    Counts are kept reduced by their common divisor, so equal distributions
    compare equal however they were built.

    >>> Dist({"hit": 2, "miss": 4}) == Dist({"hit": 1, "miss": 2})
    True
    """

    __slots__ = ("_counts",)

    def __init__(self, counts: Mapping[T, int]) -> None:
        cleaned = {k: int(v) for k, v in counts.items() if v}
        if any(v < 0 for v in cleaned.values()):
            raise ValueError("counts must not be negative")
        if not cleaned:
            raise ValueError("a distribution needs at least one outcome")
        g = 0
        for v in cleaned.values():
            g = gcd(g, v)
        self._counts: dict[T, int] = {k: v // g for k, v in cleaned.items()}

    # Mapping protocol -------------------------------------------------
    def __getitem__(self, outcome: T) -> int:
        return self._counts[outcome]

    def __iter__(self) -> Iterator[T]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def __repr__(self) -> str:
        try:
            items = sorted(self._counts.items())  # type: ignore[type-var]
        except TypeError:
            items = list(self._counts.items())
        return f"Dist({dict(items)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dist):
            return self._counts == other._counts
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._counts.items()))

    # Probabilities ----------------------------------------------------
    @property
    def total(self) -> int:
        """Sum of all counts (the denominator of every probability)."""
        return sum(self._counts.values())

    def probability(self, outcome: T) -> Fraction:
        """Exact probability of one outcome (0 if it cannot happen)."""
        return Fraction(self._counts.get(outcome, 0), self.total)

    def probabilities(self) -> dict[T, Fraction]:
        """Every outcome with its exact probability, in outcome order."""
        total = self.total
        return {k: Fraction(v, total) for k, v in self._sorted_items()}

    def p_where(self, predicate: Callable[[T], bool]) -> Fraction:
        """Probability that ``predicate(outcome)`` holds.

        >>> dice(2, 6).p_where(lambda t: t >= 10)
        Fraction(1, 6)
        """
        hits = sum(v for k, v in self._counts.items() if predicate(k))
        return Fraction(hits, self.total)

    def at_least(self, threshold: Any) -> Fraction:
        """P(outcome >= threshold) for ordered outcomes."""
        return self.p_where(lambda k: k >= threshold)  # type: ignore[operator]

    def at_most(self, threshold: Any) -> Fraction:
        """P(outcome <= threshold) for ordered outcomes."""
        return self.p_where(lambda k: k <= threshold)  # type: ignore[operator]

    def mean(self) -> Fraction:
        """Exact expected value of numeric outcomes."""
        return Fraction(sum(k * v for k, v in self._counts.items()), self.total)  # type: ignore[operator]

    # Building new distributions ----------------------------------------
    def map(self, f: Callable[[T], U]) -> Dist[U]:
        """Relabel outcomes; outcomes that map together add their counts.

        >>> die(6).map(lambda x: x >= 5)
        Dist({False: 2, True: 1})
        """
        out: dict[U, int] = {}
        for k, v in self._counts.items():
            key = f(k)
            out[key] = out.get(key, 0) + v
        return Dist(out)

    def bind(self, f: Callable[[T], Dist[U]]) -> Dist[U]:
        """Follow each outcome with a distribution that depends on it.

        This is how a two-stage procedure is enumerated exactly, e.g. a
        surprise roll followed by a column shift roll.

        >>> die(2).bind(lambda x: die(6) if x == 1 else Dist({0: 1}))
        Dist({0: 6, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1})
        """
        branches = [(v, f(k)) for k, v in self._counts.items()]
        common = lcm(*(b.total for _, b in branches))
        out: dict[U, int] = {}
        for weight, branch in branches:
            scale = weight * (common // branch.total)
            for k, v in branch._counts.items():
                out[k] = out.get(k, 0) + v * scale
        return Dist(out)

    def clamp(self, low: Any, high: Any) -> Dist[T]:
        """Pile outcomes beyond ``[low, high]`` onto the nearest end.

        >>> (die(6) + 3).clamp(1, 7)
        Dist({4: 1, 5: 1, 6: 1, 7: 3})
        """
        return self.map(lambda k: min(max(k, low), high))  # type: ignore[type-var]

    def __add__(self, other: Dist[Any] | int) -> Dist[Any]:
        """Sum of independent rolls, or a fixed modifier."""
        if isinstance(other, int):
            return self.map(lambda k: k + other)  # type: ignore[operator]
        out: dict[Any, int] = {}
        for a, ca in self._counts.items():
            for b, cb in other._counts.items():
                key = a + b  # type: ignore[operator]
                out[key] = out.get(key, 0) + ca * cb
        return Dist(out)

    __radd__ = __add__

    def __sub__(self, other: int) -> Dist[Any]:
        return self + (-other)

    def _sorted_items(self) -> list[tuple[T, int]]:
        try:
            return sorted(self._counts.items())  # type: ignore[type-var]
        except TypeError:
            return list(self._counts.items())


def die(sides: int) -> Dist[int]:
    """One fair die numbered 1..sides.

    >>> die(6).probability(3)
    Fraction(1, 6)
    """
    if sides < 1:
        raise ValueError("a die needs at least one side")
    return Dist({face: 1 for face in range(1, sides + 1)})


def dice(count: int, sides: int) -> Dist[int]:
    """The sum of ``count`` fair dice: ``dice(3, 6)`` is 3d6.

    >>> dice(3, 6).probability(10)
    Fraction(1, 8)
    """
    if count < 1:
        raise ValueError("roll at least one die")
    total = die(sides)
    for _ in range(count - 1):
        total = total + die(sides)
    return total


@dataclass(frozen=True)
class Roll:
    """One physical roll: the faces shown and their sum."""

    label: str
    """What the roll is for, e.g. ``"combat (3d6)"``."""
    faces: tuple[int, ...]
    """Each die as it landed."""

    @property
    def total(self) -> int:
        return sum(self.faces)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "faces": list(self.faces), "total": self.total}


def roll(rng: random.Random, count: int, sides: int, label: str) -> Roll:
    """Roll ``count`` dice with a seeded generator, so a seed replays it.

    >>> roll(random.Random(7), 3, 6, "combat").faces
    (3, 2, 4)
    """
    return Roll(label, tuple(rng.randint(1, sides) for _ in range(count)))


def prob_json(p: Fraction) -> dict[str, Any]:
    """An exact probability as JSON: the fraction as text plus a float for display.

    >>> prob_json(Fraction(5, 18))
    {'p': '5/18', 'float': 0.2777777777777778}
    """
    return {"p": f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator), "float": float(p)}
