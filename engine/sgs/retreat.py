"""Retreats and breakthroughs on a map of regions.

After a battle the loser's survivors retreat, automatically. Each attacking
unit goes back to the region it entered from. The defender goes to a
neighbouring region free of enemy combat units, never one an attacker came
from nor one with a battle still to resolve, and only where terrain and
connection allow; among several, the one nearest its supply source (at
random among equals). If none qualifies, a friendly fortified structure in
the battle region shelters it; otherwise it is eliminated. Units beyond a
region's stacking limit jump one region further, chosen the same way.

The winner, if it is the attacker and its scenario allows, may break
through into a neighbouring region that allows it, with its units able to
pursue (and a leader, if one may go); a stack breaks through at most twice
a turn (once for some nations).

>>> m = SMALL_MAP
>>> defender_options(m, "Battle", entries=("West",))
('North', 'East')
>>> plan = defender_retreat(m, "Battle", entries=("West",), units=3, rng=random.Random(0))
>>> plan.destinations
('East', 'East', 'Far East')
>>> attacker_retreat(m, ("West", "South")).destinations
('West', 'South')
>>> breakthrough_targets(m, "Battle", allowed=True, used=0)
('West', 'North', 'East')
>>> breakthrough_targets(m, "Battle", allowed=True, used=2)
()
>>> breakthrough_party(("panzer", "motorised"), leader="Rommel", leader_may=True).leader
'Rommel'
>>> breakthrough_party(("panzer",), leader="Rommel", leader_may=False).steps[-1]
'Rommel may not break through and stays behind; the units move alone.'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Region", "RegionMap", "RetreatPlan", "SMALL_MAP", "MAX_BREAKTHROUGHS", "FORT",
           "defender_options", "defender_retreat", "defender_retreat_odds", "attacker_retreat", "breakthrough_targets",
           "BreakthroughParty", "breakthrough_party"]

MAX_BREAKTHROUGHS = 2
"""Breakthroughs a stack may make in one turn, where its side is allowed two."""

FORT = "fortified structure"
"""Destination name for a defender sheltering in its fortification."""


@dataclass(frozen=True)
class Region:
    """One region of the map, seen from the defender of the battle."""

    name: str
    neighbours: tuple[str, ...]
    enemy: bool = False
    """Holds enemy (attacking side's) combat units."""
    unresolved: bool = False
    """A battle there is still to be fought this phase."""
    passable: bool = True
    """Terrain and connection allow a retreat into it."""
    breakthrough: bool = True
    """Terrain allows a breakthrough into it."""
    room: int | None = None
    """Units it can still take before overstacking (``None``: no limit)."""
    supply: int = 0
    """Regions to go to the defender's supply source."""
    fort: bool = False
    """Holds a friendly fortified structure."""
    x: int = 0
    y: int = 0
    """Where to draw it (grid cell)."""


@dataclass(frozen=True)
class RegionMap:
    """A small map: regions and their connections."""

    regions: tuple[Region, ...]

    def __getitem__(self, name: str) -> Region:
        for r in self.regions:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_json(self) -> list[dict[str, Any]]:
        return [{"name": r.name, "neighbours": list(r.neighbours), "enemy": r.enemy, "unresolved": r.unresolved,
                 "passable": r.passable, "breakthrough": r.breakthrough, "room": r.room, "supply": r.supply,
                 "fort": r.fort, "x": r.x, "y": r.y} for r in self.regions]


@dataclass(frozen=True)
class RetreatPlan:
    """Where each retreating unit ends up (``None``: eliminated), and why."""

    destinations: tuple[str | None, ...]
    steps: tuple[str, ...]
    """The reasoning, one line per decision."""


def _open(m: RegionMap, name: str, entries: Sequence[str]) -> bool:
    r = m[name]
    return r.passable and not r.enemy and not r.unresolved and name not in entries


def _nearest(m: RegionMap, names: Sequence[str], rng: random.Random) -> str:
    best = min(m[n].supply for n in names)
    return rng.choice([n for n in names if m[n].supply == best])


def defender_options(m: RegionMap, battle: str, entries: Sequence[str]) -> tuple[str, ...]:
    """Neighbours of the battle region the defender may retreat into."""
    return tuple(n for n in m[battle].neighbours if n != battle and _open(m, n, entries))


def defender_retreat(m: RegionMap, battle: str, entries: Sequence[str], units: int,
                     rng: random.Random) -> RetreatPlan:
    """Retreat ``units`` defending units (in order) out of ``battle``."""
    options = defender_options(m, battle, entries)
    if not options:
        if m[battle].fort:
            return RetreatPlan((FORT,) * units, ("No region qualifies; the defender shelters in its fortification.",))
        return RetreatPlan((None,) * units, ("No region qualifies and no fortification: the stack is eliminated.",))
    target = _nearest(m, options, rng)
    steps = [f"Open regions: {', '.join(options)}; {target} is nearest the supply source."]
    room = m[target].room
    if room is None or units <= room:
        return RetreatPlan((target,) * units, tuple(steps))
    excess = units - room
    onward = tuple(n for n in m[target].neighbours
                   if n != battle and _open(m, n, entries) and (m[n].room is None or m[n].room >= excess))
    if onward:
        further = _nearest(m, onward, rng)
        steps.append(f"{target} takes {room}; the other {excess} jump on to {further}.")
    else:
        further = None
        steps.append(f"{target} takes {room}; the other {excess} have nowhere to go and are eliminated.")
    return RetreatPlan((target,) * room + (further,) * excess, tuple(steps))


def defender_retreat_odds(m: RegionMap, battle: str, entries: Sequence[str],
                          units: int) -> list[tuple[RetreatPlan, Fraction]]:
    """Every plan :func:`defender_retreat` can make, with its exact chance (ties are drawn evenly).

    >>> [(p.destinations, q) for p, q in defender_retreat_odds(SMALL_MAP, "Battle", ("West",), 1)]
    [(('East',), Fraction(1, 1))]
    """
    options = defender_options(m, battle, entries)
    if not options:
        return [(defender_retreat(m, battle, entries, units, random.Random(0)), Fraction(1))]
    best = min(m[n].supply for n in options)
    firsts = [n for n in options if m[n].supply == best]
    out: list[tuple[RetreatPlan, Fraction]] = []
    for first in firsts:
        share = Fraction(1, len(firsts))
        room = m[first].room
        steps = [f"Open regions: {', '.join(options)}; {first} is nearest the supply source"
                 + (f" (one of {len(firsts)} equally near)." if len(firsts) > 1 else ".")]
        if room is None or units <= room:
            out.append((RetreatPlan((first,) * units, tuple(steps)), share))
            continue
        excess = units - room
        onward = [n for n in m[first].neighbours
                  if n != battle and _open(m, n, entries) and (m[n].room is None or m[n].room >= excess)]
        if not onward:
            steps.append(f"{first} takes {room}; the other {excess} have nowhere to go and are eliminated.")
            out.append((RetreatPlan((first,) * room + (None,) * excess, tuple(steps)), share))
            continue
        near = min(m[n].supply for n in onward)
        seconds = [n for n in onward if m[n].supply == near]
        for second in seconds:
            more = steps + [f"{first} takes {room}; the other {excess} jump on to {second}."]
            out.append((RetreatPlan((first,) * room + (second,) * excess, tuple(more)),
                        share / len(seconds)))
    return out


def attacker_retreat(m: RegionMap, entries: Sequence[str]) -> RetreatPlan:
    """Each attacking unit goes back where it came from, if that region may still be entered.

    (``enemy`` marks the attacker's own regions on this map, so it does not bar them.)
    """
    dest = tuple(e if m[e].passable and not m[e].unresolved else None for e in entries)
    steps = tuple(f"Back to {e}." if d else f"{e} cannot be entered: eliminated." for e, d in zip(entries, dest))
    return RetreatPlan(dest, steps)


def breakthrough_targets(m: RegionMap, battle: str, *, allowed: bool, used: int,
                         limit: int = MAX_BREAKTHROUGHS) -> tuple[str, ...]:
    """Neighbours a victorious attacker may break through into (none once the turn's limit is used)."""
    if not allowed or used >= limit:
        return ()
    return tuple(n for n in m[battle].neighbours if m[n].breakthrough)


@dataclass(frozen=True)
class BreakthroughParty:
    """Who moves in a breakthrough: the chosen able units, and the leader if it goes with them."""

    units: tuple[str, ...]
    leader: str | None
    """The victorious leader going with the units (``None``: the units move alone)."""
    staying: tuple[str, ...]
    """Able units the player chose to leave in the battle region."""
    steps: tuple[str, ...]


def breakthrough_party(able: Sequence[str], *, leader: str | None, leader_may: bool,
                       leave: Sequence[str] = ()) -> BreakthroughParty:
    """The stack that breaks through, from the winner's units able to (those that could pursue).

    The player may leave some of them behind. A victorious leader allowed to break through goes with
    the units; one that is not allowed, or no leader at all, leaves the units moving on their own. A
    leader never breaks through without units.

    >>> p = breakthrough_party(("panzer", "motorised", "panzer 2"), leader=None, leader_may=True, leave=("panzer 2",))
    >>> p.units, p.leader, p.staying
    (('panzer', 'motorised'), None, ('panzer 2',))
    >>> breakthrough_party(("panzer",), leader="Guderian", leader_may=True, leave=("panzer",)).leader is None
    True
    """
    going = tuple(u for u in able if u not in leave)
    staying = tuple(u for u in able if u in leave)
    steps = [f"Able to break through: {', '.join(able) or 'none'}"
             + (f"; left behind: {', '.join(staying)}." if staying else ".")]
    if not going:
        steps.append("No unit goes, so there is no breakthrough" + (" and the leader stays." if leader else "."))
        return BreakthroughParty((), None, staying, tuple(steps))
    if leader is None:
        steps.append("No victorious leader is present; the units move alone.")
        return BreakthroughParty(going, None, staying, tuple(steps))
    if not leader_may:
        steps.append(f"{leader} may not break through and stays behind; the units move alone.")
        return BreakthroughParty(going, None, staying, tuple(steps))
    steps.append(f"{leader} goes with them.")
    return BreakthroughParty(going, leader, staying, tuple(steps))


SMALL_MAP = RegionMap((
    Region("West", ("Battle", "North", "South"), supply=3, x=0, y=1),
    Region("North", ("West", "Battle", "East"), supply=2, x=1, y=0),
    Region("Battle", ("West", "North", "East", "South"), supply=2, x=1, y=1),
    Region("South", ("West", "Battle"), enemy=True, breakthrough=False, supply=3, x=1, y=2),
    Region("East", ("North", "Battle", "Far East"), room=2, supply=1, x=2, y=1),
    Region("Far East", ("East",), supply=0, fort=True, x=3, y=1),
))
"""A six-region example: the attacker came from West (and South, now held by its own troops)."""
