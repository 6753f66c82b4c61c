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
    # what compare, sweep and target can name: the figures and the inputs that can vary
    assert "        defender_destroyed: P(defender destroyed) (a probability)" in out.stdout
    assert "inputs that can vary (sweep and target --vary): terrain, hex_sides, attacker.movement" in out.stdout
    assert "attackers.N.count" in out.stdout and "attackers.0.count" not in out.stdout


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



def test_a_bad_seed_is_one_line_not_a_usage_dump():
    out = cli("roll", "small_general.combat", "--seed", "1e5")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "error: seed: '1e5' is not a seed; enter a whole number from 0 to 9,007,199,254,740,992\n"


def test_booleans_read_as_the_forms_and_links_write_them():
    out = cli("run", "small_general.combat", "--inputs", '{"hex_sides": true}')
    assert out.returncode == 2 and out.stderr == ("error: hex_sides: true is not a whole number; enter a whole "
                                                  "number from 1 to 6\n")
    out = cli("run", "atg.panic", "--inputs", '{"rules": {"panic_reading": false}}')
    assert "false is not allowed" in out.stderr and "False" not in out.stderr


def test_output_cut_short_by_the_reader_ends_quietly():
    """``python -m engine list | head -1``: no BrokenPipe traceback."""
    p = subprocess.Popen([sys.executable, "-m", "engine", "list"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode() if p.stderr else ""
    assert p.wait() == 0 and err == ""
