"""Individuals: a unit of N fights as N separate soldiers, vehicles or aircraft.

Each individual carries its own readiness, morale, experience, entrenchment,
action points and fuel, and counts its attacks and the attacks on it. They are
the mutable part of a battle and live only inside :class:`.loop.Battle`; when
the battle is over, :func:`merge` folds each unit's survivors back into one
averaged, frozen :class:`.setup.UnitState`.

>>> from .units import ROSTER
>>> from .setup import UnitState
>>> a, b = (Individual(f"A{i}", 0, 0, ROSTER["Infantry"], start_floats(UnitState(readiness=80))) for i in range(2))
>>> b.readiness = 60
>>> merge([a, b])
UnitState(readiness=70, morale=100, experience=0, entrenchment=0, action_points=100, supply=100, fuel=100)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from .setup import UnitState
from .units import UnitType

__all__ = ["Individual", "start_floats", "IN", "RETREATING", "RETREATED", "PINNED_DOWN", "KILLED", "CAPITULATED", "TRAPPED",
           "DESTROYED",
           "CARRIED", "LOST", "merge", "HIT", "ORDERLY", "PANIC", "MISSION"]

IN: Final = "in"
"""Fighting."""
RETREATING: Final = "retreating"
"""Leaving the battle, still under fire, unable to fire back."""
RETREATED: Final = "retreated"
"""Safely out of the battle (or broken off its mission)."""
PINNED_DOWN: Final = "pinned down"
"""Out of the fight after a retreat or pinned hit where no retreat is possible (a bombardment, or a
defender under air attack): it stays in its hex, cannot fire and cannot be targeted again (a paradrop's
pinned-down defenders excepted: they fight again once the paratroopers land)."""
KILLED: Final = "killed"
CAPITULATED: Final = "capitulated"
TRAPPED: Final = "trapped"
"""A defender still alive when the attacker took the hex with no side open to retreat through: lost with
the hex (setting ``trapped_defenders``)."""
DESTROYED: Final = "destroyed"
"""Used up (auto-destroy)."""
CARRIED: Final = "carried"
"""Cargo still in its transport aircraft."""
LOST: Final = frozenset({KILLED, CAPITULATED, TRAPPED, DESTROYED})
"""Statuses that count as casualties."""

HIT: Final = "hit"
"""Retreating because of a retreat or pinned hit (cannot be targeted)."""
ORDERLY: Final = "orderly"
PANIC: Final = "panic"
MISSION: Final = "mission"
"""Retreating because its mission is over or its action points ran out."""


class Individual:
    """One fighting individual: the battle's unit of state (mutable, owned by the battle)."""

    __slots__ = ("key", "side", "unit", "t", "readiness", "morale", "xp", "entrenchment", "ap", "fuel",
                 "initiative", "attacks", "attacked", "status", "kind", "retreat_round", "last_hit",
                 "last_targeted", "last_success", "broken", "capitulation_checked", "outside", "cargo",
                 "xp_gained", "attacks_total", "fuel_round", "interceptor", "joined", "slot")

    def __init__(self, key: str, side: int, unit: int, t: UnitType, start: tuple[float, ...], slot: int = 0,
                 outside: bool = False, cargo: bool = False, interceptor: bool = False) -> None:
        self.key = key
        """Name in the log: unit label and number."""
        self.side = side
        """0: the side attacking the hex; 1: the side defending it."""
        self.unit = unit
        """Index of its unit in the battle's unit list of its side."""
        self.t = t
        self.slot = slot
        """Its type's number in its battle (the battle's tables of types are lists in that order)."""
        self.readiness, self.morale, self.xp, self.entrenchment, self.ap, self.fuel = start
        """Its unit's state at the start (:func:`start_floats`)."""
        self.initiative = 0.0
        self.attacks = 0
        """Attacks made this round (counterattacks not counted)."""
        self.attacked = 0
        """Times attacked this round."""
        self.status: str = CARRIED if cargo else IN
        self.kind = ""
        """Why it retreats: ``hit``, ``orderly``, ``panic`` or ``mission``."""
        self.retreat_round = 0
        self.last_hit = 0
        self.last_targeted = 0
        self.last_success = 0
        self.broken = False
        """Has broken through."""
        self.capitulation_checked = False
        self.outside = outside
        """Anti-aircraft support firing from another hex."""
        self.cargo = cargo
        self.xp_gained = 0.0
        self.attacks_total = 0
        self.fuel_round = 0
        self.interceptor = interceptor
        self.joined = 1
        """Round in which it began to fight (paratroopers: the round they landed)."""

    def __repr__(self) -> str:
        return f"<Individual {self.key} {self.status}>"

    def retreat(self, kind: str, round_: int) -> None:
        """Start retreating now (two rounds under fire, by default, before it is safe)."""
        self.status = RETREATING
        self.kind = kind
        self.retreat_round = round_


def start_floats(state: UnitState) -> tuple[float, float, float, float, float, float]:
    """A unit's state as its individuals start the battle with it: readiness, morale, experience, entrenchment,
    action points and fuel, as floats (converted once a unit, not once an individual)."""
    return (float(state.readiness), float(state.morale), float(state.experience), float(state.entrenchment),
            float(state.action_points), float(state.fuel))


def merge(survivors: Sequence[Individual], supply: int = 100) -> UnitState:
    """The averaged state of a unit's survivors (rounded to whole points).

    >>> merge([])
    UnitState(readiness=0, morale=0, experience=0, entrenchment=0, action_points=0, supply=0, fuel=0)
    """
    n = len(survivors)
    if n == 0:
        return UnitState(0, 0, 0, 0, 0, 0, 0)

    def avg(name: str) -> int:
        return round(math.fsum(getattr(x, name) for x in survivors) / n)
    return UnitState(readiness=avg("readiness"), morale=avg("morale"), experience=avg("xp"),
                     entrenchment=avg("entrenchment"), action_points=avg("ap"), supply=supply, fuel=avg("fuel"))
