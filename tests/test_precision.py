"""A run to a stated precision (issue 22): the engine's stopping rule, the API and the command line.

The rule is looked at only at fixed trial counts, on the tally of trials 0 … checkpoint − 1, so where a run
stops and what it shows depend on (inputs, seed, target) alone: never on how the trials were cut or in
which order they came back. The browser half is tests/test_precision_browser.py.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from engine import api, precision, widgets
from engine.montecarlo import Tally
from engine.schema import InputError

ROOT = Path(__file__).resolve().parent.parent

PINNED = {"widget": "sgs.battle", "inputs": {}, "seed": 1, "target": "2%"}
"""The card game's default battle, seed 1, to ±2 %: it stops at the third checkpoint."""
PINNED_TRIALS = 4000
PINNED_HALF = 0.015437226293906536
PINNED_ATTACKER_WON = "2161/4000"


def ask(**request):
    return json.loads(api.handle(json.dumps(request)))


@pytest.fixture(scope="module")
def pinned():
    return precision.run(PINNED["widget"], PINNED["inputs"], PINNED["seed"], PINNED["target"])


def staged(widget, inputs, seed, target, cut):
    """A run to a precision as a page's pool runs it: each stage from one checkpoint to the next is cut into
    pieces by ``cut(first, end)``, run in a shuffled order and merged; the merged stage goes to the engine's
    ``merge`` op with the tally so far, which says whether to go on."""
    w = widgets.get(widget)
    values = w.validate(inputs)
    key = w.tally_key(values, seed)
    rng = random.Random(f"{widget}{seed}{target}")
    so_far = None
    start = 0
    while True:
        answer = ask(op="merge", widget=widget, inputs=inputs, seed=seed, precision=target, render=True,
                     tallies=[so_far] if so_far else [Tally(key, w.confidence).to_json()])
        end = answer["precision"]["next"]
        pieces = cut(start, end, rng)
        rng.shuffle(pieces)
        parts = [w.estimate(values, seed, a, b - a, key=key).to_json() for a, b in pieces]
        answer = ask(op="merge", widget=widget, inputs=inputs, seed=seed, precision=target, render=True,
                     tallies=([so_far] if so_far else []) + parts)
        so_far = answer["tally"]
        assert answer["precision"]["checkpoint"] and answer["trials"] == end
        if answer["precision"]["stop"]:
            return answer
        start = end


def random_cut(first, end, rng):
    """Pieces of random sizes, from a single trial to the whole stage."""
    out, a = [], first
    while a < end:
        b = min(end, a + rng.choice([1, 7, 25, 113, 400, end - first]))
        out.append((a, b))
        a = b
    return out


def test_checkpoints_double_from_the_run_size_up_to_the_cap():
    for w in widgets.all_widgets():
        if w.trial is None:
            continue
        points = precision.checkpoints(w)
        assert points[0] == w.trials and points[-1] == precision.MAX_PRECISION_TRIALS
        assert all(b == 2 * a for a, b in zip(points, points[1:-1]))
        assert points[-2] < points[-1] <= 2 * points[-2]


def test_the_pinned_run(pinned):
    tally, state = pinned
    assert state["trials"] == tally.trials == PINNED_TRIALS and tally.ranges == ((0, PINNED_TRIALS),)
    assert state["half"] == PINNED_HALF and state["met"] and state["stop"]
    assert state["trials"] in precision.checkpoints(widgets.get("sgs.battle"))
    assert precision.headline(widgets.get("sgs.battle")).read(tally) == Fraction(PINNED_ATTACKER_WON)
    assert state["sentence"] == ("P(attacker wins) within ±1.54% (95% interval) after 4,000 trials: "
                                 "the target ±2% is met.")
    # the checkpoint before did not meet it: the run stopped at the first that did
    before = widgets.get("sgs.battle").estimate(widgets.get("sgs.battle").validate({}), 1, 0, 2000)
    assert precision.half_width(widgets.get("sgs.battle"), before) > 0.02


@pytest.mark.parametrize("chunk", [0, 1, 333, 1000])
def test_chunks_of_any_size_stop_at_the_same_trial_with_the_same_tally(pinned, chunk):
    if chunk == 1:  # one trial a job is slow: the first stage alone, against the whole stage
        w = widgets.get("sgs.battle")
        values = w.validate({})
        one = Tally(w.tally_key(values, 1), w.confidence)
        for i in reversed(range(1000)):
            one = one.merged(w.estimate(values, 1, i, 1))
        assert one == w.estimate(values, 1, 0, 1000)
        return
    tally, state = precision.run("sgs.battle", {}, 1, "2%", chunk=chunk)
    assert (tally, state) == pinned


def test_a_pool_in_any_order_stops_where_the_engine_does(pinned):
    tally, state = pinned
    answer = staged(PINNED["widget"], PINNED["inputs"], PINNED["seed"], PINNED["target"], random_cut)
    assert answer["trials"] == state["trials"] and Tally.from_json(answer["tally"]) == tally
    w = widgets.get("sgs.battle")
    assert answer["html"] == w.render_tally(tally, w.validate({}))


def test_the_rule_is_looked_at_only_on_whole_checkpoints(pinned):
    tally, _ = pinned
    w = widgets.get("sgs.battle")
    values = w.validate({})
    # More trials than the checkpoint, fewer, or the checkpoint's count with a hole: never a stop.
    for t in (w.estimate(values, 1, 0, 4100), w.estimate(values, 1, 0, 3999),
              w.estimate(values, 1, 0, 1000).merged(w.estimate(values, 1, 1001, 3000))):
        state = precision.status(w, t, Fraction(1, 2))
        assert not state["checkpoint"] and not state["met"] and not state["stop"]
    assert precision.status(w, w.estimate(values, 1, 0, 3999), Fraction(1, 50))["next"] == 4000


def test_a_target_the_cap_cannot_reach_stops_there_and_says_so():
    w = widgets.get("sgs.battle")
    cap = precision.MAX_PRECISION_TRIALS
    t = Tally.from_json({"v": 1, "key": "k", "confidence": "19/20", "ranges": [[0, cap]],
                         "counts": {"winner": {"attacker": cap // 2, "defender": cap // 2}}, "sums": {}, "hists": {}})
    state = precision.status(w, t, Fraction(1, 1000))
    assert state["stop"] and not state["met"] and state["next"] is None
    assert state["sentence"] == ("P(attacker wins) within ±0.31% (95% interval) after 100,000 trials, the most a run "
                                 "takes: the target ±0.1% is not reached.")


@pytest.mark.parametrize("bad", ["0", "0%", "-1", "abc", "1e999", "51", "50.5%", "", "   ", True, None, 0, -2,
                                 1e300, [], {}, "1" * 50])
def test_bad_precisions_get_a_message(bad):
    answer = ask(op="estimate", widget="sgs.battle", inputs={}, seed=1, first=0, count=1, tally=None, precision=bad)
    if bad is None:  # no precision: a fixed run
        assert "error" not in answer and "precision" not in answer
        return
    error = answer["error"]
    assert error["type"] == "InputError" and error["field"] == "precision", error
    assert "enter a percentage above 0 and up to 50, such as 1%" in error["message"]
    assert "Traceback" not in error["message"] and len(error["message"]) < 200


def test_infinity_in_the_request_is_refused_too():
    text = '{"op": "estimate", "widget": "sgs.battle", "seed": 1, "count": 1, "precision": Infinity}'
    assert json.loads(api.handle(text))["error"]["field"] == "precision"


@pytest.mark.parametrize("good,share", [("1", Fraction(1, 100)), ("1%", Fraction(1, 100)), ("±0.5 %", Fraction(1, 200)),
                                        (".25", Fraction(1, 400)), ("50", Fraction(1, 2)), (3, Fraction(3, 100))])
def test_precisions_read_as_percentages(good, share):
    assert precision.parse_target(good) == share


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_precision_is_said_as_nothing_entered(blank):
    """The box left empty used to be refused as "'' is not a precision"."""
    with pytest.raises(InputError) as caught:
        precision.parse_target(blank)
    assert caught.value.message == "nothing entered; enter a percentage above 0 and up to 50, such as 1%"


def test_a_widget_without_a_run_refuses_a_precision():
    answer = ask(op="estimate", widget="sgs.panic_rout", inputs={}, seed=1, count=1, precision="1%")
    assert answer["error"]["message"] == "sgs.panic_rout has no Monte Carlo estimate"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_command_line_equals_the_api(pinned):
    tally, state = pinned
    out = cli("estimate", "sgs.battle", "--precision", "2%", "--workers", "2")
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    answer = staged("sgs.battle", {}, 1, "2%", lambda a, b, rng: [(a, b)])
    assert printed["trials"] == answer["trials"] == PINNED_TRIALS
    assert printed["digest"] == answer["digest"] and printed["precision"] == answer["precision"] == state
    assert printed["figures"] == precision.figure_values(widgets.get("sgs.battle"), tally)
    assert printed["figures"][0]["exact"] == PINNED_ATTACKER_WON
    # a fixed run of the same size prints the same figures
    fixed = json.loads(cli("estimate", "sgs.battle", "--trials", str(PINNED_TRIALS), "--workers", "1").stdout)
    assert fixed["digest"] == printed["digest"] and fixed["figures"] == printed["figures"]


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "1e999", "51%"])
def test_the_command_line_refuses_bad_precisions_in_one_line(bad):
    out = cli("estimate", "sgs.battle", f"--precision={bad}", "--workers", "1")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: precision: ") and out.stderr.count("\n") == 1


def test_the_cap_is_the_pages_largest_run():
    text = (ROOT / "site/static/simulation.js").read_text()
    cap = re.search(r"export const MAX_TRIALS = ([0-9_]+);", text)
    assert cap and int(cap.group(1).replace("_", "")) == precision.MAX_PRECISION_TRIALS
