"""Subformation types as form rows: the battle widget's unit-type editor.

Each :class:`~.units.UnitType` becomes one row of plain fields (attack points
and favourite scores get one column per target group), so the list is edited
as a table. :func:`unit_type` reads a validated row back; the illustrative
roster survives the round trip unchanged:

>>> all(unit_type(UNIT_TYPE.validate(type_row(t))) == t for t in ROSTER_ORDER)
True
>>> type_row(ROSTER["Tank"])["attack_hard"], type_row(ROSTER["Tank"])["attack_air"]
(30, 0)
>>> check_types(UNIT_TYPES.coerce([type_row(ROSTER["Tank"]), type_row(ROSTER["Tank"])], "unit_types"))
Traceback (most recent call last):
...
engine.schema.InputError: unit_types.1.name: unit type row 2 is named 'Tank' like row 1; each type needs its own name
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from ..schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, Text
from .units import ILLUSTRATIVE, ROSTER, ROSTER_ORDER, TARGET_GROUPS, UnitType  # noqa: F401 (ROSTER: doctests)

__all__ = ["UNIT_TYPE", "UNIT_TYPES", "NAME_LENGTH", "type_row", "unit_type", "roster_from", "check_types",
           "check_type_name"]

NAME_LENGTH: Final = 30
"""Longest unit type name."""

_DEFAULT = UnitType("", "land", "soft", {}, 20)
"""The dataclass defaults: a new row starts from them."""


def _per_group(prefix: str, label: str, help_text: str, maximum: int) -> tuple[Field, ...]:
    return tuple(Integer(f"{prefix}_{g}", help_text.format(group=g), 0, minimum=0, maximum=maximum,
                         label=f"{label} {g}") for g in TARGET_GROUPS)


UNIT_TYPE: Final = Group("unit_type", "", label="Unit type", fields=(
    Text("name", "The name units give in their Type column; each type needs its own.", "New type",
         max_length=NAME_LENGTH, label="Name"),
    Choice("theatre", "Where it fights: land, air or naval.", _DEFAULT.theatre, choices=("land", "air", "naval"),
           label="Theatre"),
    Choice("group", "Its target group: which of an enemy's attack points are used against it.", _DEFAULT.group,
           choices=TARGET_GROUPS, label="Target group"),
    *_per_group("attack", "Attack vs", "Attack points against {group} targets (0: it cannot attack them).", 10000),
    Integer("hit_points", "Hit points before any modifier.", _DEFAULT.hit_points, minimum=1, maximum=10000,
            label="Hit points"),
    Integer("attacks", "Attacks each individual may make in one round.", _DEFAULT.attacks, minimum=1, maximum=20,
            label="Attacks"),
    Integer("max_attacked", "Times an individual can be attacked in a round before later attacks on it weaken.",
            _DEFAULT.max_attacked, minimum=1, maximum=100, label="Max attacked"),
    Integer("initiative", "Top of its random initiative roll (higher acts earlier).", _DEFAULT.initiative,
            minimum=0, maximum=1000, label="Initiative"),
    *_per_group("fav", "Favourite", "Favourite-target score for {group} targets in a regular attack.", 1000),
    *_per_group("art_fav", "Artillery favourite",
                "Favourite-target score for {group} targets in artillery fire or shore bombardment.", 1000),
    Integer("tries", "Picks it makes when looking for a favourite target (1: a purely random target).",
            _DEFAULT.tries, minimum=1, maximum=20, label="Tries"),
    Integer("kill", "Percent of its hits that kill (kill % and retreat % together at most 100).", _DEFAULT.kill,
            minimum=0, maximum=100, label="Kill %"),
    Integer("retreat", "Percent of its hits that force a retreat; the rest of its hits pin.", _DEFAULT.retreat,
            minimum=0, maximum=100, label="Retreat %"),
    Integer("power_points", "Power points: the ratio of target to attacker sets the experience gained.",
            _DEFAULT.power_points, minimum=1, maximum=10000, label="Power points"),
    Integer("stack", "Stack points each individual counts for stacking.", _DEFAULT.stack, minimum=0, maximum=100,
            label="Stack"),
    Boolean("backbench", "Stands behind the line: only a breakthrough or artillery reaches it.", _DEFAULT.backbench,
            label="Backbench"),
    Integer("artillery_range", "Artillery range in hexes (0: no artillery fire).", _DEFAULT.artillery_range,
            minimum=0, maximum=20, label="Artillery range"),
    Integer("aa_range", "Anti-aircraft range in hexes (0: no anti-aircraft support).", _DEFAULT.aa_range,
            minimum=0, maximum=20, label="AA range"),
    Boolean("auto_destroy", "Lost after its first attack (a one-shot weapon).", _DEFAULT.auto_destroy,
            label="Auto-destroy"),
    Integer("anti_structural", "Structural damage points it deals in a round.", _DEFAULT.anti_structural,
            minimum=0, maximum=1000, label="Anti-structural"),
    Number("startup_penalty", "Share of the attack start-up penalty it suffers (0: immune, 1: all of it).",
           _DEFAULT.startup_penalty, minimum=0, maximum=10, label="Start-up share"),
    Integer("readiness_per_attack", "Readiness points lost with each attack it makes (not counterattacks).",
            _DEFAULT.readiness_per_attack, minimum=0, maximum=100, label="Readiness per attack"),
    Integer("fuel_per_round", "Fuel an individual uses with its first attack of a round.", _DEFAULT.fuel_per_round,
            minimum=0, maximum=1000, label="Fuel per round"),
    Number("special_attack", "Special factor on its attack score.", _DEFAULT.special_attack, minimum=0,
           maximum=100, label="Special attack"),
    Number("special_defence", "Special factor on its hit points.", _DEFAULT.special_defence,
           minimum=0, maximum=100, label="Special defence"),
    Text("prevents", "Types of its own side whose attackers it draws onto itself, by name, separated by commas "
         "(read only with the prevent rules on).", "", max_length=200, label="Prevents"),
    Boolean("transport", "Carries paratroopers, airlifted units or air supply.", _DEFAULT.transport,
            label="Transport"),
))
"""One unit type as a row of plain fields."""


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def type_row(t: UnitType) -> dict[str, Any]:
    """The form row of a unit type."""
    row: dict[str, Any] = {"name": t.name, "theatre": t.theatre, "group": t.group}
    for g in TARGET_GROUPS:
        row[f"attack_{g}"] = t.attack.get(g, 0)
        row[f"fav_{g}"] = t.favourites.get(g, 0)
        row[f"art_fav_{g}"] = t.artillery_favourites.get(g, 0)
    for f in UNIT_TYPE.fields:
        if f.name not in row and f.name != "prevents":
            row[f.name] = getattr(t, f.name)
    row["prevents"] = ", ".join(t.prevents)
    return row


def unit_type(row: Mapping[str, Any]) -> UnitType:
    """The unit type of a validated row (a zero attack or score is left out, as the engine reads it)."""
    def per(prefix: str) -> dict[str, int]:
        return {g: row[f"{prefix}_{g}"] for g in TARGET_GROUPS if row[f"{prefix}_{g}"]}
    plain = {f.name: row[f.name] for f in UNIT_TYPE.fields
             if f.name not in ("name", "theatre", "group", "hit_points", "prevents")
             and not f.name.startswith(("attack_", "fav_", "art_fav_"))}
    return UnitType(row["name"], row["theatre"], row["group"], per("attack"), row["hit_points"],
                    favourites=per("fav"), artillery_favourites=per("art_fav"), prevents=_names(row["prevents"]),
                    **plain)


UNIT_TYPES: Final = ListOf(
    "unit_types", "The subformation types the units below name: one row per type, every statistic a scenario "
    "designer sets. Edit a value, add a type and name it in a unit's Type column.",
    tuple(type_row(t) for t in ROSTER_ORDER), item=UNIT_TYPE, min_items=1, max_items=24, label="Unit types",
    assumed=ILLUSTRATIVE)
"""The unit-type editor's list; its rows default to the illustrative roster."""


def roster_from(rows: Sequence[Mapping[str, Any]]) -> dict[str, UnitType]:
    """The roster of validated rows, by name (check them first with :func:`check_types`)."""
    return {r["name"]: unit_type(r) for r in rows}


def check_types(rows: Sequence[Mapping[str, Any]], path: str = "unit_types") -> None:
    """Refuse rows that cannot make a roster: a missing or repeated name, kill and retreat over 100 %,
    a prevent naming no type."""
    seen: dict[str, int] = {}
    for i, r in enumerate(rows):
        where, row = f"{path}.{i}", f"unit type row {i + 1}"
        name = r["name"]
        if not name:
            raise InputError(f"{where}.name", f"{row} has no name; give each type a name",
                             UNIT_TYPE.field("name").allowed())
        if name in seen:
            raise InputError(f"{where}.name", f"{row} is named {name!r} like row {seen[name] + 1}; "
                             "each type needs its own name", "a name no other row uses")
        seen[name] = i
        if r["kill"] + r["retreat"] > 100:
            raise InputError(f"{where}.retreat", f"{row} ({name}): kill % {r['kill']} and retreat % {r['retreat']} "
                             "add up to more than 100", "kill % and retreat % adding up to at most 100")
    for i, r in enumerate(rows):
        for other in _names(r["prevents"]):
            if other not in seen:
                raise InputError(f"{path}.{i}.prevents", f"unit type row {i + 1} ({r['name']}) prevents "
                                 f"{other!r}, which is not a type in the list", ", ".join(seen))


def check_type_name(name: str, roster: Mapping[str, UnitType], path: str, row: str, *,
                    need: str = "", ok: Any = None) -> None:
    """Refuse a unit row whose type is not in the roster (or fails ``ok``, described by ``need``)."""
    if name not in roster:
        known = ", ".join(roster)
        raise InputError(path, f"{row}: no unit type named {name!r} in the unit types list; use one of {known}",
                         known)
    if ok is not None and not ok(roster[name]):
        fits = ", ".join(n for n, t in roster.items() if ok(t)) or "none in the list"
        raise InputError(path, f"{row}: {name!r} is not {need}; use one of {fits}", fits)

