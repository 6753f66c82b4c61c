"""Units as the armour-effects rule sees them (Europa rule 10).

A unit here is a counter reduced to what the armour rule reads: its size in
regimental equivalents (REs), its formation (division, brigade, …), its
type, its combat value, its two capability values (one for armour, one for
anti-tank) at the scenario date, and a few states such as being entrenched.

>>> u = Unit("A1", UnitType.TANK, Formation.BRIGADE, Fraction(1), aec=Capability.FULL)
>>> u.label
'A1 German tank brigade (1 RE)'
>>> u.is_cm
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

__all__ = [
    "Capability",
    "UnitType",
    "Formation",
    "Nationality",
    "Heavy",
    "Reduction",
    "Unit",
    "CAPABILITY_FACTOR",
    "NEUTRAL_SHARE",
    "CM_TYPES",
    "NOT_CONVERTIBLE_TO_AEC",
    "NOT_CONVERTIBLE_TO_ATEC",
    "CONDITIONAL_DOUBLE_ATEC",
    "INTRINSIC_ATEC_TYPES",
    "INFANTRY_TYPES",
    "ONE_FOR_ONE_FORMATIONS",
    "DIVISION_FORMATIONS",
    "DIVISION_CONVERSION",
    "FIXED_CONVERSION_TYPES",
    "BIG_PANZER_CONVERSION",
    "BIG_PANZER_MIN_COMBAT_VALUE",
    "BIG_PANZER_TYPES",
    "INFANTRY_PER_DOUBLE_RE",
    "AXIS",
    "REDUCTION_FACTOR",
    "re_text",
    "UNIT_TYPE_WORDS",
    "NATIONALITY_WORDS",
]


class Capability(StrEnum):
    """The five values a unit may have for armour (AEC) or anti-tank (ATEC) effects."""

    DOUBLE = "double"
    """Each RE counts as two."""
    FULL = "full"
    """Each RE counts as one."""
    HALF = "half"
    """Each RE counts as one half; the other half is neutral."""
    NEUTRAL = "neutral"
    """Counts nothing alone, but may be converted by a capable unit."""
    NONE = "none"
    """Counts nothing and cannot be converted."""


CAPABILITY_FACTOR: dict[Capability, Fraction] = {
    Capability.DOUBLE: Fraction(2),
    Capability.FULL: Fraction(1),
    Capability.HALF: Fraction(1, 2),
    Capability.NEUTRAL: Fraction(0),
    Capability.NONE: Fraction(0),
}
"""REs of effect per RE of unit size, before any conversion."""

NEUTRAL_SHARE: dict[Capability, Fraction] = {
    Capability.DOUBLE: Fraction(0),
    Capability.FULL: Fraction(0),
    Capability.HALF: Fraction(1, 2),
    Capability.NEUTRAL: Fraction(1),
    Capability.NONE: Fraction(0),
}
"""Share of the unit's REs that is neutral and so open to conversion."""


class UnitType(StrEnum):
    """The unit types the armour rule tells apart."""

    TANK = "tank"
    MECHANIZED = "mechanized"
    MOTORIZED_INFANTRY = "motorized_infantry"
    INFANTRY = "infantry"
    ASSAULT_GUN = "assault_gun"
    ANTI_TANK = "anti_tank"
    AA = "aa"
    HEAVY_AA = "heavy_aa"
    ARTILLERY = "artillery"
    ENGINEER = "engineer"
    HQ = "hq"
    MORTAR = "mortar"
    ROCKET = "rocket"
    OTHER = "other"


UNIT_TYPE_WORDS: dict[UnitType, str] = {
    UnitType.TANK: "tank",
    UnitType.MECHANIZED: "mechanized",
    UnitType.MOTORIZED_INFANTRY: "motorized infantry",
    UnitType.INFANTRY: "infantry",
    UnitType.ASSAULT_GUN: "assault gun",
    UnitType.ANTI_TANK: "anti-tank",
    UnitType.AA: "anti-aircraft",
    UnitType.HEAVY_AA: "heavy anti-aircraft",
    UnitType.ARTILLERY: "artillery",
    UnitType.ENGINEER: "engineer",
    UnitType.HQ: "HQ",
    UnitType.MORTAR: "mortar",
    UnitType.ROCKET: "rocket",
    UnitType.OTHER: "other",
}
"""How each type reads in a trace."""


class Formation(StrEnum):
    """How large a formation the counter is; divisions and corps convert less."""

    DIVISION = "division"
    CORPS = "corps"
    BRIGADE = "brigade"
    REGIMENT = "regiment"
    CADRE = "cadre"
    REMNANT = "remnant"
    BATTALION = "battalion"


class Nationality(StrEnum):
    """Whose unit it is; German panzer divisions and Axis heavy AA have special cases."""

    GERMAN = "german"
    OTHER_AXIS = "other_axis"
    SOVIET = "soviet"
    OTHER_ALLIED = "other_allied"


NATIONALITY_WORDS: dict[Nationality, str] = {
    Nationality.GERMAN: "German",
    Nationality.OTHER_AXIS: "Axis",
    Nationality.SOVIET: "Soviet",
    Nationality.OTHER_ALLIED: "Allied",
}

AXIS: frozenset[Nationality] = frozenset({Nationality.GERMAN, Nationality.OTHER_AXIS})
"""Nationalities on the Axis side (their heavy motorized AA counts twice as heavy ATEC)."""


class Heavy(StrEnum):
    """Heavy-unit class shown on the counter, for heavy armour and heavy ATEC."""

    NONE = "none"
    HEAVY_ARMOUR = "heavy_armour"
    HEAVY_ASSAULT_GUN = "heavy_assault_gun"
    HEAVY_ENGINEER = "heavy_engineer"
    HEAVY_TANK_DESTROYER = "heavy_tank_destroyer"
    HEAVY_MOT_AA = "heavy_mot_aa"
    HEAVY_MOT_AT = "heavy_mot_at"


class Reduction(StrEnum):
    """How terrain or a hexside scales a unit's attack strength (and so its AEC REs)."""

    NONE = "none"
    HALVES = "halves"
    QUARTERS = "quarters"


REDUCTION_FACTOR: dict[Reduction, Fraction] = {
    Reduction.NONE: Fraction(1),
    Reduction.HALVES: Fraction(1, 2),
    Reduction.QUARTERS: Fraction(1, 4),
}

CM_TYPES: frozenset[UnitType] = frozenset({UnitType.TANK, UnitType.MECHANIZED, UnitType.MOTORIZED_INFANTRY})
"""Types that are always combat or motorized (c/m) units, whatever the motorized box says."""

NOT_CONVERTIBLE_TO_AEC: frozenset[UnitType] = frozenset(
    {UnitType.HQ, UnitType.AA, UnitType.HEAVY_AA, UnitType.ANTI_TANK})
"""Neutral types that may never become AEC (non-motorized artillery is excluded as well)."""

NOT_CONVERTIBLE_TO_ATEC: frozenset[UnitType] = frozenset({UnitType.MORTAR, UnitType.ROCKET})
"""Neutral types that may never become ATEC."""

CONDITIONAL_DOUBLE_ATEC: frozenset[UnitType] = frozenset({UnitType.ANTI_TANK, UnitType.HEAVY_AA})
"""Types whose double ATEC needs entrenchment and infantry support (Soviet AT, German heavy AA)."""

INTRINSIC_ATEC_TYPES: frozenset[UnitType] = frozenset({UnitType.INFANTRY, UnitType.MOTORIZED_INFANTRY})
"""Types whose divisions may carry intrinsic ATEC."""

INFANTRY_TYPES: frozenset[UnitType] = frozenset({UnitType.INFANTRY})
"""Types always counted as infantry for the three-to-one support test."""

INFANTRY_PER_DOUBLE_RE = 3
"""Infantry REs needed per RE of an AT or heavy AA unit that counts double ATEC."""

ONE_FOR_ONE_FORMATIONS: frozenset[Formation] = frozenset(
    {Formation.BRIGADE, Formation.REGIMENT, Formation.CADRE, Formation.REMNANT, Formation.BATTALION})
"""Formations that convert neutral REs one for one with their own size."""

DIVISION_FORMATIONS: frozenset[Formation] = frozenset({Formation.DIVISION, Formation.CORPS})
"""Formations that convert a fixed number of REs whatever their size."""

DIVISION_CONVERSION = Fraction(1)
"""REs a division or corps converts."""

FIXED_CONVERSION_TYPES: frozenset[UnitType] = frozenset({UnitType.TANK, UnitType.MECHANIZED})
"""Types whose divisions and corps the source names as counting 1 RE for conversion."""

BIG_PANZER_CONVERSION = Fraction(2)
"""REs a German panzer or panzer grenadier division above the threshold converts."""

BIG_PANZER_MIN_COMBAT_VALUE = 13
"""A combat value greater than twelve, i.e. at least thirteen."""

BIG_PANZER_TYPES: frozenset[UnitType] = frozenset({UnitType.TANK, UnitType.MECHANIZED})
"""Panzer (tank) and panzer grenadier (mechanized) divisions."""


def re_text(value: Fraction) -> str:
    """REs in words: ``1 RE``, ``1/2 RE``, ``5/2 REs``, ``0 REs``.

    >>> re_text(Fraction(1)), re_text(Fraction(1, 2)), re_text(Fraction(5, 2)), re_text(Fraction(0))
    ('1 RE', '1/2 RE', '5/2 REs', '0 REs')
    """
    text = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    return f"{text} RE" + ("s" if value > 1 or value == 0 else "")


@dataclass(frozen=True)
class Unit:
    """One counter in a stack, with what the armour rule needs to know about it."""

    key: str
    """Short handle in traces: ``A1`` is the attacker's first unit, ``D2`` the defender's second."""
    unit_type: UnitType
    """What kind of unit it is."""
    formation: Formation
    """Division, corps, brigade, regiment, cadre, remnant or battalion."""
    re_size: Fraction
    """Size in regimental equivalents."""
    aec: Capability = Capability.NEUTRAL
    """Armour value at the scenario date (used as AECA in attack, AECD in defence)."""
    atec: Capability = Capability.NEUTRAL
    """Anti-tank value at the scenario date."""
    nationality: Nationality = Nationality.GERMAN
    """Whose unit it is."""
    combat_value: int = 0
    """Printed combat (attack) strength; German panzer divisions above twelve convert two REs."""
    motorized: bool = False
    """A c/m unit; tank, mechanized and motorized infantry always are."""
    intrinsic_atec: Fraction = Fraction(0)
    """Intrinsic ATEC REs of an infantry or motorized infantry division."""
    heavy: Heavy = Heavy.NONE
    """Heavy-unit class for heavy armour and heavy ATEC."""
    across_hexside: Reduction = Reduction.NONE
    """Attackers only: the hexside this unit attacks across halves or quarters its strength."""
    full_strength_into_terrain: bool = False
    """Attackers only: motorized infantry attacking at full strength into c/m-reducing terrain."""
    fortified_or_entrenched: bool = False
    """Defenders only: fortified or entrenched in the hex before the reaction phase began."""
    reserve_moved_in_reaction: bool = False
    """Defenders only: moved into the hex from reserve in the reaction phase."""
    eliminated: bool = False
    """Defenders only: the whole unit is eliminated in this combat."""

    @property
    def label(self) -> str:
        """How the unit is named in traces."""
        return (f"{self.key} {NATIONALITY_WORDS[self.nationality]} {UNIT_TYPE_WORDS[self.unit_type]} "
                f"{self.formation.value} ({re_text(self.re_size)})")

    @property
    def is_cm(self) -> bool:
        """Combat or motorized: the units whose attack strength c/m terrain reduces."""
        return self.motorized or self.unit_type in CM_TYPES

    @property
    def is_division(self) -> bool:
        """A division or corps, which converts a fixed number of REs."""
        return self.formation in DIVISION_FORMATIONS

    @property
    def is_big_panzer(self) -> bool:
        """A German panzer or panzer grenadier division with a combat value above twelve.

        >>> Unit("A1", UnitType.TANK, Formation.DIVISION, Fraction(3), combat_value=16).is_big_panzer
        True
        >>> Unit("A1", UnitType.TANK, Formation.DIVISION, Fraction(3), combat_value=12).is_big_panzer
        False
        """
        return (self.nationality is Nationality.GERMAN and self.formation is Formation.DIVISION
                and self.unit_type in BIG_PANZER_TYPES and self.combat_value >= BIG_PANZER_MIN_COMBAT_VALUE)

    def may_become_aec(self, motorized_aa_at: bool = False) -> bool:
        """Whether neutral REs of this type may be converted to AEC; with ``motorized_aa_at``
        "non-motorized" is read as qualifying AA and anti-tank as well as artillery.

        >>> Unit("A1", UnitType.ARTILLERY, Formation.REGIMENT, Fraction(1)).may_become_aec()
        False
        >>> Unit("A1", UnitType.ARTILLERY, Formation.REGIMENT, Fraction(1), motorized=True).may_become_aec()
        True
        >>> towed = Unit("T1", UnitType.ANTI_TANK, Formation.REGIMENT, Fraction(1), motorized=True)
        >>> towed.may_become_aec(), towed.may_become_aec(motorized_aa_at=True)
        (False, True)
        """
        if self.unit_type is UnitType.HQ or self.unit_type in NOT_CONVERTIBLE_TO_AEC and not motorized_aa_at:
            return False
        needs_motor = self.unit_type is UnitType.ARTILLERY or self.unit_type in NOT_CONVERTIBLE_TO_AEC
        return self.motorized or not needs_motor

    def may_become_atec(self) -> bool:
        """Whether neutral REs of this type may be converted to ATEC.

        >>> Unit("D1", UnitType.MORTAR, Formation.REGIMENT, Fraction(1)).may_become_atec()
        False
        """
        return self.unit_type not in NOT_CONVERTIBLE_TO_ATEC
