"""The engine's fixed entry points (engine.api) beyond what the doctests show."""

from __future__ import annotations

import json

from engine import api, widgets


def test_warm_up_requests_cover_every_widget_and_op():
    """The snapshot is taken, and the browser worker warms up, on these requests."""
    requests = api.warm_up_requests()
    assert {r["widget"] for r in requests if "widget" in r} == set(widgets.ids())
    sampled = {w.id for w in widgets.all_widgets() if w.sample is not None}
    assert {r["widget"] for r in requests if r["op"] == "sample"} == sampled
    assert {r["op"] for r in requests} == set(api.OPS) - set(api.SCENARIO_OPS)
    # The snapshot also carries each calculator's answer to the Scenarios panel's cheap ops; none of them refused.
    every = api.warm_up_requests(scenario_ops=True)
    scenario = [r for r in every if r["op"] in api.SCENARIO_OPS]
    assert {r["op"] for r in scenario} == {"varies", "observable", "compare", "sensitivity", "luck"}
    calculators = {w.id for w in widgets.all_widgets() if w.trial is None}
    assert {r["widget"] for r in scenario} == calculators
    assert all("error" not in json.loads(api.handle(json.dumps(r))) for r in scenario)
    assert api.warm_up() == len(every)
