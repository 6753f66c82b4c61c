"""Static tables for the pages, made from the engine's own data.

>>> "<caption>" in armour_table_html()
True
"""

from __future__ import annotations

from fractions import Fraction

from ..present import esc, signed
from .tables import ARMOUR_TABLE, HEAVY_TABLE, RatioTable, TableRow, ratio_text
from .units import (
    BIG_PANZER_CONVERSION,
    BIG_PANZER_MIN_COMBAT_VALUE,
    CAPABILITY_FACTOR,
    DIVISION_CONVERSION,
    DIVISION_FORMATIONS,
    NEUTRAL_SHARE,
    ONE_FOR_ONE_FORMATIONS,
    UNIT_TYPE_WORDS,
    Capability,
    Formation,
    Unit,
    UnitType,
)

__all__ = ["armour_table_html", "heavy_table_html", "capability_values_html", "conversion_types_html",
           "conversion_capacity_html", "EXHIBITS"]


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _table(caption: str, headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = "".join("<tr>" + f'<th scope="row">{esc(r[0])}</th>' + "".join(f"<td>{esc(c)}</td>" for c in r[1:])
                   + "</tr>" for r in rows)
    return f"<table><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _range(rows: tuple[TableRow, ...], i: int) -> str:
    low = rows[i].min_ratio
    if i + 1 < len(rows):
        high = ratio_text(rows[i + 1].min_ratio)
        return f"below {high}" if low == 0 else f"{ratio_text(low)} to under {high}"
    return f"{ratio_text(low)} or more"


def _ratio_rows(table: RatioTable) -> list[tuple[str, ...]]:
    out = []
    for i, row in enumerate(table.rows):
        chance = f"{_frac(row.chance_of_next)} chance of {signed(row.modifier + 1)}" if row.chance_of_next else "—"
        out.append((_range(table.rows, i), signed(row.modifier), chance))
    return out


def armour_table_html() -> str:
    """The default armour effects table (assumed)."""
    return _table("Armour effects table: our assumed default (only the 5:1 row is from the rule)",
                  ("Ratio (AECA:ATEC at 1:1 or more, AECA:AECD below)", "Modifier", "Chance of one more"),
                  _ratio_rows(ARMOUR_TABLE))


def heavy_table_html() -> str:
    """The default heavy unit table (assumed)."""
    return _table("Heavy unit table: our assumed default (only the 2:1 row follows the rule's example)",
                  ("Heavy armour units : opposing heavy ATEC units (only when more)", "Modifier",
                   "Chance of one more"),
                  _ratio_rows(HEAVY_TABLE))


def capability_values_html() -> str:
    """The five capability values and what each RE of the unit counts as."""
    rows = []
    for value in Capability:
        own = CAPABILITY_FACTOR[value]
        neutral = NEUTRAL_SHARE[value]
        converts = "yes" if own > 0 else "no"
        rows.append((value.value.capitalize(), f"{_frac(own)} RE", f"{_frac(neutral)} RE", converts))
    return _table("Capability values, per RE of the unit",
                  ("Value", "Counts as", "Neutral part, open to conversion (for ATEC see the half-unit note)",
                   "Converts others"), rows)


def conversion_types_html() -> str:
    """Which neutral unit types may be converted to AEC and to ATEC."""
    rows = []
    for t in UnitType:
        plain = Unit("X", t, Formation.REGIMENT, Fraction(1))
        motor = Unit("X", t, Formation.REGIMENT, Fraction(1), motorized=True)
        if plain.may_become_aec() == motor.may_become_aec():
            aec = "yes" if plain.may_become_aec() else "no"
        else:
            aec = "motorized only"
        rows.append((UNIT_TYPE_WORDS[t], aec, "yes" if plain.may_become_atec() else "no"))
    return _table("Neutral REs that may be converted, by unit type", ("Unit type", "To AEC", "To ATEC"), rows)


def conversion_capacity_html() -> str:
    """REs a capable unit converts, by formation."""
    small = ", ".join(f.value for f in Formation if f in ONE_FOR_ONE_FORMATIONS)
    large = " or ".join(f.value for f in Formation if f in DIVISION_FORMATIONS)
    rows = [
        (small, "its own size in REs (one for one)"),
        (f"tank or mechanized {large}", f"{_frac(DIVISION_CONVERSION)} RE"),
        (f"any other {large}", f"{_frac(DIVISION_CONVERSION)} RE (assumed; one for one under "
                                "settings.division_conversion = tank_mechanized)"),
        (f"German panzer or panzer grenadier division, combat value {BIG_PANZER_MIN_COMBAT_VALUE} or more",
         f"{_frac(BIG_PANZER_CONVERSION)} REs"),
        ("any of these with half value", "half of the above"),
    ]
    return _table("REs a capable unit converts", ("Formation", "Converts"), rows)


EXHIBITS = {
    "europa.armour_table": armour_table_html,
    "europa.heavy_table": heavy_table_html,
    "europa.capability_values": capability_values_html,
    "europa.conversion_types": conversion_types_html,
    "europa.conversion_capacity": conversion_capacity_html,
}
"""Exhibit id → function returning its HTML."""
