"""Armour effects ratios and the die modifier they give (rules 10.C, 10.D and 10.E).

AECA against ATEC may give the attacker a positive modifier. Only when the
attacker has less than 1:1 AECA to ATEC does the defender's AECD come in:
AECA against AECD may give a negative modifier, never a positive one.
Terrain and weather AEC modifiers then pull the result toward zero; a
hexside's AEC modifier works only against the attacker's positive modifier.

>>> m = armour_modifier(Fraction(51, 10), Fraction(1), Fraction(0))
>>> m.comparison, m.final
('AECA:ATEC', Dist({3: 1, 4: 1}))
>>> armour_modifier(Fraction(51, 10), Fraction(1), Fraction(0), terrain=1).final
Dist({2: 1, 3: 1})
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..dice import Dist
from .tables import ARMOUR_TABLE, RatioTable, TableRow, ratio_text
from .units import re_text

__all__ = ["ArmourModifier", "armour_modifier", "declined_armour", "toward_zero", "AECA_ATEC", "AECA_AECD"]

AECA_ATEC = "AECA:ATEC"
"""The comparison that may help the attacker."""
AECA_AECD = "AECA:AECD"
"""The comparison that may help the defender."""

NO_MODIFIER: Dist[int] = Dist({0: 1})


def toward_zero(modifier: int, reduction: int) -> int:
    """Move a modifier ``reduction`` steps toward zero, never past it.

    >>> toward_zero(3, 1), toward_zero(-2, 1), toward_zero(1, 3), toward_zero(-1, 4)
    (2, -1, 0, 0)
    """
    if modifier > 0:
        return max(0, modifier - reduction)
    return min(0, modifier + reduction)


@dataclass(frozen=True)
class ArmourModifier:
    """Which ratio decided, the row it read, and the modifier before and after terrain."""

    comparison: str | None
    """``AECA:ATEC``, ``AECA:AECD`` or ``None`` when neither applies."""
    ratio: Fraction | None
    """The ratio read (``None`` with a comparison: nothing opposes, the top row)."""
    row: TableRow | None
    """The table row used, if any."""
    base: Dist[int]
    """The modifier from the table, before terrain and weather."""
    reduction: int
    """Steps toward zero from terrain, weather and (for the attacker only) hexsides."""
    final: Dist[int]
    """The armour modifier after terrain and weather."""
    trace: tuple[str, ...]
    """The reasoning in words."""


def armour_modifier(aeca: Fraction, atec: Fraction, aecd: Fraction, table: RatioTable = ARMOUR_TABLE,
                    terrain: int = 0, weather: int = 0, hexside: int = 0) -> ArmourModifier:
    """The armour die modifier from the three totals (already zero for a side that declined).

    ``terrain``, ``weather`` and ``hexside`` are the sizes of the AEC
    modifiers of the defender's hex, the weather and the hexside attacked
    across; all pull toward zero, the hexside only a positive modifier.

    >>> armour_modifier(Fraction(1), Fraction(2), Fraction(2)).final
    Dist({-1: 1})
    >>> armour_modifier(Fraction(1), Fraction(2), Fraction(0)).comparison is None
    True
    """
    trace: list[str] = []
    if aeca > 0 and aeca >= atec:
        ratio = None if atec == 0 else aeca / atec
        comparison = AECA_ATEC
        trace.append(f"AECA {re_text(aeca)} against ATEC {re_text(atec)}: "
                     + (f"{ratio_text(ratio)}, at least 1:1, so AECA:ATEC decides." if ratio is not None
                        else "the defender has no ATEC, so the top row of the table applies."))
        row = table.row_for(ratio)
        base = row.dist().map(lambda m: max(m, 0)) if row else NO_MODIFIER
        if row and row.modifier < 0:
            trace.append("The table row is negative, but AECA:ATEC never gives a negative modifier: 0.")
        reduction = terrain + weather + hexside
    else:
        if aeca == 0:
            trace.append("The attacker uses no AECA, so ATEC plays no part.")
        else:
            trace.append(f"AECA {re_text(aeca)} against ATEC {re_text(atec)}: "
                         f"{ratio_text(aeca / atec)}, below 1:1, so the defender's AECD is compared instead.")
        if aecd == 0:
            trace.append("The defender uses no AECD: no armour modifier.")
            return ArmourModifier(None, None, None, NO_MODIFIER, 0, NO_MODIFIER, tuple(trace))
        comparison = AECA_AECD
        ratio = aeca / aecd
        trace.append(f"AECA {re_text(aeca)} against AECD {re_text(aecd)}: {ratio_text(ratio)}.")
        row = table.row_for(ratio)
        base = row.dist().map(lambda m: min(m, 0)) if row else NO_MODIFIER
        if row and row.modifier + (1 if row.chance_of_next else 0) > 0:
            trace.append("AECA:AECD never gives the attacker a positive modifier: anything above 0 counts as 0.")
        reduction = terrain + weather
        if hexside:
            trace.append("The hexside's AEC modifier never affects the defender, so it is left out here.")
    if row is None:
        trace.append("The ratio is below every row of the table: no modifier.")
    else:
        trace.append(f"Table row from {ratio_text(row.min_ratio)}: {_row_words(row)}.")
    final = base.map(lambda m: toward_zero(m, reduction))
    if reduction:
        parts = [f"terrain {terrain}", f"weather {weather}"]
        if comparison == AECA_ATEC:
            parts.append(f"hexside {hexside}")
        trace.append(f"Terrain and weather AEC modifiers ({', '.join(parts)}) move it {reduction} toward zero.")
    return ArmourModifier(comparison, ratio, row, base, reduction, final, tuple(trace))


def declined_armour(side: str = "attacker") -> ArmourModifier:
    """No armour modifier: ``side`` declined AEC and the ``no_modifier`` reading for it is in use.

    >>> declined_armour().final
    Dist({0: 1})
    >>> declined_armour("defender").trace[0][:24]
    'The defender declined AE'
    """
    setting_name = "declined_aeca" if side == "attacker" else "declined_defence"
    return ArmourModifier(None, None, None, NO_MODIFIER, 0, NO_MODIFIER,
                          (f"The {side} declined AEC, so no armour comparison is made: no armour modifier "
                           f"(setting {setting_name}).",))


def _row_words(row: TableRow) -> str:
    text = _signed(row.modifier)
    if row.chance_of_next:
        p = row.chance_of_next
        text += f", with a {p.numerator}/{p.denominator} chance of {_signed(row.modifier + 1)}"
    return text


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)
