"""Every widget of the armour effects rule, declared in one place.

``europa.aec`` takes both stacks, the conditions and the settings, and
returns the three totals as exact fractions, each unit's share, every
conversion in words, the ratios, the die modifier as a distribution, the
required losses and the heavy-armour comparison. ``europa.ratio`` reads
three totals typed in directly on the armour effects table.

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
>>> result = compute_aec(values)
>>> result["aeca"], result["atec"], result["aecd"]
('2', '1/2', '0')
>>> [(o["result"], o["p"]) for o in result["modifier"]["outcomes"]]
[('+2', '1/2'), ('+3', '1/2')]
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import figures as fig
from .. import present
from ..dice import Dist, Roll, prob_json, roll
from ..schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, fraction_text
from ..settings import rules_from, rules_group
from ..widgets import Widget, register
from .effects import AECA_AECD, AECA_ATEC, ArmourModifier, armour_modifier, declined_armour, toward_zero
from .heavy import HeavyComparison, HeavyEffect, heavy_comparison
from .losses import Requirement, attacker_requirement, combined_defender_total, defender_requirements
from .rules import EuropaRules
from .tables import RatioTable, TableRow, ratio_text
from .totals import Category, StackTotal, stack_total
from .units import (
    INTRINSIC_ATEC_TYPES,
    Capability,
    Formation,
    Heavy,
    Nationality,
    Reduction,
    Unit,
    UnitType,
    re_text,
)

__all__ = [
    "AEC",
    "RATIO",
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
    "Analysis",
    "analyse",
    "compute_aec",
    "render_aec",
    "sample_aec",
    "render_sample",
    "compute_ratio",
    "render_ratio",
    "sample_ratio",
    "outcomes_json",
]


# Inputs ------------------------------------------------------------------------

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


# Shared helpers ----------------------------------------------------------------

ZERO = Fraction(0)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def outcomes_json(dist: Dist[int]) -> list[dict[str, Any]]:
    """A modifier distribution as result rows, lowest first.

    >>> outcomes_json(Dist({3: 1, 4: 1}))[0]
    {'result': '+3', 'modifier': 3, 'side': 'attacker', 'p': '1/2', 'float': 0.5}
    """
    rows = []
    for m, p in dist.probabilities().items():
        side = "attacker" if m > 0 else "defender" if m < 0 else "neutral"
        rows.append({"result": _signed(m), "modifier": m, "side": side, **prob_json(p)})
    return rows


def _row_json(row: TableRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"from": ratio_text(row.min_ratio), "modifier": row.modifier,
            "chance_of_next": prob_json(row.chance_of_next)}


def _armour_json(m: ArmourModifier) -> dict[str, Any]:
    return {"comparison": m.comparison, "ratio": ratio_text(m.ratio) if m.comparison else None,
            "row": _row_json(m.row), "before_terrain": outcomes_json(m.base), "reduction": m.reduction,
            "outcomes": outcomes_json(m.final), "trace": list(m.trace)}


def _chance_roll(rng: random.Random, p: Fraction, label: str) -> tuple[Roll, bool, str]:
    """Roll for a chance ``p`` on a die with at least six sides whose faces split it exactly."""
    sides = p.denominator * math.ceil(6 / p.denominator)
    hits = int(p * sides)
    r = roll(rng, 1, sides, label)
    need = sides - hits + 1
    return r, r.total >= need, f"{need}+ on a d{sides}"


def _rolled_row(rng: random.Random, row: TableRow, label: str, rolls: list[Roll], steps: list[str]) -> int:
    if 0 < row.chance_of_next < 1:
        r, hit, need = _chance_roll(rng, row.chance_of_next, label)
        rolls.append(r)
        result = row.modifier + 1 if hit else row.modifier
        steps.append(f"{label}: rolled {r.total}, needing {need}: {_signed(result)}.")
        return row.modifier + (1 if hit else 0)
    return row.modifier + (1 if row.chance_of_next == 1 else 0)


def _sample_armour(rng: random.Random, m: ArmourModifier, rolls: list[Roll], steps: list[str]) -> int:
    if m.row is None:
        steps.append("No armour modifier applies.")
        return 0
    value = _rolled_row(rng, m.row, "armour table chance", rolls, steps)
    value = max(value, 0) if m.comparison == AECA_ATEC else min(value, 0)
    final = toward_zero(value, m.reduction)
    steps.append(f"Armour modifier ({m.comparison} {ratio_text(m.ratio)}): {_signed(value)}"
                 + (f", {m.reduction} toward zero for terrain and weather: {_signed(final)}." if m.reduction else "."))
    return final


def _mean_text(dist: Dist[int]) -> str:
    return fraction_text(dist.mean())


# europa.aec -------------------------------------------------------------------

def _unit_rows(units: Sequence[Unit], side: str, totals: Sequence[StackTotal]) -> list[dict[str, Any]]:
    rows = []
    for u in units:
        row: dict[str, Any] = {"key": u.key, "side": side, "label": u.label}
        for t in totals:
            s = t.share(u.key)
            row[t.category.value.lower()] = fraction_text(s.total)
            row[t.category.value.lower() + "_before_terrain"] = fraction_text(s.total_raw)
        rows.append(row)
    return rows


def _heavy_json(h: HeavyEffect) -> dict[str, Any]:
    return {"heavy_armour": h.armour, "opposing_heavy_atec": h.atec, "row": _row_json(h.row),
            "outcomes": outcomes_json(h.final), "text": h.text}


def _losses_json(combat: int, requirements: Sequence[Requirement], total: int) -> dict[str, Any]:
    return {"combat_losses": combat, "required": total, "requirements": [r.to_json() for r in requirements]}


@dataclass(frozen=True)
class Analysis:
    """Everything the rule works out for one combat, before it becomes JSON."""

    attackers: tuple[Unit, ...]
    """Attacking units, keyed A1, A2, …"""
    defenders: tuple[Unit, ...]
    """Defending units, keyed D1, D2, …"""
    aeca: StackTotal
    """Attacker's AECA."""
    aecd: StackTotal
    """Defender's AECD."""
    atec: StackTotal
    """Defender's ATEC."""
    used: tuple[Fraction, Fraction, Fraction]
    """AECA, AECD and ATEC in use after the declarations."""
    declines: tuple[str, ...]
    """The declarations in words."""
    armour: ArmourModifier
    """Armour modifier."""
    heavy: HeavyComparison
    """Heavy armour comparison."""
    hex_modifies_aec: bool
    """Whether the defender's hex modifies AEC for any reason."""
    attacker_requirement: Requirement
    """Required AECA losses."""
    defender_requirements: tuple[Requirement, Requirement]
    """Required AECD and ATEC losses."""
    defender_total: int
    """Defender's required points in all."""

    @property
    def modifier(self) -> Dist[int]:
        """Armour and heavy modifiers together."""
        return self.armour.final + self.heavy.modifier


def _declarations(attacker_uses: bool, defender_uses: bool) -> tuple[str, ...]:
    first = ("The attacker declares first and uses its AECA." if attacker_uses else
             "The attacker declares first and declines AEC: its AECA counts as 0 and it owes no armour losses.")
    second = ("The defender then uses its AECD and ATEC." if defender_uses else
              "The defender then declines AEC and ATEC: both count as 0 and it owes no armour or anti-tank losses.")
    return first, second


def analyse(values: Mapping[str, Any]) -> Analysis:
    """Work out totals, modifiers and required losses from validated ``europa.aec`` inputs."""
    rules = rules_of(values["settings"])
    conditions = values["conditions"]
    terrain = Reduction(conditions["terrain_cm"])
    attackers = to_units(values["attacker"]["units"], "A")
    defenders = to_units(values["defender"]["units"], "D")
    attacker_uses = not values["attacker"]["declines"]
    defender_uses = not values["defender"]["declines"]

    aeca = stack_total(attackers, Category.AECA, terrain, rules)
    aecd = stack_total(defenders, Category.AECD, terrain, rules)
    atec = stack_total(defenders, Category.ATEC, terrain, rules)
    used_aeca = aeca.total if attacker_uses else ZERO
    used_aecd = aecd.total if defender_uses else ZERO
    used_atec = atec.total if defender_uses else ZERO

    weather = rules.weather_modifier(conditions["terrain_aec_modifier"], conditions["weather_aec_modifier"])
    if not attacker_uses and rules.no_modifier_when_declined:
        armour = declined_armour()
    elif not defender_uses and rules.no_modifier_when_defence_declines:
        armour = declined_armour("defender")
    else:
        armour = armour_modifier(used_aeca, used_atec, used_aecd, rules.armour,
                                 conditions["terrain_aec_modifier"], weather, conditions["hexside_aec_modifier"])
    skips = rules.decline_covers_heavy
    heavy = heavy_comparison(attackers if attacker_uses or not skips else (),
                             defenders if defender_uses or not skips else (), rules.heavy,
                             every_axis_heavy_aa=rules.every_axis_heavy_aa)

    hex_modifies_aec = terrain is not Reduction.NONE or conditions["terrain_aec_modifier"] > 0 or weather > 0
    cap_aeca = (aeca.before_terrain if rules.caps_before_terrain else aeca.total) if attacker_uses else ZERO
    defender_losses = values["defender"]["losses"]
    aeca_req = attacker_requirement(aeca, used_atec, attacker_uses=attacker_uses,
                                    combat_losses=values["attacker"]["losses"],
                                    hex_modifies_aec=hex_modifies_aec, rules=rules)
    eliminated_intrinsic = sum((atec.share(u.key).intrinsic for u in defenders if u.eliminated), ZERO)
    defender_reqs = defender_requirements(
        aecd, atec, cap_aeca, defender_uses=defender_uses, aecd_compared=armour.comparison == AECA_AECD,
        combat_losses=defender_losses, hex_modifies_aec=hex_modifies_aec,
        eliminated_intrinsic=eliminated_intrinsic, rules=rules)
    defender_total = combined_defender_total(defender_reqs, defender_losses, rules)
    return Analysis(attackers, defenders, aeca, aecd, atec, (used_aeca, used_aecd, used_atec),
                    _declarations(attacker_uses, defender_uses), armour, heavy, hex_modifies_aec,
                    aeca_req, defender_reqs, defender_total)


def _loss_trace(a: Analysis, rules_add: bool) -> list[str]:
    aecd_req, atec_req = a.defender_requirements
    lines = list(a.attacker_requirement.lines + aecd_req.lines + atec_req.lines)
    if a.hex_modifies_aec:
        lines.insert(0, "The defender's hex modifies AEC, so its ATEC counts double for required losses.")
    if aecd_req.used and atec_req.used:
        lines.append(f"Defender in all: {a.defender_total} strength points "
                     f"({'the two requirements add up' if rules_add else 'one point may meet both'}, "
                     "never more than the combat result).")
    return lines


def compute_aec(values: Mapping[str, Any]) -> dict[str, Any]:
    """Totals, ratios, modifier, required losses and heavy comparison for two stacks, as JSON."""
    a = analyse(values)
    used_aeca, used_aecd, used_atec = a.used
    total = a.modifier
    return {
        "aeca": fraction_text(a.aeca.total),
        "aecd": fraction_text(a.aecd.total),
        "atec": fraction_text(a.atec.total),
        "before_terrain": {"aeca": fraction_text(a.aeca.before_terrain),
                           "aecd": fraction_text(a.aecd.before_terrain)},
        "intrinsic_atec": fraction_text(a.atec.intrinsic),
        "used": {"aeca": fraction_text(used_aeca), "aecd": fraction_text(used_aecd),
                 "atec": fraction_text(used_atec)},
        "units": (_unit_rows(a.attackers, "attacker", (a.aeca,))
                  + _unit_rows(a.defenders, "defender", (a.aecd, a.atec))),
        "conversions": {t.category.value.lower(): [c.text(t.category) for c in t.conversions]
                        for t in (a.aeca, a.aecd, a.atec)},
        "ratios": {
            "aeca_atec": ratio_text(used_aeca / used_atec) if used_atec else ("no ATEC" if used_aeca else "none"),
            "aeca_aecd": ratio_text(used_aeca / used_aecd) if used_aecd else "no AECD",
            "decides": a.armour.comparison,
        },
        "modifier": {
            "armour": _armour_json(a.armour),
            "heavy": {"outcomes": outcomes_json(a.heavy.modifier)},
            "outcomes": outcomes_json(total),
            "mean": _mean_text(total),
        },
        "required_losses": {
            "attacker": _losses_json(values["attacker"]["losses"], (a.attacker_requirement,),
                                     a.attacker_requirement.strength_points),
            "defender": _losses_json(values["defender"]["losses"], a.defender_requirements, a.defender_total),
            "hex_modifies_aec": a.hex_modifies_aec,
        },
        "heavy": {"attack": _heavy_json(a.heavy.attack), "defence": _heavy_json(a.heavy.defence),
                  "counts": list(a.heavy.counts)},
        "trace": {
            "declines": list(a.declines),
            "aeca": list(a.aeca.trace),
            "aecd": list(a.aecd.trace),
            "atec": list(a.atec.trace),
            "modifier": list(a.armour.trace),
            "heavy": list(a.heavy.counts) + [a.heavy.attack.text, a.heavy.defence.text],
            "losses": _loss_trace(a, rules_of(values["settings"]).defender_add),
        },
        "assumptions": assumptions(SETTINGS, values["settings"]),
    }


def _unit_table(units: Sequence[Mapping[str, Any]]) -> str:
    head = ('<thead><tr><th scope="col">Unit</th><th scope="col" class="num">AECA</th>'
            '<th scope="col" class="num">AECD</th><th scope="col" class="num">ATEC</th></tr></thead>')
    rows = []
    for u in units:
        cells = "".join(f'<td class="num">{present.esc(u.get(k, "—"))}</td>' for k in ("aeca", "aecd", "atec"))
        rows.append(f'<tr class="side-{present.esc(u["side"])}">'
                    f'<th scope="row">{present.esc(u["label"])}</th>{cells}</tr>')
    if not rows:
        rows.append('<tr><th scope="row">No units</th>' + '<td class="num">—</td>' * 3 + '</tr>')
    return (f'<table class="units"><caption>Each unit\'s share, after terrain</caption>{head}'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _res(text: str) -> str:
    """Exact RE text from a result as words: ``"5/2"`` → ``5/2 REs``."""
    return re_text(Fraction(text))


def _loss_figures(losses: Mapping[str, Any]) -> str:
    items = []
    for side in ("attacker", "defender"):
        part = losses[side]
        items.append({"label": f"{side.capitalize()}: required from armour/anti-tank units",
                      "value": f"{part['required']} of {part['combat_losses']} strength points lost"})
    return present.figures(items)


def render_aec(result: Mapping[str, Any]) -> str:
    """The result as HTML: totals, shares, traces, ratios, modifier, losses, heavy, assumptions."""
    bt = result["before_terrain"]
    totals = present.figures([
        {"label": "AECA (attacker)", "value": _res(result["aeca"]), "help": f"{_res(bt['aeca'])} before terrain"},
        {"label": "AECD (defender)", "value": _res(result["aecd"]), "help": f"{_res(bt['aecd'])} before terrain"},
        {"label": "ATEC (defender)", "value": _res(result["atec"]),
         "help": f"{_res(result['intrinsic_atec'])} of it intrinsic; terrain never changes ATEC"},
    ])
    trace = result["trace"]
    parts = [
        present.section("Totals", totals + present.steps(trace["declines"], ordered=False)),
        present.section("Units", _unit_table(result["units"])),
        present.section("AECA, unit by unit", present.steps(trace["aeca"])),
        present.section("AECD, unit by unit", present.steps(trace["aecd"])),
        present.section("ATEC, unit by unit", present.steps(trace["atec"])),
    ]
    ratios = result["ratios"]
    armour = result["modifier"]["armour"]
    parts.append(present.section("Ratios and armour modifier", present.figures([
        {"label": "AECA : ATEC", "value": ratios["aeca_atec"]},
        {"label": "AECA : AECD", "value": ratios["aeca_aecd"]},
        {"label": "Decided by", "value": ratios["decides"] or "neither (no modifier)"},
    ]) + present.steps(armour["trace"]) + present.distribution(armour["outcomes"], "Armour modifier", "Modifier")))
    parts.append(present.section("Heavy armour", present.steps(result["heavy"]["counts"], ordered=False)
                                 + present.steps([result["heavy"]["attack"]["text"],
                                                  result["heavy"]["defence"]["text"]], ordered=False)
                                 + present.distribution(result["modifier"]["heavy"]["outcomes"],
                                                        "Heavy armour modifier", "Modifier")))
    parts.append(present.section("Die modifier", present.distribution(
        result["modifier"]["outcomes"], "Armour and heavy modifiers to the main combat die", "Modifier")
        + present.note(f"Average modifier: {result['modifier']['mean']}.")))
    parts.append(present.section("Required losses", _loss_figures(result["required_losses"])
                                 + present.steps(trace["losses"])))
    parts.append(present.assumptions(result["assumptions"]))
    return "".join(parts)


def sample_aec(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """One seeded roll of the chances in the armour and heavy modifiers."""
    a = analyse(values)
    rng = random.Random(seed)
    rolls: list[Roll] = []
    used_aeca, used_aecd, used_atec = a.used
    steps: list[str] = [f"AECA {fraction_text(used_aeca)}, ATEC {fraction_text(used_atec)}, "
                        f"AECD {fraction_text(used_aecd)}."]
    value = _sample_armour(rng, a.armour, rolls, steps)
    for effect, sign, label in ((a.heavy.attack, 1, "heavy attack chance"),
                                (a.heavy.defence, -1, "heavy defence chance")):
        if effect.row is not None:
            h = max(_rolled_row(rng, effect.row, label, rolls, steps), 0)
            steps.append(f"{effect.text} Result: {_signed(sign * h)}.")
            value += sign * h
    return {"rolls": [r.to_json() for r in rolls], "steps": steps, "modifier": value,
            "outcome": f"Die modifier {_signed(value)}."}


def render_sample(sample: Mapping[str, Any]) -> str:
    """One seeded roll as HTML."""
    return (present.rolls(sample["rolls"]) + present.steps(sample["steps"])
            + present.note(sample["outcome"], "outcome"))


# europa.ratio --------------------------------------------------------------------

def _ratio_modifier(values: Mapping[str, Any]) -> ArmourModifier:
    c = values["conditions"]
    rules = rules_of(values["settings"])
    return armour_modifier(values["aeca"], values["atec"], values["aecd"], rules.armour, c["terrain_aec_modifier"],
                           rules.weather_modifier(c["terrain_aec_modifier"], c["weather_aec_modifier"]),
                           c["hexside_aec_modifier"])


def compute_ratio(values: Mapping[str, Any]) -> dict[str, Any]:
    """The armour modifier from three totals typed in directly.

    >>> r = compute_ratio(RATIO_INPUTS.validate({}))
    >>> r["ratios"]["aeca_atec"], [(o["result"], o["p"]) for o in r["modifier"]["outcomes"]]
    ('5.1:1', [('+3', '1/2'), ('+4', '1/2')])
    """
    m = _ratio_modifier(values)
    aeca, atec, aecd = values["aeca"], values["atec"], values["aecd"]
    return {
        "aeca": fraction_text(aeca), "atec": fraction_text(atec), "aecd": fraction_text(aecd),
        "ratios": {"aeca_atec": ratio_text(aeca / atec) if atec else ("no ATEC" if aeca else "none"),
                   "aeca_aecd": ratio_text(aeca / aecd) if aecd else "no AECD", "decides": m.comparison},
        "modifier": {"armour": _armour_json(m), "outcomes": outcomes_json(m.final), "mean": _mean_text(m.final)},
        "trace": list(m.trace),
        "assumptions": assumptions(RATIO_SETTINGS, values["settings"]),
    }


def render_ratio(result: Mapping[str, Any]) -> str:
    """The ratio result as HTML."""
    r = result["ratios"]
    return (present.section("Ratios", present.figures([
        {"label": "AECA : ATEC", "value": r["aeca_atec"]},
        {"label": "AECA : AECD", "value": r["aeca_aecd"]},
        {"label": "Decided by", "value": r["decides"] or "neither (no modifier)"}]))
        + present.section("Armour modifier", present.steps(result["trace"])
                          + present.distribution(result["modifier"]["outcomes"], "Armour modifier", "Modifier")
                          + present.note(f"Average modifier: {result['modifier']['mean']}."))
        + present.assumptions(result["assumptions"]))


def sample_ratio(values: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """One seeded roll of the table's chance."""
    rng = random.Random(seed)
    rolls: list[Roll] = []
    steps: list[str] = []
    value = _sample_armour(rng, _ratio_modifier(values), rolls, steps)
    return {"rolls": [r.to_json() for r in rolls], "steps": steps, "modifier": value,
            "outcome": f"Armour modifier {_signed(value)}."}


# The widgets -------------------------------------------------------------------

AEC = register(Widget(
    id="europa.aec",
    title="Armour effects: stack builder",
    inputs=AEC_INPUTS,
    compute=compute_aec,
    render=render_aec,
    sample=sample_aec,
    render_sample=render_sample,
    check=check_aec,
    description="AECA, AECD and ATEC of two stacks with every conversion, the armour and heavy modifiers, "
                "and the required losses.",
    figures=(fig.value("modifier_mean", "Expected armour modifier", "modifier", "mean"),
             fig.value("aeca", "AECA", "aeca", unit="REs"),
             fig.value("aecd", "AECD", "aecd", unit="REs"),
             fig.value("atec", "ATEC", "atec", unit="REs"),
             fig.value("attacker_required", "Attacker's required AEC losses", "required_losses", "attacker", "required",
                       unit="strength points"),
             fig.value("defender_required", "Defender's required AEC losses", "required_losses", "defender", "required",
                       unit="strength points")),
))
"""The stack builder."""

RATIO = register(Widget(
    id="europa.ratio",
    title="Armour effects: ratio to modifier",
    inputs=RATIO_INPUTS,
    compute=compute_ratio,
    render=render_ratio,
    sample=sample_ratio,
    render_sample=render_sample,
    check=check_ratio,
    description="Reads AECA against ATEC or AECD on the armour effects table, then applies terrain and weather.",
    figures=(fig.value("modifier_mean", "Expected armour modifier", "modifier", "mean"),
             fig.value("row_modifier", "Table row's modifier", "modifier", "armour", "row", "modifier"),
             fig.prob("chance_of_next", "P(one more)", "modifier", "armour", "row", "chance_of_next")),
))
"""The ratio reader."""
