"""Figures the engine must give alike in CPython and Pyodide (run by test_pyodide_figures.py in both).

Run as a script with ``ROOT`` set to the directory that holds ``engine`` and
``fixtures``; the figures end up in ``RESULT`` as JSON text. Imported (as the
doctest collection does), it computes nothing.
"""

from __future__ import annotations

import hashlib
import json
import sys

RUNS = (("demo.dice", {}), ("atg.battle", {}),
        ("atg.battle", {"landscape": "forest", "river": True,
                        "attackers": [{"type": "Infantry", "count": 12, "side": 0},
                                      {"type": "Infantry", "count": 6, "side": 1},
                                      {"type": "Tank", "count": 4, "side": 3}]}),
        ("sgs.battle", {}))


def figures(root: str) -> str:
    """Estimates (tally and HTML) and thirty samples of each battle system, as JSON text."""
    sys.path.insert(0, root)
    from fixtures.demo_widget import ensure_registered

    from engine import api
    ensure_registered()

    def ask(**request):
        return json.loads(api.handle(json.dumps(request)))

    out = {}
    for i, (widget, inputs) in enumerate(RUNS):
        answer = ask(op="estimate", widget=widget, inputs=inputs, seed=3, first=0, count=300, tally=None, render=True)
        out[f"{i} {widget}"] = {"tally": answer["tally"], "html": answer["html"]}
    samples = []
    for seed in range(30):
        answer = ask(op="sample", widget="atg.battle", inputs={}, seed=seed)
        samples.append([answer["digest"],
                        hashlib.sha256(json.dumps(answer["result"], sort_keys=True).encode()).hexdigest()])
    out["atg.battle samples"] = samples
    out["sgs.battle samples"] = [ask(op="sample", widget="sgs.battle", inputs={}, seed=seed)["digest"]
                                 for seed in range(30)]
    # issue 21: compare, sweep and target answers (charts included) are the same in both
    out["scenarios"] = [
        ask(op="compare", widget="sgs.battle", pinned={}, inputs={"attacker": {"units": [{"count": 2}]}}, seed=3,
            trials=40, render=True),
        ask(op="sweep", widget="atg.battle", inputs={}, vary={"input": "attackers.1.count", "values": [2, 6]}, seed=3,
            trials=10, render=True),
        ask(op="sweep", widget="europa.aec", inputs={}, vary={"input": "attacker.units.0.combat_value", "from": 1,
                                                              "to": 8}, render=True),
        ask(op="target", widget="sgs.battle", inputs={}, figure="attacker_won", threshold="0.8",
            vary={"input": "attacker.units.0.count", "from": 1, "to": 3}, count=40, max_trials=40, render=True),
        ask(op="scenario_link", widget="ocs.combat", pinned={"terrain": "close"},
            vary={"input": "terrain"}, target={"figure": "p_exploit", "threshold": "1/4"}),
    ]
    return json.dumps(out, sort_keys=True)


if "ROOT" in globals():
    RESULT = figures(globals()["ROOT"])
