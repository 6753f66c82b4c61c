"""Advanced Tactics Gold widgets: exact results and a seeded battle that replays."""

from __future__ import annotations

import json

from engine import api
from engine.atg.attack import LOGGED_ATTACKS
from engine.schema import InputError, jsonable
from engine.widgets import get


def test_hit_chance_widget_exact():
    r = get("atg.hit_chance").run({"attack": "2", "hit_points": "2", "rules": {"randomisation": "whole",
                                                                              "tie_reading": "ties_to_attacker"}})
    assert r["hit"]["p"] == "3/4" and r["kill"]["p"] == "9/40"      # 3/4 × 30 %
    assert {x["p"]["p"] for x in r["readings"]} == {"1/2", "1/4", "3/4"}


def test_part_widgets_exact():
    assert get("atg.experience").run({"attacker_power": 10, "target_power": 40})["gains"]["kill"] == "90"
    r = get("atg.intercept").run({"readiness": 80, "distance": 20,
                                  "rules": {"intercept_fail_centre": 20, "intercept_fail_edge": 80}})
    assert r["range"] == "40" and r["failure"]["p"] == "1/2"
    assert get("atg.capitulation").run({"readiness": 10, "morale": 5})["chance"]["p"] == "3/5"
    assert get("atg.concentric").run({"sides": 4, "hqs": 2})["factor"] == "11/8"
    st = get("atg.stacking").run({"sides": 1, "attacker_stack": 200, "defender_stack": 50})
    assert (st["attacker_factor"], st["defender_factor"], st["breakthrough_failure"]["p"]) == ("1/4", "1", "1/2")
    f = {x["name"]: x["factor"] for x in get("atg.factors").run({})["factors"]}
    assert f["readiness on attack"] == "7/10" and f["max attacked"] == "1/2" and f["entrenchment on hit points"] == "13/10"
    # 40 % lost, morale 70: the default reading (losses above morale) has no panic, the literal one may
    assert get("atg.panic").run({"count": 10, "fighting": 6, "morale": 70})["chance"]["p"] == "0"
    assert get("atg.panic").run({"count": 10, "fighting": 6, "morale": 70,
                                 "rules": {"panic_reading": "as_written"}})["chance"]["p"] == "1/4"
    assert get("atg.panic").run({"count": 10, "fighting": 5, "morale": 30})["chance"]["p"] == "1/4"


def test_battle_sample_replays_and_renders():
    w = get("atg.battle")
    a = w.roll({}, 7)
    b = json.loads(api.handle(json.dumps({"op": "sample", "widget": "atg.battle", "inputs": {}, "seed": 7})))
    assert json.loads(json.dumps(a)) == b["result"]          # JSON-able, and the same seed replays it
    html = w.render_sample(a)
    assert b["html"] == html
    assert "<details" in html and "Round 1" in html
    assert sum(1 for e in a["events"] if e["type"] == "round") == a["rounds"]


# The unit-type editor ---------------------------------------------------------------------------------------------

import pytest  # noqa: E402

from engine.atg.setup import Setup, Unit  # noqa: E402
from engine.atg.widgets import type_row, unit_type  # noqa: E402
from engine.atg.units import ROSTER, ROSTER_ORDER  # noqa: E402
from engine.atg.widgets import battle_setup  # noqa: E402
from engine.schema import InputError  # noqa: E402


def _types(**changes):
    """The default unit types list with some rows changed: ``Tank={"hit_points": 80}``."""
    rows = [type_row(t) for t in ROSTER_ORDER]
    for name, edit in changes.items():
        rows[[r["name"] for r in rows].index(name.replace("_", " "))].update(edit)
    return rows


def test_default_unit_types_are_the_illustrative_roster():
    w = get("atg.battle")
    values = w.validate({})
    assert [r["name"] for r in values["unit_types"]] == list(ROSTER)
    assert battle_setup(values).roster == dict(ROSTER)
    assert [unit_type(type_row(t)) for t in ROSTER_ORDER] == list(ROSTER_ORDER)


def test_an_edited_unit_type_changes_the_battle():
    w = get("atg.battle")
    base = w.validate({})
    stronger = w.validate({"unit_types": _types(Tank={"hit_points": 400, "attack_soft": 90})})
    assert battle_setup(stronger).roster["Tank"].hit_points == 400
    assert battle_setup(stronger).roster["Tank"].attack["soft"] == 90
    assert w.roll(base, 3) != w.roll(stronger, 3)
    # the default battle is won almost always; tanks alone against page 01's gun line are not
    gun_line = {"attackers": [{"type": "Tank", "count": 6}],
                "defenders": [{"type": "Infantry", "count": 10, "entrenchment": 30},
                              {"type": "Anti-tank gun", "count": 4, "entrenchment": 30}]}
    a, b = (w.estimate(w.validate({**gun_line, **v}), 1, 0, 100).counts["ending"]
            for v in ({}, {"unit_types": _types(Tank={"hit_points": 400, "attack_soft": 90})}))
    assert b.get("attacker_won", 0) > a.get("attacker_won", 0)


def test_a_new_unit_type_can_be_named_by_units():
    w = get("atg.battle")
    rows = _types() + [{**type_row(ROSTER["Tank"]), "name": "Heavy tank", "hit_points": 90}]
    v = w.validate({"unit_types": rows, "attackers": [{"type": "Heavy tank", "count": 3}]})
    assert battle_setup(v).type_of(Unit("Heavy tank", 1)).hit_points == 90
    assert "Heavy tank" in json.dumps(w.roll(v, 1)["attacker"])


@pytest.mark.parametrize("inputs, field, words", [
    ({"defenders": [{"type": "Infantry"}, {"type": "Panzer"}]}, "defenders.1.type", "defender row 2: no unit type"),
    ({"unit_types": _types(Tank={"name": "Infantry"})}, "unit_types.3.name", "named 'Infantry' like row 1"),
    ({"unit_types": _types(Tank={"name": ""})}, "unit_types.3.name", "row 4 has no name"),
    ({"unit_types": _types(Tank={"kill": 70, "retreat": 40})}, "unit_types.3.retreat", "add up to more than 100"),
    ({"unit_types": _types(Flak={"prevents": "Artillery, Howitzer"})}, "unit_types.5.prevents", "'Howitzer'"),
    ({"interceptors": [{"type": "Tank"}]}, "interceptors.0.type", "'Tank' is not an air type"),
    ({"aa_support": [{"type": "Infantry"}]}, "aa_support.0.type", "not a type with an anti-aircraft range"),
    ({"unit_types": _types(Tank={"hit_points": 0})}, "unit_types.3.hit_points", "out of range"),
    ({"attackers": [{"type": "Tank"}], "unit_types": _types(Tank={"name": "Panzer"})}, "attackers.0.type",
     "attacker row 1: no unit type named 'Tank'"),
])
def test_impossible_unit_types_are_refused_by_row(inputs, field, words):
    with pytest.raises(InputError) as err:
        get("atg.battle").validate(inputs)
    assert err.value.field == field and words in str(err.value), str(err.value)


def test_new_battle_fields_reach_the_setup():
    w = get("atg.battle")
    v = w.validate({"port": True, "stationed_ships": 3, "bridge_structure": 20, "remembered_stack": 40,
                    "air_supply": 500, "attackers": [{"type": "Tank", "hq_power": "1/2", "staff_xp": 30,
                                                      "fuel": 5, "name": "Guards"}],
                    "interceptors": [{"type": "Fighter", "allied": True, "regime": 2}]})
    s = battle_setup(v)
    assert isinstance(s, Setup) and (s.port, s.stationed_ships, s.bridge_structure, s.remembered_stack,
                                     s.air_supply) == (True, 3, 20, 40, 500)
    u = s.attackers[0]
    assert (u.hq_power, u.staff_xp, u.state.fuel, u.name) == (0.5, 30, 5, "Guards")
    assert (s.interceptors[0].allied, s.interceptors[0].regime) == (True, 2)
    assert "Guards" in json.dumps(w.roll(v, 1)["events"])


def test_twelve_units_a_side_are_taken():
    w = get("atg.battle")
    units = [{"type": t.name, "count": 2} for t in ROSTER_ORDER if t.is_land] * 3
    v = w.validate({"attackers": units[:12], "defenders": units[:12]})
    assert len(v["attackers"]) == len(v["defenders"]) == 12


def test_type_and_unit_names_are_escaped_everywhere():
    w = get("atg.battle")
    rows = _types(Tank={"name": '<b>T&"</b>'})
    v = w.validate({"unit_types": rows, "attackers": [{"type": '<b>T&"</b>', "count": 4, "name": "<i>y</i>"}],
                    "defenders": [{"type": "Infantry", "count": 5}]})
    html = w.render_sample(w.roll(v, 1)) + w.render_tally(w.estimate(v, 1, 0, 30), v) + w.render(w.run(v))
    assert "<b>" not in html and "<i>" not in html and "&lt;b&gt;T&amp;" in html and "&lt;i&gt;y" in html


# Issue 19, item 21: no battle runs away ------------------------------------------------------------------

def _monster_battle(count: int = 100, units: int = 16) -> dict:
    w = get("atg.battle")
    types = [dict(r) for r in w.validate({})["unit_types"]]
    types.append({**types[0], "name": "Monster", "attacks": 20, "hit_points": 10_000})
    row = {"type": "Monster", "count": count, "action_points": 1000}
    return {"unit_types": types, "attackers": [row] * units, "defenders": [row] * units}


def test_a_battle_too_big_to_play_stops_with_a_message_naming_what_to_change():
    """20 attacks a round, 10,000 hit points, 1,000 action points, 16 x 100 a side: it used to run for minutes
    and write a 559 MB log. The work budget is a count, so it stops at the same attack every time."""
    w = get("atg.battle")
    v = w.validate(_monster_battle())
    for play in (lambda: w.estimate(v, 1, 0, 1),):
        with pytest.raises(InputError) as e:
            play()
        assert e.value.field == "attackers" and "too big to play here" in str(e.value)
        assert "fewer or smaller units" in str(e.value) and "fewer attacks a round" in str(e.value)
    answer = json.loads(api.handle(json.dumps({"op": "sample", "widget": "atg.battle",
                                               "inputs": jsonable(_monster_battle()), "seed": 1})))
    assert answer["error"]["type"] == "InputError"
    assert w.run(v)  # the engine stays healthy


def test_the_largest_battle_of_the_pages_unit_types_still_plays():
    """16 units of 100 a side, infantry and tanks, the defenders entrenched: legal, sensible, and played."""
    w = get("atg.battle")
    big = [{"type": "Infantry", "count": 100}] * 8 + [{"type": "Tank", "count": 100}] * 8
    v = w.validate({"attackers": big, "defenders": [dict(u, entrenchment=30) for u in big]})
    assert w.roll(v, 1)["ending"] in ("attacker_won", "defender_held", "standoff")


def test_a_long_battle_log_lists_the_first_attacks_and_counts_the_rest():
    w = get("atg.battle")
    v = w.validate({**_monster_battle(count=10, units=1), "attackers": [{"type": "Monster", "count": 10,
                                                                        "action_points": 300}]})
    s = w.roll(v, 1)
    listed = [e for e in s["events"] if e["type"] == "attack"]
    rounds = [e for e in s["events"] if e["type"] == "round"]
    assert len(listed) == LOGGED_ATTACKS and sum(r["attacks_not_listed"] for r in rounds) > 0
    html = w.render_sample(s)
    assert "more attacks this round are not listed" in html


def test_battle_figures_say_what_they_count():
    """Issue 20: 'experience gained 17762' said neither per what nor whose; the result box no longer tells
    the reader to roll a battle shown right below it."""
    w = get("atg.battle")
    v = w.validate({})
    html = w.render_tally(w.estimate(v, 1, 0, 30), v)
    assert "Per battle, on average" in html and "experience points gained, all its individuals together" in html
    assert "(30 trials)" in html
    assert "Roll a battle" not in w.render(w.run(v))


def test_a_paradrop_run_lists_both_ways_it_can_end_with_no_defender():
    """A paradrop can take the hex (its landed paratroopers) or leave its aircraft over a silenced defence; a
    land battle only the first, an air strike only the second."""
    w = get("atg.battle")
    label = "No defender left fighting"
    para = w.validate({"combat": "paradrop", "attackers": [{"type": "Transport", "count": 2},
                                                           {"type": "Infantry", "count": 6, "cargo": True}],
                       "defenders": [{"type": "Infantry", "count": 2}]})
    strike = w.validate({"combat": "airstrike", "attackers": [{"type": "Bomber", "count": 2}]})
    shown = {name: w.render_tally(w.estimate(v, 1, 0, 3), v) for name, v in
             (("paradrop", para), ("land", w.validate({})), ("airstrike", strike))}
    assert label in shown["paradrop"] and "Attacker won" in shown["paradrop"]
    assert label not in shown["land"] and "Attacker won" in shown["land"]
    assert label in shown["airstrike"] and "Attacker won" not in shown["airstrike"]


def test_a_reading_of_every_assumption_fits_what_a_battle_keeps():
    """A reading of AT Gold's assumptions plays every state in turn, call after call: the battle keeps the setup,
    floats and modifier lists of that many rules objects (KEPT_RULES), or each call builds them all again."""
    from engine import sensitivity
    from engine.atg.rules import KEPT_RULES
    assert sensitivity.readings("atg.battle", {}) <= KEPT_RULES


def test_a_battles_setup_reads_no_rule_variable():
    """States that differ only in their rule variables share one setup (``widgets._setup``, keyed by the other
    inputs): right only while the setup is built without them, which this holds for every kind of battle."""
    class Reads(dict):  # type: ignore[type-arg]
        def __init__(self, v, keys):
            super().__init__(v)
            self.keys_ = keys

        def __getitem__(self, key):
            self.keys_.add(key)
            return super().__getitem__(key)

        def get(self, key, default=None):
            self.keys_.add(key)
            return super().get(key, default)

    w = get("atg.battle")
    for state in ({}, {"combat": "airstrike", "attackers": [{"type": "Bomber", "count": 2}]},
                  {"interceptors": [{"type": "Fighter"}], "aa_support": [{"type": "Flak"}]}):
        v, keys = w.validate(state), set()
        battle_setup(Reads(v, keys))
        assert keys and "rules" not in keys, state
