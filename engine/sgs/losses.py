"""Loss allocation: where every hit lands.

The player never chooses losses. Hits scored by CavUnits go to the enemy's
CavUnits in proportion to their remaining strength, and what they cannot
absorb goes to the OtherUnits; then hits scored by OtherUnits go to the
OtherUnits (and, when none are left, to the CavUnits). When only CavUnits
are left to take what the OtherUnits could not absorb, half of that balance
is wasted (the source's "balance", counted after the volley's own hits on
OtherUnits, minefields included). Units
that take hits first (minefields) absorb hits of every kind before the
rest, units that take hits last (rear forts) only after the rest are gone;
hits nobody can absorb are lost.

>>> t = (Target(4), Target(2), Target(3, cav=True))
>>> allocate(2, 3, t, SgsRules())
Allocation(hits=(2, 1, 2), wasted=0)
>>> allocate(0, 5, (Target(2, cav=True), Target(2, cav=True)), SgsRules())
Allocation(hits=(1, 1), wasted=3)
>>> allocate(1, 6, (Target(1, priority="first"), Target(3), Target(9, priority="last")), SgsRules())
Allocation(hits=(1, 3, 3), wasted=0)

A fort in the rear takes no hit while the CavUnits in front of it can, so by
default (:attr:`~.rules.SgsRules.wastage_scope` ``"front"``) it does not stop
the halving: of 6 OtherUnits' hits on a tank with a fort behind it, half are
wasted and 3 land on the tank. Read literally ("every tier"), the fort is an
OtherUnit still there, so nothing is wasted and the tank takes all 6:

>>> tank_and_fort = (Target(9, cav=True), Target(1, priority="last"))
>>> allocate(0, 6, tank_and_fort, SgsRules())
Allocation(hits=(3, 0), wasted=3)
>>> allocate(0, 6, tank_and_fort, SgsRules(wastage_scope="every tier"))
Allocation(hits=(6, 0), wasted=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .rules import SgsRules
from .units import Priority

__all__ = ["Target", "Allocation", "split", "allocate", "allocate_raw", "allocate_groups", "tier_groups", "TIERS"]

TIERS: dict[Priority, int] = {"first": 0, "normal": 1, "last": 2}
"""Order in which loss-priority classes absorb hits."""
REAR = TIERS["last"]
"""The tier of units that take hits last (rear forts): by default it does not stop the CavUnits' wastage."""


@dataclass(frozen=True)
class Target:
    """A unit that can be hit: its remaining strength and classes."""

    strength: int
    cav: bool = False
    priority: Priority = "normal"


@dataclass(frozen=True)
class Allocation:
    """Hits landing on each target, in the targets' order, and hits lost."""

    hits: tuple[int, ...]
    wasted: int

    def to_json(self) -> dict[str, Any]:
        return {"hits": list(self.hits), "wasted": self.wasted}


def split(hits: int, room: Sequence[int], method: str = "largest remainder") -> list[int]:
    """Share ``hits`` (at most ``sum(room)``) in proportion to ``room``.

    >>> split(3, [4, 2]), split(5, [3, 3, 3]), split(1, [1, 2])
    ([2, 1], [2, 2, 1], [0, 1])
    >>> split(5, [3, 3, 3], "highest averages"), split(3, [4, 2], "highest averages")
    ([2, 2, 1], [2, 1])
    """
    total = sum(room)
    if hits > total:
        raise ValueError("more hits than room to absorb them")
    if hits == 0 or total == 0:
        return [0] * len(room)
    if method == "highest averages":
        given = [0] * len(room)
        for _ in range(hits):
            # the unit with room whose room over (hits given + 1) is largest, the first listed of equals:
            # the ratios compared exactly, by cross-multiplying
            best = -1
            for i, r in enumerate(room):
                if given[i] < r and (best < 0 or r * (given[best] + 1) > room[best] * (given[i] + 1)):
                    best = i
            given[best] += 1
        return given
    shares = [hits * r // total for r in room]
    left = hits - sum(shares)
    if left:
        # the hits left over go to the largest remainders; ties to the stronger unit, then to the first listed:
        # a stable sort, largest first, of the remainder and then the room as one number (the room is at most
        # the total, the remainder less)
        rank = [(hits * r % total) * (total + 1) + r for r in room]
        for i in sorted(range(len(room)), key=rank.__getitem__, reverse=True)[:left]:
            shares[i] += 1
    return shares


def _give(hits: int, group: list[int], room: list[int], out: list[int], method: str) -> int:
    """Give up to ``hits`` to ``group``; return the hits left over."""
    if hits <= 0 or not group:
        return hits
    capacity = list(map(room.__getitem__, group))
    total = sum(capacity)
    taken = min(hits, total)
    # enough hits to fill every unit: each takes its room, as split would share them
    shares = capacity if taken == total else split(taken, capacity, method)
    for i, share in zip(group, shares):
        if share:
            out[i] += share
            room[i] -= share
    return hits - taken


def allocate_raw(cav_hits: int, other_hits: int, strengths: Sequence[int], cav: Sequence[bool],
                 tiers: Sequence[int], rules: SgsRules) -> tuple[list[int], int]:
    """:func:`allocate` on plain lists."""
    out = [0] * len(strengths)
    if not cav_hits and not other_hits:
        return out, 0
    alive = [i for i, s in enumerate(strengths) if s > 0]
    wasted = allocate_groups(cav_hits, other_hits, tier_groups(alive, tiers, cav), list(strengths), out, rules)
    return out, wasted


def tier_groups(indices: Sequence[int], tiers: Sequence[int], cav: Sequence[bool]) -> list[tuple[list[int], list[int]]]:
    """``indices`` as :func:`allocate_groups` takes them: for every tier of :data:`TIERS`, in the order the
    tiers absorb hits (empty ones too: the allocation knows the rear tier by its place), its CavUnits and
    its OtherUnits; ``tiers[i]`` and ``cav[i]`` are unit i's tier and class."""
    return [([i for i in indices if tiers[i] == tier and cav[i]],
             [i for i in indices if tiers[i] == tier and not cav[i]]) for tier in sorted(TIERS.values())]


def allocate_groups(cav_hits: int, other_hits: int, groups: Sequence[tuple[list[int], list[int]]], room: list[int],
                    out: list[int], rules: SgsRules) -> int:
    """:func:`allocate` on units already grouped (the battle's hot path: it groups its units once per setup).

    ``groups`` holds, for each tier of :data:`TIERS` in the order the tiers
    absorb hits, the indices of the CavUnits and of the OtherUnits that can be hit; ``room``
    is the strength left to each unit and goes down as hits land, ``out``
    gathers each unit's hits. Returns the hits lost.

    Half of the OtherUnits' hits still to land is wasted (once a volley) when
    they reach CavUnits with room and only CavUnits are left to take them: by
    default no OtherUnit has room but in the rear tier (a CavUnit that takes
    hits first, with infantry behind it, takes them whole); with
    ``wastage_scope`` "every tier" no OtherUnit of any tier has room.
    """
    method = rules.split
    wasted = 0
    halved = False
    for cavs, others in groups:
        if cav_hits:  # (a kind of hit that has all landed has nothing to give)
            cav_hits = _give(cav_hits, cavs, room, out, method)
            cav_hits = _give(cav_hits, others, room, out, method)
        if other_hits:
            other_hits = _give(other_hits, others, room, out, method)
            if other_hits and cavs and not halved and any(map(room.__getitem__, cavs)) and not any(
                    room[i] for _, oth in (groups[:REAR] if rules.wastage_scope == "front" else groups) for i in oth):
                # only CavUnits left to take the balance of the OtherUnits' hits: half of that balance is wasted
                # (the OtherUnits of this tier and those before it are full, or hits would not be left; those of
                # a later tier count too, but by default not the rear forts, which take no hit while others can)
                halved = True
                kept = other_hits // 2 if rules.wastage_rounding == "down" else (other_hits + 1) // 2
                wasted += other_hits - kept
                other_hits = kept
            other_hits = _give(other_hits, cavs, room, out, method)
    return wasted + cav_hits + other_hits


def allocate(cav_hits: int, other_hits: int, targets: Sequence[Target], rules: SgsRules) -> Allocation:
    """Where the hits scored by the enemy's CavUnits and OtherUnits land on ``targets``."""
    hits, wasted = allocate_raw(cav_hits, other_hits, [t.strength for t in targets], [t.cav for t in targets],
                                [TIERS[t.priority] for t in targets], rules)
    return Allocation(tuple(hits), wasted)
