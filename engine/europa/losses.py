"""Required losses when armour or anti-tank effects are used (rule 10.F).

A side that uses AEC or ATEC and loses strength points must take some of
them from the units that gave the effect: one strength point per RE used,
before terrain. The REs counted are capped by the other side's opposing
value, and a side never loses more for this than the combat result asks.

* AECA: capped by the defender's ATEC, which counts double when the
  defender's hex modifies AEC for any reason.
* AECD: capped by the attacker's AECA.
* ATEC: only if some of it is not intrinsic; capped by the attacker's
  AECA. Intrinsic ATEC counts in the amount; the division's own loss meets
  it only if the whole division is eliminated.
* Converted units may supply at most half of the points.
* A side that declines AEC/ATEC before combat owes nothing (attacker
  declares first).

>>> from engine.europa.totals import stack_total
>>> from engine.europa.units import Capability, Formation, Unit, UnitType
>>> tanks = [Unit(f"A{i}", UnitType.TANK, Formation.CORPS, Fraction(3), aec=Capability.FULL) for i in range(1, 5)]
>>> ats = [Unit(f"D{i}", UnitType.ANTI_TANK, Formation.REGIMENT, Fraction(1), atec=Capability.FULL)
...        for i in range(1, 5)]
>>> aeca = stack_total(tanks, Category.AECA)
>>> atec = stack_total(ats, Category.ATEC)
>>> aecd = stack_total(ats, Category.AECD)
>>> attacker = attacker_requirement(aeca, atec.total, attacker_uses=True, combat_losses=8, hex_modifies_aec=False)
>>> attacker.strength_points
4
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .rules import EuropaRules
from .totals import Category, StackTotal
from .units import re_text

__all__ = ["Requirement", "attacker_requirement", "defender_requirements", "combined_defender_total"]

ZERO = Fraction(0)


@dataclass(frozen=True)
class Requirement:
    """What one category calls for."""

    category: Category
    """AECA, AECD or ATEC."""
    used: bool
    """Whether the side used the category in this combat."""
    counted: Fraction
    """REs counted after the cap."""
    strength_points: int
    """Strength points that must come from the capable or converted units (within the combat result)."""
    from_conversions_max: int
    """At most this many of them may come from converted units."""
    intrinsic_allowance: int
    """Of them, this many may be met by whole divisions eliminated with intrinsic ATEC."""
    lines: tuple[str, ...]
    """The reasoning in words."""

    def to_json(self) -> dict[str, object]:
        return {"category": str(self.category), "used": self.used,
                "counted": _frac(self.counted), "strength_points": self.strength_points,
                "from_conversions_max": self.from_conversions_max,
                "intrinsic_allowance": self.intrinsic_allowance, "trace": list(self.lines)}


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _points(res: Fraction, rules: EuropaRules) -> int:
    return math.ceil(res) if rules.round_up else math.floor(res)


def _unused(category: Category, why: str) -> Requirement:
    return Requirement(category, False, ZERO, 0, 0, 0, (f"{category}: {why}",))


def _requirement(category: Category, total: StackTotal, own: Fraction, cap: Fraction, cap_words: str,
                 combat_losses: int, rules: EuropaRules, from_units: str,
                 intrinsic_eliminated: Fraction = ZERO) -> Requirement:
    lines = [f"{category}: {re_text(own)} used before terrain, conversions included."]
    counted = min(own, cap)
    if cap < own:
        lines.append(f"Capped at {cap_words} ({re_text(cap)}): {re_text(counted)} counted.")
    points = _points(counted, rules)
    if counted.denominator != 1:
        lines.append(f"Counted {re_text(counted)}: {points} strength point{'s' if points != 1 else ''} "
                     f"(a part RE rounds {'up' if rules.round_up else 'down'}).")
    if points > combat_losses:
        lines.append(f"The combat result costs only {combat_losses} strength point{'s' if combat_losses != 1 else ''}; "
                     "no side loses more for this than the result asks.")
        points = combat_losses
    lines.append(f"Required: {points} strength point{'s' if points != 1 else ''} from {from_units}.")
    base = points if rules.conversion_share_of_required else combat_losses
    from_conversions = min(points, base // 2) if total.converted_raw > 0 else 0
    if points and total.converted_raw > 0:
        half_of = "the required points" if rules.conversion_share_of_required else "all points lost"
        if from_conversions:
            lines.append(f"At most {from_conversions} of them from converted units (half of {half_of}, rounded down).")
        else:
            lines.append(f"None of them from converted units (they may give at most half of {half_of}, "
                         "rounded down).")
    allowance = 0
    if intrinsic_eliminated > 0 and points:
        allowance = min(points, _points(intrinsic_eliminated, rules))
        lines.append(f"A whole division with intrinsic ATEC is eliminated: its intrinsic "
                     f"{re_text(intrinsic_eliminated)} may meet {allowance} of them.")
    elif total.intrinsic > 0 and points and category is Category.ATEC:
        lines.append("Intrinsic ATEC counts in the amount, but a division's own loss meets it only when the "
                     "whole division is eliminated.")
    if points < combat_losses:
        lines.append(f"The other {combat_losses - points} lost point{'s' if combat_losses - points != 1 else ''} "
                     "may come from any units.")
    return Requirement(category, True, counted, points, from_conversions, allowance, tuple(lines))


def attacker_requirement(aeca: StackTotal, defender_atec: Fraction, *, attacker_uses: bool, combat_losses: int,
                         hex_modifies_aec: bool, rules: EuropaRules = EuropaRules()) -> Requirement:
    """Required AECA losses: one point per RE of AECA, capped by the defender's ATEC.

    ``defender_atec`` is the ATEC the defender uses (zero if it declined).

    >>> from engine.europa.units import Capability, Formation, Unit, UnitType
    >>> from engine.europa.totals import stack_total
    >>> corps = Unit("A1", UnitType.TANK, Formation.CORPS, Fraction(3), aec=Capability.FULL)
    >>> tanks = stack_total([corps], Category.AECA)
    >>> r = attacker_requirement(tanks, Fraction(1), attacker_uses=True, combat_losses=4, hex_modifies_aec=True)
    >>> r.strength_points
    2
    """
    if not attacker_uses:
        return _unused(Category.AECA, "the attacker declined AEC, so no armour losses are required.")
    own = aeca.before_terrain
    if own == 0:
        return _unused(Category.AECA, "the attacker has no AECA.")
    if combat_losses == 0:
        return _unused(Category.AECA, "the attacker loses nothing in this combat.")
    cap = defender_atec * (2 if hex_modifies_aec else 1)
    words = "the defender's ATEC"
    if hex_modifies_aec and defender_atec:
        words += ", doubled because its hex modifies AEC"
    return _requirement(Category.AECA, aeca, own, cap, words, combat_losses, rules,
                        "units with at least half AEC or converted units")


def defender_requirements(aecd: StackTotal, atec: StackTotal, attacker_aeca: Fraction, *, defender_uses: bool,
                          aecd_compared: bool, combat_losses: int, hex_modifies_aec: bool,
                          eliminated_intrinsic: Fraction = ZERO,
                          rules: EuropaRules = EuropaRules()) -> tuple[Requirement, Requirement]:
    """Required AECD and ATEC losses of the defender.

    ``attacker_aeca`` is the AECA the attacker uses (zero if it declined),
    before or after terrain as the rules say; ``aecd_compared`` tells
    whether AECD decided the modifier (AECA:ATEC below 1:1).
    ``eliminated_intrinsic`` is the intrinsic ATEC of whole divisions
    eliminated in this combat.
    """
    if not defender_uses:
        why = "the defender declined AEC and ATEC, so none of these losses are required."
        return _unused(Category.AECD, why), _unused(Category.ATEC, why)
    if combat_losses == 0:
        return (_unused(Category.AECD, "the defender loses nothing in this combat."),
                _unused(Category.ATEC, "the defender loses nothing in this combat."))
    if not aecd_compared or aecd.before_terrain == 0:
        aecd_req = _unused(Category.AECD, "AECD was not used (it counts only when AECA:ATEC is below 1:1)."
                           if aecd.before_terrain else "the defender has no AECD.")
    else:
        aecd_req = _requirement(Category.AECD, aecd, aecd.before_terrain, attacker_aeca, "the attacker's AECA",
                                combat_losses, rules, "units with at least half AEC or converted units")
    own_atec = atec.total
    if attacker_aeca == 0:
        atec_req = _unused(Category.ATEC, "the attacker uses no AECA, so ATEC was not used.")
    elif own_atec == 0:
        atec_req = _unused(Category.ATEC, "the defender has no ATEC.")
    elif own_atec == atec.intrinsic:
        atec_req = _unused(Category.ATEC, "all of the defender's ATEC is intrinsic, so no losses are required for it.")
    else:
        if hex_modifies_aec and rules.doubled_atec_own_losses:
            own_atec *= 2
        atec_req = _requirement(Category.ATEC, atec, own_atec, attacker_aeca, "the attacker's AECA", combat_losses,
                                rules, "units with at least half ATEC or converted units",
                                intrinsic_eliminated=eliminated_intrinsic)
    return aecd_req, atec_req


def combined_defender_total(requirements: Sequence[Requirement], combat_losses: int, rules: EuropaRules) -> int:
    """Points the defender must take from armour and anti-tank units together.

    >>> r = Requirement(Category.AECD, True, Fraction(2), 2, 1, 0, ())
    >>> combined_defender_total([r, r], 3, EuropaRules())
    3
    >>> combined_defender_total([r, r], 3, EuropaRules(defender_requirements="overlap"))
    2
    """
    points = [r.strength_points for r in requirements]
    total = sum(points) if rules.defender_add else max(points, default=0)
    return min(total, combat_losses)
