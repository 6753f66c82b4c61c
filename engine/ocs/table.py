"""The OCS v3 combat table, typed once as data in the printed layout.

The chart has one header row of odds columns per terrain class (Extra
Close at the top, Open at the bottom, as printed) and fifteen result rows
for the modified two-dice total, from ``"1 or less"`` to ``"15 or more"``.
Every terrain class has thirteen columns, and column *n* of every terrain
row reads the same result row, so a result cell is found by (column
position, roll row) alone; the terrain only decides which odds each
position stands for.

>>> column_labels(Terrain.OPEN)[6]
'3:1'
>>> cell(6, 7)
'Ao1 Do1'
>>> row_label(row_for_total(-3)), row_label(row_for_total(16))
('1 or less', '15 or more')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

__all__ = [
    "Terrain",
    "Column",
    "ColumnIndex",
    "RowIndex",
    "CellText",
    "TERRAIN_COLUMNS",
    "RESULT_ROWS",
    "COLUMN_COUNT",
    "LOWEST_ROW",
    "HIGHEST_ROW",
    "column_labels",
    "columns",
    "cell",
    "row_for_total",
    "row_label",
    "row_totals",
    "printed_cells",
]

ColumnIndex: TypeAlias = int
"""Position of an odds column on the chart, 0 (leftmost) to 12 (rightmost)."""
RowIndex: TypeAlias = int
"""A result row named by its modified two-dice total, 1 ("1 or less") to 15 ("15 or more")."""
CellText: TypeAlias = str
"""A result cell spelled exactly as printed, e.g. ``"Ao1 e4 DL1o2"``."""


class Terrain(str, enum.Enum):
    """The four terrain classes that head the combat table."""

    OPEN = "open"
    CLOSE = "close"
    VERY_CLOSE = "very_close"
    EXTRA_CLOSE = "extra_close"

    @property
    def label(self) -> str:
        """The name as the chart prints it.

        >>> Terrain.VERY_CLOSE.label
        'Very Close'
        """
        return self.value.replace("_", " ").title()


# fmt: off
TERRAIN_COLUMNS: dict[Terrain, tuple[str, ...]] = {
    Terrain.EXTRA_CLOSE: ("1:2", "1:1", "2:1", "3:1", "4:1", "8:1", "12:1", "16:1", "20:1", "28:1", "36:1", "44:1", "52:1"),
    Terrain.VERY_CLOSE:  ("1:3", "1:2", "1:1", "2:1", "3:1", "4:1", "6:1",  "9:1",  "12:1", "15:1", "18:1", "21:1", "24:1"),
    Terrain.CLOSE:       ("1:4", "1:3", "1:2", "1:1", "2:1", "3:1", "4:1",  "6:1",  "8:1",  "10:1", "12:1", "15:1", "18:1"),
    Terrain.OPEN:        ("1:5", "1:4", "1:3", "1:2", "1:1", "2:1", "3:1",  "4:1",  "5:1",  "7:1",  "9:1",  "11:1", "13:1"),
}
"""Odds column headings per terrain class, left to right, in the chart's row order."""

RESULT_ROWS: tuple[tuple[str, tuple[CellText, ...]], ...] = (
    ("1 or less",  ("AL2",       "AL2",       "AL2",          "AL2",          "AL2",          "AL2",          "AL2",          "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "AL1 DL1o1")),
    ("2",          ("AL2",       "AL2",       "AL2",          "AL2",          "AL2",          "AL2",          "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1")),
    ("3",          ("AL2",       "AL2",       "AL2",          "AL2",          "AL2",          "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1")),
    ("4",          ("AL2",       "AL2",       "AL2",          "AL2",          "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2")),
    ("5",          ("AL2",       "AL2",       "AL2",          "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2")),
    ("6",          ("AL2",       "AL2",       "AL1o1",        "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "AL1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ae4 DL1o2",    "Ae4 DL1o2")),
    ("7",          ("AL1o1",     "AL1o1",     "AL1o1 Do1",    "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae3 DL2o2DG")),
    ("8",          ("AL1o1",     "AL1o1 Do1", "AL1o1 Do1",    "AL1o1 Do1",    "AL1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae4 DL1o2",    "Ae3 DL2o2DG")),
    ("9",          ("AL1o1 Do1", "AL1o1 Do1", "AL1o1 Do1",    "AL1 Do1",      "Ao1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG")),
    ("10",         ("AL1o1 Do1", "AL1o1 Do1", "AL1 Do1",      "Ao1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG")),
    ("11",         ("AL1o1 Do1", "AL1 Do1",   "Ao1 Do1",      "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ae4 DL1o2",    "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG")),
    ("12",         ("AL1o1 Do1", "Ao1 Do1",   "Ao1 Do1",      "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG")),
    ("13",         ("Ao1 Do1",   "Ao1 Do1",   "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG")),
    ("14",         ("Ao1 Do1",   "Ao1 DL1o1", "Ao1 DL1o1",    "Ao1 e4 DL1o2", "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG")),
    ("15 or more", ("Ao1 DL1o1", "Ao1 DL1o1", "Ao1 e4 DL1o2", "Ae4 DL1o2",    "Ae4 DL1o2",    "Ae3 DL2o2DG",  "Ae3 DL2o2DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG",  "Ae2 DL2o3DG")),
)
"""Result rows from the lowest modified total to the highest: (row heading, one cell per column)."""
# fmt: on

COLUMN_COUNT = 13
"""Odds columns on every terrain row."""
LOWEST_ROW: RowIndex = 1
"""Modified totals at or below this read the ``"1 or less"`` row."""
HIGHEST_ROW: RowIndex = 15
"""Modified totals at or above this read the ``"15 or more"`` row."""


@dataclass(frozen=True)
class Column:
    """One odds column of one terrain row, e.g. ``3:1`` on the Open row."""

    index: ColumnIndex
    """Position on the chart, 0 to 12."""
    label: str
    """Heading as printed, ``"1:5"`` … ``"52:1"``."""
    attack: int
    """Left number of the heading (attack side of the ratio)."""
    defense: int
    """Right number of the heading (defence side of the ratio)."""

    @property
    def ratio(self) -> Fraction:
        """Attack divided by defence that this column stands for.

        >>> columns(Terrain.OPEN)[0].ratio
        Fraction(1, 5)
        """
        return Fraction(self.attack, self.defense)

    @staticmethod
    def parse(index: ColumnIndex, label: str) -> Column:
        """Read a heading such as ``"12:1"``.

        >>> Column.parse(6, "12:1")
        Column(index=6, label='12:1', attack=12, defense=1)
        """
        left, right = label.split(":")
        return Column(index, label, int(left), int(right))


_COLUMNS: dict[Terrain, tuple[Column, ...]] = {
    terrain: tuple(Column.parse(i, label) for i, label in enumerate(labels))
    for terrain, labels in TERRAIN_COLUMNS.items()
}
_CELLS: tuple[tuple[CellText, ...], ...] = tuple(cells for _, cells in RESULT_ROWS)


def column_labels(terrain: Terrain) -> tuple[str, ...]:
    """The thirteen odds headings of one terrain row, left to right."""
    return TERRAIN_COLUMNS[terrain]


def columns(terrain: Terrain) -> tuple[Column, ...]:
    """The thirteen odds columns of one terrain row as :class:`Column` values.

    >>> [c.label for c in columns(Terrain.EXTRA_CLOSE)][-2:]
    ['44:1', '52:1']
    """
    return _COLUMNS[terrain]


def row_for_total(total: int) -> RowIndex:
    """The result row a modified two-dice total reads, clamped to the chart.

    >>> row_for_total(0), row_for_total(7), row_for_total(19)
    (1, 7, 15)
    """
    return min(max(total, LOWEST_ROW), HIGHEST_ROW)


def row_label(row: RowIndex) -> str:
    """The printed heading of a result row.

    >>> row_label(1), row_label(8)
    ('1 or less', '8')
    """
    return RESULT_ROWS[row - LOWEST_ROW][0]


def row_totals() -> range:
    """Every result row, lowest first."""
    return range(LOWEST_ROW, HIGHEST_ROW + 1)


def cell(column: ColumnIndex, row: RowIndex) -> CellText:
    """The printed result at an odds column position and a result row.

    >>> cell(12, 15)
    'Ae2 DL2o3DG'
    """
    if not 0 <= column < COLUMN_COUNT:
        raise IndexError(f"column position {column} is off the chart (0 to {COLUMN_COUNT - 1})")
    return _CELLS[row_for_total(row) - LOWEST_ROW][column]


def printed_cells() -> tuple[CellText, ...]:
    """Every distinct cell text on the chart, in order of first appearance (row by row).

    >>> printed_cells()[:3]
    ('AL2', 'AL1o1', 'AL1o1 Do1')
    """
    seen: dict[CellText, None] = {}
    for cells in _CELLS:
        for text in cells:
            seen.setdefault(text, None)
    return tuple(seen)
