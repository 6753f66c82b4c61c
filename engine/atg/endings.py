"""After the last round: the three endings, structures, missions, captured bases, cards and retreat direction.

>>> ending(attackers_left=0, defenders_left=3)
'defender_held'
>>> ending(attackers_left=2, defenders_left=0)
'attacker_won'
>>> ending(0, 0)
'standoff'
>>> retreat_side((0,))
3
>>> retreat_side((0,), enterable=(True, True, True, False, True, True))
2
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

__all__ = ["Ending", "ENDINGS", "ending", "retreat_side", "MAX_RETREAT_AP", "may_retreat_into", "structure_left",
           "carried_loss_share"]

Ending: TypeAlias = Literal["attacker_won", "defender_held", "standoff", "breakoff", "silenced", "continuing"]
"""How a battle ended; ``breakoff`` is the sea attack ending with no defending ship left, and
``silenced`` the end of a bombardment or air strike with no defender left fighting (or of a paradrop
whose aircraft are left with no paratrooper fighting on the ground): the attack did what it could, but
guns and aircraft never take the hex (the page ties taking it, and all that comes with it, to the hex
changing hands)."""
ENDINGS: Final[tuple[str, ...]] = ("attacker_won", "defender_held", "standoff", "breakoff", "silenced")

MAX_RETREAT_AP: Final = 100
"""A unit never retreats into a hex it could not enter with this many action points."""


def ending(attackers_left: int, defenders_left: int) -> str:
    """The victory check: who is still fighting decides; ``continuing`` while both sides are."""
    if attackers_left and defenders_left:
        return "continuing"
    if defenders_left:
        return "defender_held"
    if attackers_left:
        return "attacker_won"
    return "standoff"


def may_retreat_into(move_cost: int) -> bool:
    """A hex is open to a retreat if 100 action points could enter it.

    >>> may_retreat_into(100), may_retreat_into(101)
    (True, False)
    """
    return move_cost <= MAX_RETREAT_AP


def retreat_side(attack_sides: Sequence[int], enterable: Sequence[bool] | None = None) -> int | None:
    """The hex side (0-5) to retreat through: opposite the mean direction of attack.

    If that hex cannot be entered, the nearest side by angle that can (the
    lower numbered on a tie; our choice, the page only says never into a hex
    100 AP could not enter). None if no side is open.
    """
    open_ = list(enterable) if enterable is not None else [True] * 6
    if not attack_sides:
        return None
    x = math.fsum(math.cos(math.radians(60 * s)) for s in attack_sides)
    y = math.fsum(math.sin(math.radians(60 * s)) for s in attack_sides)
    if abs(x) < 1e-9 and abs(y) < 1e-9:
        best = 0.0
    else:
        best = round((math.degrees(math.atan2(y, x)) / 60.0 + 3.0) % 6.0, 9)  # a last-bit libm difference must not break a tie
    order = sorted(range(6), key=lambda s: (min(abs(s - best), 6 - abs(s - best)), s))
    for s in order:
        if open_[s]:
            return s
    return None


def structure_left(structure: int, damage: float) -> int:
    """Structure points after the battle's damage; 0 means destroyed.

    >>> structure_left(100, 30.5), structure_left(20, 25)
    (69, 0)
    """
    return max(0, math.floor(structure - damage))


def carried_loss_share(transports_at_start: int, transports_lost: int) -> float:
    """Share of the cargo lost with its transports: the share of transports lost.

    >>> carried_loss_share(4, 1)
    0.25
    """
    return transports_lost / transports_at_start if transports_at_start else 0.0
