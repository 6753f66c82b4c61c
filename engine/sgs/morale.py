"""Battle morale: how long a side keeps fighting.

A side's battle morale is its leader's morale, plus the mean morale of its
combat units rounded to a whole number (as :attr:`~.rules.SgsRules.mean_rounding`
says), plus +1 with aircraft present, +1 with armour present, +1 more with
armour superiority (at least two armour units and at least twice the
enemy's), plus boosters and the scenario bonus.
It is worked out again every round from the units still fighting, less the
drops the side has suffered so far: one per unit eliminated or panicked, one
per next round, one per round of heavy losses.

>>> bm = battle_morale(2, [3, 4, 4], air=True, armour=2, enemy_armour=1, booster=1, scenario=0, drops=1)
>>> bm.mean, bm.superiority, bm.total
(4, 1, 9)
>>> armour_superiority(2, 0), armour_superiority(1, 0), armour_superiority(4, 2), armour_superiority(5, 3)
(True, False, True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["MoraleBreakdown", "battle_morale", "mean_morale", "armour_superiority", "heavy_losses"]


def armour_superiority(own: int, enemy: int) -> bool:
    """At least two armour units and at least double the enemy's count."""
    return own >= 2 and own >= 2 * enemy


def mean_morale(morales: Sequence[int], rounding: str = "half up") -> int:
    """Mean morale of the combat units, rounded to a whole number (0 without units): to the nearest, a half
    up (``"half up"``) or to the even one (``"half even"``), or up to the next whole value (``"up"``).

    >>> mean_morale([3, 4]), mean_morale([3, 4], "half even"), mean_morale([2, 3], "half even")
    (4, 4, 2)
    >>> mean_morale([1, 1, 2]), mean_morale([1, 1, 2], "up"), mean_morale([2, 2], "up")
    (1, 2, 2)
    """
    if not morales:
        return 0
    exact = Fraction(sum(morales), len(morales))
    if rounding == "half even":
        return round(exact)
    if rounding == "up":
        return exact.__ceil__()
    return int((exact + Fraction(1, 2)).__floor__())


def heavy_losses(lost: int, present_at_start: int) -> bool:
    """More than half the strength present at the round's start was lost in it.

    >>> heavy_losses(5, 9), heavy_losses(4, 9), heavy_losses(4, 8)
    (True, False, False)
    """
    return 2 * lost > present_at_start


@dataclass(frozen=True)
class MoraleBreakdown:
    """Every term of a side's battle morale."""

    leader: int
    mean: int
    air: int
    armour: int
    superiority: int
    booster: int
    scenario: int
    drops: int
    card: int = 0
    """Battle morale changed by cards played in the card round."""

    @property
    def total(self) -> int:
        return (self.leader + self.mean + self.air + self.armour + self.superiority
                + self.booster + self.scenario + self.card - self.drops)

    def to_json(self) -> dict[str, Any]:
        return {"leader": self.leader, "mean": self.mean, "air": self.air, "armour": self.armour,
                "superiority": self.superiority, "booster": self.booster, "scenario": self.scenario,
                "card": self.card, "drops": self.drops, "total": self.total}


def battle_morale(leader: int, morales: Sequence[int], *, air: bool, armour: int, enemy_armour: int,
                  booster: int = 0, scenario: int = 0, drops: int = 0, rounding: str = "half up",
                  card: int = 0) -> MoraleBreakdown:
    """A side's battle morale with every term.

    ``morales`` are the base morales of the combat units still fighting;
    ``armour`` and ``enemy_armour`` count armour units on each side.
    """
    return MoraleBreakdown(leader=leader, mean=mean_morale(morales, rounding), air=1 if air else 0,
                           armour=1 if armour else 0,
                           superiority=1 if armour_superiority(armour, enemy_armour) else 0,
                           booster=booster, scenario=scenario, drops=drops, card=card)
