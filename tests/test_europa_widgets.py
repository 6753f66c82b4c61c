"""Europa widgets: defaults, result shape, exact distributions, bad input, seeds, HTML and exhibits."""

from __future__ import annotations

import json
import random
import time
from fractions import Fraction
from typing import Any

import pytest

from engine import api, widgets
from engine.europa.exhibits import EXHIBITS
from engine.europa.widgets import AEC_INPUTS, MAX_UNITS
from engine.exhibits import get_exhibit
from engine.schema import InputError

AEC = widgets.get("europa.aec")
RATIO = widgets.get("europa.ratio")

TANK_BRIGADE = {"unit_type": "tank", "formation": "brigade", "aec": "full", "atec": "full"}


def outcome_pairs(outcomes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(o["result"], o["p"]) for o in outcomes]


def assert_exact_distribution(outcomes: list[dict[str, Any]]) -> None:
    assert sum(Fraction(o["p"]) for o in outcomes) == 1
    for o in outcomes:
        assert o["float"] == float(Fraction(o["p"]))
        assert o["side"] == ("attacker" if o["modifier"] > 0 else "defender" if o["modifier"] < 0 else "neutral")


# Defaults and result shape ------------------------------------------------------------------------

def test_registered() -> None:
    assert {"europa.aec", "europa.ratio"} <= set(widgets.ids())


def test_aec_default_run() -> None:
    r = AEC.run({})
    assert (r["aeca"], r["aecd"], r["atec"]) == ("2", "0", "1/2")
    assert r["ratios"] == {"aeca_atec": "4:1", "aeca_aecd": "no AECD", "decides": "AECA:ATEC"}
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+2", "1/2"), ("+3", "1/2")]
    assert r["modifier"]["mean"] == "5/2"
    assert r["required_losses"]["attacker"]["required"] == 1
    assert r["required_losses"]["defender"]["required"] == 0
    assert {"aeca", "aecd", "atec", "modifier", "required_losses", "trace", "heavy", "ratios", "units",
            "assumptions"} <= set(r)
    assert set(r["trace"]) == {"declines", "aeca", "aecd", "atec", "modifier", "heavy", "losses"}
    json.dumps(r)


def test_default_stack_is_the_tank_brigade_example() -> None:
    units = AEC.validate({})["attacker"]["units"]
    assert [(u["unit_type"], u["formation"], u["re_size"], u["aec"]) for u in units] == [
        ("tank", "brigade", 1, "full"), ("motorized_infantry", "regiment", 1, "neutral")]
    assert AEC.inputs.field("attacker").field("units").max_items == MAX_UNITS  # type: ignore[attr-defined]


def test_ratio_default_run() -> None:
    r = RATIO.run({})
    assert r["ratios"]["aeca_atec"] == "5.1:1"
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+3", "1/2"), ("+4", "1/2")]
    assert r["modifier"]["mean"] == "7/2"


def test_assumptions_listed_for_every_setting() -> None:
    r = AEC.run({})
    settings = {a["setting"] for a in r["assumptions"]}
    assert settings == {f"settings.{f.name}" for f in AEC.inputs.field("settings").fields}  # type: ignore[attr-defined]
    table = next(a for a in r["assumptions"] if a["setting"] == "settings.armour_table")
    assert table["value"].endswith("(our default)")
    assert "5:1 → +3 (1/2 chance of +4)" in table["value"]
    changed = AEC.run({"settings": {"armour_table": [{"min_ratio": "1", "modifier": 1, "chance_of_next": "0"}]}})
    table = next(a for a in changed["assumptions"] if a["setting"] == "settings.armour_table")
    assert table["value"] == "1:1 → +1 (your table)"


def test_every_assumed_field_says_what_the_source_says() -> None:
    for path, f in AEC_INPUTS.assumed_fields():
        assert path.startswith("settings.")
        assert len(f.assumed) > 40


def test_form_fields_have_label_and_help() -> None:
    def walk(fields: Any) -> None:
        for f in fields:
            assert f.help and f.label, f.name
            if hasattr(f, "fields"):
                walk(f.fields)
            if hasattr(f, "item"):
                assert f.item.label and f.item.help, f.name
                walk(f.item.fields)
    walk(AEC.inputs.fields)
    walk(RATIO.inputs.fields)


def test_replaced_table_changes_the_modifier() -> None:
    table = [{"min_ratio": "0", "modifier": 0, "chance_of_next": "0"},
             {"min_ratio": "4", "modifier": 1, "chance_of_next": "1/3"}]
    r = AEC.run({"settings": {"armour_table": table}})
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+1", "2/3"), ("+2", "1/3")]


def test_heavy_and_armour_add_as_independent_chances() -> None:
    heavy_table = [{"min_ratio": "1", "modifier": 0, "chance_of_next": "1/2"}]
    attackers = [TANK_BRIGADE, {**TANK_BRIGADE, "heavy": "heavy_armour"},
                 {"unit_type": "motorized_infantry", "formation": "regiment"}]
    r = AEC.run({"attacker": {"units": attackers},
                 "defender": {"units": [{"unit_type": "infantry", "formation": "division", "re_size": 3,
                                         "intrinsic_atec": "1"}]},
                 "settings": {"heavy_table": heavy_table}})
    # AECA 3 : ATEC 1 → +2; heavy 1 : 0 → top row 0 with 1/2 of +1
    assert outcome_pairs(r["modifier"]["armour"]["outcomes"]) == [("+2", "1")]
    assert outcome_pairs(r["modifier"]["heavy"]["outcomes"]) == [("0", "1/2"), ("+1", "1/2")]
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+2", "1/2"), ("+3", "1/2")]


def test_chances_combine_exactly() -> None:
    r = AEC.run({"attacker": {"units": [{**TANK_BRIGADE, "heavy": "heavy_armour"},
                                        {"unit_type": "motorized_infantry", "formation": "regiment"}]},
                 "defender": {"units": [{"unit_type": "infantry", "formation": "division", "re_size": 3,
                                         "intrinsic_atec": "1/2"},
                                        {"unit_type": "tank", "formation": "battalion", "re_size": "1/3",
                                         "aec": "full", "heavy": "heavy_armour"}]},
                 "settings": {"heavy_table": [{"min_ratio": "1", "modifier": 1, "chance_of_next": "1/3"}]}})
    # armour: AECA 2 : ATEC 1/2 → +2/+3 at 1/2 each; heavy attack 1:1 not more; defence 1:1 not more
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+2", "1/2"), ("+3", "1/2")]


RANDOM_TYPES = ["tank", "mechanized", "motorized_infantry", "infantry", "assault_gun", "anti_tank", "aa",
                "heavy_aa", "artillery", "engineer", "hq", "mortar", "rocket", "other"]


def random_unit(rng: random.Random, side: str) -> dict[str, Any]:
    u: dict[str, Any] = {
        "unit_type": rng.choice(RANDOM_TYPES),
        "formation": rng.choice(["division", "corps", "brigade", "regiment", "cadre", "remnant", "battalion"]),
        "re_size": rng.choice(["1/3", "1/2", "1", "2", "3"]),
        "combat_value": rng.randint(0, 20), "nationality": rng.choice(["german", "other_axis", "soviet"]),
        "motorized": rng.random() < 0.4, "aec": rng.choice(["double", "full", "half", "neutral", "none"]),
        "atec": rng.choice(["double", "full", "half", "neutral", "none"]),
        "heavy": rng.choice(["none", "none", "heavy_armour", "heavy_mot_aa", "heavy_tank_destroyer"]),
    }
    if side == "attacker":
        u["across_hexside"] = rng.choice(["none", "halves", "quarters"])
        u["full_strength_into_terrain"] = u["unit_type"] == "motorized_infantry" and rng.random() < 0.5
    else:
        u["fortified_or_entrenched"] = rng.random() < 0.5
        if u["unit_type"] in ("infantry", "motorized_infantry") and u["formation"] == "division":
            u["intrinsic_atec"] = rng.choice(["0", "1/2", "1"])
            u["eliminated"] = rng.random() < 0.3
    return u


@pytest.mark.parametrize("seed", range(40))
def test_random_stacks_give_exact_distributions(seed: int) -> None:
    rng = random.Random(seed)
    inputs = {
        "attacker": {"units": [random_unit(rng, "attacker") for _ in range(rng.randint(0, 6))],
                     "losses": rng.randint(0, 10), "declines": rng.random() < 0.2},
        "defender": {"units": [random_unit(rng, "defender") for _ in range(rng.randint(0, 6))],
                     "losses": rng.randint(0, 10), "declines": rng.random() < 0.2},
        "conditions": {"terrain_cm": rng.choice(["none", "halves", "quarters"]),
                       "terrain_aec_modifier": rng.randint(0, 2), "weather_aec_modifier": rng.randint(0, 2),
                       "hexside_aec_modifier": rng.randint(0, 1)},
    }
    r = AEC.run(inputs)
    for outcomes in (r["modifier"]["outcomes"], r["modifier"]["armour"]["outcomes"],
                     r["modifier"]["heavy"]["outcomes"], r["heavy"]["attack"]["outcomes"],
                     r["heavy"]["defence"]["outcomes"]):
        assert_exact_distribution(outcomes)
    for side in ("attacker", "defender"):
        part = r["required_losses"][side]
        assert 0 <= part["required"] <= part["combat_losses"]
        for req in part["requirements"]:
            assert 0 <= req["from_conversions_max"] <= req["strength_points"] / 2
    shares = sum(Fraction(u.get("aeca", "0")) for u in r["units"])
    assert shares == Fraction(r["aeca"])
    assert sum(Fraction(u.get("atec", "0")) for u in r["units"]) == Fraction(r["atec"])
    assert Fraction(r["aeca"]) <= Fraction(r["before_terrain"]["aeca"])
    html = AEC.render(r)
    assert html == AEC.render(json.loads(json.dumps(r)))


def test_big_stacks_are_fast() -> None:
    rng = random.Random(1)
    inputs = {"attacker": {"units": [random_unit(rng, "attacker") for _ in range(MAX_UNITS)]},
              "defender": {"units": [random_unit(rng, "defender") for _ in range(MAX_UNITS)]}}
    values = AEC.validate(inputs)
    start = time.perf_counter()
    for _ in range(10):
        AEC.compute(values)
    assert (time.perf_counter() - start) / 10 < 0.05


# Bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("inputs", "field"), [
    ({"attacker": {"units": [{"re_size": "0"}]}}, "attacker.units.0.re_size"),
    ({"attacker": {"units": [{"re_size": "-1"}]}}, "attacker.units.0.re_size"),
    ({"attacker": {"units": [{"re_size": "many"}]}}, "attacker.units.0.re_size"),
    ({"attacker": {"losses": -1}}, "attacker.losses"),
    ({"defender": {"losses": "lots"}}, "defender.losses"),
    ({"defender": {"units": [{"aec": "triple"}]}}, "defender.units.0.aec"),
    ({"defender": {"units": [{}, {"unit_type": "panzer"}]}}, "defender.units.1.unit_type"),
    ({"attacker": {"units": [{"intrinsic_atec": "1"}]}}, "attacker.units.0.intrinsic_atec"),
    ({"defender": {"units": [{"unit_type": "tank", "formation": "division", "re_size": 3,
                              "intrinsic_atec": "1"}]}}, "defender.units.0.intrinsic_atec"),
    ({"defender": {"units": [{"unit_type": "infantry", "formation": "regiment", "intrinsic_atec": "1/2"}]}},
     "defender.units.0.intrinsic_atec"),
    ({"defender": {"units": [{"unit_type": "infantry", "formation": "division", "re_size": 3,
                              "intrinsic_atec": "4"}]}}, "defender.units.0.intrinsic_atec"),
    ({"attacker": {"units": [{"unit_type": "tank", "full_strength_into_terrain": True}]}},
     "attacker.units.0.full_strength_into_terrain"),
    ({"defender": {"units": [{"fortified_or_entrenched": True, "reserve_moved_in_reaction": True}]}},
     "defender.units.0.reserve_moved_in_reaction"),
    ({"attacker": {"units": [{}] * (MAX_UNITS + 1)}}, "attacker.units"),
    ({"attacker": {"units": "not json"}}, "attacker.units"),
    ({"conditions": {"terrain_cm": "swamp"}}, "conditions.terrain_cm"),
    ({"conditions": {"weather_aec_modifier": 12}}, "conditions.weather_aec_modifier"),
    ({"settings": {"armour_table": []}}, "settings.armour_table"),
    ({"settings": {"armour_table": [{"min_ratio": "1"}, {"min_ratio": "1"}]}}, "settings.armour_table.1.min_ratio"),
    ({"settings": {"heavy_table": [{"min_ratio": "2"}, {"min_ratio": "2"}]}}, "settings.heavy_table.1.min_ratio"),
    ({"settings": {"armour_table": [{"chance_of_next": "2"}]}}, "settings.armour_table.0.chance_of_next"),
    ({"settings": {"armour_table": [{"min_ratio": "-1"}]}}, "settings.armour_table.0.min_ratio"),
    ({"settings": {"infantry_backing": "nobody"}}, "settings.infantry_backing"),
    ({"attacker": {"units": [{"colour": "red"}]}}, "attacker.units.0.colour"),
])
def test_bad_aec_input(inputs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        AEC.run(inputs)
    assert info.value.field == field


@pytest.mark.parametrize(("inputs", "field"), [
    ({"aeca": "-1"}, "aeca"), ({"atec": "x"}, "atec"),
    ({"settings": {"armour_table": [{"min_ratio": "3"}, {"min_ratio": "3"}]}}, "settings.armour_table.1.min_ratio"),
])
def test_bad_ratio_input(inputs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        RATIO.run(inputs)
    assert info.value.field == field


def test_bad_input_through_the_api_is_data() -> None:
    answer = json.loads(api.handle(json.dumps({"op": "run", "widget": "europa.aec",
                                               "inputs": {"attacker": {"units": [{"re_size": "0"}]}}})))
    assert answer["error"]["type"] == "InputError"
    assert answer["error"]["field"] == "attacker.units.0.re_size"


def test_rejected_link_part_falls_back() -> None:
    values, rejected = AEC.from_link({"attacker.units": '[{"re_size":0}]', "defender.losses": "5"})
    assert [e.field for e in rejected] == ["attacker.units.0.re_size"]
    assert values == AEC.validate({})


def test_link_round_trip() -> None:
    inputs = {"attacker": {"units": [TANK_BRIGADE], "declines": True},
              "settings": {"armour_table": [{"min_ratio": "5/2", "modifier": 2, "chance_of_next": "1/2"}]}}
    values = AEC.validate(inputs)
    back, rejected = AEC.from_link(AEC.link_state(values))
    assert not rejected
    assert back == values


def test_unsorted_table_rows_are_read_in_order() -> None:
    table = [{"min_ratio": "3", "modifier": 2}, {"min_ratio": "0", "modifier": 0}]
    r = RATIO.run({"aeca": "3", "settings": {"armour_table": table}})
    assert outcome_pairs(r["modifier"]["outcomes"]) == [("+2", "1")]


# Seeds -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("widget", [AEC, RATIO], ids=lambda w: w.id)
def test_seed_replays(widget: widgets.Widget) -> None:
    first = widget.roll({}, 12345)
    assert first == widget.roll({}, 12345)
    assert first["seed"] == 12345
    assert first["rolls"] and first["steps"] and first["outcome"]
    html = widget.render_sample(first)  # type: ignore[misc]
    assert "Armour" in html or "armour" in html


def test_samples_follow_the_distribution() -> None:
    outcomes = {int(o["modifier"]) for o in RATIO.run({})["modifier"]["outcomes"]}
    seen = {RATIO.roll({}, seed)["modifier"] for seed in range(60)}
    assert seen == outcomes == {3, 4}


def test_sample_roll_splits_the_chance_exactly() -> None:
    r = RATIO.roll({}, 7)
    (roll,) = r["rolls"]
    assert 1 <= roll["total"] <= 6
    assert r["modifier"] == (4 if roll["total"] >= 4 else 3)


def test_sample_with_no_chance_rolls_nothing() -> None:
    r = RATIO.roll({"aeca": "3"}, 1)
    assert r["rolls"] == []
    assert r["modifier"] == 2


def test_sample_with_heavy_chance() -> None:
    inputs = {"attacker": {"units": [{**TANK_BRIGADE, "heavy": "heavy_armour"}]},
              "defender": {"units": [{"unit_type": "infantry", "formation": "division", "re_size": 3}]},
              "settings": {"heavy_table": [{"min_ratio": "1", "modifier": 0, "chance_of_next": "1/2"}]}}
    r = AEC.roll(inputs, 3)
    labels = [x["label"] for x in r["rolls"]]
    assert labels == ["heavy attack chance"]
    exact = {o["modifier"] for o in AEC.run(inputs)["modifier"]["outcomes"]}
    assert r["modifier"] in exact


# HTML and exhibits ------------------------------------------------------------------------------------

def test_render_is_escaped_and_has_every_part() -> None:
    html = AEC.render(AEC.run({}))
    for heading in ("Totals", "Units", "AECA, unit by unit", "AECD, unit by unit", "ATEC, unit by unit",
                    "Ratios and armour modifier", "Heavy armour", "Die modifier", "Required losses",
                    "Assumptions in this result"):
        assert f"<h4>{heading}</h4>" in html
    assert "<script" not in html
    assert 'scope="row"' in html


@pytest.mark.parametrize("exhibit_id", sorted(EXHIBITS))
def test_exhibits(exhibit_id: str) -> None:
    html = get_exhibit(exhibit_id)()
    assert html.startswith("<table><caption>")
    assert 'scope="col"' in html and 'scope="row"' in html


def test_armour_exhibit_rows_come_from_the_table() -> None:
    html = get_exhibit("europa.armour_table")()
    assert html.count("<tr>") == 1 + 11
    assert "<th scope=\"row\">5:1 to under 6:1</th><td>+3</td><td>1/2 chance of +4</td>" in html
    assert "assumed" in html


def test_api_run_and_describe() -> None:
    answer = json.loads(api.handle(json.dumps({"op": "run", "widget": "europa.aec", "inputs": {}})))
    assert answer["result"]["aeca"] == "2"
    assert answer["html"] == AEC.render(answer["result"])
    described = json.loads(api.handle(json.dumps({"op": "describe"})))["result"]
    assert any(d["id"] == "europa.aec" for d in described)
