"""Anti-aircraft fire, interception and air combat, fought during air movement.

**AA.** Each region an air stack enters that holds an enemy AA unit fires
at it first, alone: +1 with radar, -3 when every plane in the stack is
stealthy. A volley's successes become panics (to the planes of lowest
morale, chosen at random among equals) and hits (at random among the
planes still flying); panicked planes fly home.

**Interception.** In each region crossed (the destination included) that
holds enemy aircraft, and for each region next to one crossed that holds
enemy fighters, one test is made when some side has interceptors: by the
only side that has them, or by the defender if both do. It succeeds on a
modified roll of 0 to 3 (:data:`INTERCEPTION_MODIFIERS`).

**Air combat.** One simultaneous round: every plane with an air-to-air value
fires; fighters gain +1 when their side alone has radar. The loser flies
home; the defender wins ties.

>>> rules = SgsRules()
>>> aa_modifier(radar=True, all_stealth=False), aa_modifier(radar=True, all_stealth=True)
(1, -2)
>>> split_volley(3, rules), split_volley(1, rules)
((1, 2), (0, 1))
>>> mods = interception_modifiers(at_destination=True, radar=True, inactive_fighters=True,
...                               same_region=True, all_grounded=False)
>>> mods, interception_chance(mods, rules)
((('destination', -1), ('radar', -3)), Fraction(4, 5))
>>> interception_chance(interception_modifiers(False, False, False, False, True), rules)
Fraction(0, 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, TypeAlias

from ..dice import Dist
from .rules import SgsRules, faces
from .shots import Shooter, hits_distribution, rerolls

__all__ = ["Plane", "AA_RADAR", "AA_ALL_STEALTH", "INTERCEPTION_MODIFIERS", "aa_modifier", "split_volley",
           "volley_odds", "interceptor", "interception_modifiers", "interception_chance", "interception_points", "FlightTest", "flight_interception",
           "air_combat_odds", "fire_volley", "apply_volley", "VolleyResult", "AirCombat", "air_combat",
           "Interceptor", "aa_fire"]

Interceptor: TypeAlias = Literal["active", "inactive"]

AA_RADAR = 1
"""AA combat value bonus when the AA's nation has radar."""
AA_ALL_STEALTH = -3
"""AA combat value penalty when every plane it fires at is stealthy."""

INTERCEPTION_MODIFIERS: Mapping[str, int] = {
    "destination": -1,     # the intercepted stack has reached its destination
    "radar": -3,           # a nation of the intercepting side has radar
    "no fighters": +5,     # no plane of the inactive side is a fighter
    "next region": -1,     # the interceptors are in a neighbouring region
    "grounded": +1,        # every interceptor started on the ground, at an airfield
}
"""Modifiers to the interception roll, as the source lists them (cards come on top)."""

INTERCEPTION_SUCCESS = 3
"""The highest modified roll that intercepts."""


@dataclass(frozen=True)
class Plane:
    """An air unit in AA fire or air combat."""

    name: str
    strength: int
    combat: int = 0
    """Air-to-air combat value (AA units: their AA value); 0 fires nothing useful."""
    morale: int = 3
    rof: int = 1
    fighter: bool = False
    stealth: bool = False
    elite: bool = False


def aa_modifier(*, radar: bool, all_stealth: bool) -> int:
    """The two cumulative AA modifiers."""
    return (AA_RADAR if radar else 0) + (AA_ALL_STEALTH if all_stealth else 0)


def split_volley(successes: int, rules: SgsRules) -> tuple[int, int]:
    """A volley's successes as (panics, hits) under :attr:`SgsRules.air_panic_share`."""
    p = int(successes * rules.air_panic_share)
    return p, successes - p


def volley_odds(shooters: Sequence[Shooter], rules: SgsRules) -> Dist[tuple[int, int]]:
    """Exact distribution of (panics, hits) a volley inflicts.

    >>> volley_odds([Shooter(4)], SgsRules())
    Dist({(0, 0): 1, (0, 1): 1})
    """
    return hits_distribution(shooters, rules).map(lambda n: split_volley(n, rules))


def interceptor(active_has: bool, inactive_has: bool) -> Interceptor | None:
    """Who makes the interception test: the only side with interceptors, else the defender."""
    if inactive_has:
        return "inactive"
    return "active" if active_has else None


def interception_modifiers(at_destination: bool, radar: bool, inactive_fighters: bool, same_region: bool,
                           all_grounded: bool, card: int = 0) -> tuple[tuple[str, int], ...]:
    """The modifiers that apply to one interception roll, by name."""
    on = {"destination": at_destination, "radar": radar, "no fighters": not inactive_fighters,
          "next region": not same_region, "grounded": all_grounded}
    out = tuple((k, v) for k, v in INTERCEPTION_MODIFIERS.items() if on[k])
    return out + ((("card", card),) if card else ())


def interception_chance(modifiers: Sequence[tuple[str, int]], rules: SgsRules) -> Fraction:
    """Chance that the modified roll falls in the intercepting range."""
    total = sum(v for _, v in modifiers)
    fs = faces(rules)
    low = -10**6 if rules.intercept_below_zero else 0
    return Fraction(sum(1 for f in fs if low <= f + total <= INTERCEPTION_SUCCESS), len(fs))


def interception_points(path: Sequence[str], neighbours: Mapping[str, Sequence[str]],
                        enemy_air: Sequence[str], enemy_fighters: Sequence[str]) -> list[tuple[str, str, bool]]:
    """Every interception test a flight meets: (region crossed, interceptors' region, at destination).

    ``path`` lists the regions entered, destination last.

    >>> interception_points(["B", "C"], {"B": ["A", "C", "D"], "C": ["B", "D"]}, ["C", "D"], ["D"])
    [('B', 'D', False), ('C', 'C', True), ('C', 'D', True)]
    """
    out = []
    for n, region in enumerate(path):
        last = n == len(path) - 1
        if region in enemy_air:
            out.append((region, region, last))
        for other in neighbours.get(region, ()):
            if other in enemy_fighters and other != region:
                out.append((region, other, last))
    return out


@dataclass(frozen=True)
class FlightTest:
    """One interception test a flight meets, with its exact odds."""

    region: str
    """The region crossed."""
    interceptors: str
    """Where the interceptors are (the region crossed, or a neighbour of it)."""
    modifiers: tuple[tuple[str, int], ...]
    chance: Fraction
    """Chance this test intercepts, taken alone."""
    first: Fraction
    """Chance the flight is first intercepted here: every earlier test failed and this one succeeds."""


def flight_interception(points: Sequence[tuple[str, str, bool]], *, radar: bool, inactive_fighters: bool,
                        all_grounded: bool, card: int = 0,
                        rules: SgsRules) -> tuple[tuple[FlightTest, ...], Fraction]:
    """Every test along a flight (from :func:`interception_points`) and the chance none succeeds.

    The source makes one roll per test, by the side that handles it (not one per interceptor), and a
    failed test lets the stack fly on to the next; so the tests are independent and the flight gets
    through untouched with the product of their failure chances. What happens after a success depends
    on the air combat, so the odds stop at the first interception.

    >>> tests, clear = flight_interception([("B", "D", False), ("C", "C", True)], radar=False,
    ...                                    inactive_fighters=True, all_grounded=False, rules=SgsRules())
    >>> [(t.chance, t.first) for t in tests], clear
    ([(Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 4))], Fraction(1, 4))
    """
    out: list[FlightTest] = []
    clear = Fraction(1)
    for region, where, last in points:
        mods = interception_modifiers(last, radar, inactive_fighters, where == region, all_grounded, card)
        p = interception_chance(mods, rules)
        out.append(FlightTest(region, where, mods, p, clear * p))
        clear *= 1 - p
    return tuple(out), clear


def air_combat_odds(attackers: Sequence[Plane], defenders: Sequence[Plane], *, attacker_radar: bool,
                    defender_radar: bool, rules: SgsRules) -> dict[str, Fraction]:
    """Exact chance that each side wins one round of air combat.

    >>> a, d = [Plane("fighter", 2, 4, fighter=True)], [Plane("fighter", 2, 4, fighter=True)]
    >>> air_combat_odds(a, d, attacker_radar=False, defender_radar=False, rules=SgsRules())
    {'attacker': Fraction(1, 4), 'defender': Fraction(3, 4)}
    >>> air_combat_odds(a, d, attacker_radar=True, defender_radar=False, rules=SgsRules())
    {'attacker': Fraction(3, 10), 'defender': Fraction(7, 10)}
    """
    a = hits_distribution(_shooters(attackers, attacker_radar and not defender_radar), rules)
    d = hits_distribution(_shooters(defenders, defender_radar and not attacker_radar), rules)
    score = (lambda n: n) if rules.air_winner == "more successes" else (lambda n: split_volley(n, rules)[1])
    wins = Fraction(0)
    for x, px in a.probabilities().items():
        for y, py in d.probabilities().items():
            if score(x) > score(y):
                wins += px * py
    return {"attacker": wins, "defender": 1 - wins}


def _shooters(planes: Sequence[Plane], radar_bonus: bool) -> list[Shooter]:
    return [Shooter(p.combat + (1 if radar_bonus and p.fighter else 0), p.rof, p.elite)
            for p in planes if p.combat > 0]


# Rolling it -------------------------------------------------------------------

@dataclass(frozen=True)
class VolleyResult:
    """What one volley did to a stack of planes."""

    dice: tuple[int, ...]
    successes: int
    panicked: tuple[str, ...]
    hits: tuple[tuple[str, int], ...]
    """Hits per plane name (planes hit at least once)."""
    strengths: tuple[int, ...]
    """Strength left to each plane after the volley."""

    def to_json(self) -> dict[str, Any]:
        return {"dice": list(self.dice), "successes": self.successes, "panicked": list(self.panicked),
                "hits": [list(h) for h in self.hits], "strengths": list(self.strengths)}


def fire_volley(shooters: Sequence[Shooter], rules: SgsRules, rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """Roll a volley; return its successes and every die rolled."""
    fs = faces(rules)
    dice: list[int] = []
    n = 0
    for s in shooters:
        for again in rerolls(s.elite, s.rof, rules):
            d = rng.choice(fs)
            dice.append(d)
            if d > s.target and again:
                d = rng.choice(fs)
                dice.append(d)
            n += d <= s.target
    return n, tuple(dice)


def apply_volley(successes: int, dice: tuple[int, ...], planes: Sequence[Plane], rules: SgsRules,
                 rng: random.Random) -> VolleyResult:
    """Panics to the lowest morale (random among equals), then hits at random among the rest."""
    panics, hits = split_volley(successes, rules)
    flying = list(range(len(planes)))
    panicked: list[int] = []
    for _ in range(min(panics, len(flying))):
        low = min(planes[i].morale for i in flying)
        pick = rng.choice([i for i in flying if planes[i].morale == low])
        flying.remove(pick)
        panicked.append(pick)
    strength = [p.strength for p in planes]
    taken = [0] * len(planes)
    for _ in range(hits):
        alive = [i for i in flying if strength[i] > 0]
        if not alive:
            break
        i = rng.choice(alive)
        strength[i] -= 1
        taken[i] += 1
    return VolleyResult(dice, successes, tuple(planes[i].name for i in panicked),
                        tuple((planes[i].name, h) for i, h in enumerate(taken) if h), tuple(strength))


def aa_fire(aa: Sequence[Plane], planes: Sequence[Plane], *, radar: bool, rules: SgsRules,
            rng: random.Random) -> VolleyResult:
    """Roll the fire of enemy AA units at an air stack entering their region (the planes never reply).

    >>> stack = [Plane("bomber", 2, morale=2), Plane("escort", 1, 4, morale=4, fighter=True)]
    >>> r = aa_fire([Plane("flak", 1, 9, rof=2)], stack, radar=False, rules=SgsRules(), rng=random.Random(1))
    >>> r.successes, r.panicked
    (2, ('bomber',))
    """
    bonus = aa_modifier(radar=radar, all_stealth=bool(planes) and all(p.stealth for p in planes))
    successes, dice = fire_volley([Shooter(a.combat + bonus, a.rof, a.elite) for a in aa], rules, rng)
    return apply_volley(successes, dice, planes, rules, rng)


@dataclass(frozen=True)
class AirCombat:
    """One round of air combat, rolled."""

    attacker: VolleyResult
    """What the attacker's fire did to the defender's planes."""
    defender: VolleyResult
    """What the defender's fire did to the attacker's planes."""
    winner: Literal["attacker", "defender"]


def air_combat(attackers: Sequence[Plane], defenders: Sequence[Plane], *, attacker_radar: bool,
               defender_radar: bool, rules: SgsRules, rng: random.Random) -> AirCombat:
    """Roll one simultaneous round of air combat.

    >>> f = [Plane("fighter", 2, 4, fighter=True)]
    >>> air_combat(f, f, attacker_radar=False, defender_radar=False, rules=SgsRules(),
    ...            rng=random.Random(2)).winner in ("attacker", "defender")
    True
    """
    sa, da = fire_volley(_shooters(attackers, attacker_radar and not defender_radar), rules, rng)
    sd, dd = fire_volley(_shooters(defenders, defender_radar and not attacker_radar), rules, rng)
    on_def = apply_volley(sa, da, defenders, rules, rng)
    on_att = apply_volley(sd, dd, attackers, rules, rng)
    if rules.air_winner == "more successes":
        a, d = sa, sd
    else:
        a, d = split_volley(sa, rules)[1], split_volley(sd, rules)[1]
    return AirCombat(on_def, on_att, "attacker" if a > d else "defender")
