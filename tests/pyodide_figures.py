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
    return json.dumps(out, sort_keys=True)


if "ROOT" in globals():
    RESULT = figures(globals()["ROOT"])
