"""OCS text the reader reads, held to the charts: the result reader's notes, a played combat's shift, the
pages' claims about the sweep and about which results favour whom."""

from __future__ import annotations

import random
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

from engine import widgets
from engine.ocs.combat import Situation, analyse
from engine.ocs.odds import find_odds, plain_total
from engine.ocs.results import Cell
from engine.ocs.sequence import play
from engine.ocs.table import Terrain, columns

PAGES = Path(__file__).resolve().parents[1] / "site" / "content" / "ocs"


# Reader: note 2 needs attacker options -----------------------------------------

@pytest.mark.parametrize(("text", "note_2"), [
    ("AL1 Do1", False),        # the attacker owes no option: nothing can release the defender
    ("Ae4 DL1o2", False),
    ("Ae3 DL2o2DG", False),
    ("AL1 DL1o1", False),
    ("AL1o1 Do1", True),
    ("Ao1 DL1o1", True),
    ("Ao1 e4 DL1o2", True),
    ("AL2", False),            # the defender owes nothing to skip
])
def test_note_2_listed_only_when_the_attacker_has_options(text: str, note_2: bool) -> None:
    result = widgets.get("ocs.result").run({"cell": text})
    assert (2 in [n["number"] for n in result["notes"]]) is note_2


# Played combat: a shift held at the end of the row ---------------------------

def _played_shifts(attack: int, defense: int, **kw: int) -> list[str]:
    a = analyse(Situation(plain_total(F(attack)), plain_total(F(defense)), Terrain.OPEN,
                          kw.get("attacker_ar", 3), kw.get("defender_ar", 2)))
    lines = []
    for seed in range(200):
        played = play(a, random.Random(seed))
        if played.shift:
            lines.append(next(s for s in played.steps if s.startswith("Surprise:")))
    return lines


def test_shift_at_the_right_end_is_not_called_a_move() -> None:
    # 40 against 2 is past 13:1: an attacker shift cannot move the column at all.
    lines = [line for line in _played_shifts(40, 2) if "right" in line]
    assert lines
    for line in lines:
        assert "moves" not in line and "from 13:1 to 13:1" not in line
        assert "stopped at the end of the row; the combat stays on 13:1." in line


def test_shift_on_the_chart_still_names_both_columns() -> None:
    lines = _played_shifts(12, 4)   # 3:1 on the Open row, column 6: no shift reaches an end
    assert lines and all("the column goes from 3:1 to" in line and "stopped" not in line for line in lines)


# Pages -----------------------------------------------------------------------

def _sweep_values(text: str) -> tuple[int, list[int]]:
    block = re.search(r"^::: sweep ocs\.combat .*?\n(.*?)^:::$", text, re.M | re.S)
    assert block
    pairs = dict(line.split(": ", 1) for line in block.group(1).splitlines())
    assert pairs["terrain"] == "open" and pairs["vary"] == "attack"
    return int(pairs["defense"]), [int(v) for v in pairs["values"].strip("[]").split(",")]


def test_sweep_prose_says_which_values_share_a_column() -> None:
    text = (PAGES / "01-combat-table-and-odds.md").read_text(encoding="utf-8")
    defense, values = _sweep_values(text)
    printed = {c.label for c in columns(Terrain.OPEN)}
    off_heading = [f"{v // defense}:1" for v in values if v >= defense and v % defense == 0
                   and f"{v // defense}:1" not in printed]
    assert off_heading == ["6:1"]
    assert find_odds(Terrain.OPEN, F(24), F(defense)).column.label == "5:1"
    for ratio in off_heading:
        assert f"no {ratio} column" in text
    assert "one odds column a step" not in text


def test_favour_classes_are_marked_as_ours_and_match_the_engine() -> None:
    text = (PAGES / "01-combat-table-and-odds.md").read_text(encoding="utf-8")
    box = re.search(r'^!!! assumed "Which results favour whom"\n((?:    .*\n)+)', text, re.M)
    assert box
    body = " ".join(box.group(1).split())
    expected = {"AL1o1 Do1": "defender", "AL1 Do1": "neutral", "Ao1 Do1": "neutral", "AL1 DL1o1": "attacker"}
    assert {t: Cell.parse(t).side for t in expected} == expected
    assert "`AL1o1 Do1` favours the defender" in body and "`AL1 DL1o1` favours the attacker" in body
    assert "`AL1 Do1` and `Ao1 Do1` are even" in body


def test_out_of_supply_attack_is_the_charts_rule_not_an_assumption() -> None:
    """The supply chart lets a unit out of supply attack, at half, only when combat supply is found. That is
    the chart's rule and the widget halves as printed; finding the supply is the map's business (no attack's
    supply is tracked), so the prose must state the rule plainly and claim no assumption of its own."""
    text = (PAGES / "01-combat-table-and-odds.md").read_text(encoding="utf-8")
    section = text.split("## Units out of supply", 1)[1].split("\n## ", 1)[0]
    prose = " ".join(line for line in section.splitlines() if not line.startswith(("!!!", "    ")))
    prose = " ".join(prose.split())
    assert "assum" not in prose.lower()
    assert "lets such a unit attack at all only when combat supply is found" in prose
    assert "Both halves are the chart's rule" in prose
    assert "left out of the list" in prose
    # no assumed box in the section speaks of combat supply
    boxes = re.findall(r'^!!! assumed "[^"]*"\n((?:    .*\n)+)', section, re.M)
    assert boxes and not any("combat supply" in " ".join(b.split()) for b in boxes)
    # and the widget halves an out-of-supply attacker as the chart prints
    result = widgets.get("ocs.combat").run({"attack_units": [{"strength": 6, "supply": "supplied"},
                                                             {"strength": 5, "supply": "out_of_supply"}],
                                            "defense": 3})
    assert F(result["attack"]["total"]) == 6 + F(5, 2)
