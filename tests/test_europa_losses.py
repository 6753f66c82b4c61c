"""Europa rule 10.F: required losses, their caps and limits, and declining AEC/ATEC.

Run through the ``europa.aec`` widget, so the settings that shape required
losses are exercised from the same inputs a reader uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import widgets

AEC = widgets.get("europa.aec")
SEED = next((Path(__file__).resolve().parents[2] / "shared" / "seeds").glob("004_*.txt"))
SEED_TEXT = " ".join(SEED.read_text(encoding="utf-8").split())

TANK_CORPS = {"unit_type": "tank", "formation": "corps", "re_size": 3, "nationality": "soviet", "aec": "full"}
TANK_BRIGADE = {"unit_type": "tank", "formation": "brigade", "nationality": "soviet", "aec": "full", "atec": "full"}
MOT_REGIMENT = {"unit_type": "motorized_infantry", "formation": "regiment", "nationality": "soviet"}
AT_REGIMENT = {"unit_type": "anti_tank", "formation": "regiment", "aec": "none", "atec": "full"}
AT_BRIGADE = {"unit_type": "anti_tank", "formation": "brigade", "aec": "none", "atec": "full"}
INF_DIVISION = {"unit_type": "infantry", "formation": "division", "re_size": 3, "combat_value": 7}
MOT_DIVISION = {"unit_type": "motorized_infantry", "formation": "division", "re_size": 3}
PANZER_BRIGADE = {"unit_type": "tank", "formation": "brigade", "aec": "full", "atec": "full"}


def run(attackers: list[dict[str, Any]], defenders: list[dict[str, Any]], a_losses: int = 0, d_losses: int = 0,
        conditions: dict[str, Any] | None = None, settings: dict[str, Any] | None = None,
        a_declines: bool = False, d_declines: bool = False) -> dict[str, Any]:
    return AEC.run({
        "attacker": {"units": attackers, "losses": a_losses, "declines": a_declines},
        "defender": {"units": defenders, "losses": d_losses, "declines": d_declines},
        "conditions": conditions or {}, "settings": settings or {},
    })


def attacker_required(result: dict[str, Any]) -> int:
    return int(result["required_losses"]["attacker"]["required"])


def requirement(result: dict[str, Any], side: str, category: str) -> dict[str, Any]:
    for r in result["required_losses"][side]["requirements"]:
        if r["category"] == category:
            return r
    raise KeyError(category)


# AECA --------------------------------------------------------------------------------

def test_twelve_aeca_against_four_atec() -> None:
    assert "12 REs of AECA and the defender had 4 REs of ATEC" in SEED_TEXT
    r = run([TANK_CORPS] * 4, [AT_REGIMENT] * 4, a_losses=8)
    assert (r["aeca"], r["atec"]) == ("12", "4")
    assert attacker_required(r) == 4
    trace = r["required_losses"]["attacker"]["requirements"][0]["trace"]
    assert "The other 4 lost points may come from any units." in trace


@pytest.mark.parametrize(("losses", "required"), [(0, 0), (1, 1), (3, 3), (4, 4), (8, 4), (20, 4)])
def test_never_more_than_the_combat_result(losses: int, required: int) -> None:
    assert attacker_required(run([TANK_CORPS] * 4, [AT_REGIMENT] * 4, a_losses=losses)) == required


@pytest.mark.parametrize(("atec_units", "required"), [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3)])
def test_aeca_cap_is_the_defenders_atec(atec_units: int, required: int) -> None:
    r = run([TANK_CORPS], [AT_REGIMENT] * atec_units + [{**INF_DIVISION, "atec": "none"}], a_losses=10)
    assert r["atec"] == str(atec_units)
    assert attacker_required(r) == required  # 3 REs of AECA, capped by the ATEC


def test_anti_tank_brigade_in_forest_doubles_attackers_losses() -> None:
    assert "an anti-tank brigade worth 1 RE of ATEC in a forest hex" in SEED_TEXT
    forest = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, conditions={"terrain_cm": "halves"})
    assert forest["required_losses"]["hex_modifies_aec"] is True
    assert attacker_required(forest) == 2
    clear = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4)
    assert attacker_required(clear) == 1


@pytest.mark.parametrize("conditions", [{"terrain_cm": "quarters"}, {"terrain_aec_modifier": 1},
                                        {"terrain_aec_modifier": 1, "weather_aec_modifier": 1}])
def test_any_aec_modifying_hex_doubles_atec_for_losses(conditions: dict[str, Any]) -> None:
    r = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, conditions=conditions)
    assert r["required_losses"]["hex_modifies_aec"] is True
    assert attacker_required(r) == 2


def test_weather_alone_modifies_nothing_unless_read_so() -> None:
    """Issue 19: the source has weather increase the terrain's AEC modifier; with none, nothing to increase."""
    r = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, conditions={"weather_aec_modifier": 1})
    assert r["required_losses"]["hex_modifies_aec"] is False and attacker_required(r) == 1
    literal = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, conditions={"weather_aec_modifier": 1},
                  settings={"weather_needs_terrain": False})
    assert literal["required_losses"]["hex_modifies_aec"] is True and attacker_required(literal) == 2


def test_a_declining_defender_may_leave_no_armour_modifier() -> None:
    top = run([TANK_BRIGADE], [AT_BRIGADE], d_declines=True)
    none = run([TANK_BRIGADE], [AT_BRIGADE], d_declines=True, settings={"declined_defence": "no_modifier"})
    assert [o["modifier"] for o in top["modifier"]["armour"]["outcomes"]] == [4]
    assert [o["modifier"] for o in none["modifier"]["armour"]["outcomes"]] == [0]
    assert "setting declined_defence" in none["modifier"]["armour"]["trace"][0]


def test_hexside_modifier_alone_does_not_double() -> None:
    r = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, conditions={"hexside_aec_modifier": 1})
    assert r["required_losses"]["hex_modifies_aec"] is False
    assert attacker_required(r) == 1


def test_aeca_losses_counted_before_terrain() -> None:
    r = run([TANK_CORPS], [AT_REGIMENT] * 4, a_losses=10, conditions={"terrain_cm": "quarters"})
    assert r["aeca"] == "3/4"
    assert r["before_terrain"]["aeca"] == "3"
    assert attacker_required(r) == 3


def test_conversions_at_most_half() -> None:
    r = run([TANK_BRIGADE, MOT_REGIMENT], [AT_REGIMENT] * 2, a_losses=5)
    req = requirement(r, "attacker", "AECA")
    assert req["strength_points"] == 2
    assert req["from_conversions_max"] == 1


def test_no_conversions_means_none_from_converted_units() -> None:
    r = run([TANK_CORPS], [AT_REGIMENT] * 4, a_losses=5)
    assert requirement(r, "attacker", "AECA")["from_conversions_max"] == 0


@pytest.mark.parametrize(("share_of", "losses", "expected"), [("required", 8, 1), ("combat", 8, 2),
                                                              ("combat", 2, 1)])
def test_conversion_share_setting(share_of: str, losses: int, expected: int) -> None:
    r = run([TANK_BRIGADE, MOT_REGIMENT], [AT_REGIMENT] * 2, a_losses=losses,
            settings={"conversion_share_of": share_of})
    assert requirement(r, "attacker", "AECA")["from_conversions_max"] == expected


@pytest.mark.parametrize(("rounding", "expected"), [("up", 1), ("down", 0)])
def test_part_re_rounding(rounding: str, expected: int) -> None:
    half_atec = [{**INF_DIVISION, "intrinsic_atec": "1/2"}]
    r = run([TANK_BRIGADE, MOT_REGIMENT], half_atec, a_losses=3, settings={"partial_re_losses": rounding})
    assert requirement(r, "attacker", "AECA")["counted"] == "1/2"
    assert attacker_required(r) == expected


# AECD and ATEC -----------------------------------------------------------------------------

def test_aecd_losses_only_when_aecd_decides() -> None:
    r = run([TANK_BRIGADE], [PANZER_BRIGADE] * 3, d_losses=5)  # 1:3 → AECD decides
    assert r["ratios"]["decides"] == "AECA:AECD"
    aecd = requirement(r, "defender", "AECD")
    assert aecd["used"] is True
    assert aecd["counted"] == "1"  # capped by the attacker's 1 RE of AECA
    r2 = run([TANK_BRIGADE] * 3, [PANZER_BRIGADE], d_losses=5)  # 3:1 → ATEC decides
    assert requirement(r2, "defender", "AECD")["used"] is False


def test_atec_cap_is_the_attackers_aeca() -> None:
    r = run([TANK_BRIGADE], [AT_REGIMENT] * 3, d_losses=6)
    atec = requirement(r, "defender", "ATEC")
    assert atec["counted"] == "1"
    assert atec["strength_points"] == 1


def test_only_intrinsic_atec_requires_nothing() -> None:
    r = run([TANK_BRIGADE], [{**INF_DIVISION, "intrinsic_atec": "1"}], d_losses=6)
    assert r["atec"] == "1"
    assert requirement(r, "defender", "ATEC")["used"] is False
    assert r["required_losses"]["defender"]["required"] == 0


def test_intrinsic_counts_in_the_amount() -> None:
    r = run([TANK_CORPS] * 2, [AT_REGIMENT, {**INF_DIVISION, "intrinsic_atec": "1"}], d_losses=6)
    assert r["atec"] == "3"  # AT 1 + 1 converted + 1 intrinsic
    atec = requirement(r, "defender", "ATEC")
    assert atec["strength_points"] == 3
    assert atec["intrinsic_allowance"] == 0


def test_whole_division_eliminated_meets_intrinsic_share() -> None:
    r = run([TANK_CORPS] * 2, [AT_REGIMENT, {**INF_DIVISION, "intrinsic_atec": "1", "eliminated": True}],
            d_losses=10)
    assert requirement(r, "defender", "ATEC")["intrinsic_allowance"] == 1


def test_atec_not_used_without_aeca() -> None:
    r = run([{"unit_type": "infantry", "formation": "division", "re_size": 3}], [AT_REGIMENT], d_losses=3)
    assert requirement(r, "defender", "ATEC")["used"] is False


@pytest.mark.parametrize(("combine", "expected"), [("add", 4), ("overlap", 2)])
def test_defender_requirements_combine(combine: str, expected: int) -> None:
    r = run([TANK_BRIGADE, TANK_BRIGADE], [PANZER_BRIGADE] * 6, d_losses=9,
            settings={"defender_requirements": combine})
    assert requirement(r, "defender", "AECD")["strength_points"] == 2
    assert requirement(r, "defender", "ATEC")["strength_points"] == 2
    assert r["required_losses"]["defender"]["required"] == expected


def test_defender_combined_never_above_combat_result() -> None:
    r = run([TANK_BRIGADE, TANK_BRIGADE], [PANZER_BRIGADE] * 6, d_losses=3)
    assert r["required_losses"]["defender"]["required"] == 3


@pytest.mark.parametrize(("setting", "expected"), [(False, 1), (True, 2)])
def test_doubled_atec_for_defenders_own_losses(setting: bool, expected: int) -> None:
    r = run([TANK_BRIGADE] * 3, [AT_BRIGADE], a_losses=4, d_losses=4, conditions={"terrain_cm": "halves"},
            settings={"doubled_atec_own_losses": setting})
    assert requirement(r, "defender", "ATEC")["strength_points"] == expected


@pytest.mark.parametrize(("basis", "expected"), [("before_terrain", 3), ("after_terrain", 2)])
def test_cap_basis_setting(basis: str, expected: int) -> None:
    r = run([TANK_BRIGADE] * 3, [AT_REGIMENT] * 4, d_losses=6, conditions={"terrain_cm": "halves"},
            settings={"cap_basis": basis})
    assert requirement(r, "defender", "ATEC")["counted"] == ("3" if expected == 3 else "3/2")
    assert requirement(r, "defender", "ATEC")["strength_points"] == expected


# Declining ---------------------------------------------------------------------------------

def test_attacker_declines() -> None:
    r = run([TANK_BRIGADE, MOT_REGIMENT], [PANZER_BRIGADE, AT_REGIMENT], a_losses=4, d_losses=4, a_declines=True)
    assert r["used"]["aeca"] == "0"
    assert r["aeca"] == "2"  # still shown, but not used
    assert attacker_required(r) == 0
    assert r["ratios"]["decides"] == "AECA:AECD"
    assert [(o["result"], o["p"]) for o in r["modifier"]["armour"]["outcomes"]] == [("-4", "1")]
    assert requirement(r, "defender", "AECD")["counted"] == "0"  # capped by no AECA
    assert r["trace"]["declines"][0].startswith("The attacker declares first and declines")


def test_defender_declines() -> None:
    r = run([TANK_BRIGADE, MOT_REGIMENT], [PANZER_BRIGADE, AT_REGIMENT], a_losses=4, d_losses=4, d_declines=True)
    assert (r["used"]["atec"], r["used"]["aecd"]) == ("0", "0")
    assert r["required_losses"]["defender"]["required"] == 0
    assert attacker_required(r) == 0  # capped by an ATEC of zero
    assert [(o["result"], o["p"]) for o in r["modifier"]["armour"]["outcomes"]] == [("+4", "1")]


def test_both_use_when_neither_declines() -> None:
    r = run([TANK_BRIGADE, MOT_REGIMENT], [AT_REGIMENT], a_losses=4, d_losses=4)
    assert r["trace"]["declines"] == ["The attacker declares first and uses its AECA.",
                                      "The defender then uses its AECD and ATEC."]


@pytest.mark.parametrize(("covers", "expected"), [(False, "+1"), (True, "0")])
def test_decline_and_heavy_setting(covers: bool, expected: str) -> None:
    heavy = {**TANK_BRIGADE, "heavy": "heavy_armour"}
    r = run([heavy], [INF_DIVISION], a_declines=True, settings={"decline_covers_heavy": covers})
    assert [o["result"] for o in r["modifier"]["heavy"]["outcomes"]] == [expected]


def test_attacker_declines_with_no_modifier_reading() -> None:
    # Issue 12 item 4: declining only waives required losses in the source; the other reading gives no modifier.
    r = run([TANK_BRIGADE, MOT_REGIMENT], [PANZER_BRIGADE, AT_REGIMENT], a_losses=4, d_losses=4, a_declines=True,
            settings={"declined_aeca": "no_modifier"})
    assert [(o["result"], o["p"]) for o in r["modifier"]["armour"]["outcomes"]] == [("0", "1")]
    assert r["ratios"]["decides"] is None
    assert r["modifier"]["armour"]["trace"] == [
        "The attacker declined AEC, so no armour comparison is made: no armour modifier (setting declined_aeca)."]
    assert attacker_required(r) == 0
    # a defender's decline reads the same under both readings
    d = run([TANK_BRIGADE, MOT_REGIMENT], [PANZER_BRIGADE, AT_REGIMENT], d_declines=True,
            settings={"declined_aeca": "no_modifier"})
    assert [(o["result"], o["p"]) for o in d["modifier"]["armour"]["outcomes"]] == [("+4", "1")]
