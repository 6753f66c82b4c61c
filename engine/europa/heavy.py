"""Heavy armour and heavy ATEC (rule 10.I).

Heavy effects count units, not REs: a heavy tank battalion and a heavy tank
division are one heavy armour unit each. Heavy armour, heavy assault gun
and heavy engineer units are heavy armour; those three and heavy tank
destroyer, heavy motorized AA and heavy motorized AT units are heavy ATEC.
An Axis heavy motorized AA unit counts as two heavy ATEC units.

The attacker gains a modifier when its heavy armour units outnumber the
defender's heavy ATEC units; the defender gains one (subtracted) when its
heavy armour outnumbers the attacker's heavy ATEC. The size of the
modifier comes from the special unit table (assumed; see ``tables``).

>>> from fractions import Fraction
>>> from engine.europa.units import Formation, Nationality, Unit, UnitType
>>> tanks = [Unit(f"A{i}", UnitType.TANK, Formation.BRIGADE, Fraction(1), heavy=Heavy.HEAVY_ARMOUR) for i in (1, 2)]
>>> aa = Unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA)
>>> heavy_comparison(tanks, [aa]).attack.final
Dist({0: 1})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..dice import Dist
from .tables import HEAVY_TABLE, RatioTable, TableRow, ratio_text
from .units import AXIS, Formation, Heavy, Unit

__all__ = [
    "HEAVY_ARMOUR_CLASSES",
    "HEAVY_ATEC_CLASSES",
    "AXIS_HEAVY_AA_WEIGHT",
    "counts_two",
    "heavy_armour_units",
    "heavy_atec_units",
    "HeavyEffect",
    "HeavyComparison",
    "heavy_comparison",
]

HEAVY_ARMOUR_CLASSES: frozenset[Heavy] = frozenset({Heavy.HEAVY_ARMOUR, Heavy.HEAVY_ASSAULT_GUN, Heavy.HEAVY_ENGINEER})
"""Classes that are heavy armour (and also heavy ATEC)."""

HEAVY_ATEC_CLASSES: frozenset[Heavy] = HEAVY_ARMOUR_CLASSES | {
    Heavy.HEAVY_TANK_DESTROYER, Heavy.HEAVY_MOT_AA, Heavy.HEAVY_MOT_AT}
"""Classes that are heavy ATEC."""

AXIS_HEAVY_AA_WEIGHT = 2
"""Heavy ATEC units an Axis heavy motorized AA unit counts as."""

NO_MODIFIER: Dist[int] = Dist({0: 1})


def heavy_armour_units(units: Sequence[Unit]) -> tuple[int, tuple[str, ...]]:
    """Heavy armour units in a stack, one each whatever its size, with the count in words."""
    found = [u for u in units if u.heavy in HEAVY_ARMOUR_CLASSES]
    return len(found), tuple(f"{u.label}: 1 heavy armour unit{_kind(u)}." for u in found)


def _kind(u: Unit) -> str:
    return "" if u.heavy is Heavy.HEAVY_ARMOUR else f" ({u.heavy.value.replace('_', ' ')})"


def counts_two(unit: Unit, every_axis_heavy_aa: bool = True) -> bool:
    """Whether an Axis heavy AA unit counts as two heavy ATEC units.

    The rule's note names the Axis 2-10 heavy AA brigade; its example counts a
    heavy motorized AA regiment as two. ``every_axis_heavy_aa`` follows the
    example (every Axis heavy motorized AA unit); otherwise only a brigade of
    combat value 2 counts two.

    >>> from fractions import Fraction
    >>> from engine.europa.units import Formation, UnitType
    >>> regiment = Unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA)
    >>> counts_two(regiment), counts_two(regiment, every_axis_heavy_aa=False)
    (True, False)
    """
    if unit.heavy is not Heavy.HEAVY_MOT_AA or unit.nationality not in AXIS:
        return False
    return every_axis_heavy_aa or (unit.formation is Formation.BRIGADE and unit.combat_value == 2)


def heavy_atec_units(units: Sequence[Unit], every_axis_heavy_aa: bool = True) -> tuple[int, tuple[str, ...]]:
    """Heavy ATEC units in a stack; an Axis heavy motorized AA unit counts two (see :func:`counts_two`).

    >>> from fractions import Fraction
    >>> from engine.europa.units import Formation, Nationality, UnitType
    >>> aa = Unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA)
    >>> heavy_atec_units([aa])[0]
    2
    >>> heavy_atec_units([Unit("D1", UnitType.HEAVY_AA, Formation.REGIMENT, Fraction(1), heavy=Heavy.HEAVY_MOT_AA,
    ...                        nationality=Nationality.SOVIET)])[0]
    1
    """
    count = 0
    lines = []
    for u in units:
        if u.heavy not in HEAVY_ATEC_CLASSES:
            continue
        weight = AXIS_HEAVY_AA_WEIGHT if counts_two(u, every_axis_heavy_aa) else 1
        count += weight
        extra = ((" (an Axis heavy motorized AA unit counts as two)" if every_axis_heavy_aa
                  else " (an Axis 2-10 heavy AA brigade counts as two)") if weight > 1 else "")
        lines.append(f"{u.label}: {weight} heavy ATEC unit{'s' if weight > 1 else ''}{extra}.")
    return count, tuple(lines)


@dataclass(frozen=True)
class HeavyEffect:
    """One direction of the heavy comparison (attack or defence)."""

    armour: int
    """Heavy armour units of the side that may gain."""
    atec: int
    """Heavy ATEC units of the other side."""
    row: TableRow | None
    """Table row read, if the armour outnumbers the ATEC."""
    final: Dist[int]
    """Modifier as the gaining side sees it (0 or more)."""
    text: str
    """The comparison in words."""

    @property
    def ratio(self) -> Fraction | None:
        """Heavy armour to heavy ATEC (``None``: no heavy ATEC at all)."""
        return None if self.atec == 0 else Fraction(self.armour, self.atec)


@dataclass(frozen=True)
class HeavyComparison:
    """Heavy armour effects of both sides and the signed modifier to the main die."""

    attack: HeavyEffect
    """Attacker's heavy armour against the defender's heavy ATEC (added)."""
    defence: HeavyEffect
    """Defender's heavy armour against the attacker's heavy ATEC (subtracted)."""
    counts: tuple[str, ...]
    """Every qualifying unit in words."""

    @property
    def modifier(self) -> Dist[int]:
        """Signed modifier: attack adds, defence subtracts."""
        return self.attack.final + self.defence.final.map(lambda m: -m)


def _effect(armour: int, atec: int, table: RatioTable, who: str, other: str) -> HeavyEffect:
    if armour <= atec:
        return HeavyEffect(armour, atec, None, NO_MODIFIER,
                           f"{who}: {armour} heavy armour against {atec} heavy ATEC of the {other}: "
                           "not more, no modifier.")
    ratio = None if atec == 0 else Fraction(armour, atec)
    row = table.row_for(ratio)
    if row is None:
        return HeavyEffect(armour, atec, None, NO_MODIFIER,
                           f"{who}: {armour} against {atec} ({ratio_text(ratio)}) is below every table row: "
                           "no modifier.")
    final = row.dist().map(lambda m: max(m, 0))
    chance = (f" with a {row.chance_of_next.numerator}/{row.chance_of_next.denominator} chance of one more"
              if row.chance_of_next else "")
    return HeavyEffect(armour, atec, row, final,
                       f"{who}: {armour} heavy armour against {atec} heavy ATEC of the {other} "
                       f"({ratio_text(ratio)}): table row from {ratio_text(row.min_ratio)} gives "
                       f"{_signed(row.modifier)}{chance}.")


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def heavy_comparison(attackers: Sequence[Unit], defenders: Sequence[Unit],
                     table: RatioTable = HEAVY_TABLE, every_axis_heavy_aa: bool = True) -> HeavyComparison:
    """Compare heavy armour with heavy ATEC both ways."""
    a_armour, a_lines = heavy_armour_units(attackers)
    a_atec, a_atec_lines = heavy_atec_units(attackers, every_axis_heavy_aa)
    d_armour, d_lines = heavy_armour_units(defenders)
    d_atec, d_atec_lines = heavy_atec_units(defenders, every_axis_heavy_aa)
    attack = _effect(a_armour, d_atec, table, "Attack", "defender")
    defence = _effect(d_armour, a_atec, table, "Defence", "attacker")
    counts = (("Attacker heavy armour: " + str(a_armour) + ".",) + a_lines
              + ("Attacker heavy ATEC: " + str(a_atec) + ".",) + a_atec_lines
              + ("Defender heavy armour: " + str(d_armour) + ".",) + d_lines
              + ("Defender heavy ATEC: " + str(d_atec) + ".",) + d_atec_lines)
    return HeavyComparison(attack, defence, counts)
