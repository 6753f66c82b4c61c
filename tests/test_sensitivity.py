"""Which assumption matters (issue 22): engine.sensitivity against recomputing each reading by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from engine import api, scenarios, sensitivity, widgets
from engine.schema import InputError, jsonable

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def set_path(values, path, value):
    raw = jsonable(values)
    target = raw
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[part]
    target[parts[-1]] = value
    return raw


def test_the_readings_tried_follow_the_stated_rule():
    w = widgets.get("sgs.battle")
    values = w.validate({})
    found = {a["input"]: a for a in sensitivity.alternatives(w, values)}
    hold = found["settings.rout_hold"]
    assert (hold["value"], hold["values"]) == (4, [2, 6])  # a whole number: minus and plus half of it
    choice = next(a for a in found.values() if isinstance(a["value"], str))
    field = dict(w.inputs.assumed_fields())[choice["input"]]
    assert sorted(choice["values"] + [choice["value"]]) == sorted(field.choices)
    atg = widgets.get("atg.battle")
    rules = {a["input"]: a for a in sensitivity.alternatives(atg, atg.validate({}))}
    assert rules["rules.panic_chance"]["values"] == ["1/8", "3/8"]  # a number: half and one and a half times
    assert rules["rules.defenders_pay_ap"]["values"] == [True]  # a yes/no: the other answer


def test_a_calculators_readings_are_exact_and_each_is_recomputed_by_hand():
    w = widgets.get("small_general.combat")
    inputs = {"terrain": "forest", "hex_sides": 2, "attacker": {"artillery": True}}
    values = w.validate(inputs)
    answer = sensitivity.sensitivity(w.id, inputs)
    base = scenarios.exact_figures(w, values)["defender_destroyed"]
    assert answer["base"]["exact"] == str(base) and answer["kind"] == "exact"
    tried = 0
    for row in answer["settings"]:
        for alt in row["alternatives"]:
            by_hand = scenarios.exact_figures(w, w.validate(set_path(values, row["input"], alt["value"])))
            x = by_hand["defender_destroyed"]
            assert alt["figure"]["exact"] == str(x) and alt["diff"]["exact"] == str(x - base)
            tried += 1
    assert tried == answer["variants"] >= 10
    spreads = [r["spread"] for r in answer["settings"]]
    assert spreads == sorted(spreads, reverse=True)  # widest first


def test_a_battles_readings_share_their_dice_equal_independent_runs_and_any_cut():
    """Each reading's figure is what a run of that reading alone gives (trial i has the same seed in both:
    common random numbers), and two calls of half the trials give the whole call's answer."""
    w = widgets.get("sgs.battle")
    whole = sensitivity.sensitivity(w.id, {}, seed=5, trials=40)
    half = sensitivity.sensitivity(w.id, {}, seed=5, trials=40, first=0, count=20)
    rest = sensitivity.sensitivity(w.id, {}, seed=5, trials=40, first=20, count=20, tally=half["tally"])
    assert json.dumps(rest["settings"]) == json.dumps(whole["settings"]) and rest["done"] and not half["done"]
    values = w.validate({})
    row = next(r for r in whole["settings"] if r["input"] == "settings.rout_hold")
    for alt in row["alternatives"]:
        alone = scenarios.compare(w.id, values, set_path(values, row["input"], alt["value"]), seed=5, trials=40)
        fig = next(f for f in alone["figures"] if f["name"] == "attacker_won")
        assert alt["figure"]["exact"] == fig["b"]["exact"] and alt["diff"]["exact"] == fig["diff"]["exact"]
        assert alt["diff"]["low"] == pytest.approx(fig["diff"]["low"]) and alt["diff"]["high"] == pytest.approx(fig["diff"]["high"])


def test_a_wide_spread_earns_a_sentence_naming_the_setting_and_a_narrow_one_none():
    answer = sensitivity.sensitivity("sgs.battle", {}, seed=1, trials=200, render=True)
    top = answer["settings"][0]
    assert answer["sentence"] == (f"P(attacker wins) depends on our reading of “{top['label']}”: "
                                  f"{top['low']['float'] * 100:.0f} % to {top['high']['float'] * 100:.0f} %.")
    assert sensitivity.sensitivity("small_general.combat", {"retreat_hexes": 2})["sentence"] == (
        "P(defender destroyed) depends on our reading of “Retreat direction”: 0.5 % to 6.3 %.")
    assert top["spread"] >= float(sensitivity.LARGE_PROBABILITY_SPREAD)
    html = answer["html"]
    assert html.count('<svg class="chart tornado"') == 1 and "style=" not in html and answer["sentence"][:20] in html
    calm = sensitivity.sensitivity("small_general.combat", {"terrain": "town"})
    assert calm["settings"][0]["spread"] < float(sensitivity.LARGE_PROBABILITY_SPREAD) and calm["sentence"] == ""


def test_the_api_op_is_bounded_and_refuses_a_bad_figure():
    assert "sensitivity" in api.SCENARIO_OPS and "sensitivity" in api.OPS
    ok = api.handle_message({"op": "sensitivity", "widget": "small_general.combat", "inputs": {}, "render": True})
    assert ok["settings"] and ok["html"].startswith('<div class="sensitivity-answer">')
    bad = api.handle_message({"op": "sensitivity", "widget": "small_general.combat", "figure": "nope"})
    assert bad["error"]["field"] == "figure"
    big = api.handle_message({"op": "sensitivity", "widget": "atg.battle", "count": 10_000})
    assert big["error"]["field"] == "count"  # a request plays at most 20,000 trials in all
    with pytest.raises(InputError):
        sensitivity.sensitivity("sgs.battle", {}, trials=10, first=10)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_command_line_gives_the_same_answer_on_one_process_or_two_and_as_csv():
    one = cli("sensitivity", "sgs.battle", "--trials", "30", "--workers", "1")
    two = cli("sensitivity", "sgs.battle", "--trials", "30", "--workers", "2", "--chunk", "10")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert json.loads(one.stdout)["settings"] == json.loads(two.stdout)["settings"]
    table = cli("sensitivity", "small_general.combat", "--format", "csv")
    assert table.stdout.splitlines()[0] == "setting,label,now,reading,figure_float,figure_exact,change_float,change_exact"
    row = table.stdout.splitlines()[1].split(",")
    assert row[0] == "settings.retreat_direction" and Fraction(row[5]) == Fraction(7, 144)
