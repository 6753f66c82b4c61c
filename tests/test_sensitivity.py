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


@pytest.mark.parametrize("widget_id", ["ocs.combat", "ocs.walkthrough", "ocs.result"])
def test_an_ocs_action_rating_or_hedgehog_is_the_readers_and_never_a_reading_of_ours(widget_id):
    """Only the form's bounds of OCS's action ratings (0 to 5) and hedgehog level (up to 9) are ours; the
    values are the counters' and the map's. "Which assumptions matter" tried the next rating up and down as
    "other readings", and every OCS combat widget said under its result "P(a result that favours the
    attacker) depends on our reading of “Attacker's action rating”: 39 % to 77 %"."""
    w = widgets.get(widget_id)
    marked = {path for path, _ in w.inputs.assumed_fields()}
    assert "attacker_ar" in marked  # still marked on the form, for its bound
    tried = {a["input"] for a in sensitivity.alternatives(w, w.validate({}))}
    assert not tried & {"attacker_ar", "defender_ar", "hedgehog"}
    assert all(path.startswith("settings.") for path in tried)
    answer = sensitivity.sensitivity(widget_id, {}, render=True)
    assert answer["sentence"] == ""
    said = ("None of our assumed settings applies to these inputs" if widget_id == "ocs.result"
            else f"No other reading of our assumed settings moves {answer['figure']['label']} with these inputs")
    assert said in answer["html"]
    # and no chart of no bars (it read as a broken one), the rule tried still said
    assert "<svg" not in answer["html"] and "Tried: each other choice" in answer["html"]
    if widget_id == "ocs.combat":  # a reading that moves the figure (odds past the chart's end): its chart
        moved = sensitivity.sensitivity(widget_id, {"attack": 25, "defense": 1}, render=True)
        assert moved["settings"][0]["input"] == "settings.beyond_edges" and moved["settings"][0]["spread"] > 0
        assert '<svg class="chart tornado"' in moved["html"]


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


@pytest.fixture(scope="module")
def full():
    """The same battle read in full (no reading stops), in calls that end at each checkpoint and at the last
    trial: the answer at each end (the last rendered)."""
    out, tally, first = {}, None, 0
    for end in [*sensitivity.STOP_CHECKPOINTS, STOP_TRIALS]:
        out[end] = sensitivity.sensitivity("sgs.battle", {}, seed=STOP_SEED, trials=STOP_TRIALS, full=True,
                                           first=first, count=end - first, tally=tally, render=end == STOP_TRIALS)
        tally, first = out[end]["tally"], end
    return out


def readings_of(answer):
    return [(r["input"], a) for r in answer["settings"] for a in r["alternatives"]]


@pytest.mark.slow
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


@pytest.mark.slow
def test_each_reading_stops_exactly_where_the_rule_says_on_the_full_runs_trials(early, full):
    """The rule checked by hand at each checkpoint on the full run's tally of trials 0 … c−1 (Wilson's upper
    bound of the share of battles the reading changed, at most 2.5 %), and a stopped reading's figures are those
    trials' change from the inputs as they are."""
    w = widgets.get("sgs.battle")
    head = w.figures[0].name
    fixed = {c: montecarlo.Tally.from_json(full[c]["tally"]) for c in sensitivity.STOP_CHECKPOINTS}
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


@pytest.mark.slow
def test_the_full_run_is_still_there_and_never_mixes_with_the_early_stop(early, full):
    full = full[STOP_TRIALS]
    assert full["done"] and full["stopping"] is None and "Battles</th>" not in full["html"]
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
    with pytest.raises(InputError, match="decides at trial 200 which readings play trials 200 to 499") as got:
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


# A stage's trials shared by two engines (the page's extra worker and its own engine) ---------------------------------

SMALL_ATG = {"attackers": [{"type": "Infantry", "count": 2}, {"type": "Tank", "count": 1}],
             "defenders": [{"type": "Infantry", "count": 2}]}
"""AT Gold's smallest useful battle: 133 readings, some play on past each checkpoint (7 s a run of 520)."""


def page_engine_call(message, own, first, count, stage, slices):
    """The page engine's trials ``first`` … ``first + count − 1`` added to its own tally, in one call or (a trial
    too long for the reader's engine) in ``slices`` calls, each a slice of the readings, as scenario.js plays
    them: the slices before the last carry no tally, only the slice state the one before gave."""
    partial = None
    for k in range(slices):
        last = k == slices - 1
        answer = api.handle_message({**message, "tally": own if last else None, "first": first, "count": count,
                                     "render": False, **({"stage": stage} if stage else {}),
                                     **({"slice": [k, slices], "slice_tally": partial} if slices > 1 else {})})
        assert "error" not in answer, answer
        assert ("slice_tally" in answer) == (not last) and answer["done"] is False
        partial = answer.get("slice_tally")
    return answer


def shared_run(widget, inputs, seed, trials, rand):
    """The run as the page shares it (site/static/scenario.js `shared`), through the API: the helper's calls
    from each stage's first trial on, carrying the whole tally; the page engine's from the stage's last trial
    back, each carrying its own tally and the stage the helper's answer gave (at random, in one to three slices
    of the readings), handed to the helper's next call as `parts` at random moments. At each checkpoint a call
    of count 0 brings the stage's last parts in, and its answer is kept; the stage's split point and every
    call's length are random."""
    message = {"op": "sensitivity", "widget": widget, "inputs": inputs, "seed": seed, "trials": trials}
    bounds = [0] + [c for c in sensitivity.STOP_CHECKPOINTS if c < trials] + [trials]
    helper, stage, at_checkpoints = None, None, {}

    def helper_call(first, count, parts):
        answer = api.handle_message({**message, "tally": helper, "first": first, "count": count, "render": True,
                                     **({"parts": parts} if parts else {})})
        assert "error" not in answer, answer
        return answer

    pending = []
    for c, e in zip(bounds, bounds[1:]):
        cut = rand.randint(c, e)  # the helper plays c … cut−1, the page engine cut … e−1
        front, back, own = c, e, None
        while front < cut or back > cut:
            if front < cut and (back == cut or rand.random() < 0.5):
                n = min(cut - front, rand.randint(1, 60))
                answer = helper_call(front, n, pending)
                helper, pending, front = answer["tally"], [], front + n
                if "stage" in answer:
                    stage = answer["stage"]
                    # this stage's, or the next's when this call completed it (the page engine's parts all in)
                    assert stage["from"] == c or stage["from"] == e and front == cut == back, (stage, c, e)
                continue
            if c and stage is None or c and stage["from"] != c:  # the page engine waits for the stage's readings
                answer = helper_call(c, 0, pending)
                helper, pending, stage = answer["tally"], [], answer["stage"]
            n = min(back - cut, rand.randint(1, 25))
            back -= n
            answer = page_engine_call(message, own, back, n, stage if c else None, rand.choice((1, 1, 2, 3)))
            own = answer["tally"]
            if rand.random() < 0.4 or back == cut:
                pending, own = pending + [own], None
        answer = helper_call(e, 0, pending)  # the stage complete: the helper's tally holds trials 0 … e−1
        helper, pending = answer["tally"], []
        at_checkpoints[e] = answer
    return at_checkpoints


@pytest.mark.slow
@pytest.mark.parametrize("widget, inputs, trials, seeds", [("sgs.battle", {}, STOP_TRIALS, (0, 1, 2)),
                                                          ("atg.battle", SMALL_ATG, 520, (4,))])
def test_any_split_of_each_stage_between_two_engines_gives_the_one_engine_answer(widget, inputs, trials, seeds):
    """Split between two states and merged by `parts`, each stage's trials give the tally and HTML one engine
    gives in order, at each checkpoint and at the end; some readings stop at each checkpoint and some play on."""
    import random
    alone, tally, first = {}, None, 0
    for e in [c for c in sensitivity.STOP_CHECKPOINTS if c < trials] + [trials]:
        alone[e] = sensitivity.sensitivity(widget, inputs, seed=STOP_SEED, trials=trials, first=first,
                                           count=e - first, tally=tally, render=True)
        tally, first = alone[e]["tally"], e
    played = [a["trials"] for _, a in readings_of(alone[trials])]
    assert {200, trials} <= set(played) and (widget != "atg.battle" or 500 in played)  # stopped at 500 too
    for seed in seeds:
        got = shared_run(widget, inputs, STOP_SEED, trials, random.Random(seed))
        for e, answer in alone.items():
            assert got[e]["tally"] == answer["tally"] and got[e]["html"] == answer["html"], (seed, e)
        assert got[trials]["done"]


def test_a_call_into_the_next_stage_before_this_one_is_whole_is_refused_in_one_line():
    """The barrier: which readings play past a checkpoint is decided on every trial before it, so a call that
    goes past it, or starts past it, with trials of the stage missing is refused; so is a page engine's call
    without the stage's readings, or with another stage's."""
    message = {"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "seed": STOP_SEED, "trials": STOP_TRIALS}
    front = api.handle_message({**message, "count": 150})
    back = api.handle_message({**message, "first": 180, "count": 20})
    assert "stage" not in front and "stage" not in back  # the readings of stage 0 all play
    for request in ({"tally": front["tally"], "first": 160, "count": 50},  # 150 … 159 missing, across 200
                    {"tally": front["tally"], "first": 200, "count": 10},
                    {"tally": front["tally"], "first": 150, "count": 30, "parts": [back["tally"]], "trials": 600}):
        if "parts" in request:  # 150 … 179 with 180 … 199 merged: the stage is whole, and the next may start
            ok = api.handle_message({**message, **request})
            assert "error" not in ok and ok["stage"]["from"] == 200 and ok["trials"] == 200
            on = api.handle_message({**message, "tally": ok["tally"], "first": 200, "count": 10})
            assert on["stage"] == ok["stage"] and on["trials"] == 210
            continue
        bad = api.handle_message({**message, **request})
        assert bad["error"]["field"] == "first" and "\n" not in bad["error"]["message"], bad
        assert "decides at trial 200 which readings play" in bad["error"]["message"]
    whole = api.handle_message({**message, "count": 200})
    stage = whole["stage"]
    assert stage["from"] == 200 and 0 < len(stage["playing"]) < whole["variants"]
    alone = api.handle_message({**message, "first": 400, "count": 20, "stage": stage})  # a page engine's call
    assert "error" not in alone and alone["trials"] == 20
    for bad_stage in ({**stage, "from": 500}, None):
        bad = api.handle_message({**message, "first": 400, "count": 20, **({"stage": bad_stage} if bad_stage else {})})
        assert bad["error"]["field"] == "first" and "\n" not in bad["error"]["message"]
    for bad_stage in ({**stage, "key": "x"}, {**stage, "playing": [0]}, {**stage, "playing": "all"}):
        bad = api.handle_message({**message, "first": 400, "count": 20, "stage": bad_stage})
        assert bad["error"]["field"] == "stage" and "\n" not in bad["error"]["message"]
    across = api.handle_message({**message, "first": 490, "count": 20, "stage": stage})  # a part cannot cross 500
    assert across["error"]["field"] == "first" and "decides at trial 500" in across["error"]["message"]
    # A part played with another set of readings is refused when the whole is put together.
    wrong = api.handle_message({**message, "first": 300, "count": 10, "stage": {**stage, "playing": stage["playing"][1:]}})
    mixed = api.handle_message({**message, "tally": whole["tally"], "first": 200, "count": 10,
                                "parts": [wrong["tally"]]})
    assert mixed["error"]["field"] == "parts" and "another set of readings" in mixed["error"]["message"]


def test_a_trial_played_in_slices_of_its_readings_gives_the_one_call_tally_and_refuses_slices_out_of_order():
    """An engine that must answer a reader soon plays a long trial of every reading in slices (scenario.js, the
    page engine): any number of slices, in any stage, joins into the tally of one call; a slice state is never
    taken for the run's, slices come in order from the same readings, and a malformed slice is refused in words."""
    message = {"op": "sensitivity", "widget": "sgs.battle", "inputs": {}, "seed": STOP_SEED, "trials": STOP_TRIALS}
    whole = api.handle_message({**message, "count": 200})
    stage = whole["stage"]
    for first, count, carried, extra in ((0, 7, None, {}), (190, 10, None, {}), (200, 5, whole["tally"], {}),
                                         (300, 3, None, {"stage": stage})):
        one = api.handle_message({**message, "tally": carried, "first": first, "count": count, **extra})
        for slices in (1, 2, 3, 7):
            got = page_engine_call(message, carried, first, count, stage if first >= 200 else None, slices)
            assert got["tally"] == one["tally"], (first, slices)
    second = api.handle_message({**message, "first": 0, "count": 7, "slice": [0, 3]})
    partial = second["slice_tally"]
    assert second["slice"] == [1, 3] and second["tally"] is None and partial["key"] != whole["tally"]["key"]
    refused = [  # (request, field)
        ({"first": 0, "count": 7, "slice": [2, 3], "slice_tally": partial}, "slice_tally"),  # a slice skipped
        ({"first": 0, "count": 7, "slice": [1, 3]}, "slice_tally"),  # without the slice before
        ({"first": 0, "count": 7, "slice": [0, 3], "slice_tally": partial}, "slice_tally"),  # a first with one
        ({"first": 1, "count": 6, "slice": [1, 3], "slice_tally": partial}, "slice_tally"),  # other trials
        ({"first": 300, "count": 7, "slice": [1, 3], "slice_tally": partial, "stage": stage}, "slice_tally"),
        ({"first": 0, "count": 7, "tally": partial}, "tally"),  # a slice state is not the run's tally
        ({"first": 7, "count": 7, "parts": [partial]}, "parts"),  # nor one of its parts
        ({"first": 195, "count": 10, "slice": [0, 2]}, "slice"),  # across a checkpoint
        ({"first": 0, "count": 7, "slice": [3, 3]}, "slice"),
        ({"first": 0, "count": 7, "slice": [0, 10**9]}, "slice"),
        ({"first": 0, "count": 7, "slice": [True, 2]}, "slice"),
        ({"first": 0, "count": 7, "slice": "0/2"}, "slice"),
        ({"first": 0, "count": 7, "slice": [1, 3], "slice_tally": {"key": 1}}, "slice_tally"),
    ]
    for request, field in refused:
        bad = api.handle_message({**message, **request})
        assert bad.get("error", {}).get("field") == field and bad["error"]["type"] == "InputError", (request, bad)
        assert "\n" not in bad["error"]["message"]
    # Slices cut from other readings (another stage sent with a later slice) are refused, not joined.
    cut = api.handle_message({**message, "first": 300, "count": 3, "slice": [0, 2], "stage": stage})
    other = {**stage, "playing": stage["playing"][1:]}
    mixed = api.handle_message({**message, "first": 300, "count": 3, "slice": [1, 2], "stage": other,
                                "slice_tally": cut["slice_tally"]})
    assert mixed["error"]["field"] == "slice_tally"
    assert api.handle_message({"op": "sensitivity", "widget": "small_general.combat", "inputs": {},
                               "slice": [0, 2]}).get("error") is None  # a calculator answers in one call: no slices


READINGS_CASES = [(w.id, {}) for w in widgets.all_widgets() if w.inputs.assumed_fields()] + [
    ("atg.battle", SMALL_ATG), ("sgs.battle", {"settings": {"rout_hold": 6}}),
    ("ocs.combat", {"attack": "1", "defense": "20"})]  # odds below the chart: the reading "not allowed" is refused


@pytest.mark.parametrize("widget, inputs", READINGS_CASES)
def test_each_reading_is_what_validating_the_inputs_with_that_one_setting_changed_gives(widget, inputs):
    """A reading's first call made its 140 states (AT Gold's 40 against 40) by validating the whole inputs again for
    each, then validated and digested them again (0.9 s of the browser's engine). Now each reading checks only its
    setting and the widget's own check, and copies only the objects along the setting's path; its data is the
    inputs' data with that one value changed; the states go to the run's jobs as validated, their key digesting
    their data as it is. Each reading must be what validating the whole changed inputs gives (the same readings
    refused too), and the states and key those of the same data sent afresh by another engine."""
    w = widgets.get(widget)
    values, settings, variants, data = sensitivity._prepared(w, inputs)
    plain = jsonable(values)
    expected = []
    for i, s in enumerate(settings):
        for alt in s["values"]:
            try:
                expected.append((i, alt, w.validate(scenarios._replaced(plain, s["input"].split("."), alt))))
            except InputError:
                continue
    assert variants == expected and data == [plain] + [jsonable(v) for _, _, v in expected], widget
    assert plain == jsonable(values)  # the shared data left as it was
    if w.trial is None:
        return
    for seed, rule in ((3, ""), (1, sensitivity.STOP_RULE)):
        kept = scenarios.chunk_states(w, data, seed, "common", rule, validated=[values] + [v for _, _, v in variants])
        sent = scenarios.chunk_states(w, json.loads(json.dumps(data)), seed, "common", rule)
        assert kept[0] is not sent[0] and kept == sent
