"""Command line on the widget registry.

    python -m engine list
    python -m engine run small_general.combat --inputs '{"terrain": "forest"}'
    python -m engine roll small_general.combat --seed 42
    python -m engine sweep small_general.combat --vary hex_sides --from 1 --to 6 --inputs '{"retreat_hexes": 0}' --format csv
    python -m engine compare sgs.battle --b '{"night": true}' --trials 2000 --workers 4
    python -m engine target atg.battle --figure attacker_won --at-least 0.8 --vary attackers.1.count --from 0 --to 12
    python -m engine estimate sgs.battle --precision 1%

(``compare``, ``sweep``, ``target``, ``sensitivity``, ``luck`` and ``estimate``: :mod:`engine.scenario_cli`.)

Invalid input prints one clear message to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from . import scenario_cli, widgets
from .schema import InputError, json_argument

def _print_inputs(fields: list[dict[str, Any]], indent: str) -> None:
    for f in fields:
        assumed = "  [assumed]" if f.get("assumed") else ""
        print(f"{indent}{f['name']} ({f['type']}, default {json.dumps(f['default'])}): {f['help']}{assumed}")
        print(f"{indent}    allowed: {f['allowed']}")
        if "fields" in f:
            _print_inputs(f["fields"], indent + "    ")
        if "item" in f:
            _print_inputs(f["item"]["fields"], indent + "    ")


def _print_scenario_terms(w: widgets.Widget) -> None:
    """What compare, sweep and target can name for this widget: its figures, and the inputs that can vary
    (a list's rows by their index, shown once as N)."""
    from . import scenarios
    if w.figures:
        print("    figures (compare, sweep, target --figure):")
        for f in w.figures:
            unit = "a probability" if f.probability else (f.unit or "a number")
            print(f"        {f.name}: {f.label} ({unit})")
    paths = dict.fromkeys(".".join("N" if part.isdigit() else part for part in v["input"].split("."))
                          for v in scenarios.varies(w))
    print(f"    inputs that can vary (sweep and target --vary): {', '.join(paths)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Wargame combat rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list widgets, their inputs, figures and the inputs that can vary")
    for name, text in (("run", "compute a widget's result"), ("roll", "play one seeded sample")):
        p = sub.add_parser(name, help=text)
        p.add_argument("widget", help="widget id, e.g. small_general.combat")
        p.add_argument("--inputs", default="{}", help="inputs as a JSON object")
        if name == "roll":
            p.add_argument("--seed", required=True, help="seed that replays the roll: a whole number, 0 to 2**53")
    scenario_cli.add_parsers(sub)
    args = parser.parse_args(argv)
    try:
        return _command(args)
    except BrokenPipeError:  # the reader stopped reading (``| head``): not an error of ours or theirs
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _command(args: argparse.Namespace) -> int:

    if args.command in scenario_cli.COMMANDS:
        return scenario_cli.command(args)
    if args.command == "list":
        for w in widgets.all_widgets():
            d = w.describe()
            print(f"{d['id']}: {d['title']}")
            _print_inputs(d["inputs"], "    ")
            _print_scenario_terms(w)
        return 0
    try:
        inputs = json_argument(args.inputs, "--inputs", object_only=True)
        w = widgets.get(args.widget)
        result = w.run(inputs) if args.command == "run" else w.roll(inputs, widgets.check_seed(args.seed))
    except (InputError, widgets.UnknownWidgetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception:  # a bug of ours: one line, never a traceback
        print("error: the engine could not compute these inputs (an error of ours, not of the input)", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
