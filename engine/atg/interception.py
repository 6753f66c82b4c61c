"""Interception: which of the defender's aircraft rise to meet an air mission.

Only air missions can be intercepted. An air unit of the defending regime or
an ally tries when its intercept standing order is set above its average
readiness (the page's wording; both top out at 100, so a unit at full
readiness never tries), it is not a backbench type (unless its own
airfield is the target), the battle lies within its range (its lowest
readiness counted as action points, times rulevar 147) and it has fuel for
two rounds. Even then it may fail: the chance runs in a straight line from
rulevar 838 at distance 0 to rulevar 837 at the edge of its range.

>>> from .setup import Interceptor, Unit, UnitState
>>> from .rules import Rules
>>> i = Interceptor(Unit("Fighter", 4, UnitState(readiness=80)), intercept_setting=90, distance=20)
>>> check(i, ROSTER["Fighter"], Rules())
Check(may=True, reason='in range: 20 of 40 action points', max_range=40.0, failure=0.0)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import parts
from .rules import Rules
from .setup import AIR_MISSIONS, Interceptor, Setup
from .units import ROSTER, UnitType  # noqa: F401 (ROSTER: the doctest)

__all__ = ["Check", "check", "choose_regime", "intercepts", "Decision"]


@dataclass(frozen=True)
class Check:
    """Whether an interceptor may try, and why."""

    may: bool
    reason: str
    max_range: float
    failure: float
    """Chance the try fails (0 to 1)."""


@dataclass(frozen=True)
class Decision:
    """An interceptor's check and the draw that settled it."""

    interceptor: Interceptor
    check: Check
    draw: float | None
    joins: bool


def check(i: Interceptor, t: UnitType, rules: Rules) -> Check:
    """Every condition on one interceptor, in the page's order."""
    state = i.unit.state
    rng_ = parts.intercept_range(float(i.range_readiness), float(rules.intercept_range))
    if not t.is_air:
        return Check(False, "not an air unit", rng_, 1.0)
    if not i.intercept_setting > state.readiness:
        return Check(False, f"intercept setting {i.intercept_setting} is not above average readiness "
                     f"{state.readiness}",
                     rng_, 1.0)
    if t.backbench and not i.own_airfield_targeted:
        return Check(False, "backbench aircraft intercept only over their own airfield", rng_, 1.0)
    if i.distance > rng_:
        return Check(False, f"out of range: {i.distance} of {rng_:g} action points", rng_, 1.0)
    if state.fuel < rules.intercept_fuel_rounds * t.fuel_per_round:
        return Check(False, f"fuel {state.fuel} is short of {rules.intercept_fuel_rounds} rounds", rng_, 1.0)
    fail = parts.intercept_failure(float(i.distance), rng_, float(rules.intercept_fail_centre),
                                   float(rules.intercept_fail_edge))
    return Check(True, f"in range: {i.distance} of {rng_:g} action points", rng_, fail)


def choose_regime(candidates: Sequence[Interceptor], checks: Sequence[Check]) -> int | None:
    """Over an empty sea hex, the regime with the most units able to intercept (lowest number on a tie).

    >>> from .setup import Unit
    >>> c = [Interceptor(Unit("Fighter", 1), regime=r) for r in (2, 1, 1)]
    >>> ok = Check(True, "", 10.0, 0.0)
    >>> choose_regime(c, [ok, ok, ok])
    1
    """
    counts: dict[int, int] = {}
    for i, c in zip(candidates, checks):
        if c.may:
            counts[i.regime] = counts.get(i.regime, 0) + 1
    if not counts:
        return None
    return min(counts, key=lambda r: (-counts[r], r))


def intercepts(setup: Setup, rules: Rules, rng: random.Random,
               roster: Mapping[str, UnitType] | None = None) -> list[Decision]:
    """Decide every interceptor of the setup; each one that may try draws once against its failure chance."""
    if setup.combat not in AIR_MISSIONS or not setup.interceptors:
        return []
    types = roster or setup.roster
    checks = [check(i, types[i.unit.type], rules) for i in setup.interceptors]
    only: int | None = None
    if setup.combat == "air_recon" and setup.sea and not setup.defenders:
        only = choose_regime(setup.interceptors, checks)
    out = []
    for i, c in zip(setup.interceptors, checks):
        if only is not None and i.regime != only:
            out.append(Decision(i, Check(False, "another regime intercepts over this sea hex", c.max_range, 1.0),
                                None, False))
            continue
        if not c.may:
            out.append(Decision(i, c, None, False))
            continue
        draw = rng.random() if c.failure > 0 else None
        out.append(Decision(i, c, draw, draw is None or draw >= c.failure))
    return out


