"""Advanced Tactics Gold widgets: exact results and a seeded battle that replays."""

from __future__ import annotations

import json

from engine import api
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
    assert get("atg.panic").run({"count": 10, "fighting": 6, "morale": 70})["chance"]["p"] == "1/4"


def test_battle_sample_replays_and_renders():
    w = get("atg.battle")
    a = w.roll({}, 7)
    b = json.loads(api.handle(json.dumps({"op": "sample", "widget": "atg.battle", "inputs": {}, "seed": 7})))
    assert json.loads(json.dumps(a)) == b["result"]          # JSON-able, and the same seed replays it
    html = w.render_sample(a)
    assert b["html"] == html
    assert "<details" in html and "Round 1" in html
    assert sum(1 for e in a["events"] if e["type"] == "round") == a["rounds"]
