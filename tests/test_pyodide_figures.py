"""The engine's estimates and samples are the same in Pyodide (Python 3.14) as in CPython.

Runs ``tests/pyodide_figures.py`` in both: in Pyodide under Node (the site's
own ``node_modules/pyodide``, no browser), and here. Whole tallies are
compared, exact sums included: a float summed with the built-in ``sum``
differs between 3.11 and 3.12+ (which compensates), so the engine sums
floats with ``math.fsum``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # needs Node and the Pyodide files, like the browser tests

HERE = Path(__file__).parent


def test_pyodide_gives_cpythons_figures():
    node = shutil.which("node")
    assert node is not None and (HERE.parent / "node_modules" / "pyodide" / "pyodide.mjs").exists(), \
        "needs Node and node_modules/pyodide: run the tests with ./dev test, which sets them up"
    script = HERE / "pyodide_figures.py"
    done = subprocess.run([node, str(HERE / "js" / "pyodide_run.mjs"), str(script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    scope = {"ROOT": str(HERE)}
    exec(compile(script.read_text(encoding="utf-8"), str(script), "exec"), scope)
    ours, theirs = json.loads(scope["RESULT"]), json.loads(done.stdout)
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == theirs[key], key
