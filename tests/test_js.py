"""The site's JavaScript modules that run without a browser, under Node's own test runner.

``tests/js/*.test.mjs`` drive them with fakes (the worker's scheduler with a
fake engine and a fake clock); this runs them in the pytest run, so a failing
JavaScript test fails ``./dev test``.
"""

from __future__ import annotations

import re
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


STATIC = Path(__file__).resolve().parent.parent / "site" / "static"
IMPORT = re.compile(r"""(?:^import\s[^;]*?from\s*|^import\s*|\bimport\()\s*["'](\./[\w.-]+\.js)["']""", re.M)


def worker_modules() -> set[str]:
    """engine-worker.js and every site module it imports, statically or dynamically, all the way down."""
    seen, todo = set(), ["engine-worker.js"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [m[2:] for m in IMPORT.findall((STATIC / name).read_text(encoding="utf-8"))]
    return seen


def test_the_engine_worker_starts_no_worker_of_its_own() -> None:
    """Issue 11: Firefox left one fresh load in 25 stuck while the engine worker started a worker of its own
    (the snapshot's helper). The cause is held here, whatever the soak test of test_browsers.py happens to see:
    no module the engine worker loads constructs a worker."""
    modules = worker_modules()
    assert {"engine-worker.js", "engine-boot.js", "scheduler.js", "snapshot.js"} <= modules, modules
    starts = [name for name in sorted(modules)
              if re.search(r"\bnew\s+(?:Shared)?Worker\s*\(", (STATIC / name).read_text(encoding="utf-8"))]
    assert starts == [], f"the engine worker's modules start a worker: {starts}"
