"""The OCS combat table and charts, held against the printed charts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.ocs.results import RESULT_ORDER, Cell
from engine.ocs.surprise import HEDGEHOG_SURPRISE_BONUS, SHIFT_DIE, SURPRISE_THRESHOLDS, AttackKind
from engine.ocs.table import (COLUMN_COUNT, HIGHEST_ROW, LOWEST_ROW, RESULT_ROWS, TERRAIN_COLUMNS, Terrain, cell,
                              column_labels, columns, printed_cells, row_for_total, row_label)

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _seed_text() -> str:
    found = sorted(SEEDS.glob("003_*.txt"))
    if not found:
        pytest.fail(f"the OCS chart text is missing from {SEEDS}")
    return found[0].read_text(encoding="utf-8")


def _seed_table() -> tuple[dict[str, list[str]], list[list[str]]]:
    """Terrain header rows and result rows as the chart file prints them (tab-separated)."""
    headers: dict[str, list[str]] = {}
    rows: list[list[str]] = []
    for line in _seed_text().splitlines():
        if "\t" not in line:
            continue
        cells = [c for c in line.split("\t") if c != ""]
        if cells[0].startswith("<i>"):
            headers[re.sub(r"<.*?>", "", cells[0])] = cells[1:]
        else:
            rows.append(cells)
    return headers, rows


SEED_HEADERS, SEED_ROWS = _seed_table()


# Shape --------------------------------------------------------------------

def test_seed_table_was_found() -> None:
    assert len(SEED_HEADERS) == 4
    assert len(SEED_ROWS) == 15


def test_terrain_rows_in_printed_order() -> None:
    assert [t.label for t in TERRAIN_COLUMNS] == list(SEED_HEADERS)
    assert [t.label for t in TERRAIN_COLUMNS] == ["Extra Close", "Very Close", "Close", "Open"]


@pytest.mark.parametrize("terrain", list(Terrain))
def test_thirteen_columns_rising(terrain: Terrain) -> None:
    cols = columns(terrain)
    assert len(cols) == COLUMN_COUNT
    assert [c.index for c in cols] == list(range(COLUMN_COUNT))
    assert all(a.ratio < b.ratio for a, b in zip(cols, cols[1:]))


@pytest.mark.parametrize("terrain", list(Terrain))
@pytest.mark.parametrize("index", range(13))
def test_every_odds_heading_against_the_chart(terrain: Terrain, index: int) -> None:
    assert column_labels(terrain)[index] == SEED_HEADERS[terrain.label][index]


HAND_HEADINGS = {
    Terrain.OPEN: ("1:5", "13:1"),
    Terrain.CLOSE: ("1:4", "18:1"),
    Terrain.VERY_CLOSE: ("1:3", "24:1"),
    Terrain.EXTRA_CLOSE: ("1:2", "52:1"),
}


@pytest.mark.parametrize("terrain", list(Terrain))
def test_end_columns_by_hand(terrain: Terrain) -> None:
    assert (column_labels(terrain)[0], column_labels(terrain)[-1]) == HAND_HEADINGS[terrain]


@pytest.mark.parametrize("row", range(15))
def test_row_headings_against_the_chart(row: int) -> None:
    printed = SEED_ROWS[row]
    assert len(printed) == 15  # heading, 13 cells, heading again
    assert RESULT_ROWS[row][0] == printed[0] == printed[-1]


@pytest.mark.parametrize("row", range(15))
@pytest.mark.parametrize("column", range(13))
def test_every_cell_against_the_chart(row: int, column: int) -> None:
    assert RESULT_ROWS[row][1][column] == SEED_ROWS[row][1 + column]
    assert cell(column, row + 1) == SEED_ROWS[row][1 + column]


@pytest.mark.parametrize(("column", "row", "expected"), [
    (0, 1, "AL2"),
    (7, 1, "AL1o1"),
    (12, 1, "AL1 DL1o1"),
    (12, 4, "Ao1 e4 DL1o2"),
    (9, 4, "Ao1 Do1"),
    (12, 7, "Ae3 DL2o2DG"),
    (0, 13, "Ao1 Do1"),
    (0, 15, "Ao1 DL1o1"),
    (2, 15, "Ao1 e4 DL1o2"),
    (12, 15, "Ae2 DL2o3DG"),
    (6, 12, "Ao1 e4 DL1o2"),
    (1, 11, "AL1 Do1"),
])
def test_cells_by_hand(column: int, row: int, expected: str) -> None:
    assert cell(column, row) == expected


def test_row_labels_and_clamping() -> None:
    assert row_label(LOWEST_ROW) == "1 or less"
    assert row_label(HIGHEST_ROW) == "15 or more"
    assert [row_label(r) for r in range(2, 15)] == [str(r) for r in range(2, 15)]
    assert [row_for_total(t) for t in (-9, 0, 1, 2, 14, 15, 16, 23)] == [1, 1, 1, 2, 14, 15, 15, 15]
    assert cell(3, -4) == cell(3, 1) and cell(3, 20) == cell(3, 15)


def test_column_off_the_chart_is_an_error() -> None:
    with pytest.raises(IndexError):
        cell(13, 7)
    with pytest.raises(IndexError):
        cell(-1, 7)


# Cells as parts -----------------------------------------------------------

@pytest.mark.parametrize("text", printed_cells())
def test_every_printed_cell_reads_back_as_printed(text: str) -> None:
    parsed = Cell.parse(text)
    assert parsed.text == text
    assert parsed.printed


PARTS = {
    # cell: (attacker L, o, e), (defender L, o, DG)
    "AL2": ((2, 0, None), (0, 0, False)),
    "AL1o1": ((1, 1, None), (0, 0, False)),
    "AL1o1 Do1": ((1, 1, None), (0, 1, False)),
    "AL1 Do1": ((1, 0, None), (0, 1, False)),
    "AL1 DL1o1": ((1, 0, None), (1, 1, False)),
    "Ao1 Do1": ((0, 1, None), (0, 1, False)),
    "Ao1 DL1o1": ((0, 1, None), (1, 1, False)),
    "Ao1 e4 DL1o2": ((0, 1, 4), (1, 2, False)),
    "Ae4 DL1o2": ((0, 0, 4), (1, 2, False)),
    "Ae3 DL2o2DG": ((0, 0, 3), (2, 2, True)),
    "Ae2 DL2o3DG": ((0, 0, 2), (2, 3, True)),
}


def test_parts_cover_every_printed_cell() -> None:
    assert set(PARTS) == set(printed_cells())


@pytest.mark.parametrize("text", sorted(PARTS))
def test_parts_by_hand(text: str) -> None:
    (al, ao, ae), (dl, do, dg) = PARTS[text]
    parsed = Cell.parse(text)
    a, d = parsed.attacker_part, parsed.defender_part
    assert (a.loss, a.options, a.exploit) == (al, ao, ae)
    assert (d.loss, d.options, d.dg) == (dl, do, dg)


def test_result_order_holds_every_printed_cell_once() -> None:
    assert sorted(RESULT_ORDER) == sorted(printed_cells())
    assert len(set(RESULT_ORDER)) == len(RESULT_ORDER)


@pytest.mark.parametrize("row", range(1, 16))
def test_order_never_falls_along_a_row(row: int) -> None:
    ranks = [RESULT_ORDER.index(cell(c, row)) for c in range(13)]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize("column", range(13))
def test_order_never_falls_down_a_column(column: int) -> None:
    ranks = [RESULT_ORDER.index(cell(column, r)) for r in range(1, 16)]
    assert ranks == sorted(ranks)


# Surprise chart -----------------------------------------------------------

def _seed_threshold(heading: str, side: str) -> tuple[int, str]:
    text = _seed_text()
    block = text[text.index(heading):]
    match = re.search(rf"if (\d+) or (more|less), {side} Surprise", block)
    assert match is not None
    return int(match.group(1)), match.group(2)


@pytest.mark.parametrize(("kind", "heading"), [(AttackKind.OVERRUN, "Overrun Attack:"),
                                                (AttackKind.REGULAR, "Regular Attack:")])
def test_surprise_thresholds_against_the_chart(kind: AttackKind, heading: str) -> None:
    assert _seed_threshold(heading, "Attacker") == (SURPRISE_THRESHOLDS[kind].attacker_at_least, "more")
    assert _seed_threshold(heading, "Defender") == (SURPRISE_THRESHOLDS[kind].defender_at_most, "less")


def test_surprise_thresholds_by_hand() -> None:
    assert SURPRISE_THRESHOLDS[AttackKind.REGULAR].attacker_at_least == 10
    assert SURPRISE_THRESHOLDS[AttackKind.REGULAR].defender_at_most == 5
    assert SURPRISE_THRESHOLDS[AttackKind.OVERRUN].attacker_at_least == 9
    assert SURPRISE_THRESHOLDS[AttackKind.OVERRUN].defender_at_most == 6
    assert HEDGEHOG_SURPRISE_BONUS == 1
    assert SHIFT_DIE == 6


def test_hedgehog_surprise_bonus_against_the_chart() -> None:
    line = next(x for x in _seed_text().splitlines() if x.startswith("Modifier:") and "Hedgehog" in x)
    match = re.search(r"Add (\d+) to the defender", line)
    assert match is not None and int(match.group(1)) == HEDGEHOG_SURPRISE_BONUS
