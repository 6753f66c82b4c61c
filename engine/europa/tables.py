"""The armour effects table and the heavy-unit table (both assumed; the source prints neither).

The rule refers to an ARMOUR EFFECTS TABLE and a SPECIAL UNIT COMBAT
ABILITY TABLE that are not in our source. It gives one point only: a ratio
of 5.1 to 1 earns +3 with an even chance of +4. Both tables here are our
defaults, built around that point, and a reader may replace them on the
page (``settings.armour_table`` and ``settings.heavy_table``).

A table is a list of rows, each with the lowest ratio it covers, a
modifier and a chance of one more. A ratio uses the highest row it
reaches: ratios are never rounded up, so 5.1:1 reads the 5:1 row.

>>> ARMOUR_TABLE.row_for(Fraction(51, 10)).modifier
3
>>> ARMOUR_TABLE.row_for(Fraction(51, 10)).dist()
Dist({3: 1, 4: 1})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..dice import Dist
from ..schema import fraction_text

__all__ = [
    "TableRow",
    "RatioTable",
    "ARMOUR_TABLE_ROWS",
    "HEAVY_TABLE_ROWS",
    "ARMOUR_TABLE",
    "HEAVY_TABLE",
    "ratio_text",
    "number_text",
]


@dataclass(frozen=True)
class TableRow:
    """One row: from this ratio up to the next row's, this modifier, with a chance of one more."""

    min_ratio: Fraction
    """Lowest ratio (attacker to defender, as a number) that uses this row."""
    modifier: int
    """Die modifier of the row."""
    chance_of_next: Fraction = Fraction(0)
    """Probability that the modifier is one higher (``1/2`` for an even chance)."""

    def dist(self) -> Dist[int]:
        """The row's modifier as an exact distribution.

        >>> TableRow(Fraction(5), 3, Fraction(1, 2)).dist().probability(4)
        Fraction(1, 2)
        >>> TableRow(Fraction(2), 1).dist()
        Dist({1: 1})
        """
        p = self.chance_of_next
        return Dist({self.modifier: p.denominator - p.numerator, self.modifier + 1: p.numerator})

    def to_json(self) -> dict[str, Any]:
        """The row as widget input data (fractions as text)."""
        return {"min_ratio": fraction_text(self.min_ratio), "modifier": self.modifier,
                "chance_of_next": fraction_text(self.chance_of_next)}


@dataclass(frozen=True)
class RatioTable:
    """A modifier table read by ratio, rows in increasing order of ratio."""

    rows: tuple[TableRow, ...]
    """The rows, lowest ratio first."""

    def __post_init__(self) -> None:
        ratios = [r.min_ratio for r in self.rows]
        if not ratios or ratios != sorted(set(ratios)):
            raise ValueError("table rows need distinct ratios in increasing order")

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> RatioTable:
        """A table from widget rows (validated: fractions and ints), sorted by ratio.

        >>> table = RatioTable.from_rows([{"min_ratio": Fraction(2), "modifier": 1, "chance_of_next": Fraction(0)},
        ...                               {"min_ratio": Fraction(1), "modifier": 0, "chance_of_next": Fraction(0)}])
        >>> table.rows[0].modifier
        0
        """
        built = [TableRow(Fraction(r["min_ratio"]), int(r["modifier"]), Fraction(r["chance_of_next"])) for r in rows]
        return cls(tuple(sorted(built, key=lambda r: r.min_ratio)))

    def row_for(self, ratio: Fraction | None) -> TableRow | None:
        """The highest row the ratio reaches; ``None`` ratio means no opposition (the top row).

        Returns ``None`` when the ratio is below every row.

        >>> ARMOUR_TABLE.row_for(None).modifier
        4
        >>> HEAVY_TABLE.row_for(Fraction(1, 2)) is None
        True
        """
        if ratio is None:
            return self.rows[-1]
        found = None
        for row in self.rows:
            if ratio >= row.min_ratio:
                found = row
        return found

    def to_json(self) -> list[dict[str, Any]]:
        """The rows as widget input data."""
        return [r.to_json() for r in self.rows]

    def summary(self) -> str:
        """One line listing every row, for the assumptions list.

        >>> HEAVY_TABLE.summary()
        '1:1 → 0 (1/2 chance of +1); 2:1 → +1'
        """
        parts = []
        for r in self.rows:
            mod = f"+{r.modifier}" if r.modifier > 0 else str(r.modifier)
            c = r.chance_of_next
            extra = f" ({c.numerator}/{c.denominator} chance of {'+' if r.modifier + 1 > 0 else ''}{r.modifier + 1})" \
                if c else ""
            parts.append(f"{ratio_text(r.min_ratio)} → {mod}{extra}")
        return "; ".join(parts)


def _rows(data: Iterable[tuple[str, int, str]]) -> tuple[TableRow, ...]:
    return tuple(TableRow(Fraction(ratio), modifier, Fraction(chance)) for ratio, modifier, chance in data)


# Armour effects table (assumed). Positive rows serve AECA:ATEC, negative rows
# AECA:AECD. The negative half mirrors the positive half: 1:k gives minus
# what k:1 gives, as an expected value.
ARMOUR_TABLE_ROWS: tuple[tuple[str, int, str], ...] = (
    # lowest ratio   modifier   chance of one more
    ("0",            -4,        "0"),      # below 1:5
    ("1/5",          -4,        "1/2"),    # 1:5
    ("1/4",          -3,        "1/2"),    # 1:4
    ("1/3",          -2,        "0"),      # 1:3
    ("1/2",          -1,        "0"),      # 1:2
    ("1",             0,        "0"),      # 1:1
    ("2",             1,        "0"),      # 2:1
    ("3",             2,        "0"),      # 3:1
    ("4",             2,        "1/2"),    # 4:1
    ("5",             3,        "1/2"),    # 5:1, the one point the rule gives
    ("6",             4,        "0"),      # 6:1 and more
)

# Heavy-unit table (assumed). Used only when one side has more heavy armour
# units than the other has heavy ATEC units; the rule's example puts 2:1 at +1.
HEAVY_TABLE_ROWS: tuple[tuple[str, int, str], ...] = (
    # lowest ratio   modifier   chance of one more
    ("1",             0,        "1/2"),    # more, but less than twice as many
    ("2",             1,        "0"),      # twice as many or more
)

ARMOUR_TABLE = RatioTable(_rows(ARMOUR_TABLE_ROWS))
"""Default armour effects table (assumed)."""

HEAVY_TABLE = RatioTable(_rows(HEAVY_TABLE_ROWS))
"""Default heavy armour / heavy ATEC table (assumed)."""


def number_text(x: Fraction) -> str:
    """A ratio number as a reader writes it: a decimal when it ends, else a fraction.

    >>> number_text(Fraction(51, 10)), number_text(Fraction(1, 3)), number_text(Fraction(4))
    ('5.1', '1/3', '4')
    """
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    digits = 0
    scaled = x
    while scaled.denominator != 1:
        scaled *= 10
        digits += 1
    sign = "-" if x < 0 else ""
    whole, frac = divmod(abs(scaled.numerator), 10 ** digits)
    return f"{sign}{whole}.{str(frac).zfill(digits)}"


def ratio_text(ratio: Fraction | None) -> str:
    """A ratio in odds form: ``5.1:1``, ``1:2``; ``None`` means nothing opposes.

    A ratio whose decimal would not end is written as whole numbers: ``4:3``.

    >>> ratio_text(Fraction(51, 10)), ratio_text(Fraction(1, 2)), ratio_text(Fraction(2, 3)), ratio_text(None)
    ('5.1:1', '1:2', '1:1.5', 'no opposition')
    >>> ratio_text(Fraction(3, 4)), ratio_text(Fraction(4, 3)), ratio_text(Fraction(0))
    ('3:4', '4:3', '0:1')
    """
    if ratio is None:
        return "no opposition"
    if ratio >= 1 or ratio == 0:
        text = number_text(ratio)
        return f"{text}:1" if "/" not in text else f"{ratio.numerator}:{ratio.denominator}"
    text = number_text(1 / ratio)
    return f"1:{text}" if "/" not in text else f"{ratio.numerator}:{ratio.denominator}"
