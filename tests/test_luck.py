"""How lucky was that (issue 22): engine.luck against the outcomes and tallies it reads."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from engine import api, luck, widgets
from engine.schema import InputError

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("widget_id, inputs", [("small_general.combat", {"hex_sides": 3}), ("ocs.combat", {}),
                                               ("sgs.round_odds", {})])
def test_every_outcome_of_a_calculator_is_placed_exactly(widget_id, inputs):
    """For each outcome: its chance, the chance of it or anything listed before it (worse for the attacker, or
    fewer), and of it or anything after, summed by hand from the result's own list; the three add up."""
    w = widgets.get(widget_id)
    result = w.result(w.validate(inputs))
    rows = result.get("outcomes") or result["distribution"]
    ps = [Fraction(r["p"]) for r in rows]
    assert sum(ps) == 1
    for i, r in enumerate(rows):
        a = luck.luck(widget_id, inputs, {"result": r["result"]})
        assert Fraction(a["this"]["exact"]) == ps[i]
        assert Fraction(a["worse"]["exact"]) == sum(ps[: i + 1]) and Fraction(a["better"]["exact"]) == sum(ps[i:])
        assert Fraction(a["worse"]["exact"]) + Fraction(a["better"]["exact"]) - ps[i] == 1
        tail = min(Fraction(a["worse"]["exact"]), Fraction(a["better"]["exact"]))
        if tail == 0:
            assert a["sentence"].endswith(" never happens with these inputs."), a["sentence"]
        elif tail >= Fraction(1, 2):  # in the middle: "this bad or worse … 62 times in 100" alone said nothing
            assert a["sentence"].endswith(": an ordinary result, neither lucky nor unlucky."), a["sentence"]
            worse, better = (float(Fraction(a[k]["exact"])) for k in ("worse", "better"))
            assert f"about {worse * 100:.0f} times in 100, and one" in a["sentence"], a["sentence"]
            assert f"or better for the attacker about {better * 100:.0f} times in 100" in a["sentence"] or \
                f"or higher about {better * 100:.0f} times in 100" in a["sentence"], a["sentence"]
        elif tail <= Fraction(1, 5):
            assert f"1 time in {1 / float(tail):,.0f}." in a["sentence"], a["sentence"]
        else:  # "1 time in 2" said 40.7 % (OCS's Ao1 Do1 at 3:1): a share this large is said in hundredths
            assert f"about {float(tail) * 100:.0f} times in 100." in a["sentence"], a["sentence"]


def test_a_battles_result_is_placed_by_the_estimate_of_the_same_trials_with_intervals():
    w = widgets.get("sgs.battle")
    values = w.validate({})
    t = w.estimate(values, 3, 0, 200)
    hist = t.hists["attacker.lost"]
    value = sorted(int(v) for v in hist)[len(hist) // 2]
    a = luck.luck(w.id, {}, {"ending": "defender routed", "attacker.lost": value}, seed=3, trials=200)
    share, lost = a["parts"]
    assert share["share"]["float"] == t.counts["ending"]["defender routed"] / 200
    assert share["share"]["low"] < share["share"]["float"] < share["share"]["high"]
    assert lost["at_most"]["float"] == sum(c for v, c in hist.items() if int(v) <= value) / 200
    assert lost["at_least"]["float"] == sum(c for v, c in hist.items() if int(v) >= value) / 200
    half = luck.luck(w.id, {}, {"rounds": 3}, seed=3, trials=200, first=0, count=100)
    rest = luck.luck(w.id, {}, {"rounds": 3}, seed=3, trials=200, first=100, count=100, tally=half["tally"])
    whole = luck.luck(w.id, {}, {"rounds": 3}, seed=3, trials=200)
    assert rest["parts"] == whole["parts"] and rest["done"] and not half["done"]
    # None is the fewest there can be: a count of 0 is said as such, not "0 or fewer"; above it, the tail
    # is named.
    none = luck.luck(w.id, {}, {"attacker.eliminated": 0}, seed=3, trials=200)
    assert none["sentence"].startswith("Attacker eliminated 0: ") and "or fewer" not in none["sentence"], none
    assert " or fewer: " in a["sentence"] or " or more: " in a["sentence"], a["sentence"]
    # A count of thousands is written as the site writes numbers.
    many = luck.luck(w.id, {}, {"attacker.lost": 999_999}, seed=3, trials=20, render=True)
    assert many["sentence"].startswith("Attacker lost 999,999 or more: "), many["sentence"]
    assert "Attacker lost at most 999,999</th>" in many["html"] and "at least 999,999</th>" in many["html"]


@pytest.mark.parametrize("widget_id, observed, field", [
    ("small_general.combat", {"result": "DEF Vanished"}, "result"), ("small_general.combat", {}, "observed"),
    ("sgs.battle", {"ending": "a draw"}, "ending"), ("sgs.battle", {"morale": 3}, "morale"),
    ("sgs.battle", {"rounds": -1}, "rounds"), ("europa.ratio", {"result": "x"}, "")])
def test_what_cannot_have_happened_is_refused_by_name(widget_id, observed, field):
    answer = api.handle_message({"op": "luck", "widget": widget_id, "inputs": {}, "observed": observed, "trials": 20})
    assert answer["error"]["field"] == field, answer


def test_the_command_line_answers_and_refuses_plainly():
    run = subprocess.run([sys.executable, "-m", "engine", "luck", "small_general.combat", "--observed",
                          '{"result": "DEF Destroyed"}'], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0 and json.loads(run.stdout)["sentence"] == (
        "A result this good or better for the attacker happens about 1 time in 216.")
    bad = subprocess.run([sys.executable, "-m", "engine", "luck", "sgs.battle", "--observed", "[1]"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and bad.stderr.strip() == "error: --observed must be a JSON object"
    with pytest.raises(InputError):
        luck.luck("small_general.combat", {}, "DEF Loss")


@pytest.mark.parametrize("widget_id", ["small_general.combat", "ocs.combat"])
def test_a_seeded_sample_says_how_rare_its_own_result_is(widget_id):
    w = widgets.get(widget_id)
    for seed in (1, 2, 3):
        sample = w.roll({}, seed)
        label = sample.get("cell") or sample["outcome"]
        said = luck.luck(widget_id, {}, {"result": label})["sentence"]
        assert sample["luck"] == said
        assert w.render_sample(sample).endswith(f'<p class="luck-sentence">How rare: {said[0].lower()}{said[1:]}</p>')
    battle = widgets.get("sgs.battle")
    assert "luck" not in battle.roll({}, 1) and "How rare" not in battle.render_sample(battle.roll({}, 1))
