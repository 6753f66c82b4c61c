"""The combat loop's parts as exact calculators: each shape written once.

Every function takes plain numbers and returns a ``Fraction`` when given
``int``/``Fraction`` arguments; the battle loop calls the same functions with
floats, so the calculators and the simulator cannot drift apart.

>>> hit_chance(20, 20)
Fraction(1, 2)
>>> hit_chance(2, 2, randomisation="whole", tie_reading="ties_to_attacker")
Fraction(3, 4)
>>> experience_modifier(40, 10, Fraction(1, 10), 3)
3
>>> concentric_factor(3, 2, (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)), Fraction(1, 2))
Fraction(5, 4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeVar

__all__ = ["hit_chance", "hit_chance_steps", "whole_count", "experience_modifier", "intercept_range",
           "intercept_failure", "capitulation_chance", "concentric_factor", "land_attack_stack_max",
           "overstack_factor", "breakthrough_failure", "max_attacked_factor", "weighted_factor", "weighted",
           "readiness_factor", "supply_factor", "entrenchment_factor", "experience_factor", "panic_possible",
           "panic_chance", "result_chances", "river_factor", "startup_factor", "counterattack_rulevar"]

N = TypeVar("N", int, float, Fraction)


def _q(x: int | float | Fraction) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


# Drawing the scores -------------------------------------------------------------------------------

def whole_count(value: int | float | Fraction) -> int:
    """How many whole numbers a score can take: 0 up to below the value (at least the 0).

    >>> whole_count(20), whole_count(Fraction(41, 2)), whole_count(0)
    (20, 21, 1)
    """
    return max(1, math.ceil(value))


def hit_chance(attack: int | Fraction, hit_points: int | Fraction, *, randomisation: str = "continuous",
               tie_reading: str = "strict") -> Fraction:
    """Exact chance that the attack score drawn below ``attack`` beats the one drawn below ``hit_points``.

    Continuous draws: with a ≤ h the chance is a/(2h), otherwise 1 - h/(2a);
    ties have no weight. Whole draws: X from 0..n-1 and Y from 0..m-1, each
    equally likely; count the pairs with X > Y (and X = Y if ties hit). An
    attack score of zero never hits, whatever the tie reading.

    >>> hit_chance(10, 20), hit_chance(30, 20)
    (Fraction(1, 4), Fraction(2, 3))
    >>> hit_chance(3, 2, randomisation="whole")
    Fraction(1, 2)
    >>> hit_chance(0, 5), hit_chance(5, 0)
    (Fraction(0, 1), Fraction(1, 1))
    """
    a, h = _q(attack), _q(hit_points)
    if randomisation == "continuous":
        if a <= 0:
            return Fraction(0)
        if h <= 0:
            return Fraction(1)
        return a / (2 * h) if a <= h else 1 - h / (2 * a)
    if a <= 0:
        return Fraction(0)
    n, m = whole_count(a), whole_count(h)
    wins = n * (n - 1) // 2 if n <= m else m * (m - 1) // 2 + (n - m) * m
    if tie_reading == "ties_to_attacker":
        wins += min(n, m)
    return Fraction(wins, n * m)


def hit_chance_steps(attack: int | Fraction, hit_points: int | Fraction, *, randomisation: str = "continuous",
                     tie_reading: str = "strict") -> list[str]:
    """The derivation of :func:`hit_chance`, one line per step, for a calculator to show.

    >>> hit_chance_steps(10, 20)[-1]
    'chance = 10 / (2 × 20) = 1/4'
    """
    a, h = _q(attack), _q(hit_points)
    p = hit_chance(a, h, randomisation=randomisation, tie_reading=tie_reading)
    if randomisation == "continuous":
        lines = [f"attack score uniform on [0, {a}), hit point score uniform on [0, {h})",
                 "equal scores have no weight, so the tie reading does not matter"]
        if a <= 0 or h <= 0:
            return lines + [f"chance = {p}"]
        if a <= h:
            return lines + [f"chance = {a} / (2 × {h}) = {p}"]
        return lines + [f"chance = 1 − {h} / (2 × {a}) = {p}"]
    n, m = whole_count(a), whole_count(h)
    lines = [f"attack score one of 0…{n - 1} ({n} values), hit point score one of 0…{m - 1} ({m} values)",
             f"{n * m} equally likely pairs"]
    wins = n * (n - 1) // 2 if n <= m else m * (m - 1) // 2 + (n - m) * m
    lines.append(f"pairs with the attack score higher: {wins}")
    if tie_reading == "ties_to_attacker":
        lines.append(f"pairs with equal scores, counted as hits: {min(n, m)}")
    return lines + [f"chance = {p}"]


def result_chances(kill: int, retreat: int) -> tuple[Fraction, Fraction, Fraction]:
    """Chances of a kill, retreat and pinned hit from one d100 against kill % then kill + retreat %.

    >>> result_chances(30, 40)
    (Fraction(3, 10), Fraction(2, 5), Fraction(3, 10))
    """
    k = Fraction(min(max(kill, 0), 100), 100)
    r = Fraction(min(max(kill + retreat, 0), 100), 100) - k
    return k, r, 1 - k - r


# Experience --------------------------------------------------------------------------------------

def experience_modifier(target_power: N, attacker_power: N, low: N, high: N) -> N:
    """Target's power points over the attacker's, kept between the bounds.

    >>> experience_modifier(10, 40, Fraction(1, 10), 3)
    Fraction(1, 4)
    >>> experience_modifier(1, 40, Fraction(1, 10), 3)
    Fraction(1, 10)
    """
    if attacker_power <= 0:
        return high
    ratio = target_power / attacker_power if isinstance(target_power, float) else _q(target_power) / attacker_power
    return min(max(ratio, low), high)  # type: ignore[return-value]


# Interception --------------------------------------------------------------------------------------

def intercept_range(lowest_readiness: N, range_per_readiness: N) -> N:
    """Action points of range: the lowest readiness, scaled by rulevar 147.

    >>> intercept_range(80, Fraction(1, 2))
    Fraction(40, 1)
    """
    return lowest_readiness * range_per_readiness  # type: ignore[return-value]


def intercept_failure(distance: N, max_range: N, fail_centre: N, fail_edge: N) -> N:
    """Chance an interception in range fails: from 838 % at distance 0 to 837 % at the edge, in a straight line.

    >>> intercept_failure(10, 40, 40, 80)
    Fraction(1, 2)
    >>> intercept_failure(0, 0, 20, 60)
    Fraction(1, 5)
    """
    share = _q(distance) / max_range if max_range else _q(0)
    if isinstance(distance, float):
        share = distance / max_range if max_range else 0.0  # type: ignore[assignment]
    return (fail_centre + (fail_edge - fail_centre) * share) / 100  # type: ignore[return-value]


# Capitulation ------------------------------------------------------------------------------------------

def capitulation_chance(readiness: N, morale: N, morale_limit: N, readiness_limit: N) -> N:
    """Chance a retreating defender gives up: 0 unless morale < 37 and readiness < 301; then 1 - readiness/301.

    >>> capitulation_chance(10, 5, 10, 25)
    Fraction(3, 5)
    >>> capitulation_chance(10, 50, 10, 25)
    Fraction(0, 1)
    """
    if morale < morale_limit and readiness < readiness_limit:
        return 1 - _q(readiness) / readiness_limit if not isinstance(readiness, float) else 1 - readiness / readiness_limit
    return Fraction(0) if not isinstance(readiness, float) else 0.0  # type: ignore[return-value]


# Concentric attack -----------------------------------------------------------------------------------------

def concentric_factor(sides: int, hqs: int, bonuses: Sequence[N], multiple_hq_share: N) -> N:
    """Attack factor of the hex's attackers: 1 + the bonus for their sides (132 for one side onward),
    the bonus scaled by ``multiple_hq_share`` (a half) when several HQs take part.

    >>> concentric_factor(2, 1, (Fraction(1, 10), Fraction(1, 4)), Fraction(1, 2))
    Fraction(5, 4)
    >>> concentric_factor(0, 1, (Fraction(1, 10),), Fraction(1, 2))
    1
    """
    if sides <= 0:
        return 1  # type: ignore[return-value]
    bonus = bonuses[min(sides, len(bonuses)) - 1]
    if hqs > 1:
        bonus = bonus * multiple_hq_share
    return 1 + bonus  # type: ignore[return-value]


# Stacking -------------------------------------------------------------------------------------------------

def land_attack_stack_max(sides: int, base: int, per_side: int) -> int:
    """Land attack stack maximum: rulevar 30 or sides × rulevar 31, whichever is higher.

    >>> land_attack_stack_max(1, 100, 50), land_attack_stack_max(3, 100, 50)
    (100, 150)
    """
    return max(base, sides * per_side)


def overstack_factor(stack: N, maximum: N, power: N) -> N:
    """Factor on attack and hit points of an overstacked side: (maximum / stack) to ``power``; 1 within the maximum.

    >>> overstack_factor(150, 100, 2)
    Fraction(4, 9)
    >>> overstack_factor(80, 100, 2)
    1
    """
    if stack <= maximum:
        return 1  # type: ignore[return-value]
    if isinstance(stack, float) or isinstance(power, float):
        return (maximum / stack) ** power  # type: ignore[return-value]
    ratio = _q(maximum) / _q(stack)
    p = _q(power)
    return ratio ** p.numerator if p.denominator == 1 else Fraction(float(ratio) ** float(p))  # type: ignore


def breakthrough_failure(stack: N, maximum: N) -> N:
    """Chance an overstacked breakthrough fails: the share of the stack above the maximum.

    >>> breakthrough_failure(150, 100), breakthrough_failure(90, 100)
    (Fraction(1, 3), 0)
    """
    if stack <= maximum:
        return 0  # type: ignore[return-value]
    return 1 - (_q(maximum) / stack if not isinstance(stack, float) else maximum / stack)  # type: ignore


# Modifiers -------------------------------------------------------------------------------------------------

def max_attacked_factor(times_attacked: N, maximum: N, cap: N) -> N:
    """Attack factor on a target already attacked more than its maximum: 1 / min(times / maximum, cap).

    >>> max_attacked_factor(4, 2, 3), max_attacked_factor(10, 2, 3), max_attacked_factor(2, 2, 3)
    (Fraction(1, 2), Fraction(1, 3), 1)
    """
    if maximum <= 0 or times_attacked <= maximum:
        return 1  # type: ignore[return-value]
    if isinstance(times_attacked, float):
        return 1 / min(times_attacked / maximum, cap)  # type: ignore[return-value]
    return 1 / min(_q(times_attacked) / maximum, _q(cap))  # type: ignore[return-value]


def weighted_factor(percent: N, weight: N) -> N:
    """x(1 - w + w·percent/100): a weight of 0 ignores the value, 1 scales in full.

    >>> weighted_factor(50, Fraction(1, 2))
    Fraction(3, 4)
    """
    if isinstance(percent, float) or isinstance(weight, float):
        return weighted(percent, weight)  # type: ignore[return-value]
    return 1 - _q(weight) + _q(weight) * percent / 100  # type: ignore[return-value]


def weighted(percent: float, weight: float) -> float:
    """:func:`weighted_factor` in floats, as a battle reckons it every attack (no check of the numbers' kind).

    >>> weighted(50.0, 0.5)
    0.75
    """
    return 1 - weight + weight * percent / 100


readiness_factor = weighted_factor
"""Readiness on attack (w = 106 or 107) and on hit points (w = 116)."""
supply_factor = weighted_factor
"""Supply on attack and hit points (w = 130)."""


def entrenchment_factor(entrenchment: N) -> N:
    """Hit point factor: one percent point per entrenchment point.

    >>> entrenchment_factor(50)
    Fraction(3, 2)
    """
    return 1 + (_q(entrenchment) / 100 if not isinstance(entrenchment, float) else entrenchment / 100)  # type: ignore


def experience_factor(experience: N) -> N:
    """Attack or hit point factor: one percent point per experience point.

    >>> experience_factor(20)
    Fraction(6, 5)
    """
    return entrenchment_factor(experience)


def river_factor(bonus: N, bridge: bool, bridge_share: N) -> N:
    """Hit point factor behind a river: 1 + bonus, the bonus scaled by rulevar 5 while a bridge stands.

    >>> river_factor(Fraction(1, 2), True, Fraction(1, 2))
    Fraction(5, 4)
    """
    return 1 + (bonus * bridge_share if bridge else bonus)  # type: ignore[return-value]


def startup_factor(round_modifier: N, type_share: N) -> N:
    """Start-up factor: the round's modifier, its shortfall from 1 scaled by the type's share.

    >>> startup_factor(Fraction(1, 2), Fraction(1, 2))
    Fraction(3, 4)
    """
    return 1 - (1 - round_modifier) * type_share  # type: ignore[return-value]


def counterattack_rulevar(by_hex_attacker: bool, land_vs_land: bool) -> str:
    """Which rulevar scales a counterattack: 101/103 for the hex's attackers, 102/104 for its defenders.

    >>> counterattack_rulevar(True, True), counterattack_rulevar(False, False)
    ('101', '104')
    """
    if by_hex_attacker:
        return "101" if land_vs_land else "103"
    return "102" if land_vs_land else "104"


# Panic ---------------------------------------------------------------------------------------------------

def panic_possible(remaining_percent: N, morale: N, can_retreat: bool, no_retreat_factor: N,
                   complement: bool = False) -> bool:
    """A unit may panic when the percent of its troops remaining is below its morale
    (doubled, by default, for a unit with no way out); with ``complement``, below 100 minus that morale.

    >>> panic_possible(40, 50, True, 2), panic_possible(60, 50, True, 2), panic_possible(60, 50, False, 2)
    (True, False, True)
    >>> panic_possible(60, 30, True, 2, complement=True), panic_possible(60, 30, False, 2, complement=True)
    (True, False)
    """
    limit = morale if can_retreat else morale * no_retreat_factor
    if complement:
        limit = 100 - limit
    return remaining_percent < limit


def panic_chance(remaining_percent: N, morale: N, can_retreat: bool, no_retreat_factor: N, chance: N,
                 *, bombardment: bool = False, defender_under_air_attack: bool = False,
                 complement: bool = False) -> N:
    """Chance a unit panics this round: rulevar 70 if it may, else 0.

    >>> panic_chance(40, 50, True, 2, Fraction(1, 4))
    Fraction(1, 4)
    >>> panic_chance(40, 50, True, 2, Fraction(1, 4), bombardment=True)
    0
    """
    if bombardment or defender_under_air_attack:
        return 0  # type: ignore[return-value]
    possible = panic_possible(remaining_percent, morale, can_retreat, no_retreat_factor, complement)
    return chance if possible else 0  # type: ignore
