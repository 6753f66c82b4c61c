"""Which assumption matters (issue 22): engine.sensitivity against recomputing each reading by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from engine import api, montecarlo, scenarios, sensitivity, widgets
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


# A reading that changes almost no battle stops early (engine.sensitivity.STOP_CHECKPOINTS) ------------------------

STOP_SEED = 3
STOP_TRIALS = 600  # past both checkpoints (200 and 500)


@pytest.fixture(scope="module")
def early():
    """The card game's default battle read in one call, with the rule to stop readings early."""
    return sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, render=True)


def readings_of(answer):
    return [(r["input"], a) for r in answer["settings"] for a in r["alternatives"]]


def test_the_stop_is_the_same_however_the_calls_and_jobs_cut_the_trials(early):
    """Calls that end inside a stage, at a checkpoint, one trial long or across both checkpoints, and one call
    cut into odd jobs, all give the one call's tally, table and sentence."""
    assert early["stopping"] == {"checkpoints": [200, 500], "negligible": "1/40"} and early["done"]
    tally, first = None, 0
    for count in (7, 150, 43, 1, 250, 49, 100):  # 7, 157, 200 (a checkpoint), 201, 451, 500, 600
        part = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, first=first,
                                       count=count, tally=tally, render=True)
        tally, first = part["tally"], part["next"]
    assert part["done"] and part["tally"] == early["tally"] and part["html"] == early["html"]
    jobs = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, chunk=37, render=True)
    assert jobs["tally"] == early["tally"] and jobs["settings"] == early["settings"]
    # Through the API as the page asks it: short calls, each sending back the last call's tally.
    message = {"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "seed": STOP_SEED, "trials": STOP_TRIALS}
    carried, first = {}, 0
    for count in (4, 196, 300, 100):
        part = api.handle_message({**message, **carried, "first": first, "count": count})
        carried, first = {"tally": part["tally"]}, part["next"]
    assert part["tally"] == early["tally"]


def test_each_reading_stops_exactly_where_the_rule_says_on_the_full_runs_trials(early):
    """The rule checked by hand at each checkpoint on the full run's tally of trials 0 … c−1 (Wilson's upper
    bound of the share of battles the reading changed, at most 2.5 %), and a stopped reading's figures are those
    trials' change from the inputs as they are."""
    w = widgets.get("sgs.battle")
    head = w.figures[0].name
    fixed = {c: montecarlo.Tally.from_json(sensitivity.sensitivity(w.id, {}, seed=STOP_SEED, trials=c, full=True)["tally"])
             for c in sensitivity.STOP_CHECKPOINTS}
    whole = montecarlo.Tally.from_json(early["tally"])
    stopped = 0
    states = sensitivity._prepared(w, {})[2]
    for k, (i, value, _) in enumerate(states, 1):
        path = sensitivity.alternatives(w, w.validate({}))[i]["input"]
        alt = next(a for p, a in readings_of(early) if p == path and a["value"] == jsonable(value))
        expected = STOP_TRIALS
        for c in sensitivity.STOP_CHECKPOINTS:
            s = fixed[c].sums[f"d{k}.{head}"]
            changed = int(s.squares)
            assert changed == s.squares >= abs(s.total)  # a share's difference is -1, 0 or 1 a battle
            if montecarlo.wilson(changed, c, w.confidence).high <= sensitivity.NEGLIGIBLE_SHARE:
                expected = c
                break
        assert alt["trials"] == expected == whole.sums[f"d{k}.{head}"].n, path
        assert alt["stopped"] == (expected < STOP_TRIALS)
        if alt["stopped"]:
            stopped += 1
            d = fixed[expected].sums[f"d{k}.{head}"]
            assert alt["diff"]["exact"] == str(Fraction(d.total) / d.n) and alt["changed"] == int(d.squares)
            assert Fraction(alt["figure"]["exact"]) == Fraction(early["base"]["exact"]) + Fraction(alt["diff"]["exact"])
            assert alt["figure"]["low"] <= alt["figure"]["float"] <= alt["figure"]["high"]
    assert 0 < stopped < len(states)


def test_a_reading_that_changes_no_battle_stops_at_the_first_block_and_one_that_matters_plays_all(early):
    """Against independent runs: a reading that stopped having changed none of the first 200 battles moves the
    figure, over 2,000 battles of another seed, by no more than the rule's 2.5 % and the run's interval; the
    rout tally's reading plays every battle and equals a run of that reading alone on the same dice."""
    w = widgets.get("sgs.battle")
    values = w.validate({})
    nothing = [(p, a) for p, a in readings_of(early) if a["stopped"] and a["changed"] == 0]
    assert nothing and all(a["trials"] == sensitivity.STOP_CHECKPOINTS[0] for _, a in nothing)
    assert all(a["diff"]["exact"] == "0" and a["figure"]["exact"] == early["base"]["exact"] for _, a in nothing)
    p, a = nothing[0]
    alone = scenarios.compare(w.id, values, set_path(values, p, a["value"]), seed=STOP_SEED + 100, trials=2000)
    d = alone["figures"][0]["diff"]
    half = (d["high"] - d["low"]) / 2
    assert abs(d["float"]) <= float(sensitivity.NEGLIGIBLE_SHARE) + half
    p, a = next((p, a) for p, a in readings_of(early) if p == "settings.rout_tally")
    assert a["trials"] == STOP_TRIALS and not a["stopped"] and a["changed"] > 0
    alone = scenarios.compare(w.id, values, set_path(values, p, a["value"]), seed=STOP_SEED, trials=STOP_TRIALS)
    fig = alone["figures"][0]
    assert (a["figure"]["exact"], a["diff"]["exact"]) == (fig["b"]["exact"], fig["diff"]["exact"])
    assert a["diff"]["low"] == pytest.approx(fig["diff"]["low"]) and abs(a["diff"]["float"]) > a["diff"]["high"] - a["diff"]["float"]


def test_the_table_says_how_many_battles_each_reading_played_and_why_it_stopped(early):
    html = early["html"]
    assert '<th scope="col" class="num">Battles</th>' in html
    assert "a reading stopped after 200 or 500 when it changed the outcome of so few that, at 95 % confidence, it " \
           "changes at most 2.5 % of battles" in html
    assert html.count("changed none, stopped (at most 1.9 % of battles)") == sum(
        1 for _, a in readings_of(early) if a["stopped"] and a["changed"] == 0)
    assert f'<td class="num played">{STOP_TRIALS}</td>' in html


def test_the_full_run_is_still_there_and_never_mixes_with_the_early_stop(early):
    full = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, full=True, render=True)
    assert full["stopping"] is None and "Battles</th>" not in full["html"]
    assert all(a["figure"]["trials"] == STOP_TRIALS and "stopped" not in a for _, a in readings_of(full))
    assert [r["input"] for r in full["settings"]][:3] == [r["input"] for r in early["settings"]][:3]
    for r_full, r_early in zip(full["settings"], early["settings"]):
        for a, b in zip(r_full["alternatives"], r_early["alternatives"]):
            if not b["stopped"]:
                assert a["figure"] == b["figure"] and a["diff"] == b["diff"]
    half = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, count=100, full=True)
    with pytest.raises(InputError, match="the other way of stopping readings"):
        sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, first=100, count=100,
                                tally=half["tally"])
    via_api = api.handle_message({"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "seed": STOP_SEED,
                                  "trials": STOP_TRIALS, "count": 100, "full": True})
    assert via_api["tally"] == half["tally"]
    bad = api.handle_message({"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "full": "yes"})
    assert bad["error"]["field"] == "full" and "\n" not in bad["error"]["message"]


def test_a_stage_past_a_checkpoint_needs_the_trials_before_it_in_order():
    with pytest.raises(InputError, match="plays its trials in order") as got:
        sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, first=300, count=10)
    assert got.value.field == "first"
    early_half = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, first=100, count=100)
    with pytest.raises(InputError, match="trials 0 to 199"):
        sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, first=200, count=10,
                                tally=early_half["tally"])


def test_a_chunk_of_many_readings_validates_them_once_per_run():
    """The short calls of one run send the same list of states: the second call finds them validated."""
    w = widgets.get("atg.battle")
    data = sensitivity._prepared(w, {})[3]
    vals, key = scenarios.chunk_states(w, data, 1)
    assert scenarios.chunk_states(w, data, 1)[0] is vals and scenarios.chunk_states(w, data, 2)[1] != key
    assert scenarios.chunk_states(w, list(data), 1)[1] == key  # another list of the same states: same key


def test_a_battles_answer_says_the_most_trials_its_next_call_may_ask_for():
    """Once readings stop, a call of the same length holds many more trials: the page bounds its calls by the
    answer's most_count, which is the API's own bound (a call one past it is refused)."""
    message = {"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "trials": 1000}
    first = api.handle_message({**message, "count": 2})
    assert first["most_count"] == api.MAX_SCENARIO_TRIALS // (1 + first["variants"])
    over = api.handle_message({**message, "first": 2, "count": first["most_count"] + 1, "tally": first["tally"]})
    assert over["error"]["field"] == "count"
    assert "most_count" not in api.handle_message({"op": "sensitivity", "widget": "small_general.combat", "inputs": {}})


def test_a_tally_missing_a_readings_sums_answers_without_a_trace():
    """A tally sent back with the run's key but without one reading's sums: that reading plays no more, and
    nothing fails."""
    message = {"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "seed": STOP_SEED, "trials": 300}
    start = api.handle_message({**message, "count": 200})
    tally = json.loads(json.dumps(start["tally"]))
    tally["sums"] = {k: v for k, v in tally["sums"].items() if not k.startswith("d1.")}
    rest = api.handle_message({**message, "first": 200, "count": 100, "tally": tally})
    assert "error" not in rest and rest["done"]
