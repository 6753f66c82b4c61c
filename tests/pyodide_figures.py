"""Figures the engine must give alike in CPython and Pyodide (run by test_pyodide_figures.py in both).

``ROOT`` is the directory that holds ``engine`` and ``fixtures``; the figures
end up in ``RESULT`` as JSON text.
"""

import hashlib
import json
import sys

sys.path.insert(0, ROOT)  # noqa: F821 - set by the caller

from fixtures.demo_widget import ensure_registered  # noqa: E402

from engine import api  # noqa: E402

ensure_registered()


def ask(**request):
    return json.loads(api.handle(json.dumps(request)))


figures = {}
RUNS = (("demo.dice", {}), ("atg.battle", {}),
        ("atg.battle", {"landscape": "forest", "river": True,
                        "attackers": [{"type": "Infantry", "count": 12, "side": 0},
                                      {"type": "Infantry", "count": 6, "side": 1},
                                      {"type": "Tank", "count": 4, "side": 3}]}))
for i, (widget, inputs) in enumerate(RUNS):
    answer = ask(op="estimate", widget=widget, inputs=inputs, seed=3, first=0, count=300, tally=None, render=True)
    figures[f"{i} {widget}"] = {"tally": answer["tally"], "html": answer["html"]}
samples = []
for seed in range(30):
    answer = ask(op="sample", widget="atg.battle", inputs={}, seed=seed)
    samples.append([answer["digest"], hashlib.sha256(json.dumps(answer["result"], sort_keys=True).encode()).hexdigest()])
figures["atg.battle samples"] = samples
RESULT = json.dumps(figures, sort_keys=True)
