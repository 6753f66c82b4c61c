"""Issue 21: figures of every widget, compare, sweep and target (engine/scenarios.py), their API ops,
link states, charts, the command line, and process pools and Dask clusters that equal one process."""

from __future__ import annotations

import importlib
import io
import json
import random
import re
from contextlib import redirect_stdout
from fractions import Fraction
from typing import Any

import pytest

from engine import api, linkstate, montecarlo, scenario_cli, scenarios, sensitivity, widgets
from engine.__main__ import main
from engine.schema import Boolean, Choice, InputError, Integer, jsonable

ALL = widgets.all_widgets()
CALCULATORS = [w for w in ALL if w.trial is None]


def _put(raw: Any, path: str, value: Any) -> None:
    """Set ``value`` at a dotted input path (list items by index) in plain inputs."""
    *outer, last = path.split(".")
    for part in outer:
        raw = raw[int(part)] if isinstance(raw, list) else raw[part]
    raw[last] = value


def ask(message):
    return json.loads(api.handle(json.dumps(message)))


# Figures ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("w", ALL, ids=lambda w: w.id)
def test_every_widget_declares_figures_that_read_its_defaults(w):
    assert w.figures, f"{w.id} declares no figures"
    assert len({f.name for f in w.figures}) == len(w.figures)
    if w.trial is None:
        result = w.run({})
        got = {f.name: f.read(result) for f in w.figures}
    else:
        tally = w.estimate(w.validate({}), 1, 0, 5)
        got = {f.name: f.read(tally) for f in w.figures}
    missing = [n for n, v in got.items() if v is None]
    assert not missing, f"{w.id}: figures {missing} read nothing (a result key renamed?)"
    for f in w.figures:
        if f.probability:
            assert 0 <= got[f.name] <= 1, (w.id, f.name, got[f.name])
    assert [d["name"] for d in w.describe()["figures"]] == [f.name for f in w.figures]


def _numeric_varies(w, values):
    return [v for v in scenarios.varies(w, values) if v["type"] in ("integer", "choice", "boolean")
            and not v["input"].startswith(("settings.", "rules."))]


def _some_values(v, rng, k=3):
    if v["type"] == "choice":
        return rng.sample(v["values"], min(k, len(v["values"])))
    if v["type"] == "boolean":
        return [False, True]
    lo = v["minimum"] if v["minimum"] is not None else 0
    hi = v["maximum"] if v["maximum"] is not None else lo + 10
    hi = min(hi, lo + 40)
    return sorted(rng.sample(range(lo, hi + 1), min(k, hi - lo + 1)))


@pytest.mark.parametrize("w", CALCULATORS, ids=lambda w: w.id)
def test_sweep_figures_equal_each_point_computed_alone(w):
    """Brute force: every point of a sweep of random inputs is the widget run at that point and read alone."""
    rng = random.Random(w.id)
    values = w.validate({})
    for v in rng.sample(_numeric_varies(w, values), min(3, len(_numeric_varies(w, values)))):
        picks = _some_values(v, rng)
        answer = scenarios.sweep(w.id, {}, {"input": v["input"], "values": picks})
        assert [p["value"] for p in answer["points"]] == jsonable(picks)
        for p, x in zip(answer["points"], picks):
            raw = jsonable(values)
            _put(raw, v["input"], x)
            try:
                result = w.run(raw)
            except InputError as exc:
                assert p["error"] == exc.message
                continue
            for f in w.figures:
                want = f.read(result)
                assert p["figures"][f.name]["exact"] == str(Fraction(want)).replace(" ", ""), (v["input"], x, f.name)


@pytest.mark.parametrize("w", CALCULATORS, ids=lambda w: w.id)
def test_compare_is_b_minus_a_exactly(w):
    rng = random.Random("compare" + w.id)
    values = w.validate({})
    options = _numeric_varies(w, values)
    v = rng.choice(options)
    a_value, b_value = (_some_values(v, rng, 2) * 2)[:2]
    a = scenarios._with(w, values, v["input"], a_value)
    try:
        b = scenarios._with(w, values, v["input"], b_value)
        answer = scenarios.compare(w.id, jsonable(a), jsonable(b))
    except InputError:
        return  # a combination the widget refuses: the sweep test covers the message
    ra, rb = w.result(a), w.result(b)
    for row, f in zip(answer["figures"], w.figures):
        x, y = Fraction(f.read(ra)), Fraction(f.read(rb))
        assert Fraction(row["a"]["exact"]) == x and Fraction(row["b"]["exact"]) == y
        assert Fraction(row["diff"]["exact"]) == y - x


def test_a_count_of_exactly_one_reads_in_the_singular():
    """Compare said "1 strength points" of a Europa stack's required losses and "1 steps" of an OCS result;
    every other count keeps the plural."""
    html = scenarios.compare("europa.aec", {"attacker": {"losses": 1}}, {"attacker": {"losses": 2}},
                             render=True)["html"]
    assert "1 strength point<" in html and "1 strength points" not in html and "+0 strength points" in html
    html = scenarios.compare("ocs.result", {"cell": "AL1o1 Do1"}, {"cell": "AL2"}, render=True)["html"]
    assert ">1 step<" in html and ">2 steps<" in html and "+1 step<" in html and "1 steps" not in html
    assert ">1 option<" in html and ">0 options<" in html


def test_a_choice_is_named_as_the_form_names_it_in_sweeps_targets_and_readings():
    """A sweep over terrain said "very_close", What it takes "very_close is the least value …", and Which
    assumptions matter "Other reading: not_allowed (now first_column)": the engine's keys, where the form shows
    "Very Close", "Attack not allowed" and "Use the leftmost column"."""
    sweep = scenarios.sweep("ocs.combat", {}, {"input": "terrain"}, render=True)
    assert [r["label"] for r in sweep["points"]] == ["Open", "Close", "Very Close", "Extra Close"]
    assert "Very Close" in sweep["html"] and "very_close" not in sweep["html"]
    target = scenarios.target("ocs.combat", {}, sweep["figures"][0]["name"], "0%", {"input": "terrain"},
                              goal="at_least", render=True)
    assert target["message"].startswith("Open is the least value"), target["message"]
    assert [p["label"] for p in target["points"]] == ["Open", "Close", "Very Close", "Extra Close"]
    long = scenarios.sweep("small_general.combat", {}, {"input": "settings.artillery_limit"}, render=True)["html"]
    ticks = re.findall(r'<text class="tick" x="[^"]+" y="[^"]+" text-anchor="middle">([^<]*)</text>', long)
    # cut at a word (they were cut at 14 characters: "Loss becomes P"); the chart's table has them whole
    assert ticks == ["Loss becomes…", "Strike the…", "Loss and…", "Strike both…"] * long.count("<svg"), ticks
    assert "Strike the loss; destroyed becomes Panick" in long
    none = scenarios.target("ocs.combat", {}, sweep["figures"][0]["name"], "100%", {"input": "terrain"},
                            goal="at_least", render=True)
    assert none["message"] == "No value from Open to Extra Close reaches it.", none["message"]
    html = sensitivity.sensitivity("ocs.combat", {"attack": 2, "defense": 9}, render=True)["html"]
    assert "Attack not allowed" in html and "(now Use the leftmost column)" in html, html
    assert "not_allowed" not in html.replace("settings.below_table", "")


@pytest.mark.parametrize("wid", ["sgs.battle", "atg.battle"])
def test_estimated_figures_equal_the_widgets_own_tally(wid):
    """Per-trial figure values (the jobs' tallies) add up to what the figure reads from the widget's tally."""
    w = widgets.get(wid)
    values = w.validate({})
    n = 12 if wid == "atg.battle" else 40
    whole = w.estimate(values, 7, 0, n)
    per = montecarlo.Tally.from_json(scenarios.figure_chunk(wid, [jsonable(values)], 7, 0, n))
    for f in w.figures:
        assert per.sums[f"0.{f.name}"].mean == f.read(whole), f.name
        assert per.sums[f"0.{f.name}"].n == n


# Points that share a result (Widget.result_key) ---------------------------------------------------------------------------

KEYED = [w for w in CALCULATORS if getattr(w, "result_key", None) is not None]


def _random_inputs(w, rng):
    """The widget's defaults with every input that can vary (settings too) drawn at random."""
    raw = jsonable(w.validate({}))
    for v in scenarios.varies(w, w.validate({})):
        pick = _some_values(v, rng, 1)[0] if v["type"] != "boolean" else rng.choice([False, True])
        _put(raw, v["input"], pick)
    try:
        return w.validate(raw)
    except InputError:
        return w.validate({})


def test_small_general_combat_declares_its_result_key():
    assert "small_general.combat" in [w.id for w in KEYED]


@pytest.mark.parametrize("w", KEYED, ids=lambda w: w.id)
def test_inputs_with_equal_result_keys_have_equal_results(w):
    """The key's promise, on random inputs: equal keys, equal results (the echoed inputs aside). Each pair
    differs in one input; both strength settings of Small General are drawn, so its key is tried both ways."""
    rng = random.Random("key" + w.id)
    shared = differed = 0
    for _ in range(150):
        a = _random_inputs(w, rng)
        v = rng.choice(scenarios.varies(w, a))
        try:
            b = scenarios._with(w, a, v["input"], rng.choice(_some_values(v, rng, 3)))
        except InputError:
            continue
        if w.result_key(a) == w.result_key(b):
            shared += 1
            assert w.compute(a) == w.compute(b), v["input"]
        elif w.compute(a) != w.compute(b):
            differed += 1
    assert shared > 10 and differed > 10, (shared, differed)


@pytest.mark.parametrize("strength", ["none", "difference"])
def test_small_general_sweep_of_a_value_no_rule_reads_computes_one_combat(monkeypatch, strength):
    """Attack value enters a combat only through the strength setting: without it the 30 points of the
    benchmark's sweep are one combat, computed once; with it, 30 combats. Either way each point equals the
    widget run there alone (the 30 x 8 figures, and a target over the same range)."""
    from engine.small_general import widgets as sg

    w = widgets.get("small_general.combat")
    inputs = {"settings": {"strength_rule": strength}}
    spec = {"input": "attacker.attack_value", "from": "1", "to": "30", "step": "1"}
    calls = []
    real = sg.combat_result
    monkeypatch.setattr(sg, "combat_result", lambda c: calls.append(c) or real(c))
    answer = scenarios.sweep(w.id, inputs, spec)
    assert len(calls) == (1 if strength == "none" else 30)
    monkeypatch.setattr(sg, "combat_result", real)
    for p in answer["points"]:
        alone = scenarios.exact_figures(w, scenarios._with(w, w.validate(inputs), spec["input"], p["value"]))
        assert p["figures"] == {f.name: scenarios._value_json(alone[f.name]) for f in w.figures}, p["value"]
    thr = answer["points"][-1]["figures"]["defender_retreats"]["exact"]
    got = scenarios.target(w.id, inputs, "defender_retreats", thr, spec)
    assert got["points"] == [{"value": p["value"], "label": p["label"], "status": "reaches" if Fraction(
        p["figures"]["defender_retreats"]["exact"]) >= Fraction(thr) else "short",
        "figure": p["figures"]["defender_retreats"]} for p in answer["points"]]


# Target against a linear scan ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("w", CALCULATORS, ids=lambda w: w.id)
def test_target_on_exact_figures_equals_a_linear_scan(w):
    rng = random.Random("target" + w.id)
    values = w.validate({})
    ints = [v for v in _numeric_varies(w, values) if v["type"] == "integer"]
    if not ints:
        ints = _numeric_varies(w, values)
    for _ in range(3):
        v = rng.choice(ints)
        picks = _some_values(v, rng, 6)
        f = rng.choice(w.figures)
        sweep = scenarios.sweep(w.id, {}, {"input": v["input"], "values": picks})
        def val(p):
            x = p.get("figures", {}).get(f.name)
            return None if x is None else Fraction(x["exact"])
        seen = [val(p) for p in sweep["points"] if val(p) is not None]
        if not seen:
            continue
        thr = rng.choice(seen)
        for goal in ("at_least", "at_most"):
            for direction in ("least", "most"):
                got = scenarios.target(w.id, {}, f.name, str(thr), {"input": v["input"], "values": picks}, goal=goal,
                                       direction=direction)
                pts = sweep["points"] if direction == "least" else sweep["points"][::-1]
                ok = [val(p) is not None and (val(p) >= thr if goal == "at_least" else val(p) <= thr) for p in pts]
                want = next((p["value"] for p, good in zip(pts, ok) if good), None)
                assert got["found"] == want, (v["input"], f.name, goal, direction)
                valid = [good for p, good in zip(pts, ok) if val(p) is not None]
                mono = True not in valid or all(valid[valid.index(True):])
                assert got["monotone"] == mono
                if not mono:  # one stretch that reaches and then falls short, or short and reaching again
                    assert "falls short" in got["message"]
                    rest = valid[valid.index(True):]
                    back = rest.index(False)
                    assert ("not monotone" in got["message"]) == (True in rest[back:])


def test_target_says_when_the_figure_is_not_monotone():
    # P(no result) of Small General rises and falls along the hex sides when the defence is strong (a defender
    # with no free hex beside it, so that all six sides may be attacked)
    w = widgets.get("small_general.combat")
    boxed = {"retreat_hexes": 0}
    pts = scenarios.sweep(w.id, boxed, {"input": "hex_sides", "from": 1, "to": 6}, figures=["no_result"])["points"]
    probs = [Fraction(p["figures"]["no_result"]["exact"]) for p in pts]
    thr = max(probs)
    got = scenarios.target(w.id, boxed, "no_result", str(thr), {"input": "hex_sides", "from": 1, "to": 6})
    assert got["found"] == 1 + probs.index(thr)
    ok = [p >= thr for p in probs]
    assert got["monotone"] == all(ok[ok.index(True):])


def test_target_calls_a_figure_not_monotone_only_when_it_reaches_the_threshold_again():
    """A figure that falls all the way along its range reaches an "at least" threshold on one stretch from the
    start: the answer used to call it "not monotone"; it says where it stops reaching. Short, then reaching
    again, is not monotone and is said so."""
    w = widgets.get("atg.capitulation")
    falling = scenarios.target(w.id, {}, "capitulation", "80%", {"input": "readiness", "from": 0, "to": 10})
    assert falling["found"] == 0 and not falling["monotone"]
    assert falling["message"] == ("0 is the least value that reaches it (exact). The figure reaches it only as far "
                                  "as 5: past that it falls short, at 6, 7, 8, 9, 10.")
    both_ways = scenarios.target(w.id, {}, "capitulation", "80%", {"input": "readiness", "values": [0, 10, 1]})
    assert both_ways["found"] == 0
    assert both_ways["message"] == ("0 is the least value that reaches it (exact). The figure is not monotone along "
                                    "Readiness: it falls short again at 10.")
    many = scenarios.target(w.id, {}, "capitulation", "80%", {"input": "readiness", "from": 0, "to": 20})
    assert many["message"].endswith("at 6, 7, 8, 9, 10 and 10 more.")


def test_estimated_target_decides_only_with_its_intervals():
    w = widgets.get("sgs.battle")
    vary = {"input": "attacker.units.0.count", "from": 1, "to": 4}
    got = scenarios.target(w.id, {}, "attacker_won", "0.8", vary, count=100, max_trials=2000)
    while not got["done"]:
        got = scenarios.target(w.id, {}, "attacker_won", "0.8", vary, count=100, max_trials=2000,
                               tallies=got["tallies"])
    for p in got["points"]:
        if p["status"] == "reaches":
            assert p["figure"]["low"] >= 0.8
        elif p["status"] == "short":
            assert p["figure"]["high"] < 0.8
    first = next(i for i, p in enumerate(got["points"]) if p["status"] == "reaches")
    assert got["found"] == got["points"][first]["value"]
    assert all(p["status"] == "short" for p in got["points"][:first])


def test_estimated_target_cannot_tell_rather_than_guess():
    """A threshold right at a point's estimate with a small budget: the answer names the two values."""
    w = widgets.get("sgs.battle")
    vary = {"input": "attacker.units.0.count", "from": 1, "to": 3}
    first = scenarios.target(w.id, {}, "attacker_won", "0.5", vary, count=60, max_trials=60)
    thr = first["points"][1]["figure"]["exact"]  # point 2's own estimate: its interval straddles it
    got = scenarios.target(w.id, {}, "attacker_won", thr, vary, count=60, max_trials=60)
    assert got["done"]
    statuses = [p["status"] for p in got["points"]]
    assert statuses[1] == "unsure"
    assert got["found"] is None
    assert got["message"].startswith("Cannot tell")
    # its budget spent: the way on is more trials a point (the page's Trials box), not a "trial budget" it has no
    # control for
    assert got["message"].endswith("allow more trials a point to decide."), got["message"]
    assert got["between"][0] in (1, 2)


# Common random numbers ---------------------------------------------------------------------------------------------------

def test_common_random_numbers_give_a_narrower_difference_than_independent_runs():
    w = widgets.get("sgs.battle")
    a = jsonable(w.validate({}))
    b = json.loads(json.dumps(a))
    b["attacker"]["units"][0]["count"] += 1
    width = {}
    for pairing in ("common", "independent"):
        answer = scenarios.compare(w.id, a, b, trials=300, pairing=pairing, seed=3)
        width[pairing] = {r["name"]: r["diff"]["high"] - r["diff"]["low"] for r in answer["figures"]}
        if pairing == "common":
            common = answer
    for name in ("attacker_lost", "defender_lost", "rounds"):
        assert width["common"][name] < 0.8 * width["independent"][name], name
    # the paired difference agrees with the two figures' own difference, exactly
    for r in common["figures"]:
        assert Fraction(r["diff"]["exact"]) == Fraction(r["b"]["exact"]) - Fraction(r["a"]["exact"])


def test_compare_in_chunks_equals_one_run_and_refuses_a_foreign_tally():
    w = widgets.get("sgs.battle")
    b = {"attacker": {"units": [{"count": 2}]}}
    whole = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": b, "trials": 40, "seed": 5})
    part = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": b, "trials": 40, "seed": 5, "first": 25,
                "count": 15})
    rest = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": b, "trials": 40, "seed": 5, "first": 0,
                "count": 25, "tally": part["tally"]})
    assert rest["done"] and rest == {**whole, "next": 25}
    other = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": b, "trials": 40, "seed": 6, "first": 0,
                 "count": 25, "tally": part["tally"]})
    assert other["error"]["field"] == "tally"
    again = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": b, "trials": 40, "seed": 5, "first": 30,
                 "count": 5, "tally": part["tally"]})
    assert again["error"]["field"] == "first"


def test_sweep_of_a_battle_streams_point_by_point_and_equals_one_call():
    w = widgets.get("sgs.battle")
    vary = {"input": "attacker.units.0.count", "values": [1, 3]}
    whole = ask({"op": "sweep", "widget": w.id, "inputs": {}, "vary": vary, "trials": 30, "seed": 2})
    step = ask({"op": "sweep", "widget": w.id, "inputs": {}, "vary": vary, "trials": 30, "seed": 2, "points": [1],
                "first": 10, "count": 20})
    assert "figures" not in step["points"][0] and not step["done"]
    step = ask({"op": "sweep", "widget": w.id, "inputs": {}, "vary": vary, "trials": 30, "seed": 2, "first": 0,
                "count": 10, "tallies": step["tallies"], "points": [1]})
    step = ask({"op": "sweep", "widget": w.id, "inputs": {}, "vary": vary, "trials": 30, "seed": 2, "first": 0,
                "count": 30, "tallies": step["tallies"], "points": [0]})
    assert step["done"] and step == whole



@pytest.mark.parametrize("wid, vary", [("sgs.battle", {"input": "attacker.units.0.count", "values": [1, 3, 5]}),
                                       ("atg.battle", {"input": "attackers.0.count", "values": [1, 2, 4]})])
def test_a_battle_sweeps_later_calls_build_no_point_again_and_answer_as_one_call(monkeypatch, wid, vary):
    """A battle's sweep comes as many short calls over the same points: each point's inputs are validated and its
    battle set up once, not once a call (the setups are kept by the identity of the inputs; an equal run of the
    same calls after the keep is emptied gives the same answer)."""
    w = widgets.get(wid)
    prepare = importlib.import_module(f"engine.{wid.split('.')[0]}.widgets")._prepare
    built: list[int] = []
    make = prepare.make
    monkeypatch.setattr(prepare, "make", lambda v: built.append(1) or make(v))
    monkeypatch.setattr(scenarios._kept_states, "kept", montecarlo.Kept(scenarios._kept_states.kept.size))
    monkeypatch.setattr(prepare, "kept", montecarlo.Kept(prepare.kept.size))
    request = {"op": "sweep", "widget": w.id, "inputs": {}, "vary": vary, "trials": 12, "seed": 3}
    step = ask({**request, "first": 0, "count": 4})
    assert len(built) == 3
    for first in (4, 8):
        step = ask({**request, "first": first, "count": 4, "tallies": step["tallies"]})
    assert len(built) == 3 and step["done"]
    scenarios._kept_states.kept.clear()
    prepare.kept.clear()
    assert step == ask(request)
    assert len(built) == 6

# Two engines sharing a run: partial states merged ---------------------------------------------------------------------

SPLIT_OPS = {
    "sweep": {"vary": {"input": "attacker.units.0.count", "values": [1, 3]}},
    "compare": {"pinned": {"attacker": {"units": [{"count": 2}]}}},
    "sensitivity": {},
    "luck": {"observed": {"defender.lost": 3}},
}
"""The scenario ops the page shares between two engines (target stays on one: each round depends on the last)."""


@pytest.mark.parametrize("op", SPLIT_OPS)
def test_partial_states_from_split_trial_ranges_merge_to_one_run(op):
    """As the page shares a battle's scenario run: one engine takes calls from the first trial on, the other
    small ones from the end back (for a sweep, one point at a time); each carries its own state, and one
    request merges the other's (``parts``), while running trials or with a count of 0 (render only)."""
    base = {"op": op, "widget": "sgs.battle", "inputs": {}, "seed": 3, "trials": 30, "render": True, **SPLIT_OPS[op]}
    state = "tallies" if op == "sweep" else "tally"
    whole = ask(base)
    assert whole["done"] and "error" not in whole

    def call(carried, first, count, points=None, parts=None):
        answer = ask({**base, state: carried, "first": first, "count": count,
                      **({"points": points} if points is not None else {}),
                      **({"parts": parts} if parts is not None else {})})
        assert "error" not in answer, answer
        return answer

    a = call(None, 0, 17)
    if op == "sweep":  # the other engine: point 1 from the end, then point 0
        b = call(None, 25, 5, points=[1])
        b = call(b[state], 17, 13, points=[0])
        assert "figures" not in b["points"][1] or b["points"][1]["trials"] == 5
        # The first engine takes what is left of point 1 and merges the other's state in the same call.
        done = call(a[state], 17, 8, points=[1], parts=[b[state]])
        assert done == whole
        again = call(a[state], 0, 0, parts=[call(b[state], 17, 8, points=[1])[state]])  # render only
        assert again == whole
    else:
        b = call(None, 25, 5)
        b = call(b[state], 17, 8)
        done = call(a[state], 0, 0, parts=[b[state]])  # render only: a count of 0 runs nothing
        assert done == {**whole, "next": 0}
        assert call(a[state], 9, 0, parts=[b[state]]) == {**whole, "next": 9}  # wherever its first says
        # Split three ways (each part its own engine's), merged in the order they come.
        c = call(None, 20, 10)
        d = call(None, 17, 3)
        assert call(a[state], 0, 0, parts=[c[state], d[state]]) == done
    assert not a["done"] and not b["done"]


def test_merging_partial_states_refuses_overlaps_other_runs_and_bad_shapes():
    vary = {"input": "attacker.units.0.count", "values": [1, 3]}
    sweep = {"op": "sweep", "widget": "sgs.battle", "inputs": {}, "vary": vary, "seed": 3, "trials": 30}
    compare = {"op": "compare", "widget": "sgs.battle", "inputs": {}, "pinned": {}, "seed": 3, "trials": 30}
    a = ask({**sweep, "first": 0, "count": 10})["tallies"]
    ta = ask({**compare, "first": 0, "count": 10})["tally"]
    other_seed = ask({**compare, "seed": 4, "first": 10, "count": 5})["tally"]
    cases = [
        ({**sweep, "tallies": a, "count": 0, "parts": [ask({**sweep, "first": 5, "count": 10})["tallies"]]},
         "part 1: trials 5 to 14 are counted twice; each trial is counted once"),
        ({**compare, "tally": ta, "count": 0, "parts": [ta]}, "part 1: trials 0 to 9 are counted twice"),
        ({**compare, "tally": ta, "count": 0, "parts": [other_seed]}, "part 1: these tallies estimate different things"),
        ({**compare, "tally": None, "first": 12, "count": 3, "parts": [ta, ta]}, "part 2: trials 0 to 9 are counted twice"),
        ({**sweep, "tallies": a, "count": 0, "parts": [a[:1]]}, "part 1: give one tally (or null) per point: 2"),
        ({**sweep, "tallies": None, "count": 5, "parts": [{"v": 1}]}, "give each partial state as a list of tallies"),
        ({**compare, "tally": ta, "count": 0, "parts": [{"v": 1}]}, "part 1: is not a tally from this engine"),
        ({**compare, "tally": ta, "count": 0, "parts": ta}, "give a list of 1 to 16 partial states"),
        ({**compare, "tally": ta, "count": 0, "parts": [None] * 17}, "give a list of 1 to 16 partial states"),
        ({**compare, "tally": ta, "count": 0, "parts": []}, "give a list of 1 to 16 partial states"),
        ({"op": "compare", "widget": "small_general.combat", "inputs": {}, "pinned": {}, "parts": [ta]},
         "compare on small_general.combat carries no state"),
        ({"op": "varies", "widget": "sgs.battle", "inputs": {}, "parts": [ta]}, "varies on sgs.battle carries no state"),
    ]
    for message, words in cases:
        answer = ask(message)
        assert answer["error"]["type"] == "InputError" and answer["error"]["field"] == "parts", (words, answer)
        assert words in answer["error"]["message"] and "\n" not in answer["error"]["message"], answer
    # A key of another run inside the carried state itself is refused as before (the sweep checks each point's).
    foreign = ask({**sweep, "vary": {"input": "attacker.units.0.count", "values": [2, 3]}, "count": 5})["tallies"]
    answer = ask({**sweep, "tallies": foreign, "count": 0, "parts": [[None, None]]})
    assert answer["error"]["field"] == "tallies", answer
    # Nothing to render: a count of 0 needs a carried state.
    assert ask({**compare, "count": 0})["error"]["field"] == "count"


# API bounds, hostile input --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("message,field", [
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "hex_sides", "values": list(range(62))}},
     "values"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "hex_sides", "from": 1, "to": "1e30"}},
     "step"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "hex_sides", "from": 1, "to": 6,
                                                                "step": 0}}, "step"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "__proto__.x", "values": [1]}}, "input"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "hex_sides", "values": [9]}}, "hex_sides"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": "hex_sides"}, "vary"),
    ({"op": "sweep", "widget": "small_general.combat", "vary": {"input": "settings", "values": [1]}}, "input"),
    ({"op": "sweep", "widget": "sgs.battle", "vary": {"input": "attacker.units.99.count", "values": [1]}}, "input"),
    ({"op": "sweep", "widget": "sgs.battle", "vary": {"input": "attacker.units.0.count", "values": [1, 2]},
      "count": 20_000}, "count"),
    ({"op": "sweep", "widget": "sgs.battle", "vary": {"input": "attacker.units.0.count", "values": [1, 2]},
      "count": 5, "tallies": [{"v": 1}, None]}, "tallies"),
    ({"op": "compare", "widget": "sgs.battle", "count": 10**9}, "count"),
    ({"op": "compare", "widget": "sgs.battle", "count": 5, "pairing": "x"}, "pairing"),
    ({"op": "compare", "widget": "small_general.combat", "figures": ["nope"]}, "figures"),
    ({"op": "target", "widget": "small_general.combat", "figure": "nope", "threshold": "1/2",
      "vary": {"input": "hex_sides", "from": 1, "to": 6}}, "figure"),
    ({"op": "target", "widget": "small_general.combat", "figure": "no_result", "threshold": "80",
      "vary": {"input": "hex_sides", "from": 1, "to": 6}}, "threshold"),
    ({"op": "target", "widget": "small_general.combat", "figure": "no_result", "threshold": "1e99999",
      "vary": {"input": "hex_sides", "from": 1, "to": 6}}, "threshold"),
    ({"op": "target", "widget": "small_general.combat", "figure": "no_result", "threshold": "1/2", "goal": "over",
      "vary": {"input": "hex_sides", "from": 1, "to": 6}}, "goal"),
    ({"op": "target", "widget": "sgs.battle", "figure": "attacker_won", "threshold": "1/2", "max_trials": 10**7,
      "vary": {"input": "attacker.units.0.count", "from": 1, "to": 2}}, "max_trials"),
    ({"op": "scenario_from_link", "widget": "small_general.combat", "state": 5}, "state"),
])
def test_hostile_scenario_requests_are_input_errors(message, field):
    answer = ask(message)
    assert answer["error"]["type"] == "InputError", answer
    assert answer["error"]["field"] == field, answer


def test_every_scenario_op_is_a_known_op_and_answers_every_widget():
    assert {"compare", "sweep", "target", "scenario_link", "scenario_from_link", "varies"} <= set(api.OPS)
    rows = ask({"op": "varies", "widget": "sgs.battle", "inputs": {"attacker": {"units": [{"count": 2}] * 3}}})
    attacker_rows = {v["input"].split(".")[2] for v in rows["varies"] if v["input"].startswith("attacker.units.")}
    assert attacker_rows == {"0", "1", "2"} and rows["figures"][0]["name"] == "attacker_won"
    for w in CALCULATORS:
        v = _numeric_varies(w, w.validate({}))[0]
        answer = ask({"op": "sweep", "widget": w.id, "inputs": {}, "vary": {"input": v["input"],
                      "values": [v["value"]]}, "render": True})
        assert "error" not in answer, (w.id, answer)
        assert answer["points"][0]["value"] == v["value"]


# A sweep's suggested range ---------------------------------------------------------------------------------------------

CHECKED = [w for w in widgets.all_widgets() if w.check is not None]


@pytest.mark.parametrize("w", CHECKED, ids=lambda w: w.id)
def test_a_suggested_range_sweeps_no_point_the_widget_refuses(w):
    """Each whole-number input's suggested range, narrowed as the input chosen (``focus``), around random states:
    every point of it is taken with the rest of the form, and so would one past either end be only if the
    window or the field's bounds end there (the range is as wide as the form allows)."""
    rng = random.Random(f"range:{w.id}")

    def random_state():  # the defaults, then each input drawn at random in turn where the form takes it
        state = w.validate({})
        for v in rng.sample(_numeric_varies(w, state), min(40, len(_numeric_varies(w, state)))):
            try:
                state = scenarios._with(w, state, v["input"], _some_values(v, rng, 1)[0])
            except InputError:
                pass
        return state

    for state in [w.validate({})] + [random_state() for _ in range(3)]:
        paths = [v["input"] for v in scenarios.varies(w, state) if v["type"] == "integer"]
        for path in rng.sample(paths, min(12, len(paths))):
            (v,) = [v for v in scenarios.varies(w, state, path) if v["input"] == path]
            lo, hi = v["range"]["from"], v["range"]["to"]
            assert lo <= v["value"] <= hi, (path, v)  # (these widgets' whole numbers are never left empty)
            for x in range(lo, hi + 1):
                scenarios._with(w, state, path, x)  # raises if refused
            for x, edge in ((lo - 1, v["minimum"]), (hi + 1, v["maximum"])):
                within = (edge is None or (x >= edge if x < lo else x <= edge)) and abs(x - v["value"]) <= 5
                if within:
                    with pytest.raises(InputError):
                        scenarios._with(w, state, path, x)


def test_small_generals_hex_sides_suggest_only_what_the_free_hexes_leave_room_for():
    """Three free hexes leave room for three sides attacked; none for four to six (the form's example once
    suggested 1 to 6, half of them refused points). Only the chosen input is narrowed: others cost nothing."""
    w = widgets.get("small_general.combat")
    for free in range(6):
        state = w.validate({"retreat_hexes": free, "hex_sides": 1})
        (v,) = [v for v in scenarios.varies(w, state, "hex_sides") if v["input"] == "hex_sides"]
        assert v["range"] == {"from": 1, "to": 6 - free}, (free, v)
    state = w.validate({"retreat_hexes": 3, "hex_sides": 1})
    assert [v["range"] for v in scenarios.varies(w, state, "terrain") if v["input"] == "hex_sides"] == [
        {"from": 1, "to": 6}]
    answer = ask({"op": "varies", "widget": w.id, "inputs": {"retreat_hexes": 3}, "input": "hex_sides"})
    assert [v["range"] for v in answer["varies"] if v["input"] == "hex_sides"] == [{"from": 1, "to": 3}]
    for hostile in (["hex_sides"], "x" * 5000, {"$": 1}):
        assert "error" not in ask({"op": "varies", "widget": w.id, "inputs": {}, "input": hostile})


def test_an_empty_reduced_value_suggests_a_range_around_the_combat_value_it_stands_for():
    """A card game row's empty Reduced means its combat value: the range centres there, not on 0."""
    w = widgets.get("sgs.battle")
    raw = jsonable(w.validate({}))
    raw["attacker"]["units"][0].update(combat=7, reduced="")
    state = w.validate(raw)
    (v,) = [v for v in scenarios.varies(w, state, "attacker.units.0.reduced")
            if v["input"] == "attacker.units.0.reduced"]
    assert v["value"] == "" and v["range"] == {"from": 2, "to": 12}, v


# Link state -----------------------------------------------------------------------------------------------------------

def test_scenario_link_round_trip_and_damaged_parts():
    base = {"terrain": "forest"}
    made = ask({"op": "scenario_link", "widget": "small_general.combat", "base": base,
                "pinned": {"terrain": "town", "hex_sides": 3}, "vary": {"input": "hex_sides", "from": 1, "to": 6},
                "target": {"figure": "defender_retreats", "threshold": "3/10", "goal": "at_least",
                           "direction": "least"}})
    assert made["state"].startswith("~1.") and len(made["state"]) < 200
    back = ask({"op": "scenario_from_link", "widget": "small_general.combat", "base": base, "state": made["state"]})
    assert back["rejected"] == []
    assert back["pin"]["terrain"] == "town" and back["pin"]["hex_sides"] == 3
    assert back["sweep"] == {"input": "hex_sides", "from": 1, "to": 6}
    assert back["target"]["figure"] == "defender_retreats"
    # a link edited by hand: a bad pinned field, an unknown sweep input, a target naming no figure
    w = widgets.get("small_general.combat")
    text = linkstate.pack({"a": {"hex_sides": 99, "terrain": "town"}, "s": {"input": "nope", "values": [1]},
                           "t": {"figure": "nope", "threshold": "1"}})
    back = ask({"op": "scenario_from_link", "widget": w.id, "state": text})
    assert {e["field"] for e in back["rejected"]} == {"pin.hex_sides", "sweep", "target"}
    assert back["pin"]["terrain"] == "town" and "sweep" not in back and "target" not in back
    # how rare a result is, and which assumptions matter, travel too (the panel shows one of them at a time)
    for extra, want in (({"luck": {"result": "DEF Retreat + Loss"}}, {"luck": {"result": "DEF Retreat + Loss"}}),
                        ({"luck": {"defender.lost": 3}}, {"luck": {"defender.lost": 3}}),
                        ({"assumptions": True}, {"assumptions": True})):
        one = ask({"op": "scenario_link", "widget": w.id, "base": base, **extra})
        back = ask({"op": "scenario_from_link", "widget": w.id, "base": base, "state": one["state"]})
        assert back == {**want, "rejected": []}, back
    bad_luck = ({"result": "DR", "ending": "x"}, ["result", "DR"], {"n": True}, {"n": -1}, {"n": 10**9}, {"n": 1.5},
                {"result": "x" * 201}, {"": "DR"}, {"result": ""}, {"result": {"a": 1}}, {}, "DR", None)
    for luck in bad_luck:
        if luck is not None:
            refused = ask({"op": "scenario_link", "widget": w.id, "base": base, "luck": luck})
            assert refused["error"]["field"] == "luck", (luck, refused)
        back = ask({"op": "scenario_from_link", "widget": w.id, "state": linkstate.pack({"h": luck, "m": luck})})
        assert [e["field"] for e in back["rejected"]] == ["luck", "assumptions"], (luck, back)
        assert "luck" not in back and "assumptions" not in back
        assert back["rejected"][0]["message"].endswith("; how rare it is is not shown")
    for m in (True, 2, 1.0, "1", [1]):
        back = ask({"op": "scenario_from_link", "widget": w.id, "state": linkstate.pack({"m": m})})
        assert [e["field"] for e in back["rejected"]] == ["assumptions"] and "assumptions" not in back, m
    refused = ask({"op": "scenario_link", "widget": w.id, "base": base, "assumptions": "yes"})
    assert refused["error"]["field"] == "assumptions"
    broken = ask({"op": "scenario_from_link", "widget": w.id, "state": made["state"][:-3]})
    assert broken["rejected"][0]["field"] == "scenario"
    assert broken["rejected"][0]["message"].startswith("scenario: the link's scenario (a pinned A, a sweep, a target, a result or the assumptions) "
                                                       "could not be read (the link is cut short); none is shown")


# Charts ---------------------------------------------------------------------------------------------------------------

def test_charts_have_axes_units_bands_and_a_data_table_and_no_style():
    one_free = {"retreat_hexes": 1}  # five sides attacked leave one hex free at most
    exact = ask({"op": "sweep", "widget": "small_general.combat", "inputs": one_free,
                 "vary": {"input": "hex_sides", "from": 1, "to": 5}, "render": True})["html"]
    est = ask({"op": "sweep", "widget": "sgs.battle", "vary": {"input": "attacker.units.0.count", "values": [1, 2]},
               "trials": 20, "render": True})["html"]
    for html in (exact, est):
        assert "style=" not in html and "<script" not in html
        assert html.count('<figure class="scenario-chart">') == html.count("<svg class=\"chart\"")
        assert html.count('<table class="chart-data">') == html.count('<svg class="chart"')
        assert 'role="img"' in html and "<title>" in html and 'class="axis-label"' in html
    assert '<polygon class="band"' in est and '<polygon class="band"' not in exact
    assert ">100%<" in exact
    assert "19/216 (8.80%)" in exact  # the table reads the exact figure
    target = ask({"op": "target", "widget": "small_general.combat", "inputs": one_free, "figure": "defender_retreats",
                  "threshold": "0.3", "vary": {"input": "hex_sides", "from": 1, "to": 5}, "render": True})
    assert 'class="threshold"' in target["html"] and target["found"] == 5
    assert "5 is the least value" in target["html"]


def test_chart_is_the_same_markup_every_time():
    m = {"op": "sweep", "widget": "ocs.combat", "vary": {"input": "terrain"}, "render": True}
    assert ask(m)["html"] == ask(m)["html"]
    assert re.search(r'<svg class="chart" viewBox="0 0 480 260"', ask(m)["html"])


# Command line ---------------------------------------------------------------------------------------------------------

def _cli(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_cli_prints_the_api_answer():
    code, text = _cli(["sweep", "small_general.combat", "--vary", "hex_sides", "--from", "1", "--to", "6"])
    assert code == 0
    want = ask({"op": "sweep", "widget": "small_general.combat", "inputs": {}, "seed": 1,
                "vary": {"input": "hex_sides", "from": "1", "to": "6"}})
    assert json.loads(text) == want
    code, text = _cli(["compare", "sgs.battle", "--b", '{"attacker": {"units": [{"count": 2}]}}', "--trials", "30",
                       "--workers", "1"])
    want = ask({"op": "compare", "widget": "sgs.battle", "pinned": {}, "inputs": {"attacker": {"units": [{"count": 2}]}},
                "trials": 30, "seed": 1})
    assert code == 0 and json.loads(text) == want
    code, text = _cli(["target", "small_general.combat", "--figure", "defender_retreats", "--at-least", "0.3",
                       "--vary", "hex_sides", "--from", "1", "--to", "6"])
    want = ask({"op": "target", "widget": "small_general.combat", "figure": "defender_retreats", "threshold": "0.3",
                "vary": {"input": "hex_sides", "from": "1", "to": "6"}})
    assert code == 0 and json.loads(text) == want


def test_cli_csv_has_a_row_per_point_and_bad_input_is_one_line(capsys):
    code, text = _cli(["sweep", "small_general.combat", "--vary", "hex_sides", "--values", "[1, 5]", "--format", "csv",
                       "--inputs", '{"retreat_hexes": 1}', "--figures", "defender_retreats"])
    assert code == 0
    assert text.splitlines() == ["hex_sides,defender_retreats_float,defender_retreats_exact,error",
                                 "1,0.08796296296296297,19/216,", "5,0.33796296296296297,73/216,"]
    # A point the form refuses is a row with its message, the rest of the sweep answered.
    code, text = _cli(["sweep", "small_general.combat", "--vary", "hex_sides", "--values", "[1, 6]", "--format", "csv",
                       "--figures", "defender_retreats"])
    rows = text.splitlines()
    assert code == 0 and rows[1] == "1,0.08796296296296297,19/216,", rows
    assert rows[2].startswith("6,,,") and "no free friendly hex" in rows[2], rows
    capsys.readouterr()
    assert main(["sweep", "small_general.combat", "--vary", "nope", "--values", "[1]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: input:") and err.count("\n") == 1


def test_process_pool_and_dask_cluster_equal_one_process():
    message = {"op": "sweep", "widget": "sgs.battle", "inputs": {}, "seed": 4, "trials": 40,
               "vary": {"input": "attacker.units.0.count", "values": [1, 2]}}
    one = scenario_cli.run(message)
    goal = {"op": "target", "widget": "sgs.battle", "inputs": {}, "seed": 4, "figure": "attacker_won",
            "threshold": "0.7", "goal": "at_least", "direction": "least", "count": 30, "max_trials": 90,
            "vary": {"input": "attacker.units.0.count", "values": [1, 2, 3]}}
    with scenario_cli.mapper_for(2, None) as mapper:
        pool = scenario_cli.run(message, mapper, chunk=7)
        assert scenario_cli.run(goal, mapper, chunk=11) == scenario_cli.run(goal)
    assert pool == one
    compare = {"op": "compare", "widget": "sgs.battle", "pinned": {}, "inputs": {"attacker": {"units": [{"count": 2}]}},
               "seed": 4, "trials": 30}
    from dask import distributed  # requirements-dev.txt; the engine itself never imports it
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        mapper = scenario_cli.dask_mapper(client)
        assert scenario_cli.run(message, mapper, chunk=9) == one
        assert scenario_cli.run(compare, mapper, chunk=4) == scenario_cli.run(compare)


def test_engine_does_not_import_dask():
    import subprocess
    import sys
    code = ("import sys, engine.api, engine.scenarios, engine.scenario_cli, engine.__main__; "
            "print(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_difference_no_trial_showed_is_bounded_not_certain():
    """A compared with itself: every paired difference is zero. A probability's difference then gets the bound
    that holds (no trial of n differed: its size is at most Wilson's upper bound for 0 of n), not "0.0 to 0.0";
    a mean that no trial moved reads "in every one of the n trials" instead of a one-point interval."""
    w = widgets.get("sgs.battle")
    same = ask({"op": "compare", "widget": w.id, "pinned": {}, "inputs": {}, "trials": 30, "seed": 4, "render": True})
    bound = montecarlo.wilson(0, 30, w.confidence).high
    for r in same["figures"]:
        d = r["diff"]
        assert d["float"] == 0 and d["trials"] == 30
        if r["unit"] == "probability":
            assert (d["low"], d["high"]) == (-bound, bound) and "spread" not in d
        else:
            assert d["spread"] == "none"
    html = same["html"]
    # the interval's minus is a true minus, as the header's "B − A" and every modifier's
    assert f"+0.00 points (−{bound * 100:.1f} to {bound * 100:.1f})" in html and "(0.0 to 0.0)" not in html
    assert "+0 strength points in every one of the 30 trials" in html


def test_variants_that_change_only_what_a_trial_never_read_copy_it_and_give_the_tally_of_playing_it(monkeypatch):
    """A widget that watches its trials' reads (AT Gold: its rule variables) lets a job copy the trials of
    variant 0 for each variant that changes only inputs the trial did not read: the tally is the one of
    playing every battle, with fewer played; a variant that changes anything else, or a job that pairs
    independent dice, plays every battle."""
    import dataclasses
    from engine import sensitivity
    get, w = widgets.get, widgets.get("atg.battle")
    played = [0]

    def trial(*args):
        played[0] += len(args) == 3  # a battle played for itself, not watched for the variants that may copy it
        return w.trial(*args)

    watching = dataclasses.replace(w, trial=trial)
    plain = dataclasses.replace(w, trial=trial, watched="")
    values = w.validate({"attackers": [{"type": "Infantry", "count": 2}, {"type": "Tank", "count": 1}],
                         "defenders": [{"type": "Infantry", "count": 2}]})
    _, variants = sensitivity._variants(w, values)
    other_units = jsonable({**values, "defenders": [{**values["defenders"][0], "count": 3}]})
    data = [jsonable(values)] + [jsonable(v) for *_, v in variants] + [other_units]
    runs = {}
    for name, widget in (("watching", watching), ("plain", plain)):
        monkeypatch.setattr(widgets, "get", lambda i, widget=widget: widget if i == w.id else get(i))
        for pairing in ("common", "independent"):
            played[0] = 0
            job = data if pairing == "common" else data[:2]
            runs[name, pairing] = scenarios.figure_chunk(w.id, job, 3, 10, 12, pairing), played[0]
    assert runs["watching", "common"][0] == runs["plain", "common"][0]
    assert runs["plain", "common"][1] == 12 * len(data)
    # variant 0 is watched; the last state, with other units, plays every trial
    assert 12 <= runs["watching", "common"][1] < runs["plain", "common"][1] * 3 // 4
    assert runs["watching", "independent"] == runs["plain", "independent"]


WATCHED_STATES = {
    "atg.battle": {
        "land": {},
        "airstrike met by interceptors": {
            "combat": "airstrike", "attackers": [{"type": "Bomber", "count": 2}, {"type": "Fighter", "count": 1}],
            "defenders": [{"type": "Infantry", "count": 3}],
            "interceptors": [{"type": "Fighter", "count": 2, "readiness": 80, "intercept_setting": 90, "distance": 20}],
            "aa_support": [{"type": "Flak", "count": 1, "distance": 1}]},
        "bombing run on an airfield": {
            "combat": "bombing_run", "attackers": [{"type": "Bomber", "count": 3, "action_points": 60}],
            "defenders": [{"type": "Infantry", "count": 2}, {"type": "Flak", "count": 1}], "location": True,
            "location_structure": 200, "airfield": True, "stationed_aircraft": 5},
        "paradrop": {"combat": "paradrop", "attackers": [{"type": "Transport", "count": 2},
                                                         {"type": "Infantry", "count": 6, "cargo": True}],
                     "defenders": [{"type": "Infantry", "count": 2}]},
        "concentric, a panic and trapped defenders": {
            "attackers": [{"type": "Infantry", "count": 8, "side": 0}, {"type": "Tank", "count": 3, "side": 2},
                          {"type": "Infantry", "count": 4, "side": 4, "action_points": 20}],
            "defenders": [{"type": "Infantry", "count": 4, "morale": 30},
                          {"type": "Infantry", "count": 3, "morale": 30, "can_retreat": False},
                          {"type": "Artillery", "count": 2}]}},
}
"""For each widget whose trial watches its settings: battles of every kind its pages show (small ones), so that
between them they read most settings."""


@pytest.mark.parametrize("widget_id, name", [(w.id, n) for w in ALL if w.watched for n in WATCHED_STATES[w.id]])
def test_a_battle_plays_alike_under_any_reading_of_a_setting_it_never_read(widget_id, name):
    """What lets a reading of the assumptions copy a battle instead of playing it (``Widget.watched``): for each
    trial, every other reading of every assumed setting the battle did not read plays the same battle, to the
    last figure of its tally. Battles of each kind leave other settings unread."""
    from engine import sensitivity
    w = widgets.get(widget_id)
    values = w.validate(WATCHED_STATES[widget_id][name])
    settings, variants = sensitivity._variants(w, values)
    watched = set(values[w.watched.rstrip(".")])  # the names of the inputs in the watched group
    tried = 0

    def tally(i):  # one trial's, as figure_chunk makes it
        t = montecarlo.Tally("", w.confidence)
        t.ranges, t.at = ((i, i + 1),), i
        return t

    for i in range(12):
        base, read = tally(i), set()
        w.trial(values, montecarlo.trial_rng(5, i), base, read)
        plain = tally(i)
        w.trial(values, montecarlo.trial_rng(5, i), plain)
        assert plain.to_json() == base.to_json()  # watching changes nothing
        assert read and read <= watched, read - watched
        for s, alt, v in variants:
            path = settings[s]["input"]
            if path.startswith(w.watched) and path.removeprefix(w.watched) not in read:
                other = tally(i)
                w.trial(v, montecarlo.trial_rng(5, i), other)
                assert other.to_json() == base.to_json(), (name, i, path, alt)
                tried += 1
    assert tried


def test_a_range_with_too_many_points_says_their_count_with_thousands_separators():
    """The rest of the site writes "100,000"; the refusal said "the range has 100000 points"."""
    w = widgets.get("small_general.combat")
    with pytest.raises(InputError) as refused:
        scenarios.vary_points(w, w.validate({}), {"input": "attacker.attack_value", "from": "1", "to": "100000"})
    assert refused.value.message.startswith("the range has 100,000 points; at most 61"), refused.value.message
