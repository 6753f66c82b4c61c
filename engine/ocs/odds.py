"""Strength totals and the odds column.

Each side's strength is totalled; units out of supply count at half. The
ratio of attack to defence is then rounded down (in the defender's favour)
to the highest column of the chosen terrain row whose printed odds do not
exceed it: 11 against 3 is 3.67 to 1, read on the 3:1 column of the Open
row. For a ``1:N`` column the test is ``attack * N >= defence``.

The chart does not say how halves are totalled or rounded, what odds below
the first column or above the last do, or what happens when a surprise
shift would carry the column off the chart. Each is a named setting here.

>>> odds = find_odds(Terrain.OPEN, Fraction(11), Fraction(3))
>>> odds.column.label, odds.start
('3:1', 6)
>>> find_odds(Terrain.OPEN, Fraction(1), Fraction(8)).below
True
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.schema import fraction_text

from .surprise import SHIFT_DIE
from .table import Column, ColumnIndex, Terrain, columns

__all__ = [
    "Halving",
    "HalfRounding",
    "BelowTable",
    "BeyondEdges",
    "Unit",
    "StrengthTotal",
    "Odds",
    "OUT_OF_SUPPLY_FACTOR",
    "plain_total",
    "total_strength",
    "find_odds",
    "ratio_text",
]

OUT_OF_SUPPLY_FACTOR = Fraction(1, 2)
"""Out-of-supply units attack and defend at this fraction of their strength."""


class Halving(str, enum.Enum):
    """Setting: in which order out-of-supply strengths are halved and added (assumed)."""

    EACH_UNIT = "each_unit"
    """Halve each unit's strength, then add everything up."""
    SIDE_TOTAL = "side_total"
    """Add up the side's out-of-supply units, halve that sum, then add the supplied units."""


class HalfRounding(str, enum.Enum):
    """Setting: what becomes of a half point (assumed)."""

    KEEP = "keep"
    """Keep exact fractions (2.5 stays 2.5); the order of halving then makes no difference."""
    UP = "up"
    """Round each halved amount up to a whole number."""
    DOWN = "down"
    """Round each halved amount down to a whole number."""


class BelowTable(str, enum.Enum):
    """Setting: odds worse than the leftmost column of the terrain row (assumed)."""

    FIRST_COLUMN = "first_column"
    """Resolve the attack on the leftmost column."""
    NOT_ALLOWED = "not_allowed"
    """Such an attack may not be made."""


class BeyondEdges(str, enum.Enum):
    """Setting: where a surprise shift starts when the odds lie past an end of the row (assumed)."""

    FROM_EDGE = "from_edge"
    """Place the odds on the end column first, then shift; a shift stops at either end."""
    EXTENDED = "extended"
    """Count the shift from where the odds would sit if the row ran on with its last step; stop at either end."""


@dataclass(frozen=True)
class Unit:
    """One combat unit as far as odds are concerned."""

    strength: Fraction
    """Printed attack or defence strength."""
    supplied: bool = True
    """False when the unit is out of supply."""


@dataclass(frozen=True)
class StrengthTotal:
    """A side's strength for the odds, with how it was reached."""

    total: Fraction
    """The strength that enters the ratio."""
    working: tuple[str, ...] = ()
    """One line per step of the sum, for display."""
    from_units: bool = False
    """True when it was totalled from a list of units."""


def plain_total(strength: Fraction) -> StrengthTotal:
    """A strength given as one number, used as it stands.

    >>> plain_total(Fraction(7, 2)).working
    ('7/2 as entered',)
    """
    return StrengthTotal(strength, (f"{fraction_text(strength)} as entered",))


def _round_half(value: Fraction, rounding: HalfRounding) -> Fraction:
    if rounding is HalfRounding.UP:
        return Fraction(math.ceil(value))
    if rounding is HalfRounding.DOWN:
        return Fraction(math.floor(value))
    return value


def total_strength(units: Sequence[Unit], halving: Halving = Halving.EACH_UNIT,
                   rounding: HalfRounding = HalfRounding.KEEP) -> StrengthTotal:
    """Total a side's units, halving the ones out of supply.

    >>> units = [Unit(Fraction(6)), Unit(Fraction(5), False), Unit(Fraction(3), False)]
    >>> total_strength(units).total
    Fraction(10, 1)
    >>> total_strength(units, Halving.EACH_UNIT, HalfRounding.UP).total
    Fraction(11, 1)
    >>> total_strength(units, Halving.SIDE_TOTAL, HalfRounding.UP).total
    Fraction(10, 1)
    """
    supplied = [u.strength for u in units if u.supplied]
    short = [u.strength for u in units if not u.supplied]
    working: list[str] = []
    if supplied:
        working.append(f"in supply at full strength: {_sum_text(supplied)}")
    if halving is Halving.EACH_UNIT:
        halves = [_round_half(s * OUT_OF_SUPPLY_FACTOR, rounding) for s in short]
        if short:
            pairs = ", ".join(f"{fraction_text(s)} → {fraction_text(h)}" for s, h in zip(short, halves))
            working.append(f"out of supply, each halved{_rounding_words(rounding)}: {pairs}")
        short_total = sum(halves, Fraction(0))
    else:
        raw = sum(short, Fraction(0))
        short_total = _round_half(raw * OUT_OF_SUPPLY_FACTOR, rounding)
        if short:
            working.append(f"out of supply, added then halved{_rounding_words(rounding)}: "
                           f"{_sum_text(short)} → {fraction_text(short_total)}")
    total = sum(supplied, Fraction(0)) + short_total
    working.append(f"total: {fraction_text(total)}")
    return StrengthTotal(total, tuple(working), True)


def _sum_text(values: Sequence[Fraction]) -> str:
    text = " + ".join(fraction_text(v) for v in values)
    return text if len(values) == 1 else f"{text} = {fraction_text(sum(values, Fraction(0)))}"


def _rounding_words(rounding: HalfRounding) -> str:
    return {HalfRounding.KEEP: " (fractions kept)", HalfRounding.UP: " and rounded up",
            HalfRounding.DOWN: " and rounded down"}[rounding]


@dataclass(frozen=True)
class Odds:
    """The initial odds of a combat on one terrain row."""

    terrain: Terrain
    """Which row of the chart."""
    attack: Fraction
    """Total attack strength."""
    defense: Fraction
    """Total defence strength (0 reads past the last column)."""
    column: Column
    """The printed column the initial odds are read on."""
    below: bool
    """True when the ratio is worse than the leftmost column."""
    above: bool
    """True when the ratio is better than the rightmost column."""
    extended: ColumnIndex
    """Position counted along the row run on past either end (-6 … 18; 0 … 12 on the chart)."""

    @property
    def start(self) -> ColumnIndex:
        """Where a shift starts under ``from_edge``: the printed column."""
        return self.column.index

    def shift_start(self, beyond: BeyondEdges) -> ColumnIndex:
        """Where a surprise shift starts under a ``beyond_edges`` setting.

        >>> find_odds(Terrain.OPEN, Fraction(30), Fraction(1)).shift_start(BeyondEdges.EXTENDED)
        18
        """
        return self.extended if beyond is BeyondEdges.EXTENDED else self.start


def find_odds(terrain: Terrain, attack: Fraction, defense: Fraction) -> Odds:
    """Round attack against defence down to a column of the terrain row.

    >>> find_odds(Terrain.CLOSE, Fraction(9), Fraction(2)).column.label
    '4:1'
    >>> o = find_odds(Terrain.OPEN, Fraction(17), Fraction(1))
    >>> o.column.label, o.above, o.extended
    ('13:1', True, 14)
    >>> find_odds(Terrain.OPEN, Fraction(5), Fraction(0)).column.label
    '13:1'
    """
    if attack <= 0:
        raise ValueError("attack strength must be above 0")
    if defense < 0:
        raise ValueError("defence strength must not be negative")
    row = columns(terrain)
    first, last = row[0], row[-1]
    if defense == 0:
        return Odds(terrain, attack, defense, last, False, True, last.index + SHIFT_DIE)
    ratio = attack / defense
    fitting = [c for c in row if c.ratio <= ratio]
    if not fitting:
        return Odds(terrain, attack, defense, first, True, False, _extended_below(first, attack, defense))
    column = fitting[-1]
    above = column is last and ratio > last.ratio
    extended = _extended_above(row, ratio) if above else column.index
    return Odds(terrain, attack, defense, column, False, above, extended)


def _extended_below(first: Column, attack: Fraction, defense: Fraction) -> ColumnIndex:
    """Position below the leftmost ``1:N`` column, running on as 1:(N+1), 1:(N+2), …"""
    needed = math.ceil(defense / attack)  # the 1:n column that the ratio reaches
    return max(first.index - (needed - first.defense), first.index - SHIFT_DIE)


def _extended_above(row: Sequence[Column], ratio: Fraction) -> ColumnIndex:
    """Position past the rightmost column, running on by the row's last step."""
    last, before = row[-1], row[-2]
    step = last.ratio - before.ratio
    beyond = math.floor((ratio - last.ratio) / step)
    return min(last.index + beyond, last.index + SHIFT_DIE)


def ratio_text(attack: Fraction, defense: Fraction) -> str:
    """The raw odds in words, before rounding.

    >>> ratio_text(Fraction(11), Fraction(3)), ratio_text(Fraction(2), Fraction(5)), ratio_text(Fraction(4), Fraction(0))
    ('11 to 3 (3.67 to 1)', '2 to 5 (1 to 2.50)', '4 to 0 (no defence strength)')
    """
    head = f"{fraction_text(attack)} to {fraction_text(defense)}"
    if defense == 0:
        return f"{head} (no defence strength)"
    if attack >= defense:
        return f"{head} ({float(attack / defense):.2f} to 1)"
    return f"{head} (1 to {float(defense / attack):.2f})"

