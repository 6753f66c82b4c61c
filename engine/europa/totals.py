"""Totals of AECA, AECD and ATEC for a stack, with every conversion (rules 10.B and 10.C).

A stack's total in one category is built in three steps:

1. each unit counts its own REs at its value (double, full, half; neutral
   and none count nothing), scaled by terrain and hexsides for AEC;
2. capable units convert neutral REs of qualifying types, one for one for
   brigades and smaller, one RE for a division or corps, two for a German
   panzer or panzer grenadier division above combat value twelve, halved
   for a half-capable converter;
3. for ATEC, infantry and motorized infantry divisions add their intrinsic
   ATEC, never beyond their own size.

>>> tank = Unit("A1", UnitType.TANK, Formation.BRIGADE, Fraction(1), aec=Capability.FULL)
>>> infantry = Unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.REGIMENT, Fraction(1))
>>> total = stack_total((tank, infantry), Category.AECA)
>>> total.total
Fraction(2, 1)
>>> total.conversions[0].text(Category.AECA)
'A1 converts 1 RE of A2: +1 RE of AECA.'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction

from .rules import EuropaRules
from .units import (
    BIG_PANZER_CONVERSION,
    CAPABILITY_FACTOR,
    CONDITIONAL_DOUBLE_ATEC,
    DIVISION_CONVERSION,
    FIXED_CONVERSION_TYPES,
    INFANTRY_PER_DOUBLE_RE,
    INFANTRY_TYPES,
    NEUTRAL_SHARE,
    REDUCTION_FACTOR,
    UNIT_TYPE_WORDS,
    Capability,
    Formation,
    Reduction,
    Unit,
    UnitType,
    re_text,
)

__all__ = [
    "Category",
    "Share",
    "Conversion",
    "StackTotal",
    "stack_total",
    "effective_atec",
    "conversion_capacity",
    "unit_multiplier",
]

ZERO = Fraction(0)


class Category(StrEnum):
    """The three armour-effect categories."""

    AECA = "AECA"
    """Armour effects of the attacker."""
    AECD = "AECD"
    """Armour effects of the defender."""
    ATEC = "ATEC"
    """Anti-tank effects of the defender, used against an attacker with AECA."""


@dataclass(frozen=True)
class Share:
    """One unit's part in a category total."""

    unit: Unit
    """The unit."""
    value: Capability
    """Its value in this category after the double conditions."""
    multiplier: Fraction
    """Terrain and hexside factor on its REs (always 1 for ATEC)."""
    own_raw: Fraction
    """REs it counts by itself, before terrain."""
    convertible: Fraction
    """Its neutral REs that capable units may convert."""
    capacity: Fraction
    """REs it may convert in others (or in its own neutral half)."""
    converted_raw: Fraction = ZERO
    """REs of it that were converted, before terrain."""
    converted: Fraction = ZERO
    """What those converted REs are worth after terrain."""
    intrinsic: Fraction = ZERO
    """Intrinsic ATEC counted (never beyond its size)."""

    @property
    def own(self) -> Fraction:
        """REs it counts by itself, after terrain."""
        return self.own_raw * self.multiplier

    @property
    def total(self) -> Fraction:
        """Its whole contribution after terrain."""
        return self.own + self.converted + self.intrinsic

    @property
    def total_raw(self) -> Fraction:
        """Its whole contribution before terrain."""
        return self.own_raw + self.converted_raw + self.intrinsic


@dataclass(frozen=True)
class Conversion:
    """Neutral REs of one unit turned into the category by a capable unit."""

    converter: str
    """Key of the converting unit."""
    converted: str
    """Key of the unit whose neutral REs it converts (may be itself)."""
    res: Fraction
    """REs converted, before terrain."""
    worth: Fraction
    """What they add after terrain (the lower of the two units' factors)."""

    def text(self, category: Category) -> str:
        """The conversion in words."""
        amount = re_text(self.res)
        if self.converter == self.converted:
            head = f"{self.converter} converts {amount} of its own neutral part"
        else:
            head = f"{self.converter} converts {amount} of {self.converted}"
        if self.worth == self.res:
            return f"{head}: +{re_text(self.worth)} of {category}."
        return f"{head}: +{re_text(self.worth)} of {category} after terrain (the lower of the two units' factors)."


@dataclass(frozen=True)
class StackTotal:
    """A category total for one stack, with the trace that explains it."""

    category: Category
    """AECA, AECD or ATEC."""
    shares: tuple[Share, ...]
    """Every unit's part, in stack order."""
    conversions: tuple[Conversion, ...]
    """Every conversion made."""
    trace: tuple[str, ...] = field(default=())
    """The whole calculation in words."""

    @property
    def total(self) -> Fraction:
        """REs after terrain: what the ratio uses."""
        return sum((s.total for s in self.shares), ZERO)

    @property
    def before_terrain(self) -> Fraction:
        """REs before terrain: what required losses count."""
        return sum((s.total_raw for s in self.shares), ZERO)

    @property
    def intrinsic(self) -> Fraction:
        """Intrinsic ATEC included in the total."""
        return sum((s.intrinsic for s in self.shares), ZERO)

    @property
    def converted_raw(self) -> Fraction:
        """REs that count only because they were converted (before terrain)."""
        return sum((c.res for c in self.conversions), ZERO)

    def share(self, key: str) -> Share:
        """The share of the unit with this key."""
        for s in self.shares:
            if s.unit.key == key:
                return s
        raise KeyError(key)


# Values ------------------------------------------------------------------

def _value(unit: Unit, category: Category) -> Capability:
    return unit.atec if category is Category.ATEC else unit.aec


def _infantry_res(units: Sequence[Unit], rules: EuropaRules) -> Fraction:
    types = set(INFANTRY_TYPES)
    if rules.motorized_infantry_backs:
        types.add(UnitType.MOTORIZED_INFANTRY)
    return sum((u.re_size for u in units if u.unit_type in types), ZERO)


def effective_atec(units: Sequence[Unit], rules: EuropaRules = EuropaRules()) -> dict[str, tuple[Capability, str]]:
    """Each unit's ATEC after the conditions on double ATEC, with a note where they apply.

    Anti-tank and heavy AA units count double only if they were fortified or
    entrenched before the reaction phase began and the stack holds at least
    three infantry REs for each of their REs; otherwise they count full.

    >>> at = Unit("D1", UnitType.ANTI_TANK, Formation.REGIMENT, Fraction(1), atec=Capability.DOUBLE,
    ...           fortified_or_entrenched=True)
    >>> inf = Unit("D2", UnitType.INFANTRY, Formation.DIVISION, Fraction(3))
    >>> effective_atec((at, inf))["D1"][0]
    <Capability.DOUBLE: 'double'>
    >>> effective_atec((at,))["D1"][0]
    <Capability.FULL: 'full'>
    """
    out: dict[str, tuple[Capability, str]] = {}
    infantry = _infantry_res(units, rules)
    left = infantry
    for u in units:
        if u.atec is not Capability.DOUBLE or u.unit_type not in CONDITIONAL_DOUBLE_ATEC:
            out[u.key] = (u.atec, "")
            continue
        need = INFANTRY_PER_DOUBLE_RE * u.re_size
        have = left if rules.infantry_pooled else infantry
        if u.reserve_moved_in_reaction:
            out[u.key] = (Capability.FULL, f"{u.key} moved in from reserve in the reaction phase, so it was not "
                          "entrenched there beforehand: double ATEC falls to full.")
        elif not u.fortified_or_entrenched:
            out[u.key] = (Capability.FULL, f"{u.key} was not fortified or entrenched before the reaction phase: "
                          "double ATEC falls to full.")
        elif have < need:
            out[u.key] = (Capability.FULL, f"{u.key} needs {re_text(need)} of infantry with it for double ATEC "
                          f"but only {re_text(have)} {'remain' if rules.infantry_pooled else 'are in the hex'}: "
                          "it counts full.")
        else:
            if rules.infantry_pooled:
                left -= need
            out[u.key] = (Capability.DOUBLE, f"{u.key} is entrenched and backed by {re_text(need)} of infantry "
                          f"(of {re_text(have)} available): it counts double.")
    return out


# Conversions ---------------------------------------------------------------

def conversion_capacity(unit: Unit, value: Capability, rules: EuropaRules = EuropaRules()) -> tuple[Fraction, str]:
    """REs a capable unit may convert, and why.

    >>> from engine.europa.units import Nationality
    >>> pz = Unit("A1", UnitType.TANK, Formation.DIVISION, Fraction(3), combat_value=16)
    >>> conversion_capacity(pz, Capability.DOUBLE)[0]
    Fraction(2, 1)
    >>> ag = Unit("D1", UnitType.ASSAULT_GUN, Formation.BRIGADE, Fraction(1))
    >>> conversion_capacity(ag, Capability.HALF)[0]
    Fraction(1, 2)
    """
    factor = CAPABILITY_FACTOR[value]
    if factor == 0:
        return ZERO, ""
    if unit.is_big_panzer:
        base, why = BIG_PANZER_CONVERSION, (f"a German {unit.unit_type.value} division with combat value "
                                            f"{unit.combat_value} converts {re_text(BIG_PANZER_CONVERSION)}")
    elif unit.is_division and (unit.unit_type in FIXED_CONVERSION_TYPES or not rules.only_tank_mech_divisions_fixed):
        base, why = DIVISION_CONVERSION, f"a {unit.formation.value} converts {re_text(DIVISION_CONVERSION)}"
    elif unit.is_division:
        base, why = unit.re_size, (f"a {UNIT_TYPE_WORDS[unit.unit_type]} {unit.formation.value} converts one for "
                                   "one (only tank and mechanized ones are held to 1 RE)")
    else:
        base, why = unit.re_size, f"a {unit.formation.value} converts one for one"
    if value is Capability.HALF:
        return base / 2, why + ", halved for its half value"
    if value is Capability.DOUBLE and rules.double_converts_doubled and not unit.is_division:
        return base * 2, why + ", doubled for its double value"
    return base, why


def unit_multiplier(unit: Unit, category: Category, terrain: Reduction) -> tuple[Fraction, str]:
    """Factor on a unit's REs from terrain (c/m units) and, for attackers, its hexside.

    ATEC is never scaled. A motorized infantry unit attacking at full
    strength is not reduced by the terrain.

    >>> t = Unit("A1", UnitType.TANK, Formation.DIVISION, Fraction(3), across_hexside=Reduction.HALVES)
    >>> unit_multiplier(t, Category.AECA, Reduction.HALVES)[0]
    Fraction(1, 4)
    >>> unit_multiplier(t, Category.ATEC, Reduction.HALVES)[0]
    Fraction(1, 1)
    """
    if category is Category.ATEC:
        return Fraction(1), ""
    reasons = []
    factor = Fraction(1)
    if unit.is_cm and terrain is not Reduction.NONE:
        if category is Category.AECA and unit.full_strength_into_terrain:
            reasons.append("attacks at full strength, so the terrain does not reduce it")
        else:
            factor *= REDUCTION_FACTOR[terrain]
            reasons.append(f"the terrain {terrain.value} c/m units")
    if category is Category.AECA and unit.across_hexside is not Reduction.NONE:
        factor *= REDUCTION_FACTOR[unit.across_hexside]
        reasons.append(f"it attacks across a hexside that {unit.across_hexside.value} it")
    return factor, "; ".join(reasons)


def _convertible(unit: Unit, category: Category, value: Capability, terrain: Reduction,
                 rules: EuropaRules) -> tuple[Fraction, str]:
    neutral = unit.re_size * NEUTRAL_SHARE[value]
    if neutral == 0:
        return ZERO, ""
    if category is Category.ATEC:
        if not unit.may_become_atec():
            return ZERO, f"{UNIT_TYPE_WORDS[unit.unit_type]} units may not be converted to ATEC"
        if value is Capability.HALF and not rules.half_atec_remainder_converts:
            return ZERO, "a unit with ATEC of its own (half) is not converted to ATEC"
        return neutral, ""
    if not unit.may_become_aec(rules.motorized_aa_at_convert):
        words = UNIT_TYPE_WORDS[unit.unit_type]
        # refused for not being motorized when a motorized one of its type would convert
        motor_would = replace(unit, motorized=True).may_become_aec(rules.motorized_aa_at_convert)
        return ZERO, f"{'non-motorized ' + words if motor_would else words + ' units'} may not be converted to AEC"
    if (category is Category.AECA and unit.full_strength_into_terrain
            and unit.unit_type is UnitType.MOTORIZED_INFANTRY and terrain is not Reduction.NONE):
        return ZERO, "attacking at full strength into terrain that reduces c/m units, it is no longer neutral"
    return neutral, ""


def _allocate(shares: list[Share], intrinsic_last: bool = False) -> tuple[list[Share], list[Conversion]]:
    """Pair conversion capacity with neutral REs, best terrain factors first.

    A converted RE is worth the lower of the converter's and the converted
    unit's factors, so pairing both lists in descending order of factor
    gives the largest total. With ``intrinsic_last`` (ATEC, conversions
    before intrinsic ATEC) units with the least intrinsic ATEC are converted
    first, since converting a division's REs only displaces its intrinsic ATEC.
    """
    def taker_key(t: tuple[Fraction, int]) -> tuple[Fraction, Fraction, int]:
        return -t[0], shares[t[1]].unit.intrinsic_atec if intrinsic_last else ZERO, t[1]

    givers = sorted(((s.multiplier, i) for i, s in enumerate(shares) if s.capacity > 0), key=lambda t: (-t[0], t[1]))
    takers = sorted(((s.multiplier, i) for i, s in enumerate(shares) if s.convertible > 0), key=taker_key)
    cap_left = {i: shares[i].capacity for _, i in givers}
    pool_left = {i: shares[i].convertible for _, i in takers}
    raw = [ZERO] * len(shares)
    worth = [ZERO] * len(shares)
    conversions: list[Conversion] = []
    gi = ti = 0
    while gi < len(givers) and ti < len(takers):
        gm, g = givers[gi]
        tm, t = takers[ti]
        amount = min(cap_left[g], pool_left[t])
        value = amount * min(gm, tm)
        conversions.append(Conversion(shares[g].unit.key, shares[t].unit.key, amount, value))
        raw[t] += amount
        worth[t] += value
        cap_left[g] -= amount
        pool_left[t] -= amount
        if cap_left[g] == 0:
            gi += 1
        if pool_left[t] == 0:
            ti += 1
    done = [replace(s, converted_raw=raw[i], converted=worth[i]) for i, s in enumerate(shares)]
    return done, conversions


# The total -------------------------------------------------------------------

def _describe(share: Share, category: Category, capacity_why: str) -> str:
    u, v = share.unit, share.value
    name = "AEC" if category is not Category.ATEC else "ATEC"
    if v in (Capability.DOUBLE, Capability.FULL, Capability.HALF):
        text = f"{u.label}: {name} {v.value}, {re_text(share.own_raw)} of {category}"
        if v is Capability.HALF:
            text += f"; the other half ({re_text(u.re_size / 2)}) is neutral"
        text += f"; may convert {re_text(share.capacity)} ({capacity_why})."
        return text
    if v is Capability.NEUTRAL:
        return f"{u.label}: {name} neutral, counts nothing by itself; {re_text(u.re_size)} open to conversion."
    return f"{u.label}: no {name} capability; counts nothing and cannot be converted."


def _prepare(u: Unit, category: Category, value: Capability, terrain: Reduction,
             rules: EuropaRules) -> tuple[Share, list[str], str]:
    """A unit's share before conversions, its trace lines, and a note if intrinsic ATEC limits conversion."""
    multiplier, terrain_why = unit_multiplier(u, category, terrain)
    capacity, why = conversion_capacity(u, value, rules)
    convertible, blocked = _convertible(u, category, value, terrain, rules)
    own_raw = u.re_size * CAPABILITY_FACTOR[value]
    share = Share(u, value, multiplier, own_raw, convertible, capacity)
    lines = [_describe(share, category, why)]
    if blocked:
        lines.append(f"{u.key}: its neutral REs cannot be converted: {blocked}.")
    cap_note = ""
    if category is Category.ATEC and u.intrinsic_atec > 0 and rules.intrinsic_reserved:
        room = max(ZERO, u.re_size - own_raw - u.intrinsic_atec)
        if convertible > room:
            cap_note = (f"{u.key}: intrinsic ATEC and conversions together stop at its size, so at most "
                        f"{re_text(room)} of its neutral REs can add anything by conversion.")
            share = replace(share, convertible=room)
    if terrain_why and (own_raw or convertible):
        lines.append(f"{u.key}: {terrain_why}; its {category} REs count × {_frac(multiplier)}."
                     if multiplier != 1 else f"{u.key}: {terrain_why}.")
    return share, lines, cap_note


def stack_total(units: Sequence[Unit], category: Category, terrain: Reduction = Reduction.NONE,
                rules: EuropaRules = EuropaRules()) -> StackTotal:
    """The stack's REs of one category, with each unit's share and every conversion.

    ``terrain`` is how the defender's hex scales the attack strength of c/m
    units; it scales AECA and AECD REs of c/m units, never ATEC.

    >>> pz = Unit("A1", UnitType.TANK, Formation.DIVISION, Fraction(3), aec=Capability.DOUBLE, combat_value=16)
    >>> mot = Unit("A2", UnitType.MOTORIZED_INFANTRY, Formation.DIVISION, Fraction(2), combat_value=6)
    >>> stack_total((pz, mot), Category.AECA).total
    Fraction(8, 1)
    """
    atec_values = effective_atec(units, rules) if category is Category.ATEC else {}
    shares: list[Share] = []
    lines: dict[str, list[str]] = {}
    capped: dict[str, str] = {}
    for u in units:
        value, value_note = atec_values[u.key] if category is Category.ATEC else (u.aec, "")
        share, unit_lines, cap_note = _prepare(u, category, value, terrain, rules)
        shares.append(share)
        lines[u.key] = ([value_note] if value_note else []) + unit_lines
        if cap_note:
            capped[u.key] = cap_note
    shares, conversions = _allocate(shares, category is Category.ATEC and not rules.intrinsic_reserved)
    if category is Category.ATEC:
        shares = [_with_intrinsic(s) for s in shares]
    trace: list[str] = []
    can_convert = any(s.capacity > 0 for s in shares)
    for s in shares:
        trace.extend(lines[s.unit.key])
        if can_convert and s.unit.key in capped:
            trace.append(capped[s.unit.key])
        if s.intrinsic:
            trace.append(f"{s.unit.key}: adds {re_text(s.intrinsic)} of intrinsic ATEC (intrinsic ATEC never "
                         "converts other units).")
        if category is Category.ATEC and s.intrinsic < s.unit.intrinsic_atec:
            trace.append(f"{s.unit.key}: of its {re_text(s.unit.intrinsic_atec)} of intrinsic ATEC only "
                         f"{re_text(s.intrinsic)} fits: with its conversions it may not pass its own "
                         f"{re_text(s.unit.re_size)}.")
    trace.extend(c.text(category) for c in conversions)
    trace.extend(_leftovers(shares))
    result = StackTotal(category, tuple(shares), tuple(conversions))
    if result.total == result.before_terrain:
        trace.append(f"Total {category}: {re_text(result.total)}.")
    else:
        trace.append(f"Total {category}: {re_text(result.total)} after terrain "
                     f"({re_text(result.before_terrain)} before terrain).")
    return replace(result, trace=tuple(trace))


def _with_intrinsic(s: Share) -> Share:
    if s.unit.intrinsic_atec <= 0:
        return s
    room = max(ZERO, s.unit.re_size - s.own_raw - s.converted_raw)
    return replace(s, intrinsic=min(s.unit.intrinsic_atec, room))


def _leftovers(shares: Sequence[Share]) -> list[str]:
    waiting = [s for s in shares if s.convertible > s.converted_raw]
    if not waiting:
        return []
    if not any(s.capacity > 0 for s in shares):
        return ["No unit in the stack can convert, so neutral REs stay neutral."]
    return [f"{s.unit.key}: {re_text(s.convertible - s.converted_raw)} left neutral (no conversion capacity remains)."
            for s in waiting]


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"

