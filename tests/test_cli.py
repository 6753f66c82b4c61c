"""python -m engine: list, run, roll, and clear failures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True)


def test_list_names_widgets_and_inputs():
    out = cli("list")
    assert out.returncode == 0
    assert "small_general.combat" in out.stdout
    assert "terrain (choice, default \"clear\")" in out.stdout


def test_run_prints_exact_json():
    out = cli("run", "small_general.combat", "--inputs", '{"terrain": "forest"}')
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["inputs"]["terrain"] == "forest"
    assert all("/" in o["p"] or o["p"] in "01" for o in result["outcomes"])


def test_roll_replays():
    first = cli("roll", "small_general.combat", "--seed", "9")
    assert first.returncode == 0 and first.stdout == cli("roll", "small_general.combat", "--seed", "9").stdout


def test_invalid_input_exits_2_with_a_message():
    out = cli("run", "small_general.combat", "--inputs", '{"hex_sides": 9}')
    assert out.returncode == 2
    assert out.stderr == "error: hex_sides: 9 is out of range; enter a whole number from 1 to 6\n"
    assert "Traceback" not in out.stderr


def test_bad_json_and_unknown_widget_exit_2():
    bad = cli("run", "small_general.combat", "--inputs", "{terrain")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --inputs is not valid JSON")
    unknown = cli("run", "nope.widget")
    assert unknown.returncode == 2 and "no widget named 'nope.widget'" in unknown.stderr

