"""The site's JavaScript modules that run without a browser, under Node's own test runner.

``tests/js/*.test.mjs`` drive them with fakes (the worker's scheduler with a
fake engine and a fake clock); this runs them in the pytest run, so a failing
JavaScript test fails ``./dev test``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = sorted((Path(__file__).parent / "js").glob("*.test.mjs"))


@pytest.mark.parametrize("path", JS_TESTS, ids=[p.name for p in JS_TESTS])
def test_node(path: Path) -> None:
    node = shutil.which("node")
    assert node, "Node.js is needed (./dev sets up with npm, which comes with it)"
    done = subprocess.run([node, "--test", "--test-reporter=tap", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
