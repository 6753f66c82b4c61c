"""The command line's ``compare``, ``sweep``, ``target``, ``sensitivity``, ``luck`` and ``estimate``
(``python -m engine compare|sweep|target|… WIDGET …``).

Same answers as the API ops of :mod:`engine.api` for the same state (the
JSON printed is the op's answer without HTML unless ``--html``), as JSON or
CSV. Monte Carlo jobs (:func:`engine.scenarios.figure_chunk`) run on every
local core (``--workers``, processes) or on a Dask cluster (``--scheduler
ADDRESS``; ``pip install wargame-engine[dask]``); tallies merge exactly by
trial index, so one process, many and a cluster print the same.

Dask is imported only here, and only when ``--scheduler`` is given: the
engine itself needs nothing beyond Python.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import luck, precision, scenarios, sensitivity, widgets
from .api import MAX_TRIAL_INDEX, html_digest
from .montecarlo import Tally
from .schema import WHOLE_TEXT, InputError, json_argument

COMMANDS = ("compare", "sweep", "target", "sensitivity", "luck", "estimate")


def add_parsers(sub: Any) -> None:
    """Add the scenario subcommands to ``python -m engine``'s parser."""
    for name, text in (("compare", "every figure of two states side by side, with the difference"),
                       ("sweep", "every figure along one input"),
                       ("target", "the least (or most) value of an input that reaches a figure's threshold"),
                       ("sensitivity", "how far each assumed setting's other readings move a figure, widest first"),
                       ("luck", "how often a result at least as far out as the one observed comes up")):
        p = sub.add_parser(name, help=text)
        p.add_argument("widget", help="widget id, e.g. small_general.combat")
        if name == "sensitivity":
            p.add_argument("--inputs", default="{}", help="inputs as a JSON object")
            p.add_argument("--figure", help="the figure to rank by (default the widget's first)")
            p.add_argument("--full", action="store_true", help="battles: every reading plays every trial (by default "
                                                               "one that changes almost no battle stops early)")
        elif name == "luck":
            p.add_argument("--inputs", default="{}", help="inputs as a JSON object")
            p.add_argument("--observed", required=True,
                           help='what happened, as JSON: {"result": "DEF Loss"}, or for a battle '
                                '{"ending": "defender_held", "attacker.lost": 6}')
        elif name == "compare":
            p.add_argument("--a", default="{}", help="state A (the pinned one) as a JSON object")
            p.add_argument("--b", default="{}", help="state B as a JSON object")
            p.add_argument("--pairing", default="common", choices=("common", "independent"),
                           help="battles: trial i of A and B share their dice (common) or not")
        else:
            p.add_argument("--inputs", default="{}", help="inputs as a JSON object")
            p.add_argument("--vary", required=True, help="the input to vary, a dotted path (attackers.0.count)")
            p.add_argument("--values", help="its values as a JSON list")
            p.add_argument("--from", dest="start", help="first value of a range")
            p.add_argument("--to", dest="stop", help="last value of a range")
            p.add_argument("--step", help="step of a range (default 1)")
        if name == "target":
            p.add_argument("--figure", required=True, help="the figure's name (see python -m engine list)")
            goal = p.add_mutually_exclusive_group(required=True)
            goal.add_argument("--at-least", help="threshold the figure must reach (a probability as 0.8 or 4/5)")
            goal.add_argument("--at-most", help="threshold the figure must stay under or at")
            p.add_argument("--most", action="store_true", help="the most value that reaches it (default the least)")
            p.add_argument("--round", type=int, default=200, help="battles: trials per undecided point per round")
            p.add_argument("--max-trials", type=int, help="battles: most trials per point (default 4 × a run)")
        if name in ("compare", "sweep"):
            p.add_argument("--figures", help="only these figures, comma-separated")
        if name != "target":
            p.add_argument("--trials", type=int, help="battles: trials of the run (default the widget's)")
        if name == "luck":
            p.set_defaults(format="json")
        p.add_argument("--seed", default="1", help="battles: the run's seed, 0 to 2**53 (default 1)")
        p.add_argument("--format", default="json", choices=("json", "csv"), help="output format")
        p.add_argument("--html", action="store_true", help="json: include the HTML (table and SVG charts)")
        p.add_argument("--workers", type=int, default=0, help="local processes for battles (default every core)")
        p.add_argument("--chunk", type=int, default=0, help="trials per job (default: about four jobs a worker)")
        p.add_argument("--scheduler", help="a Dask scheduler's address (tcp://host:8786): run the jobs there")
    p = sub.add_parser("estimate", help="a Monte Carlo run: a fixed number of trials, or until the headline figure "
                                        "is known to a stated precision")
    p.add_argument("widget", help="widget id, e.g. sgs.battle")
    p.add_argument("--inputs", default="{}", help="inputs as a JSON object")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--trials", help="trials of the run (default the widget's)")
    size.add_argument("--precision", help="run until the headline figure's interval is within ± this (1%%), looked "
                                          "at after the widget's run size, then each doubling, up to "
                                          f"{precision.MAX_PRECISION_TRIALS:,} trials")
    p.add_argument("--seed", default="1", help="the run's seed, 0 to 2**53 (default 1)")
    p.add_argument("--html", action="store_true", help="include the HTML of the estimate")
    p.add_argument("--workers", type=int, default=0, help="local processes (default every core)")
    p.add_argument("--chunk", type=int, default=0, help="trials per job (default: about four jobs a worker)")
    p.add_argument("--scheduler", help="a Dask scheduler's address (tcp://host:8786): run the jobs there")


def estimate(args: argparse.Namespace, mapper: scenarios.Mapper, workers: int) -> dict[str, Any]:
    """A whole Monte Carlo run: its trials, figures and the digest of its HTML (the page shows the same
    HTML for the same inputs, seed and trials or precision), with where a run to a precision stopped."""
    w = widgets.get(args.widget)
    if w.trial is None or w.render_tally is None:
        raise InputError("", f"{w.id} has no Monte Carlo estimate")
    inputs = json_argument(args.inputs, "--inputs", object_only=True)
    seed = widgets.check_seed(args.seed)
    values = w.validate(inputs)
    answer: dict[str, Any] = {"widget": w.id, "seed": seed}
    if args.precision is not None:
        goal = precision.parse_target(args.precision)
        precision.headline(w)
        chunk = args.chunk or max(25, math.ceil(w.trials / (4 * workers)))
        tally, answer["precision"] = precision.run(w.id, inputs, seed, goal, chunk=chunk, mapper=mapper)
    else:
        text = str(w.trials) if args.trials is None else args.trials.strip()
        if not WHOLE_TEXT.fullmatch(text) or not 1 <= int(text) <= MAX_TRIAL_INDEX:
            raise InputError("trials", f"{text[:24]!r} is not a number of trials; enter a whole number from 1 to "
                             f"{MAX_TRIAL_INDEX}", f"1..{MAX_TRIAL_INDEX}")
        trials = int(text)
        chunk = args.chunk or max(25, math.ceil(trials / (4 * workers)))
        tally = Tally(w.tally_key(values, seed), w.confidence)
        jobs = [(w.id, inputs, seed, a, min(chunk, trials - a)) for a in range(0, trials, chunk)]
        for part in mapper(precision.stage_chunk, jobs):
            tally = tally.merged(Tally.from_json(part))
    html = w.render_tally(tally, values)
    answer.update(trials=tally.trials, figures=precision.figure_values(w, tally), digest=html_digest(html))
    if args.html:
        answer["html"] = html
    return answer


def message_of(args: argparse.Namespace) -> dict[str, Any]:
    """The API request (:func:`engine.api.handle_message`) that this command line describes."""
    w = widgets.get(args.widget)
    m: dict[str, Any] = {"op": args.command, "widget": w.id, "seed": widgets.check_seed(args.seed)}
    if args.command == "compare":
        m.update(pinned=json_argument(args.a, "--a", object_only=True), inputs=json_argument(args.b, "--b", object_only=True), pairing=args.pairing)
    elif args.command == "luck":
        m["inputs"] = json_argument(args.inputs, "--inputs", object_only=True)
        m["observed"] = json_argument(args.observed, "--observed", object_only=True)
        if args.trials is not None:
            m["trials"] = args.trials
        return m
    elif args.command == "sensitivity":
        m["inputs"] = json_argument(args.inputs, "--inputs", object_only=True)
        if args.figure is not None:
            m["figure"] = args.figure
        if args.trials is not None:
            m["trials"] = args.trials
        if args.full:
            m["full"] = True
        return m
    else:
        m["inputs"] = json_argument(args.inputs, "--inputs", object_only=True)
        vary: dict[str, Any] = {"input": args.vary}
        if args.values is not None:
            vary["values"] = json_argument(args.values, "--values")
        for key, value in (("from", args.start), ("to", args.stop), ("step", args.step)):
            if value is not None:
                vary[key] = value
        m["vary"] = vary
    if args.command == "target":
        m.update(figure=args.figure, threshold=args.at_least if args.at_least is not None else args.at_most,
                 goal="at_least" if args.at_least is not None else "at_most",
                 direction="most" if args.most else "least", count=args.round)
        if args.max_trials is not None:
            m["max_trials"] = args.max_trials
    else:
        if args.figures:
            m["figures"] = [x.strip() for x in args.figures.split(",") if x.strip()]
        if args.trials is not None:
            m["trials"] = args.trials
    return m


MAX_LOCAL_WORKERS = 64
"""Most local processes ``--workers`` may ask for: more than a machine here runs at once, where a slip of the
keyboard's million would start a process for every job."""


@contextmanager
def mapper_for(workers: int, scheduler: str | None) -> Iterator[scenarios.Mapper]:
    """Where jobs run: here (one worker), a local process pool, or a Dask cluster (imported only then)."""
    if scheduler:
        try:
            from dask.distributed import Client  # optional: pip install wargame-engine[dask]
        except ImportError:
            raise InputError("scheduler", "--scheduler needs dask.distributed: pip install 'wargame-engine[dask]'",
                             "install the dask extra") from None
        try:
            client = Client(scheduler, timeout="15s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError("scheduler", f"no Dask scheduler answers at {scheduler[:60]!r} ({type(exc).__name__})",
                             "a scheduler's address, such as tcp://host:8786") from None
        try:
            yield dask_mapper(client)
        finally:
            client.close()
        return
    if workers <= 1:
        yield scenarios.serial
        return
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(workers) as pool:
        def mapper(fn: Callable[..., Any], jobs: list[tuple[Any, ...]]) -> list[Any]:
            return list(pool.map(fn, *zip(*jobs))) if jobs else []
        yield mapper


def dask_mapper(client: Any) -> scenarios.Mapper:
    """Jobs as Dask tasks on ``client``'s cluster, answers in the jobs' order."""
    def mapper(fn: Callable[..., Any], jobs: list[tuple[Any, ...]]) -> list[Any]:
        if not jobs:
            return []
        return list(client.gather(client.map(fn, *zip(*jobs), pure=False)))
    return mapper


def run(message: dict[str, Any], mapper: scenarios.Mapper = scenarios.serial, chunk: int = 0,
        render: bool = False) -> dict[str, Any]:
    """Answer a compare, sweep or target request whole (every trial, every round), with ``mapper`` running
    the jobs. The answer equals :func:`engine.api.handle_message`'s for the same request when that one
    is given every trial at once."""
    w = widgets.get(message["widget"])
    op = message["op"]
    seed = message.get("seed", 1)
    if op == "compare":
        kw: dict[str, Any] = {}
        if w.trial is not None:
            kw = {"seed": seed, "trials": message.get("trials", w.trials), "pairing": message.get("pairing", "common"),
                  "chunk": chunk, "mapper": mapper}
        return scenarios.compare(w.id, message.get("pinned"), message.get("inputs"), figures=message.get("figures"),
                                 render=render, **kw)
    if op == "luck":
        kw = {}
        if w.trial is not None:
            kw = {"seed": seed, "trials": message.get("trials", w.trials)}
        return luck.luck(w.id, message.get("inputs"), message.get("observed"), render=render, **kw)
    if op == "sensitivity":
        kw = {}
        if w.trial is not None:
            kw = {"seed": seed, "trials": message.get("trials", w.trials), "chunk": chunk, "mapper": mapper,
                  "full": bool(message.get("full"))}
        return sensitivity.sensitivity(w.id, message.get("inputs"), figure=message.get("figure"), render=render, **kw)
    if op == "sweep":
        kw = {}
        if w.trial is not None:
            kw = {"seed": seed, "trials": message.get("trials", w.trials), "chunk": chunk, "mapper": mapper}
        return scenarios.sweep(w.id, message.get("inputs"), message.get("vary"), figures=message.get("figures"),
                               render=render, **kw)
    kw = {}
    if w.trial is not None:
        kw = {"seed": seed, "count": message.get("count", 100), "max_trials": message.get("max_trials", 4 * w.trials),
              "chunk": chunk, "mapper": mapper}
    answer = scenarios.target(w.id, message.get("inputs"), message.get("figure"), message.get("threshold"),
                              message.get("vary"), goal=message["goal"], direction=message["direction"],
                              render=render and w.trial is None, **kw)
    while not answer["done"]:
        answer = scenarios.target(w.id, message.get("inputs"), message.get("figure"), message.get("threshold"),
                                  message.get("vary"), goal=message["goal"], direction=message["direction"],
                                  tallies=answer["tallies"], render=False, **kw)
    if render and "html" not in answer:
        answer["html"] = scenarios.target_html(answer)
    return answer


def _cell(v: dict[str, Any] | None, key: str) -> str:
    return "" if v is None or key not in v else repr(v[key]) if isinstance(v[key], float) else str(v[key])


def write_csv(answer: dict[str, Any], out: Any) -> None:
    """One row per figure (compare) or per point (sweep, target): float, exact text, and the interval of
    estimates, in columns a spreadsheet or pandas reads."""
    w = csv.writer(out, lineterminator="\n")
    est = answer["kind"] == "estimate"
    parts = ("float", "exact", "low", "high") if est else ("float", "exact")
    if "sentence" in answer and "settings" not in answer:  # luck: the shares it rests on
        w.writerow(["what", "value", "share", "low", "high"])
        if answer["kind"] == "exact":
            for key in ("this", "worse", "better"):
                w.writerow([key, answer["result"], answer[key]["float"], "", ""])
        for p in answer.get("parts", []):
            for key in ("share", "at_most", "at_least"):
                if key in p:
                    w.writerow([f"{p['what']} {key}", json.dumps(p["value"]), p[key]["float"], p[key]["low"], p[key]["high"]])
        return
    if "settings" in answer:  # sensitivity: one row per reading tried, widest spread first
        w.writerow(["setting", "label", "now", "reading", *[f"figure_{p}" for p in parts],
                    *[f"change_{p}" for p in parts], *(["battles", "stopped"] if answer.get("stopping") else [])])
        for r in answer["settings"]:
            for a in r["alternatives"]:
                played = [a["trials"], "yes" if a["stopped"] else "no"] if answer.get("stopping") else []
                w.writerow([r["input"], r["label"], json.dumps(r["value"]), json.dumps(a["value"]),
                            *[_cell(a["figure"], p) for p in parts], *[_cell(a["diff"], p) for p in parts], *played])
        return
    if "a" in answer and "points" not in answer:
        w.writerow(["figure", "label", "unit", *[f"{s}_{p}" for s in ("a", "b", "diff") for p in parts]])
        for r in answer["figures"]:
            w.writerow([r["name"], r["label"], r["unit"], *[_cell(r[s], p) for s in ("a", "b", "diff") for p in parts]])
        return
    if "figure" in answer:
        name = answer["figure"]["name"]
        w.writerow([answer["input"], "status", *[f"{name}_{p}" for p in parts]])
        for p in answer["points"]:
            w.writerow([json.dumps(p["value"]), p["status"], *[_cell(p.get("figure"), q) for q in parts]])
        return
    names = [f["name"] for f in answer["figures"]]
    w.writerow([answer["input"], *[f"{n}_{p}" for n in names for p in parts], "error"])
    for p in answer["points"]:
        figs = p.get("figures", {})
        w.writerow([json.dumps(p["value"]), *[_cell(figs.get(n), q) for n in names for q in parts], p.get("error", "")])


def command(args: argparse.Namespace) -> int:
    """Run a compare, sweep or target command line; exit 2 on bad input, 1 on an error of ours."""
    try:
        if not 0 <= args.workers <= MAX_LOCAL_WORKERS:
            raise InputError("workers", f"{args.workers} is not a number of local processes; give 0 (every core) to "
                             f"{MAX_LOCAL_WORKERS}", f"0..{MAX_LOCAL_WORKERS}")
        if args.chunk < 0:
            raise InputError("chunk", f"{args.chunk} is not a number of trials per job; give 0 (about four jobs a "
                             "worker) or more", "0 or more")
        workers = args.workers or os.cpu_count() or 1
        if args.command == "estimate":
            with mapper_for(workers, args.scheduler) as mapper:
                answer = estimate(args, mapper, workers)
            json.dump(answer, sys.stdout, indent=2)
            print()
            return 0
        message = message_of(args)
        w = widgets.get(message["widget"])
        chunk = args.chunk
        if w.trial is not None and not chunk:
            trials = message.get("trials", w.trials) if args.command != "target" else message.get("count", 200)
            chunk = max(25, math.ceil(trials / (4 * workers)))
        battle = w.trial is not None  # a calculator's points are computed here: nothing to send anywhere
        with mapper_for(workers if battle else 1, args.scheduler if battle else None) as mapper:
            answer = run(message, mapper, chunk, render=args.html)
    except (InputError, widgets.UnknownWidgetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception:  # a bug of ours (or a cluster that failed): one line, never a traceback
        print("error: the engine could not compute these inputs (an error of ours, not of the input)", file=sys.stderr)
        return 1
    if args.format == "csv":
        write_csv(answer, sys.stdout)
        if "message" in answer:
            print(answer["message"], file=sys.stderr)
    else:
        json.dump(answer, sys.stdout, indent=2)
        print()
    return 0
