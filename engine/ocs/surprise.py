"""Action ratings, the combat die roll modifier and surprise.

Each side picks one unit whose action rating (AR) speaks for it. Two
numbers come from the pair:

* the combat DRM, applied to the two-dice combat roll:
  attacker AR - defender AR - hedgehog level;
* the surprise differential, added to a separate two-dice surprise roll:
  attacker AR - defender AR, where the defender's rating counts one higher
  when the defenders hold a hedgehog of any level.

A high surprise total gives the attacker surprise, a low one the defender;
overruns use wider thresholds than regular attacks. The side with surprise
rolls one die and moves the odds column that many places its way.

>>> combat_drm(4, 2, hedgehog=1)
1
>>> surprise_differential(4, 2, hedgehog=1)
1
>>> surprise_chances(0, overrun=False)[Surprise.ATTACKER]
Fraction(1, 6)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from engine.dice import Dist, dice, die

__all__ = [
    "AttackKind",
    "Surprise",
    "Thresholds",
    "SURPRISE_THRESHOLDS",
    "HEDGEHOG_SURPRISE_BONUS",
    "SHIFT_DIE",
    "combat_drm",
    "surprise_differential",
    "surprise_for_total",
    "surprise_dist",
    "surprise_chances",
    "shift_dist",
]


class AttackKind(str, enum.Enum):
    """Regular attacks and overruns read different surprise thresholds."""

    REGULAR = "regular"
    OVERRUN = "overrun"

    @staticmethod
    def of(overrun: bool) -> AttackKind:
        """The kind named by an ``overrun`` flag."""
        return AttackKind.OVERRUN if overrun else AttackKind.REGULAR


class Surprise(str, enum.Enum):
    """Who, if anyone, wins surprise."""

    ATTACKER = "attacker"
    DEFENDER = "defender"
    NONE = "none"


@dataclass(frozen=True)
class Thresholds:
    """Surprise thresholds for one kind of attack, on the modified surprise total."""

    attacker_at_least: int
    """The attacker has surprise on this total or higher."""
    defender_at_most: int
    """The defender has surprise on this total or lower."""


SURPRISE_THRESHOLDS: dict[AttackKind, Thresholds] = {
    AttackKind.OVERRUN: Thresholds(attacker_at_least=9, defender_at_most=6),
    AttackKind.REGULAR: Thresholds(attacker_at_least=10, defender_at_most=5),
}
"""Surprise thresholds as the chart gives them (rule 9.8)."""

HEDGEHOG_SURPRISE_BONUS = 1
"""Added to the defender's rating for surprise when the defenders hold any hedgehog."""

SHIFT_DIE = 6
"""Sides of the die that says how many columns surprise moves the odds."""


def combat_drm(attacker_ar: int, defender_ar: int, hedgehog: int) -> int:
    """The combat roll modifier of rule 9.7.

    >>> combat_drm(3, 3, 0), combat_drm(2, 4, 2)
    (0, -4)
    """
    return attacker_ar - defender_ar - hedgehog


def surprise_differential(attacker_ar: int, defender_ar: int, hedgehog: int) -> int:
    """What the surprise roll adds: the hedgehog counts once, whatever its level.

    >>> surprise_differential(3, 2, 0), surprise_differential(3, 2, 3)
    (1, 0)
    """
    bonus = HEDGEHOG_SURPRISE_BONUS if hedgehog > 0 else 0
    return attacker_ar - (defender_ar + bonus)


def surprise_for_total(total: int, kind: AttackKind) -> Surprise:
    """Who has surprise on a modified surprise total.

    >>> surprise_for_total(9, AttackKind.OVERRUN), surprise_for_total(9, AttackKind.REGULAR)
    (<Surprise.ATTACKER: 'attacker'>, <Surprise.NONE: 'none'>)
    """
    limits = SURPRISE_THRESHOLDS[kind]
    if total >= limits.attacker_at_least:
        return Surprise.ATTACKER
    if total <= limits.defender_at_most:
        return Surprise.DEFENDER
    return Surprise.NONE


def surprise_dist(differential: int, overrun: bool) -> Dist[Surprise]:
    """The exact chance of each surprise outcome.

    >>> surprise_dist(0, overrun=True).probability(Surprise.NONE)  # totals 7 and 8
    Fraction(11, 36)
    """
    kind = AttackKind.of(overrun)
    return (dice(2, 6) + differential).map(lambda total: surprise_for_total(total, kind))


def surprise_chances(differential: int, overrun: bool) -> dict[Surprise, Fraction]:
    """Probability of every surprise outcome, zero ones included.

    >>> surprise_chances(5, overrun=False)[Surprise.DEFENDER]
    Fraction(0, 1)
    """
    dist = surprise_dist(differential, overrun)
    return {s: dist.probability(s) for s in Surprise}


def shift_dist(surprise: Surprise) -> Dist[int]:
    """Columns moved by surprise: right (+) for the attacker, left (-) for the defender.

    >>> shift_dist(Surprise.DEFENDER)
    Dist({-6: 1, -5: 1, -4: 1, -3: 1, -2: 1, -1: 1})
    """
    if surprise is Surprise.ATTACKER:
        return die(SHIFT_DIE)
    if surprise is Surprise.DEFENDER:
        return die(SHIFT_DIE).map(lambda n: -n)
    return Dist({0: 1})
