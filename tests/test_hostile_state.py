"""Hostile requests that bring back state the engine gave (tallies, figure names, paths) or odd spellings of
numbers and text: each is refused in one plain line, at once, and the engine stays healthy. Every case here
came from a fuzzing session (session 29) and failed before: a hang, an "error of ours", or Python's own words."""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest

from engine import api, linkstate, montecarlo
from test_hostile import answer, healthy, run_cli


def refused(message: dict[str, Any] | str, field: str | None = None) -> dict[str, Any]:
    """The request's answer: an InputError (on ``field``), one short line of our own words, within a blink."""
    started = time.process_time()
    got = json.loads(api.handle(message if isinstance(message, str) else json.dumps(message)))
    took = time.process_time() - started
    error = got.get("error")
    assert error and error["type"] == "InputError", got if error is None else error
    text = error["message"]
    assert "\n" not in text and len(text) < 300, text
    for python in ("Fraction(", "literal", "Traceback", "unhashable", "math domain", "Error:"):
        assert python not in text, text
    assert field is None or error["field"] == field, error
    assert took < 0.5, f"{took:.2f} s of CPU for {text}"
    return error


def tally(widget: str, count: int, seed: int = 1, first: int = 0) -> dict[str, Any]:
    return answer({"op": "estimate", "widget": widget, "inputs": {}, "seed": seed, "first": first, "count": count})["tally"]


SGS = tally("sgs.battle", 20)
ATG = tally("atg.battle", 5)


def merge(widget: str, *tallies: Any, **more: Any) -> dict[str, Any]:
    return {"op": "merge", "widget": widget, "inputs": {}, "seed": 1, "tallies": list(tallies), "render": True, **more}


def changed(t: dict[str, Any], *path_and_value: Any) -> dict[str, Any]:
    out = copy.deepcopy(t)
    *path, last, value = path_and_value
    target = out
    for part in path:
        target = target[part]
    target[last] = value
    return out


MEASURED = next(iter(ATG["sums"]))


@pytest.mark.parametrize("bad", [
    changed(SGS, "confidence", "1e99999999"),  # ran for ever: Fraction's parser took the exponent
    changed(SGS, "confidence", "1e-9999999"),
    changed(SGS, "confidence", "0." + "9" * 20),  # a quantile of 1: StatisticsError
    changed(SGS, "confidence", "nan"),
    changed(SGS, "confidence", "1/0"),
    changed(ATG, "sums", MEASURED, [5, "1e999999999", "1"]),
    changed(ATG, "sums", MEASURED, [5, "9" * 4000, "9" * 4000]),  # an overflow in the mean's interval
    changed(ATG, "sums", MEASURED, [5, "10", "1"]),  # a negative variance: math domain error
    changed(ATG, "sums", MEASURED, [0, "1", "1"]),
    changed(ATG, "sums", MEASURED, [5, "\u00b2", "1"]),
    changed(SGS, "hists", "rounds", {"\u00b2": 1}),
    changed(SGS, "counts", [1]),
    {k: v for k, v in SGS.items() if k != "ranges"},
])
def test_a_tally_that_is_not_the_engines_is_refused_at_once(bad):
    widget = "atg.battle" if bad["key"] == ATG["key"] else "sgs.battle"
    error = refused(merge(widget, bad))
    assert "is not a tally from this engine" in error["message"] and error["field"] in ("tallies", "tally")
    refused({"op": "estimate", "widget": widget, "inputs": {}, "seed": 1, "first": 100, "count": 1, "tally": bad,
             "render": True}, "tally")
    healthy()


def test_a_tally_whose_check_counts_hits_without_their_trials_is_refused():
    """The card game's run checks its opening volley against the exact odds, counting the trials checked and the
    hits among them; a tally with the hits and not the trials made the interval's arithmetic fail."""
    bad = {**SGS, "counts": {k: v for k, v in SGS["counts"].items() if k != "exact check"}}
    error = refused({"op": "estimate", "widget": "sgs.battle", "inputs": {}, "seed": 1, "first": 20, "count": 5,
                     "tally": bad, "render": True}, "tally")
    assert "is not a tally from this engine" in error["message"]
    healthy()


def test_a_merge_takes_only_tallies_of_its_own_inputs_and_seed():
    """An AT Gold tally merged as the card game's was rendered as if it were the card game's; the other way it
    was an "error of ours". The seed is part of what a tally estimates, so the merge asks for it."""
    assert "other inputs" in refused(merge("sgs.battle", ATG), "tallies")["message"]
    assert "other inputs" in refused(merge("atg.battle", SGS), "tallies")["message"]
    assert "other inputs" in refused(merge("sgs.battle", SGS, seed=2), "tallies")["message"]
    refused({**merge("sgs.battle", SGS), "seed": None}, "seed")
    assert answer(merge("sgs.battle", SGS))["trials"] == 20


def test_a_merge_of_many_large_tallies_is_refused_before_it_runs_for_seconds():
    """64 tallies each just under the size the engine reads, with distinct values in their histograms, took 1.8 s
    to merge and render; together they may hold no more than one tally may."""
    wide = []
    for i in range(64):
        t = tally("sgs.battle", 1, first=i * 1000)
        t["ranges"] = [[i * 1000 + j * 2, i * 1000 + j * 2 + 1] for j in range(300)]
        t["hists"] = {name: {str(i * 1000 + j): 1 for j in range(300)} for name in t["hists"]}
        wide.append(t)
    error = refused(merge("sgs.battle", *wide), "tallies")
    assert "entries together" in error["message"]
    parts = {"op": "compare", "widget": "sgs.battle", "inputs": {}, "pinned": {}, "seed": 1, "count": 1,
             "tally": wide[0], "parts": wide[1:16]}
    refused(parts)
    healthy()


def test_the_luck_of_a_battle_needs_trials_of_its_own_inputs():
    base = {"op": "luck", "widget": "sgs.battle", "inputs": {}, "seed": 1, "observed": {"ending": "rounds"}}
    empty = {**SGS, "ranges": [], "counts": {}, "sums": {}, "hists": {}}
    refused({**base, "count": 0, "tally": empty}, "count")  # a division by no trials
    refused({**base, "first": 0, "count": 5, "tally": SGS}, "first")  # trials the tally holds already
    refused({**base, "count": 0, "tally": ATG}, "tally")  # another battle's tally, read as this one's
    assert "error" not in answer({**base, "count": 0, "tally": SGS})


@pytest.mark.parametrize("request_, field", [
    ({"op": "estimate", "widget": "sgs.battle", "inputs": {}, "seed": "\u00b2", "count": 1}, "seed"),
    ({"op": "estimate", "widget": "sgs.battle", "inputs": {}, "seed": 1, "count": "\u00b2"}, "count"),
    ({"op": "estimate", "widget": "sgs.battle", "inputs": {}, "seed": 1, "count": 1, "first": "\u0661"}, "first"),
    ({"op": "run", "widget": "sgs.battle", "inputs": {"attacker": {"units": {"\u00b2": {}}}}}, "attacker.units"),
    ({"op": "sweep", "widget": "sgs.round_odds", "inputs": {},
      "vary": {"input": "shooters.\u00b2.value", "values": [1, 2]}}, "input"),
    ({"op": "sweep", "widget": "sgs.round_odds", "inputs": {}, "vary": {"input": "shooters.00.value", "values": [1, 2]}},
     "input"),
    ({"op": "target", "widget": "sgs.round_odds", "inputs": {}, "figure": "mean_hits", "threshold": "1",
      "goal": "at_least", "vary": {"input": "shooters.00.value", "from": 1, "to": 3}}, "input"),
])
def test_digits_and_row_numbers_are_read_only_as_the_engine_writes_them(request_, field):
    """Python's int() refuses digits its isdigit() accepts ("²"); a row written "00" validated but named no row
    the sweep could label (StopIteration)."""
    refused(request_, field)


@pytest.mark.parametrize("request_", [
    {"op": "sensitivity", "widget": "sgs.round_odds", "inputs": {}, "figure": [1]},
    {"op": "sensitivity", "widget": "sgs.round_odds", "inputs": {}, "figure": {"a": 1}},
    {"op": "sweep", "widget": "sgs.round_odds", "inputs": {}, "vary": {"input": "shooters.0.value", "values": [1, 2]},
     "figures": [[1]]},
    {"op": "compare", "widget": "sgs.round_odds", "inputs": {}, "pinned": {}, "figures": [{}]},
    {"op": "target", "widget": "sgs.round_odds", "inputs": {}, "figure": [1], "threshold": "1",
     "vary": {"input": "shooters.0.value"}},
])
def test_a_figure_name_that_is_not_text_is_refused(request_):
    refused(request_)


def test_a_long_figure_name_is_cut_short_in_the_message():
    error = refused({"op": "sensitivity", "widget": "sgs.round_odds", "inputs": {}, "figure": "x" * 100_000}, "figure")
    assert len(error["message"]) < 200


def test_a_scenario_link_naming_a_figure_that_is_not_text_is_read_without_it():
    state = linkstate.pack({"t": {"figure": [1], "threshold": "1", "vary": {"input": "shooters.0.value"}}})
    got = answer({"op": "scenario_from_link", "widget": "sgs.round_odds", "inputs": {}, "state": state})
    assert [e["field"] for e in got["rejected"]] == ["target"] and "error" not in got, got


@pytest.mark.parametrize("tiny", [5e-324, 1e-300, 1e-31])
def test_a_number_sent_as_a_float_is_read_as_the_decimal_it_shows(tiny):
    """5e-324 sent as a JSON number overflowed the odds' float (an exact 2**-1074); as text it was refused.
    Floats are now read as the decimal they print as, so the same limits hold (and 0.1 is 1/10)."""
    refused({"op": "run", "widget": "ocs.combat", "inputs": {"attack": tiny}}, "attack")
    got = answer({"op": "run", "widget": "ocs.combat", "inputs": {"attack": 0.1}})
    assert got["result"]["attack"]["total"] == "1/10"


def test_half_a_character_in_a_name_is_refused():
    """JSON may escape half of a character ("\\ud800"); a name holding one could not be put in a link."""
    text = '{"op": "run", "widget": "sgs.battle", "inputs": {"attacker": {"units": [{"name": "\\ud800"}]}}}'
    refused(text, "attacker.units.0.name")
    ok = '{"op": "run", "widget": "sgs.battle", "inputs": {"attacker": {"units": [{"name": "Guards \\ud83d\\ude00"}]}}}'
    assert "error" not in json.loads(api.handle(ok))


def test_the_tally_reader_says_its_own_words():
    for bad in ("nan", "1/0", "\u00b2", "1e5", "0x10", " 1"):
        with pytest.raises(montecarlo.InputError) as caught:
            montecarlo.Tally.from_json(changed(SGS, "confidence", bad))
        assert "(" + bad not in str(caught.value) and "Fraction" not in str(caught.value)
    healthy()


@pytest.mark.parametrize("argv, field", [
    (("estimate", "sgs.battle", "--trials", "100000", "--workers", "1000000"), "workers"),  # a process for each job
    (("sweep", "sgs.battle", "--workers", "-1", "--vary", "attacker.units.0.count=1,2"), "workers"),
    (("estimate", "sgs.battle", "--chunk", "-5"), "chunk"),  # was said of "workers"
    (("estimate", "sgs.battle", "--trials", "\u00b2"), "trials"),
])
def test_the_command_line_bounds_its_workers_and_names_the_argument_at_fault(argv, field):
    started = time.process_time()
    code, out, err = run_cli(*argv)
    assert code == 2 and out == "" and err.startswith(f"error: {field}: ") and err.count("\n") == 1, (code, err)
    assert time.process_time() - started < 0.5
