"""Small General: the table, every modifier, artillery, retreats, experience and the widgets.

Expected values are written out by hand (and re-derived by brute force over
the 216 ways three dice fall); the printed table and the modifier numbers are
also read from the rulebook text itself, so a typo on either side shows up.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from engine import api
from engine.dice import roll
from engine.exhibits import get_exhibit
from engine.schema import InputError
from engine.small_general import COMBAT, DEFENDER_CHOICE, EXPERIENCE
from engine.small_general import defender_choice as choice_module
from engine.small_general.combat import Combat, Unit, apply_artillery_rule, retreat_failure_chance
from engine.small_general.experience import LEVEL_THRESHOLDS, POINTS_FOR_CAUSING, level_for, next_threshold, points_for
from engine.small_general.exhibits import EXHIBITS
from engine.small_general.rules import Settings
from engine.small_general.rules import (ARTILLERY_VS_MECHANIZED, ATTACKER_STATE, ATTACKER_SUPPLY, COMBAT_TABLE,
                                        DEFENDER_STATE, DEFENDER_SUPPLY, EXPERIENCE_MODIFIERS,
                                        LANDSCAPE_FOOT_ATTACK, SIMULTANEOUS_ATTACK, TABLE_RESULTS, Result)

SEED_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def seed_text() -> str:
    (path,) = SEED_DIR.glob("002_*.txt")
    return path.read_text(encoding="utf-8")


# The printed table, typed by hand -------------------------------------------------

PRINTED = {
    3: "ATT Destroyed", 4: "ATT Loss + Panick", 5: "ATT Loss", 6: "ATT Panick", 7: "ATT Loss",
    8: "ATT Shocked", 9: "ATT Disrupted", 10: "no result", 11: "no result", 12: "DEF Disrupted",
    13: "DEF Shocked", 14: "DEF Loss", 15: "DEF Retreat + Panick", 16: "DEF Retreat + Loss",
    17: "DEF Retreat + Panick + Loss", 18: "DEF Destroyed",
}

THREE_D6 = {t: sum(1 for f in itertools.product(range(1, 7), repeat=3) if sum(f) == t) for t in range(3, 19)}
"""Ways to roll each 3d6 total, counted one face triple at a time."""


def brute_rows(modifier: int) -> dict[int, Fraction]:
    """Chance of reading each row, by walking all 216 rolls and clamping onto the table."""
    out = {r: Fraction(0) for r in range(3, 19)}
    for faces in itertools.product(range(1, 7), repeat=3):
        out[min(max(sum(faces) + modifier, 3), 18)] += Fraction(1, 216)
    return out


def seed_table() -> dict[int, str]:
    text = seed_text()
    body = text[text.index("Combat table"):text.index("Detailed Rules")]
    rows = {}
    for line in body.splitlines():
        m = re.match(r"^(\d+)((?:ATT|DEF|no result).*)$", line.strip())
        if m:
            rows[int(m.group(1))] = re.sub(r"^(ATT|DEF)(?=[A-Z])", r"\1 ", m.group(2)).strip()
    return rows


def test_table_matches_the_rulebook_print() -> None:
    assert seed_table() == PRINTED == dict(COMBAT_TABLE)


@pytest.mark.parametrize("row", range(3, 19))
def test_each_row_reads_back_to_its_printed_name(row: int) -> None:
    assert TABLE_RESULTS[row].name == PRINTED[row]
    assert Result.parse(PRINTED[row]) == TABLE_RESULTS[row]


def test_result_parts_and_sides() -> None:
    assert TABLE_RESULTS[17] == Result("DEF", ("Retreat", "Panick", "Loss"))
    assert TABLE_RESULTS[4] == Result("ATT", ("Loss", "Panick"))
    assert TABLE_RESULTS[10] == Result(None)
    assert [TABLE_RESULTS[r].falls_on for r in (3, 10, 18)] == ["attacker", "neutral", "defender"]
    with pytest.raises(ValueError):
        Result.parse("DEF Routed")
    with pytest.raises(ValueError):
        Result("DEF", ())


# Modifiers, held against the rulebook's numbers ---------------------------------------

def seed_paragraph(heading: str) -> str:
    lines = seed_text().splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == heading)
    return lines[start + 1]


def signed_numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"[+-]\d+", text)]


def test_modifier_lists_match_the_rulebook() -> None:
    assert signed_numbers(seed_paragraph("Landscape")) == [LANDSCAPE_FOOT_ATTACK["forest"], LANDSCAPE_FOOT_ATTACK["town"]]
    assert signed_numbers(seed_paragraph("Supply State")) == [ATTACKER_SUPPLY["problem"], DEFENDER_SUPPLY["problem"],
                                                               DEFENDER_SUPPLY["out"]]
    e = EXPERIENCE_MODIFIERS
    assert signed_numbers(seed_paragraph("Experience")) == [e[1][0], e[2][1], e[3][0], e[3][1], e[4][0], e[4][1]]
    assert signed_numbers(seed_paragraph("Combat State")) == [ATTACKER_STATE["disrupted"], DEFENDER_STATE["disrupted"],
                                                              DEFENDER_STATE["shocked"], DEFENDER_STATE["panicked"]]
    assert signed_numbers(seed_paragraph("Simultaneous Attack")) == [SIMULTANEOUS_ATTACK[2], SIMULTANEOUS_ATTACK[3],
                                                                     SIMULTANEOUS_ATTACK[6]]
    assert signed_numbers(seed_paragraph("Artillery versus Mechanized")) == [ARTILLERY_VS_MECHANIZED]


def test_modifier_tables_by_hand() -> None:
    assert dict(LANDSCAPE_FOOT_ATTACK) == {"forest": -1, "town": -2}
    assert dict(ATTACKER_SUPPLY) == {"problem": -4}
    assert dict(DEFENDER_SUPPLY) == {"problem": 2, "out": 6}
    assert dict(EXPERIENCE_MODIFIERS) == {1: (1, 0), 2: (1, -1), 3: (2, -1), 4: (2, -2)}
    assert dict(ATTACKER_STATE) == {"disrupted": -1}
    assert dict(DEFENDER_STATE) == {"disrupted": 1, "shocked": 2, "panicked": 4}
    assert dict(SIMULTANEOUS_ATTACK) == {n: n - 1 for n in range(2, 7)}
    assert ARTILLERY_VS_MECHANIZED == -2


MODIFIER_CASES: list[tuple[str, dict[str, Any], list[tuple[str, int]]]] = [
    ("nothing", {}, []),
    ("foot into forest", {"terrain": "forest"}, [("Landscape", -1)]),
    ("foot into town", {"terrain": "town"}, [("Landscape", -2)]),
    ("mechanized into town", {"terrain": "town", "attacker": {"movement": "mechanized"}}, []),
    ("clear", {"terrain": "clear"}, []),
    ("attacker supply problem", {"attacker": {"supply": "problem"}}, [("Supply state", -4)]),
    ("defender supply problem", {"defender": {"supply": "problem"}}, [("Supply state", 2)]),
    ("defender out of supply", {"defender": {"supply": "out"}}, [("Supply state", 6)]),
    ("attacker level 1", {"attacker": {"experience_level": 1}}, [("Experience", 1)]),
    ("attacker level 2", {"attacker": {"experience_level": 2}}, [("Experience", 1)]),
    ("attacker level 3", {"attacker": {"experience_level": 3}}, [("Experience", 2)]),
    ("attacker level 4", {"attacker": {"experience_level": 4}}, [("Experience", 2)]),
    ("defender level 1", {"defender": {"experience_level": 1}}, []),
    ("defender level 2", {"defender": {"experience_level": 2}}, [("Experience", -1)]),
    ("defender level 3", {"defender": {"experience_level": 3}}, [("Experience", -1)]),
    ("defender level 4", {"defender": {"experience_level": 4}}, [("Experience", -2)]),
    ("attacker disrupted", {"attacker": {"state": "disrupted"}}, [("Combat state", -1)]),
    ("defender disrupted", {"defender": {"state": "disrupted"}}, [("Combat state", 1)]),
    ("defender shocked", {"defender": {"state": "shocked"}}, [("Combat state", 2)]),
    ("defender panicked", {"defender": {"state": "panicked"}}, [("Combat state", 4)]),
    ("one hex side", {"hex_sides": 1}, []),
    ("two hex sides", {"hex_sides": 2}, [("Simultaneous attack", 1)]),
    ("three hex sides", {"hex_sides": 3}, [("Simultaneous attack", 2)]),
    ("four hex sides", {"hex_sides": 4, "retreat_hexes": 2}, [("Simultaneous attack", 3)]),
    ("five hex sides", {"hex_sides": 5, "retreat_hexes": 1}, [("Simultaneous attack", 4)]),
    ("six hex sides", {"hex_sides": 6, "retreat_hexes": 0}, [("Simultaneous attack", 5)]),
    ("artillery vs mechanized", {"attacker": {"artillery": True}, "defender": {"movement": "mechanized"}},
     [("Artillery versus mechanized", -2)]),
    ("artillery vs foot", {"attacker": {"artillery": True}}, []),
    ("mechanized attacked by non-artillery", {"defender": {"movement": "mechanized"}}, []),
    ("strength ignored by default", {"attacker": {"attack_value": 9}, "defender": {"defence_value": 2}}, []),
    ("strength difference", {"attacker": {"attack_value": 9}, "defender": {"defence_value": 2},
                             "settings": {"strength_rule": "difference"}}, [("Unit strength", 7)]),
    ("artillery defends at 0", {"attacker": {"attack_value": 3}, "defender": {"artillery": True, "defence_value": 5},
                                "settings": {"strength_rule": "difference"}}, [("Unit strength", 3)]),
    ("worst for the attacker", {"terrain": "town", "attacker": {"supply": "problem", "state": "disrupted",
                                                                "artillery": True},
                                "defender": {"experience_level": 4, "movement": "mechanized"}},
     [("Landscape", -2), ("Supply state", -4), ("Experience", -2), ("Combat state", -1),
      ("Artillery versus mechanized", -2)]),
    ("best for the attacker", {"hex_sides": 6, "retreat_hexes": 0, "attacker": {"experience_level": 4},
                               "defender": {"supply": "out", "state": "panicked"}},
     [("Supply state", 6), ("Experience", 2), ("Combat state", 4), ("Simultaneous attack", 5)]),
]


@pytest.mark.parametrize("name,inputs,expected", MODIFIER_CASES, ids=[c[0] for c in MODIFIER_CASES])
def test_each_modifier(name: str, inputs: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    r = COMBAT.run(inputs)
    assert [(m["source"], m["value"]) for m in r["modifiers"]] == expected
    assert r["total_modifier"] == sum(v for _, v in expected)


@pytest.mark.parametrize("name,inputs,expected", MODIFIER_CASES, ids=[c[0] for c in MODIFIER_CASES])
def test_rows_match_brute_force(name: str, inputs: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    r = COMBAT.run(inputs)
    brute = brute_rows(sum(v for _, v in expected))
    assert {x["row"]: Fraction(x["p"]) for x in r["rows"]} == brute
    assert sum(Fraction(x["p"]) for x in r["rows"]) == 1
    assert sum(Fraction(o["p"]) for o in r["outcomes"]) == 1
    assert sum(Fraction(o["p"]) for o in r["after_retreat"]) == 1


def test_strength_modifier_is_marked_assumed() -> None:
    r = COMBAT.run({"attacker": {"attack_value": 4}, "settings": {"strength_rule": "difference"}})
    assert r["modifiers"] == [{"rule": "Attack value 4 minus defence value 1", "value": 3,
                               "source": "Unit strength", "assumed": True}]


@pytest.mark.parametrize("modifier", range(-12, 17))
def test_every_row_for_every_total_modifier(modifier: int) -> None:
    # Build a combat whose total is `modifier` from the strength setting alone.
    attack, defence = (modifier, 0) if modifier >= 0 else (0, -modifier)
    r = COMBAT.run({"attacker": {"attack_value": attack}, "defender": {"defence_value": defence},
                    "settings": {"strength_rule": "difference"}})
    assert r["total_modifier"] == modifier
    rows = {x["row"]: Fraction(x["p"]) for x in r["rows"]}
    for row in range(3, 19):
        natural = row - modifier
        inside = Fraction(THREE_D6.get(natural, 0), 216)
        if row == 3:
            inside = Fraction(sum(c for t, c in THREE_D6.items() if t + modifier <= 3), 216)
        if row == 18:
            inside = Fraction(sum(c for t, c in THREE_D6.items() if t + modifier >= 18), 216)
        assert rows[row] == inside, row


def test_unmodified_outcomes_in_table_order() -> None:
    r = COMBAT.run({})
    assert [(o["result"], o["rows"], o["side"], o["p"]) for o in r["outcomes"]] == [
        ("ATT Destroyed", [3], "attacker", "1/216"),
        ("ATT Loss + Panick", [4], "attacker", "1/72"),
        ("ATT Loss", [5, 7], "attacker", "7/72"),
        ("ATT Panick", [6], "attacker", "5/108"),
        ("ATT Shocked", [8], "attacker", "7/72"),
        ("ATT Disrupted", [9], "attacker", "25/216"),
        ("no result", [10, 11], "neutral", "1/4"),
        ("DEF Disrupted", [12], "defender", "25/216"),
        ("DEF Shocked", [13], "defender", "7/72"),
        ("DEF Loss", [14], "defender", "5/72"),
        ("DEF Retreat + Panick", [15], "defender", "5/108"),
        ("DEF Retreat + Loss", [16], "defender", "1/36"),
        ("DEF Retreat + Panick + Loss", [17], "defender", "1/72"),
        ("DEF Destroyed", [18], "defender", "1/216"),
    ]
    assert all(o["printed"] == [o["result"]] for o in r["outcomes"])
    assert all(abs(o["float"] - float(Fraction(o["p"]))) < 1e-15 for o in r["outcomes"])


def test_unmodified_derived_figures() -> None:
    d = COMBAT.run({})["derived"]
    assert {k: v.get("p", v.get("value")) for k, v in d.items()} == {
        "defender_loss": "25/216", "defender_retreat_result": "19/216", "defender_retreats": "19/216",
        "defender_destroyed": "1/216", "defender_destroyed_in_retreat": "0", "defender_blocked": "0",
        "defender_state": "59/216", "no_result": "1/4", "attacker_state": "59/216",
        "attacker_loss": "25/216", "attacker_destroyed": "1/216", "attacker_advances": "5/54",
        "attacker_xp_expected": "23/24", "defender_xp_expected": "23/24",
    }


def test_worked_example_veterans_on_forest() -> None:
    """Page 1: level 3 foot attacker, forest, out-of-supply defender, second hex side: +8."""
    r = COMBAT.run({"terrain": "forest", "hex_sides": 2, "attacker": {"experience_level": 3},
                    "defender": {"supply": "out"}})
    d = r["derived"]
    assert r["total_modifier"] == 8
    assert d["defender_destroyed"]["p"] == "5/8"
    assert Fraction(d["defender_destroyed"]["p"]) == Fraction(sum(c for t, c in THREE_D6.items() if t >= 10), 216)
    assert d["defender_retreat_result"]["p"] == "61/216"
    assert d["no_result"]["p"] == "1/216"
    assert d["defender_loss"]["p"] == "191/216"
    assert d["attacker_state"]["p"] == d["attacker_loss"]["p"] == "0"
    assert d["attacker_xp_expected"]["value"] == "517/108"


def test_experience_expectations_from_one_attack() -> None:
    """Page 3: 23/24 each without modifiers; a level 3 attacker expects 53/27, its target 1/3."""
    vet = COMBAT.run({"attacker": {"experience_level": 3}})["derived"]
    assert (vet["attacker_xp_expected"]["value"], vet["defender_xp_expected"]["value"]) == ("53/27", "1/3")
    best = COMBAT.run({"settings": {"combined_xp": "highest"}})["derived"]
    assert best["attacker_xp_expected"]["value"] == "11/12"
    off = COMBAT.run({"settings": {"defender_earns_xp": False}})["derived"]
    assert (off["attacker_xp_expected"]["value"], off["defender_xp_expected"]["value"]) == ("23/24", "0")


# Artillery -------------------------------------------------------------------------------

ARTILLERY_EXPECTED = {
    # row: (ceiling, strike, cap, strike_all)
    3: ("ATT Panick", "ATT Panick", "ATT Panick", "no result"),
    4: ("ATT Panick", "ATT Panick", "ATT Panick", "ATT Panick"),
    5: ("ATT Panick", "no result", "ATT Panick", "no result"),
    6: ("ATT Panick", "ATT Panick", "ATT Panick", "ATT Panick"),
    7: ("ATT Panick", "no result", "ATT Panick", "no result"),
    8: ("ATT Shocked", "ATT Shocked", "ATT Shocked", "ATT Shocked"),
    9: ("ATT Disrupted", "ATT Disrupted", "ATT Disrupted", "ATT Disrupted"),
    10: ("no result", "no result", "no result", "no result"),
    11: ("no result", "no result", "no result", "no result"),
    12: ("DEF Disrupted", "DEF Disrupted", "DEF Disrupted", "DEF Disrupted"),
    13: ("DEF Shocked", "DEF Shocked", "DEF Shocked", "DEF Shocked"),
    14: ("DEF Panick", "no result", "DEF Panick", "no result"),
    15: ("DEF Retreat + Panick", "DEF Retreat + Panick", "DEF Retreat + Panick", "DEF Retreat + Panick"),
    16: ("DEF Retreat + Panick", "DEF Retreat", "DEF Retreat + Panick", "DEF Retreat"),
    17: ("DEF Retreat + Panick", "DEF Retreat + Panick", "DEF Retreat + Panick", "DEF Retreat + Panick"),
    18: ("DEF Retreat + Panick", "DEF Panick", "DEF Panick", "no result"),
}
ARTY = Unit("foot", True, "supplied", 0, "none")
FOOT = Unit("foot", False, "supplied", 0, "none")


@pytest.mark.parametrize("row", range(3, 19))
@pytest.mark.parametrize("limit", ["ceiling", "strike", "cap", "strike_all"])
def test_artillery_attacker_results(row: int, limit: str) -> None:
    expected = ARTILLERY_EXPECTED[row][("ceiling", "strike", "cap", "strike_all").index(limit)]
    applied = apply_artillery_rule(TABLE_RESULTS[row], ARTY, FOOT, Settings(artillery_limit=limit))  # type: ignore[arg-type]
    assert applied.name == expected
    assert "Loss" not in applied.effects and "Destroyed" not in applied.effects


@pytest.mark.parametrize("row", range(3, 19))
def test_defending_artillery_is_limited_by_default(row: int) -> None:
    """Artillery never causes a loss or destroyed result, on defence too unless the setting is turned off."""
    printed = TABLE_RESULTS[row]
    limited = apply_artillery_rule(printed, FOOT, ARTY)
    assert limited.name == (ARTILLERY_EXPECTED[row][0] if printed.side == "ATT" else printed.name)
    assert apply_artillery_rule(printed, FOOT, ARTY, Settings(defending_artillery=False)) == printed


def test_defending_artillery_earns_no_points_for_results_it_cannot_cause() -> None:
    """The audit's case: a defending gun unit earned 5 for an ATT Destroyed that artillery never causes."""
    combat = Combat.from_inputs(COMBAT.validate({"defender": {"artillery": True}}))
    worst = next(o for o in combat.outcomes().probabilities() if o.row == 3)
    assert worst.final.name == "ATT Panick" and combat.xp(worst) == (0, 3)
    for o in combat.outcomes().probabilities():
        assert not o.final.has("Loss", "Destroyed") or o.final.side == "DEF"
    d = COMBAT.run({"defender": {"artillery": True}})["derived"]
    assert d["attacker_loss"]["p"] == d["attacker_destroyed"]["p"] == "0"
    assert d["defender_xp_expected"]["value"] == "43/54"  # 172/216: panic 3 on rows 3-7, shocked 2, disrupted 1
    literal = COMBAT.run({"defender": {"artillery": True}, "settings": {"defending_artillery": False}})["derived"]
    assert literal["attacker_loss"]["p"] == "25/216" and literal["defender_xp_expected"]["value"] == "23/24"


def test_artillery_never_loses_nor_inflicts_loss() -> None:
    for limit in ("ceiling", "strike", "cap", "strike_all"):
        r = COMBAT.run({"attacker": {"artillery": True}, "retreat_hexes": 0,
                        "settings": {"artillery_limit": limit}})
        d = r["derived"]
        assert d["attacker_loss"]["p"] == d["defender_loss"]["p"] == d["defender_destroyed"]["p"] == "0"


def test_artillery_against_mechanized_page_figures() -> None:
    # Default changed (issue 12): losses become Panick and destroyed the worst allowed result.
    r = COMBAT.run({"attacker": {"artillery": True}, "defender": {"movement": "mechanized"}})
    d = r["derived"]
    assert r["total_modifier"] == -2
    defender_hit = sum(Fraction(o["p"]) for o in r["outcomes"] if o["side"] == "defender")
    assert defender_hit == Fraction(35, 216)
    assert d["defender_loss"]["p"] == "0"
    assert d["attacker_state"]["p"] == "5/8"
    assert {o["result"]: o["printed"] for o in r["outcomes"]}["DEF Retreat + Panick"] == [
        "DEF Retreat + Panick", "DEF Retreat + Loss", "DEF Retreat + Panick + Loss", "DEF Destroyed"]
    old = COMBAT.run({"attacker": {"artillery": True}, "defender": {"movement": "mechanized"},
                      "settings": {"artillery_limit": "strike"}})
    assert sum(Fraction(o["p"]) for o in old["outcomes"] if o["side"] == "defender") == Fraction(29, 216)
    assert old["derived"]["attacker_state"]["p"] == "95/216"


# How strong a result is for the side the roll favours: higher is better for the attacker.
STRENGTH = {"ATT Destroyed": -6, "ATT Loss + Panick": -5, "ATT Loss": -4, "ATT Panick": -3, "ATT Shocked": -2,
            "ATT Disrupted": -1, "no result": 0, "DEF Disrupted": 1, "DEF Shocked": 2, "DEF Panick": 3,
            "DEF Retreat": 3.5, "DEF Retreat + Panick": 4}


def test_default_artillery_reading_never_rewards_a_worse_roll() -> None:
    results = [ARTILLERY_EXPECTED[row][0] for row in range(3, 19)]
    strengths = [STRENGTH[r] for r in results]
    assert strengths == sorted(strengths)
    # the old default did not hold: 13 Shocked, 14 nothing; 17 Retreat + Panick, 18 Panick
    old = [STRENGTH[ARTILLERY_EXPECTED[row][1]] for row in range(3, 19)]
    assert old != sorted(old)


def test_artillery_outcome_order_and_printed_names() -> None:
    r = COMBAT.run({"attacker": {"artillery": True}})
    assert [(o["result"], o["rows"]) for o in r["outcomes"]] == [
        ("ATT Panick", [3, 4, 5, 6, 7]), ("ATT Shocked", [8]), ("ATT Disrupted", [9]),
        ("no result", [10, 11]), ("DEF Disrupted", [12]), ("DEF Shocked", [13]), ("DEF Panick", [14]),
        ("DEF Retreat + Panick", [15, 16, 17, 18]),
    ]
    assert r["outcomes"][0]["printed"] == ["ATT Destroyed", "ATT Loss + Panick", "ATT Loss", "ATT Panick"]
    r = COMBAT.run({"attacker": {"artillery": True}, "settings": {"artillery_limit": "strike"}})
    assert [(o["result"], o["rows"]) for o in r["outcomes"]] == [
        ("ATT Panick", [3, 4, 6]), ("ATT Shocked", [8]), ("ATT Disrupted", [9]),
        ("no result", [5, 7, 10, 11, 14]), ("DEF Disrupted", [12]), ("DEF Shocked", [13]),
        ("DEF Retreat + Panick", [15, 17]), ("DEF Retreat", [16]), ("DEF Panick", [18]),
    ]
    assert r["outcomes"][0]["printed"] == ["ATT Destroyed", "ATT Loss + Panick", "ATT Panick"]


def test_artillery_blocked_retreat_stays_or_dies() -> None:
    stays = COMBAT.run({"attacker": {"artillery": True}, "retreat_hexes": 0})["derived"]
    assert stays["defender_blocked"]["p"] == "5/54"  # rows 15 to 18: 20 of 216
    assert stays["defender_destroyed_in_retreat"]["p"] == "0"
    assert stays["defender_retreat_result"]["p"] == "5/54"
    dies = COMBAT.run({"attacker": {"artillery": True}, "retreat_hexes": 0,
                       "settings": {"artillery_retreat_kills": True}})["derived"]
    assert dies["defender_destroyed_in_retreat"]["p"] == dies["defender_destroyed"]["p"] == "5/54"
    assert dies["defender_blocked"]["p"] == "0"


# Retreats ---------------------------------------------------------------------------------

@pytest.mark.parametrize("free", range(0, 6))
def test_retreat_failure_by_reading(free: int) -> None:
    assert retreat_failure_chance(free) == (1 if free == 0 else 0)
    six = Settings(retreat_direction="six_directions")
    assert retreat_failure_chance(free, six) == Fraction(6 - free, 6)
    for settings, fail in (({}, Fraction(1 if free == 0 else 0)),
                           ({"retreat_direction": "six_directions"}, Fraction(6 - free, 6))):
        d = COMBAT.run({"retreat_hexes": free, "settings": settings})["derived"]
        assert Fraction(d["defender_destroyed_in_retreat"]["p"]) == Fraction(19, 216) * fail
        assert Fraction(d["defender_retreats"]["p"]) == Fraction(19, 216) * (1 - fail)
        assert Fraction(d["defender_destroyed"]["p"]) == Fraction(1, 216) + Fraction(19, 216) * fail


def test_hex_sides_page_figures() -> None:
    """Page 1's chart (one free hex, one to five sides) and its sentence on all six sides."""
    loss = [COMBAT.run({"hex_sides": n, "retreat_hexes": 1})["derived"]["attacker_loss"]["p"] for n in range(1, 6)]
    assert (loss[0], loss[-1]) == ("25/216", "1/216")
    three = COMBAT.run({"hex_sides": 1})["derived"]
    assert COMBAT.run({"hex_sides": 1, "retreat_hexes": 1})["derived"] == three  # one open hex serves as three
    six = COMBAT.run({"hex_sides": 6, "retreat_hexes": 0})
    d = six["derived"]
    assert (d["defender_destroyed"]["p"], d["defender_retreats"]["p"], d["attacker_loss"]["p"]) == ("5/8", "0", "0")
    assert min(r["row"] for r in six["rows"] if Fraction(r["p"])) == 8


def test_defending_artillery_page_figures() -> None:
    """Page 1, after "Artillery on defence": 81 combat states in 216, 35 of them panic, no loss."""
    r = COMBAT.run({"defender": {"artillery": True}})
    assert r["derived"]["attacker_state"]["p"] == "3/8"  # 81/216
    panic = sum(Fraction(o["p"]) for o in r["outcomes"] if o["result"] == "ATT Panick")
    assert panic == Fraction(35, 216)


def test_retreat_page_figures() -> None:
    boxed = COMBAT.run({"retreat_hexes": 0})["derived"]
    assert boxed["defender_destroyed"]["p"] == "5/54"
    six = COMBAT.run({"retreat_hexes": 2, "settings": {"retreat_direction": "six_directions"}})
    d = six["derived"]
    assert (d["defender_destroyed_in_retreat"]["p"], d["defender_destroyed"]["p"]) == ("19/324", "41/648")
    failed = {o["result"]: o["p"] for o in six["after_retreat"]}
    assert failed["DEF Retreat + Loss: no free friendly hex, destroyed"] == "1/54"  # 6/216 * 4/6
    assert failed["DEF Retreat + Loss"] == "1/108"


def test_failed_retreat_pays_a_kill() -> None:
    c = Combat.from_inputs(COMBAT.validate({"retreat_hexes": 0}))
    by_row = {o.row: c.xp(o) for o in c.outcomes()}
    assert by_row[15] == (5 + 3, 0)  # destroyed instead of retreating, plus the panic
    assert by_row[16] == (5 + 4, 0)
    c2 = Combat.from_inputs(COMBAT.validate({"retreat_hexes": 0, "settings": {"retreat_kill_counts": False}}))
    assert {o.row: c2.xp(o) for o in c2.outcomes()}[16] == (4, 0)


# After combat -------------------------------------------------------------------------------

def test_advance_needs_an_empty_hex() -> None:
    base = {"defender": {"supply": "out"}}
    alone = COMBAT.run(base)["derived"]["attacker_advances"]["p"]
    assert Fraction(alone) == Fraction(sum(c for t, c in THREE_D6.items() if t + 6 >= 15), 216)
    assert COMBAT.run({**base, "other_units": 1})["derived"]["attacker_advances"]["p"] == "0"
    shared = COMBAT.run({**base, "other_units": 1, "settings": {"stack_shares_result": True}})
    assert shared["derived"]["attacker_advances"]["p"] == alone
    assert any("cannot move in" in n for n in COMBAT.run({**base, "other_units": 1})["after_combat"])
    assert all("movement points" in COMBAT.run(x)["after_combat"][0] for x in ({}, base))


def test_both_units_lose_their_movement_points() -> None:
    # Issue 12 item 2: every unit that took part in the combat loses its remaining move points.
    assert COMBAT.run({})["after_combat"][0] == (
        "Both units took part in the combat, so each loses all movement points it has left "
        "(the defender too, if it survives).")
    texts = {}
    for seed in range(200):
        s = COMBAT.roll({"defender": {"supply": "out"}, "attacker": {"supply": "problem"}}, seed)
        texts.setdefault(s["outcome"].split(":")[0], s["steps"][-1])
    assert texts["DEF Destroyed"] == "The attacker has no movement points left this turn."
    assert texts["no result"] == "Neither unit has any movement points left this turn."
    att = COMBAT.roll({"attacker": {"supply": "problem"}, "defender": {"experience_level": 4}}, 0)
    dead = [COMBAT.roll({"attacker": {"supply": "problem", "state": "disrupted"},
                         "defender": {"experience_level": 4}}, seed) for seed in range(300)]
    assert att["steps"][-1].endswith("movement points left this turn.")
    assert any(d["steps"][-1] == "The defender has no movement points left this turn."
               for d in dead if d["outcome"] == "ATT Destroyed")


# Experience ----------------------------------------------------------------------------------

def test_experience_numbers_match_the_rulebook() -> None:
    text = seed_text()
    para = text[text.index("Experience Growth"):text.index("Modifiers and such")]
    numbers = [int(x) for x in re.findall(r"\d+", para)]
    assert numbers == [*POINTS_FOR_CAUSING.values(), *LEVEL_THRESHOLDS]
    assert dict(POINTS_FOR_CAUSING) == {"Disrupted": 1, "Shocked": 2, "Panick": 3, "Loss": 4, "Destroyed": 5}
    assert LEVEL_THRESHOLDS == (5, 12, 20, 30)


POINTS_EXPECTED = {  # printed result: (sum, highest)
    "ATT Destroyed": (5, 5), "ATT Loss + Panick": (7, 4), "ATT Loss": (4, 4), "ATT Panick": (3, 3),
    "ATT Shocked": (2, 2), "ATT Disrupted": (1, 1), "no result": (0, 0), "DEF Disrupted": (1, 1),
    "DEF Shocked": (2, 2), "DEF Loss": (4, 4), "DEF Retreat + Panick": (3, 3), "DEF Retreat + Loss": (4, 4),
    "DEF Retreat + Panick + Loss": (7, 4), "DEF Destroyed": (5, 5),
}


@pytest.mark.parametrize("name", sorted(POINTS_EXPECTED))
def test_points_for_each_result(name: str) -> None:
    r = Result.parse(name)
    assert (points_for(r, "sum"), points_for(r, "highest")) == POINTS_EXPECTED[name]


@pytest.mark.parametrize("points,level,nxt", [
    (0, 0, 5), (4, 0, 5), (5, 1, 12), (11, 1, 12), (12, 2, 20), (19, 2, 20),
    (20, 3, 30), (29, 3, 30), (30, 4, None), (999, 4, None),
])
def test_levels_and_thresholds(points: int, level: int, nxt: int | None) -> None:
    assert level_for(points) == level
    assert next_threshold(points) == nxt
    r = EXPERIENCE.run({"points": points, "results": []})
    assert (r["level"], r["next_level_at"]) == (level, nxt)
    assert r["points_to_next"] == (None if nxt is None else nxt - points)
    assert (r["attack_modifier"], r["defence_modifier"]) == EXPERIENCE_MODIFIERS.get(level, (0, 0))


def test_experience_default_and_page_examples() -> None:
    d = EXPERIENCE.run({})
    assert (d["points"], d["level"], d["points_to_next"]) == (6, 1, 6)
    rpl = [{"result": "DEF Retreat + Panick + Loss", "count": 1}]
    added = EXPERIENCE.run({"points": 10, "results": rpl})
    assert (added["points_gained"], added["points"], added["level"], added["points_to_next"]) == (7, 17, 2, 3)
    best = EXPERIENCE.run({"points": 10, "results": rpl, "settings": {"combined_xp": "highest"}})
    assert (best["points"], best["level"], best["points_to_next"]) == (14, 2, 6)
    kill = EXPERIENCE.run({"results": [{"result": "DEF Retreat + Loss", "count": 1, "destroyed_in_retreat": True}]})
    assert kill["points"] == 9
    last = EXPERIENCE.run({"points": 27, "results": [{"result": "DEF Destroyed", "count": 1}]})
    assert (last["points"], last["level"], last["next_level_at"], last["levels_gained"]) == (32, 4, None, 1)


def test_experience_counts_and_defender_setting() -> None:
    r = EXPERIENCE.run({"results": [{"result": "ATT Loss", "count": 3}, {"result": "DEF Shocked", "count": 2}]})
    assert r["points"] == 3 * 4 + 2 * 2
    off = EXPERIENCE.run({"results": [{"result": "ATT Loss", "count": 3}], "settings": {"defender_earns_xp": False}})
    assert off["points"] == 0


def test_experience_offers_artillery_results() -> None:
    choices = EXPERIENCE.inputs.field("results").item.field("result").choices  # type: ignore[attr-defined]
    assert "no result" not in choices
    assert {"DEF Retreat", "DEF Panick", "DEF Retreat + Panick + Loss", "ATT Loss"} <= set(choices)


# Choosing the defender ---------------------------------------------------------------------------

def test_default_stack_rifles_defend() -> None:
    r = DEFENDER_CHOICE.run({})
    assert r["chosen"] == {"index": 1, "name": "Rifles"}
    assert [(c["name"], c["total_modifier"], c["measure"]["p"]) for c in r["candidates"]] == [
        ("Supply column", 2, "3/8"), ("Rifles", 0, "35/216")]
    assert r["measure"]["setting"] == "harm"
    assert r["combat"]["derived"]["attacker_advances"]["p"] == "0"  # the column stays in the hex
    assert r["assumptions"][0]["setting"] == "settings.choice_measure"


def test_the_defending_units_figure_counts_rows_as_the_form_does() -> None:
    """Compare, sweep and "which assumptions matter" read which unit defends as a row of the list, numbered
    from 1 as the form and the panel's own labels ("Defenders, row 2") number it; it counted from 0."""
    from engine import scenarios
    answer = scenarios.compare("small_general.defender_choice", {}, {
        "attacker": {"artillery": True}, "defenders": [{"name": "Tanks", "movement": "mechanized"}, {"name": "Rifles"}]})
    chosen = answer["figures"][0]
    assert (chosen["name"], chosen["label"]) == ("chosen", "Defending unit (its row in the list)")
    assert (chosen["a"]["exact"], chosen["b"]["exact"]) == ("2", "1")  # the Rifles, then the Tanks


def test_artillery_fires_at_tanks() -> None:
    r = DEFENDER_CHOICE.run({"attacker": {"artillery": True},
                             "defenders": [{"name": "Tanks", "movement": "mechanized"}, {"name": "Rifles"}]})
    assert r["chosen"]["name"] == "Tanks"
    assert [c["measure"]["p"] for c in r["candidates"]] == ["1/54", "5/54"]


@pytest.mark.parametrize("measure,values", [
    ("harm", ["3/8", "35/216"]),
    ("loss", ["5/18", "25/216"]),
    ("any_result", [str(Fraction(sum(c for t, c in THREE_D6.items() if t + 2 >= 12), 216)), "3/8"]),
    ("attacker_xp", ["53/27", "23/24"]),
])
def test_each_measure(measure: str, values: list[str]) -> None:
    r = DEFENDER_CHOICE.run({"settings": {"choice_measure": measure}})
    got = [c["measure"].get("p", c["measure"].get("value")) for c in r["candidates"]]
    assert got == values
    assert r["chosen"]["name"] == "Rifles"


def test_tie_goes_to_the_unit_listed_first() -> None:
    r = DEFENDER_CHOICE.run({"defenders": [{"name": "Guards", "supply": "problem"},
                                            {"name": "Militia", "state": "shocked"}]})
    assert r["chosen"]["name"] == "Guards"
    assert [c["place"] for c in r["candidates"]] == [1, 2]


def test_tie_goes_to_the_unit_that_hurts_the_attacker_more() -> None:
    # Artillery causes no loss, so every unit ties at 0 on the loss measure and on destruction.
    r = DEFENDER_CHOICE.run({"attacker": {"artillery": True}, "settings": {"choice_measure": "loss"},
                             "defenders": [{"name": "Rifles"}, {"name": "Tanks", "movement": "mechanized"}]})
    assert [c["measure"]["p"] for c in r["candidates"]] == ["0", "0"]
    assert [c["attacker_hit"]["p"] for c in r["candidates"]] == ["3/8", "5/8"]
    assert r["chosen"]["name"] == "Tanks"


def test_tie_goes_to_the_unit_less_likely_destroyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(choice_module.MEASURES, "harm", lambda c, d: Fraction(1, 2))  # type: ignore[arg-type]
    r = DEFENDER_CHOICE.run({"defenders": [{"name": "Militia", "state": "panicked"}, {"name": "Guards"}]})
    assert r["chosen"]["name"] == "Guards"


def test_duplicate_names_are_told_apart() -> None:
    r = DEFENDER_CHOICE.run({"defenders": [{"name": "Tanks"}, {}, {"name": "Tanks"}]})
    assert [c["name"] for c in r["candidates"]] == ["Tanks (#1)", "Rifles", "Tanks (#3)"]


def test_twelve_units_run() -> None:
    names = ("Rifles", "Guards", "Militia", "Engineers", "Cavalry", "Recon",
             "Tanks", "Panzers", "Guns", "Mortars", "Supply column", "HQ")
    r = DEFENDER_CHOICE.run({"defenders": [{"name": n, "experience_level": i % 5} for i, n in enumerate(names)]})
    assert r["chosen"]["name"] == "Cavalry"


# Inputs ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("widget,inputs,field", [
    (COMBAT, {"terrain": "swamp"}, "terrain"),
    (COMBAT, {"hex_sides": 0}, "hex_sides"),
    (COMBAT, {"hex_sides": 7}, "hex_sides"),
    (COMBAT, {"attacker": {"supply": "out"}}, "attacker.supply"),
    (COMBAT, {"attacker": {"state": "shocked"}}, "attacker.state"),
    (COMBAT, {"attacker": {"experience_level": 5}}, "attacker.experience_level"),
    (COMBAT, {"defender": {"experience_level": -1}}, "defender.experience_level"),
    (COMBAT, {"defender": {"defence_value": -2}}, "defender.defence_value"),
    (COMBAT, {"defender": {"movement": "hover"}}, "defender.movement"),
    (COMBAT, {"defender": {"artillery": "maybe"}}, "defender.artillery"),
    (COMBAT, {"defender": {"morale": 3}}, "defender.morale"),
    (COMBAT, {"retreat_hexes": 7}, "retreat_hexes"),
    (COMBAT, {"other_units": -1}, "other_units"),
    (COMBAT, {"settings": {"artillery_limit": "ignore"}}, "settings.artillery_limit"),
    (COMBAT, {"settings": {"beyond_table": "wrap"}}, "settings.beyond_table"),
    (DEFENDER_CHOICE, {"defenders": []}, "defenders"),
    (DEFENDER_CHOICE, {"defenders": [{"name": "Dragoons"}]}, "defenders.0.name"),
    (DEFENDER_CHOICE, {"defenders": [{"name": 5}]}, "defenders.0.name"),
    (DEFENDER_CHOICE, {"defenders": [{}, {"name": "HQ", "supply": "lost"}]}, "defenders.1.supply"),
    (DEFENDER_CHOICE, {"settings": {"choice_measure": "vibes"}}, "settings.choice_measure"),
    (EXPERIENCE, {"points": -1}, "points"),
    (EXPERIENCE, {"results": [{"result": "DEF Routed"}]}, "results.0.result"),
    (EXPERIENCE, {"results": [{"result": "DEF Loss", "count": 0}]}, "results.0.count"),
    (EXPERIENCE, {"results": [{"result": "DEF Loss", "destroyed_in_retreat": True}]},
     "results.0.destroyed_in_retreat"),
])
def test_bad_inputs_name_the_field(widget: Any, inputs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        widget.run(inputs)
    assert info.value.field == field


@pytest.mark.parametrize("sides,free", [(6, 1), (6, 5), (5, 2), (4, 3), (2, 5)])
@pytest.mark.parametrize("widget", [COMBAT, DEFENDER_CHOICE], ids=["combat", "defender_choice"])
def test_free_hexes_beyond_the_sides_attacked_are_refused(widget: Any, sides: int, free: int) -> None:
    """Each side attacked over borders an enemy unit's hex: attacked from all six sides, nowhere is free."""
    with pytest.raises(InputError) as info:
        widget.run({"hex_sides": sides, "retreat_hexes": free})
    assert info.value.field == "retreat_hexes" and "\n" not in str(info.value)
    most = 6 - sides
    assert info.value.allowed == (f"0 to {most}" if most else "0")
    assert str(info.value) == ("retreat_hexes: attacks over all 6 hex sides leave the defender no free friendly hex; "
                               "enter 0" if sides == 6 else
                               f"retreat_hexes: attacks over {sides} hex sides leave the defender at most {most} "
                               f"free friendly {'hex' if most == 1 else 'hexes'}; enter 0 to {most}")
    widget.run({"hex_sides": sides, "retreat_hexes": most})
    values, rejected = widget.from_link({"hex_sides": str(sides), "retreat_hexes": str(free)})
    assert [e.field for e in rejected] == ["retreat_hexes"] and values == widget.validate(None)


def test_the_attackers_own_hex_is_never_free() -> None:
    with pytest.raises(InputError) as info:
        COMBAT.run({"retreat_hexes": 6})
    assert str(info.value) == "retreat_hexes: 6 is out of range; enter a whole number from 0 to 5"


def test_every_setting_is_marked_assumed() -> None:
    for widget in (COMBAT, DEFENDER_CHOICE, EXPERIENCE):
        settings = widget.inputs.field("settings")
        assert settings.fields and all(f.assumed for f in settings.fields)  # type: ignore[attr-defined]
        assert all(f.help and f.label for f in widget.inputs.fields)


def test_artillery_limit_note_states_the_source_as_it_reads() -> None:
    """The source forbids artillery to cause a loss or a destroyed result without naming a side, and only its
    next sentence, on taking no losses, is about artillery that attacks. The note of ``artillery_limit`` is shown
    for guns on defence too, so it must not pin the first rule on attacking artillery (it once began
    "Attacking artillery can neither cause a loss ...")."""
    guns = COMBAT.run({"defender": {"artillery": True}})
    (note,) = [a["note"] for a in guns["assumptions"] if a["setting"] == "settings.artillery_limit"]
    assert not note.startswith("Attacking artillery")
    assert "without naming a side, that artillery never causes a loss or destroyed result" in note
    assert "artillery which attacks takes no loss itself" in note
    # the source: the no-loss-caused sentence has no "when attacking"; the no-loss-taken one has
    text = " ".join(seed_text().split())
    assert "Artillery can never cause a loss or destroy result." in text
    assert "artillery when attacking will never itself suffer any losses" in text


def test_assumptions_follow_the_situation() -> None:
    plain = [a["setting"] for a in COMBAT.run({})["assumptions"]]
    assert plain == ["settings.strength_rule", "settings.retreat_direction", "settings.combined_xp",
                     "settings.defender_earns_xp"]
    arty = [a["setting"] for a in COMBAT.run({"attacker": {"artillery": True}, "defender": {"supply": "out"},
                                              "retreat_hexes": 0, "other_units": 2})["assumptions"]]
    assert arty == ["settings.beyond_table", "settings.artillery_limit", "settings.artillery_retreat_kills",
                    "settings.strength_rule", "settings.retreat_direction",
                    "settings.defender_earns_xp", "settings.stack_shares_result"]
    # no result with two paid parts is left once artillery strikes losses, so combined_xp is not listed


# Samples --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 7, 42, 2**53])
def test_sample_replays_and_matches_its_dice(seed: int) -> None:
    inputs = {"defender": {"supply": "out"}, "retreat_hexes": 2, "settings": {"retreat_direction": "six_directions"}}
    a, b = COMBAT.roll(inputs, seed), COMBAT.roll(inputs, seed)
    assert a == b
    rng = random.Random(seed)
    assert a["faces"] == list(roll(rng, 3, 6, "combat (3d6)").faces)
    assert a["total"] == sum(a["faces"]) + 6
    assert a["row"] == min(max(a["total"], 3), 18)
    assert a["printed"] == PRINTED[a["row"]]
    if a["retreat"] is not None:
        assert a["retreat"]["direction"] == roll(rng, 1, 6, "").faces[0]
        assert a["retreat"]["destroyed"] == (a["retreat"]["direction"] > 2)


def test_samples_cover_every_branch() -> None:
    seen = set()
    for seed in range(300):
        s = COMBAT.roll({"defender": {"state": "panicked"}, "retreat_hexes": 1,
                         "settings": {"retreat_direction": "six_directions"}}, seed)
        seen.add(s["outcome"])
        c = Combat.from_inputs(COMBAT.validate({"defender": {"state": "panicked"}}))
        assert s["result"] == c.applied(s["row"]).name
    assert "DEF Retreat + Loss: no free friendly hex, destroyed" in seen
    assert "DEF Retreat + Loss" in seen


def test_artillery_sample_keeps_blocked_unit() -> None:
    outcomes = {COMBAT.roll({"attacker": {"artillery": True}, "defender": {"supply": "out"}, "retreat_hexes": 0},
                            seed)["outcome"] for seed in range(200)}
    assert "DEF Retreat + Panick: no free friendly hex, stays in place" in outcomes
    assert not any("destroyed" in o for o in outcomes)


def test_defender_choice_sample_and_experience_has_none() -> None:
    s = DEFENDER_CHOICE.roll({}, 3)
    assert s["defender"] == "Rifles" and s["steps"][0] == "Rifles defends the hex."  # the default veterans
    assert s == DEFENDER_CHOICE.roll({}, 3)
    with pytest.raises(InputError):
        EXPERIENCE.roll({}, 1)


# Rendering, the browser entry point and exhibits ------------------------------------------------------------

@pytest.mark.parametrize("widget", [COMBAT, DEFENDER_CHOICE, EXPERIENCE], ids=lambda w: w.id)
def test_default_runs_render_through_the_api(widget: Any) -> None:
    answer = json.loads(api.handle(json.dumps({"op": "run", "widget": widget.id, "inputs": {}})))
    assert "error" not in answer
    html = answer["html"]
    assert html == widget.render(widget.run({}))
    assert "<script" not in html and "Traceback" not in html
    if widget.sample is not None:
        s = json.loads(api.handle(json.dumps({"op": "sample", "widget": widget.id, "inputs": {}, "seed": 5})))
        assert s["result"] == json.loads(json.dumps(widget.roll({}, 5)))
        assert '<ul class="rolls">' in s["html"]


def test_api_reports_bad_input_as_data() -> None:
    answer = json.loads(api.handle(json.dumps({"op": "run", "widget": "small_general.combat",
                                               "inputs": {"attacker": {"supply": "out"}}})))
    assert answer["error"]["field"] == "attacker.supply"


def test_render_shows_printed_name_and_after_retreat_table() -> None:
    html = COMBAT.render(COMBAT.run({"attacker": {"artillery": True}, "retreat_hexes": 0}))
    assert "DEF Panick (table: DEF Loss)" in html
    assert "After retreats are made" in html and "stays in place" in html
    assert "After retreats are made" not in COMBAT.render(COMBAT.run({}))


def test_exhibits_come_from_engine_data() -> None:
    for exhibit_id, fn in EXHIBITS.items():
        assert get_exhibit(exhibit_id) is fn
        html = fn()
        assert html.startswith("<table") and "<caption>" in html and 'scope="col"' in html
    table = EXHIBITS["small_general.combat_table"]()
    for row, name in PRINTED.items():
        assert f'<th scope="row">{row}</th><td>{name}</td>' in table
    arty = EXHIBITS["small_general.artillery_results"]()
    assert arty.count("<tr>") == 1 + sum(1 for r in ARTILLERY_EXPECTED if set(ARTILLERY_EXPECTED[r]) != {PRINTED[r]})
    levels = EXHIBITS["small_general.experience_levels"]()
    assert "<td>30</td><td>+2</td><td>−2</td>" in levels
