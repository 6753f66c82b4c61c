"""Widget inputs for the armour effects rule: stacks of units, conditions and settings.

Units are rows of a list (the form adds, edits and removes them); each row
holds what the rule reads from a counter. Conditions hold the terrain and
weather values from the terrain effects chart, which our source does not
print. Settings hold our readings of what the source leaves open, each
marked assumed; they are declared once, in :class:`engine.europa.rules.EuropaRules`.

>>> values = AEC_INPUTS.validate({})
>>> [u["unit_type"] for u in values["attacker"]["units"]]
['tank', 'motorized_infantry']
>>> to_units(values["attacker"]["units"], "A")[0].label
'A1 Soviet tank brigade (1 RE)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number
from ..settings import rules_from, rules_group
from .rules import EuropaRules
from .tables import RatioTable
from .units import (
    INTRINSIC_ATEC_TYPES,
    Capability,
    Formation,
    Heavy,
    Nationality,
    Reduction,
    Unit,
    UnitType,
)

__all__ = [
    "AEC_INPUTS",
    "RATIO_INPUTS",
    "SETTINGS",
    "RATIO_SETTINGS",
    "MAX_UNITS",
    "to_units",
    "rules_of",
    "check_aec",
    "check_ratio",
    "assumptions",
]

MAX_UNITS = 12
"""Units a stack may hold in the widget."""

UNIT_TYPE_LABELS = {
    "tank": "Tank", "mechanized": "Mechanized (panzer grenadier)", "motorized_infantry": "Motorized infantry",
    "infantry": "Infantry", "assault_gun": "Assault gun", "anti_tank": "Anti-tank", "aa": "Anti-aircraft",
    "heavy_aa": "Heavy anti-aircraft", "artillery": "Artillery", "engineer": "Engineer", "hq": "HQ",
    "mortar": "Mortar", "rocket": "Rocket", "other": "Other",
}
CAPABILITY_LABELS = {"double": "Double", "full": "Full", "half": "Half", "neutral": "Neutral", "none": "None"}
HEAVY_LABELS = {
    "none": "Not heavy", "heavy_armour": "Heavy armour", "heavy_assault_gun": "Heavy assault gun",
    "heavy_engineer": "Heavy engineer", "heavy_tank_destroyer": "Heavy tank destroyer",
    "heavy_mot_aa": "Heavy motorized AA", "heavy_mot_at": "Heavy motorized AT",
}
NATIONALITY_LABELS = {"german": "German", "other_axis": "Other Axis", "soviet": "Soviet",
                      "other_allied": "Other Allied"}
REDUCTION_LABELS = {"none": "No effect", "halves": "Halves", "quarters": "Quarters"}


def _choices(enum: Any) -> tuple[str, ...]:
    return tuple(e.value for e in enum)


def _common_unit_fields() -> tuple[Field, ...]:
    return (
        Choice("unit_type", "The unit's type as the rule tells types apart.", "infantry",
               choices=_choices(UnitType), labels=UNIT_TYPE_LABELS, label="Type"),
        Choice("formation", "Division and corps convert a fixed 1 RE; smaller formations convert one for one.",
               "regiment", choices=_choices(Formation), label="Formation"),
        Number("re_size", "Size in regimental equivalents: 1 for a regiment or brigade; a division or corps as its "
               "counter and the country rules give it.", "1",
               minimum=0, maximum=30, label="REs"),
        Integer("combat_value", "Printed combat strength; a German panzer division above 12 converts 2 REs.", 3,
                minimum=0, maximum=99, label="Combat value"),
        Choice("nationality", "Whose unit: German panzer divisions and Axis heavy AA have special cases.", "german",
               choices=_choices(Nationality), labels=NATIONALITY_LABELS, label="Nationality"),
        Boolean("motorized", "A c/m unit (tank, mechanized and motorized infantry always are).", label="Motorized"),
        Choice("aec", "Armour value at the scenario date (AECA in attack, AECD in defence).", "neutral",
               choices=_choices(Capability), labels=CAPABILITY_LABELS, label="AEC"),
        Choice("atec", "Anti-tank value at the scenario date.", "neutral",
               choices=_choices(Capability), labels=CAPABILITY_LABELS, label="ATEC"),
        Choice("heavy", "Heavy class for heavy armour and heavy ATEC (counted per unit, not per RE).", "none",
               choices=_choices(Heavy), labels=HEAVY_LABELS, label="Heavy"),
    )


ATTACKER_UNIT = Group("unit", "One attacking unit.", label="Unit", fields=_common_unit_fields() + (
    Choice("across_hexside", "Effect of the hexside this unit attacks across on its strength (and AEC REs).",
           "none", choices=_choices(Reduction), labels=REDUCTION_LABELS, label="Hexside"),
    Boolean("full_strength_into_terrain", "Motorized infantry attacking at full strength into terrain that "
            "reduces c/m units (it can then no longer be converted).", label="Full strength"),
))

DEFENDER_UNIT = Group("unit", "One defending unit.", label="Unit", fields=_common_unit_fields() + (
    Number("intrinsic_atec", "Intrinsic ATEC REs of an infantry or motorized infantry division.", "0",
           minimum=0, maximum=30, label="Intrinsic ATEC"),
    Boolean("fortified_or_entrenched", "Fortified or entrenched in the hex before the reaction phase began.",
            label="Entrenched"),
    Boolean("reserve_moved_in_reaction", "Moved into the hex from reserve in the reaction phase.",
            label="Reserve move"),
    Boolean("eliminated", "The whole unit is eliminated in this combat (for intrinsic ATEC losses).",
            label="Eliminated"),
))

DEFAULT_ATTACKERS = (
    {"unit_type": "tank", "formation": "brigade", "re_size": "1", "combat_value": 3, "nationality": "soviet",
     "aec": "full", "atec": "full"},
    {"unit_type": "motorized_infantry", "formation": "regiment", "re_size": "1", "combat_value": 2,
     "nationality": "soviet"},
)
DEFAULT_DEFENDERS = (
    {"unit_type": "infantry", "formation": "division", "re_size": "3", "combat_value": 7, "nationality": "german",
     "intrinsic_atec": "1/2"},
)

SETTINGS = rules_group(EuropaRules, "settings",
                       "Our readings where the source is silent; change them to try other readings.",
                       label="Settings")
"""Settings of ``europa.aec``: every field of :class:`~engine.europa.rules.EuropaRules`."""


def _side(name: str, help_text: str, item: Group, default: tuple[dict[str, Any], ...], losses: int) -> Group:
    return Group(name, help_text, fields=(
        ListOf("units", "The units of the stack: add, edit or remove rows.", default=default, item=item,
               min_items=0, max_items=MAX_UNITS, label="Units"),
        Boolean("declines", "Declare before combat that this side uses no AEC/ATEC (and owes no required losses); "
                "the attacker declares first.", label="Declines AEC/ATEC"),
        Integer("losses", "Strength points this side loses by the combat result.", losses, minimum=0, maximum=200,
                label="Combat losses"),
    ), label=name.capitalize())


def _modifier_field(name: str, help_text: str, label: str) -> Integer:
    return Integer(name, help_text, 0, minimum=0, maximum=9, label=label)


CONDITIONS = Group("conditions", "Terrain and weather, from the terrain effects chart (not in our source).", fields=(
    Choice("terrain_cm", "How the defender's hex terrain scales c/m attack strength, and with it AECA and AECD.",
           "none", choices=_choices(Reduction), labels=REDUCTION_LABELS, label="Terrain vs c/m"),
    _modifier_field("terrain_aec_modifier", "Size of the defender's hex terrain AEC modifier (pulls toward zero).",
                    "Terrain AEC modifier"),
    _modifier_field("weather_aec_modifier", "How much the weather adds to the terrain's AEC modifier.",
                    "Weather AEC modifier"),
    _modifier_field("hexside_aec_modifier", "AEC modifier of the hexside attacked across; only ever reduces the "
                    "attacker's modifier.", "Hexside AEC modifier"),
), label="Conditions")

AEC_INPUTS = Group("inputs", "", fields=(
    _side("attacker", "The attacking stack.", ATTACKER_UNIT, DEFAULT_ATTACKERS, 2),
    _side("defender", "The defending stack.", DEFENDER_UNIT, DEFAULT_DEFENDERS, 3),
    CONDITIONS,
    SETTINGS,
))
"""Inputs of ``europa.aec``."""

RATIO_SETTINGS = rules_group(EuropaRules, "settings", "Our table where the source prints none.", label="Settings",
                             only=("armour_table", "weather_needs_terrain"))
"""Settings of ``europa.ratio``: the armour effects table and whether weather needs a terrain modifier."""

RATIO_INPUTS = Group("inputs", "", fields=(
    Number("aeca", "REs of AECA the attacker uses (after terrain).", "51/10", minimum=0, maximum=500, label="AECA"),
    Number("atec", "REs of ATEC the defender uses.", "1", minimum=0, maximum=500, label="ATEC"),
    Number("aecd", "REs of AECD the defender uses (after terrain).", "0", minimum=0, maximum=500, label="AECD"),
    Group("conditions", "AEC modifiers of terrain, weather and hexside.", fields=(
        _modifier_field("terrain_aec_modifier", "Size of the defender's hex terrain AEC modifier.",
                        "Terrain AEC modifier"),
        _modifier_field("weather_aec_modifier", "How much the weather adds to it.", "Weather AEC modifier"),
        _modifier_field("hexside_aec_modifier", "AEC modifier of the hexside attacked across (attacker only).",
                        "Hexside AEC modifier"),
    ), label="Conditions"),
    RATIO_SETTINGS,
))
"""Inputs of ``europa.ratio``."""


# Reading validated inputs --------------------------------------------------------

def _unit(row: Mapping[str, Any], key: str) -> Unit:
    return Unit(
        key=key, unit_type=UnitType(row["unit_type"]), formation=Formation(row["formation"]),
        re_size=row["re_size"], aec=Capability(row["aec"]), atec=Capability(row["atec"]),
        nationality=Nationality(row["nationality"]), combat_value=row["combat_value"], motorized=row["motorized"],
        intrinsic_atec=row.get("intrinsic_atec", Fraction(0)), heavy=Heavy(row["heavy"]),
        across_hexside=Reduction(row.get("across_hexside", "none")),
        full_strength_into_terrain=row.get("full_strength_into_terrain", False),
        fortified_or_entrenched=row.get("fortified_or_entrenched", False),
        reserve_moved_in_reaction=row.get("reserve_moved_in_reaction", False),
        eliminated=row.get("eliminated", False),
    )


def to_units(rows: Sequence[Mapping[str, Any]], prefix: str) -> tuple[Unit, ...]:
    """Validated unit rows as units keyed ``A1, A2, …`` or ``D1, D2, …``."""
    return tuple(_unit(row, f"{prefix}{i}") for i, row in enumerate(rows, start=1))


def rules_of(settings: Mapping[str, Any]) -> EuropaRules:
    """The rules a validated ``settings`` group describes; settings it does not show keep their defaults.

    >>> rules_of(RATIO_SETTINGS.validate({})).partial_re_losses
    'up'
    """
    return rules_from(EuropaRules, settings, partial=True)


# Cross-field checks ------------------------------------------------------------

def _check_table(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    seen: dict[Fraction, int] = {}
    for i, row in enumerate(rows):
        ratio = row["min_ratio"]
        if ratio in seen:
            raise InputError(f"{path}.{i}.min_ratio", f"row {i + 1} repeats the ratio of row {seen[ratio] + 1}; "
                             "each row needs its own ratio", "a ratio no other row uses")
        seen[ratio] = i


def _check_unit(row: Mapping[str, Any], path: str) -> None:
    if row["re_size"] <= 0:
        raise InputError(f"{path}.re_size", "a unit needs a size above 0 REs", "a number above 0")
    intrinsic = row.get("intrinsic_atec", Fraction(0))
    if intrinsic > 0:
        if row["unit_type"] not in {t.value for t in INTRINSIC_ATEC_TYPES} or row["formation"] != "division":
            raise InputError(f"{path}.intrinsic_atec", "only infantry and motorized infantry divisions have "
                             "intrinsic ATEC", "0 for this unit")
        if intrinsic > row["re_size"]:
            raise InputError(f"{path}.intrinsic_atec", "intrinsic ATEC cannot exceed the division's size",
                             "at most the unit's REs")
    if row.get("full_strength_into_terrain") and row["unit_type"] != UnitType.MOTORIZED_INFANTRY.value:
        raise InputError(f"{path}.full_strength_into_terrain", "only motorized infantry may attack at full strength "
                         "into terrain that reduces c/m units", "false for this unit")
    if row.get("fortified_or_entrenched") and row.get("reserve_moved_in_reaction"):
        raise InputError(f"{path}.reserve_moved_in_reaction", "a unit that moved in during the reaction phase was "
                         "not fortified or entrenched in the hex before it began; untick one", "false when entrenched")


def check_aec(values: Mapping[str, Any]) -> None:
    """Impossible combinations in ``europa.aec`` inputs."""
    for side in ("attacker", "defender"):
        for i, row in enumerate(values[side]["units"]):
            _check_unit(row, f"{side}.units.{i}")
    _check_table(values["settings"]["armour_table"], "settings.armour_table")
    _check_table(values["settings"]["heavy_table"], "settings.heavy_table")


def check_ratio(values: Mapping[str, Any]) -> None:
    """Impossible combinations in ``europa.ratio`` inputs."""
    _check_table(values["settings"]["armour_table"], "settings.armour_table")


# Assumptions ---------------------------------------------------------------

def _value_text(f: Field, value: Any) -> str:
    if isinstance(f, ListOf):
        table = RatioTable.from_rows(value)
        default = RatioTable.from_rows(f.item.validate(r) for r in f.default)
        return table.summary() + (" (our default)" if table == default else " (your table)")
    if isinstance(f, Choice):
        return f.label_for(value)
    if isinstance(f, Boolean):
        return "yes" if value else "no"
    return str(value)


def assumptions(settings_field: Group, settings: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every assumed setting with its value in words, for the result."""
    out = []
    for f in settings_field.fields:
        if f.assumed:
            out.append({"setting": f"settings.{f.name}", "value": _value_text(f, settings[f.name]), "note": f.assumed})
    return out
