#!/usr/bin/env python3
"""Benchmark the Monte Carlo battles: CPython against the browser, one worker and several.

    .venv/bin/python bench/simulation.py [--runs N] [--trials N] [--workers 1,2] [--precision 1]
                                         [--only-big | --only-precision] [--out bench/simulation.json]

For each stochastic battle system (Advanced Tactics Gold, 40 individuals a
side on land; the card game, its default battle of 12 units a side with
every kind of round), one run of this script:

1. builds the site into a temporary folder;
2. times the engine in CPython: ``estimate`` over the whole run in one call,
   on one core (battles per second);
3. serves the site on 127.0.0.1 and, in Debian's Chromium (Playwright,
   headless), opens the battle's page with a link that sets the battle, with
   the page's pool fixed at 1, 2, ... workers (``globalThis.rulesExplorerWorkers``).
   After a warm-up run, once any extra worker is up, it sets the
   number of battles, which starts a run as a reader's change does, and
   measures from that change the first streamed estimate on screen and the
   run's end (battles per second). It then runs the same battles again
   while changing the other calculator on the same page all along, one
   change at a time with a short pause, and measures that run's length and
   the calculator's recompute latency (input change to its
   ``widget-result`` event). Every final estimate's digest must equal
   CPython's for the same (inputs, seed, N), or the script fails;
4. opens AT Gold's largest legal battle (16 rows of 100 a side, a second or
   more a battle) as a reader would, in Chromium and Firefox (Firefox driven
   through ``tests/firefox_driver.mjs``), with the pool as the page sizes it:
   the link starts a run, and the other calculator on the page is changed
   all along, one change at a time with a short pause; its recompute latency
   is kept apart for the first trial (the one the page's own engine times
   while no extra worker is live yet) and for the rest of the run (issue 20:
   p95 under 20 ms);
5. runs AT Gold 40 against 40 until its headline is within ±1 % (``--precision``;
   the page's "until within ±X %" mode, engine/precision.py) in Chromium with
   the pool fixed at two workers, warmed up and the extra worker up as in 3:
   from setting the precision box (which chooses that mode and starts the
   run, as a reader's typing does) to the run's end, and the trial count it
   stopped at (issue 22: within 15 s). The count and the estimate's digest
   must equal CPython's ``precision.run`` for (inputs, seed 1, target), whose
   time on one core is printed beside it;
6. prints a table with the targets of issues 13-15, 20 and 22 and writes every
   sample to JSON.

The demo estimator the tests use lives in the test fixtures, not in the
shipped engine; the two shipped battle estimators are measured instead.
This is a benchmark, not a test: it fails only when something cannot be
measured or a figure disagrees with CPython.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import benchmark  # noqa: E402
from engine import api, precision, widgets  # noqa: E402


@dataclass(frozen=True)
class Scenario:
    """One battle measured: its widget instance on a page, the battle, and a calculator beside it."""

    system: str
    label: str
    page: str
    instance: str
    inputs: dict[str, Any]
    calculator: str
    """Instance of another widget on the same page, whose recompute is timed during the run
    (its first number input, stepped by one and back)."""
    target_ms: float
    """The issue's bound for the whole run of --trials battles in the browser."""


SCENARIOS = (
    Scenario("atg", "Advanced Tactics Gold, 40 against 40 on land", "atg/interception.html", "atg-intercept-battle",
             {"combat": "land",
              "attackers": [{"type": "Infantry", "count": 24}, {"type": "Tank", "count": 8},
                            {"type": "Machine guns", "count": 8}],
              "defenders": [{"type": "Infantry", "count": 24, "entrenchment": 30},
                            {"type": "Anti-tank gun", "count": 8}, {"type": "Machine guns", "count": 8}],
              "interceptors": [], "aa_support": []},
             "atg-intercept", 10_000),
    Scenario("sgs", "Card game, 12 against 12, every kind of round", "sgs/panic-rout-and-pursuit.html", "sgs-battle",
             {}, "sgs-panic", 5_000),
)

TARGETS = {"browser_ratio": 0.5, "first_ms": 1000.0, "recompute_p95_ms": 20.0, "precision_ms": 15_000.0}

PRECISION = "1"
"""The target of the run to a precision of SCENARIOS[0] (issue 22: ±1 % of AT Gold 40 v 40 within 15 s)."""
PRECISION_WORKERS = 2
"""The pool it is measured with (issue 22: on two workers)."""
PRECISION_TIMEOUT_MS = 600_000

BIG_ROWS = [{"type": "Infantry", "count": 100}] * 8 + [{"type": "Tank", "count": 100}] * 8
BIG = Scenario("atg", "Advanced Tactics Gold, the largest battle (16 rows of 100 a side)", "atg/interception.html",
               "atg-intercept-battle",
               {"combat": "land", "attackers": BIG_ROWS, "defenders": [dict(u, entrenchment=30) for u in BIG_ROWS],
                "interceptors": [], "aa_support": []},
               "atg-intercept", 0)
BIG_TRIALS = 60
"""Battles in the big run (it is stopped once the changes are done)."""

# Changes the calculator `samples` times while the battle's run goes on,
# into window.benchBig (the drivers need no promise): each change's latency,
# and whether it was made past the first trial with an extra worker live.
BIG_JS = """({ sim, calc, controlSelector, values, samples, pauseMs }) => {
  const root = document.querySelector(sim);
  const section = document.getElementById(calc);
  const control = document.querySelector(controlSelector);
  window.benchBig = { samples: [], done: false };
  (async () => {
    for (let i = 0; i < samples && root.dataset.state === "running"; i++) {
      const past = Number(root.querySelector("progress").value) >= 1
        && (window.rulesExplorer.pool.helpers ?? []).some((h) => h.state === "live");
      const shown = new Promise((r) => section.addEventListener("widget-result", () => r(performance.now()), { once: true }));
      const start = performance.now();
      control.value = values[(i + 1) % 2];
      control.dispatchEvent(new Event("input", { bubbles: true }));
      control.dispatchEvent(new Event("change", { bubbles: true }));
      window.benchBig.samples.push({ ms: (await shown) - start, past });
      await new Promise((r) => setTimeout(r, pauseMs));
    }
    window.benchBig.done = true;
  })();
}"""

RUN_JS = """
async ({ sim, calc, controlSelector, values, trials, timeoutMs, pauseMs, box = "input.sim-trials", value = null }) => {
  const root = document.querySelector(sim);
  const result = root.querySelector(".sim-result");
  const trialsInput = root.querySelector(box);
  const calcSection = calc ? document.getElementById(calc) : null;
  const control = controlSelector ? document.querySelector(controlSelector) : null;
  let first = null;
  let t0 = 0;
  new MutationObserver(() => { if (first === null && root.dataset.state === "running") first = performance.now() - t0; })
    .observe(result, { childList: true, subtree: true, characterData: true });
  const ended = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the run did not end within ${timeoutMs} ms`)), timeoutMs);
    const observer = new MutationObserver(() => {
      if (["done", "failed", "stopped"].includes(root.dataset.state) && started) {
        clearTimeout(timer); observer.disconnect(); resolve(performance.now());
      }
    });
    observer.observe(root, { attributes: true, attributeFilter: ["data-state"] });
  });
  let started = false;
  t0 = performance.now();
  trialsInput.value = String(value ?? trials);
  // typing in the box chooses its kind of run (a number of trials, or a precision); a change runs it
  trialsInput.dispatchEvent(new Event("input", { bubbles: true }));
  trialsInput.dispatchEvent(new Event("change", { bubbles: true }));
  // started once the page says so (the run is replaced by nothing else here)
  await new Promise((resolve) => {
    const check = () => (root.dataset.state === "running" ? resolve() : setTimeout(check, 1));
    check();
  });
  started = true;
  let done = false;
  const endAt = ended.then((at) => { done = true; return at; });
  const samples = [];
  if (calcSection && control) {
    for (let i = 0; !done; i++) {
      const shown = new Promise((resolve) => calcSection.addEventListener("widget-result", () => resolve(performance.now()), { once: true }));
      const start = performance.now();
      control.value = values[(i + 1) % 2];
      control.dispatchEvent(new Event("input", { bubbles: true }));
      control.dispatchEvent(new Event("change", { bubbles: true }));
      const at = await Promise.race([shown, endAt.then(() => null)]);
      if (at !== null) samples.push(at - start);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  const end = await endAt;
  return { ms: end - t0, first_ms: first, state: root.dataset.state, digest: result.dataset.digest ?? null,
           html: result.innerHTML, recompute_ms: samples, trials_done: root.dataset.trialsDone ?? null,
           run_workers: root.dataset.workers ?? null, workers: (window.rulesExplorer?.pool?.size ?? 1) };
}
"""


def cpython_rate(w: widgets.Widget, values: dict[str, Any], trials: int) -> dict[str, Any]:
    started = time.perf_counter()
    tally = w.estimate(values, 1, 0, trials)
    seconds = time.perf_counter() - started
    html = w.render_tally(tally, values)
    return {"seconds": seconds, "rate": trials / seconds, "digest": api.html_digest(html)}


def link_for(out: Path, s: Scenario, w: widgets.Widget, values: dict[str, Any]) -> str:
    html = (out / s.page).read_text(encoding="utf-8")
    m = re.search(rf'<section[^>]*id="{s.instance}".*?<script type="application/json" class="widget-base">(.*?)</script>',
                  html, re.S)
    if not m:
        raise SystemExit(f"no #{s.instance} with a widget base on {s.page}")
    base = w.validate(json.loads(m.group(1)))
    state = w.state_text(values, base)
    return f"/{s.page}" + (f"?{s.instance}={quote(state, safe='~.')}" if state else "")


def calculator_change(out: Path, s: Scenario) -> tuple[str, list[str]] | tuple[None, list[str]]:
    """A number input of the page's calculator and two values to alternate between."""
    html = (out / s.page).read_text(encoding="utf-8")
    section = re.search(rf'<section[^>]*id="{s.calculator}".*?</section>', html, re.S)
    if not section:
        return None, []
    # Whole numbers are text boxes with inputmode="numeric" since session 7 (a message quotes what was typed);
    # the benchmark looked for type="number" and so measured no recompute at all until session 8.
    for m in re.finditer(r'<input type="text" inputmode="numeric"[^>]*class="whole"[^>]*>', section.group(0)):
        tag = m.group(0)
        ident = re.search(r'id="([^"]+)"', tag)
        value = re.search(r'value="(-?\d+)"', tag)
        high = re.search(r'max="(-?\d+)"', tag)
        if ident and value and "sim-trials" not in tag:
            v = int(value.group(1))
            other = v - 1 if high and v + 1 > int(high.group(1)) else v + 1
            return f"#{ident.group(1)}", [str(v), str(other)]
    return None, []


def warm_page(ctx: Any, origin: str, link: str, s: Scenario, warmup: int, args: dict[str, Any]) -> Any:
    """The battle's page, live, after a warm-up run of `warmup` battles, with every extra worker up."""
    page = ctx.new_page()
    page.goto(origin + link, wait_until="commit")
    benchmark.wait_widgets_live(page, "/" + s.page)
    benchmark.wait_engine_warm(page)
    page.evaluate(RUN_JS, {**args, "trials": warmup, "calc": None})  # warms the code up
    # Extra workers start once a run goes on for half a second; here they
    # start now, and the measured run begins once they are up.
    page.evaluate("() => window.rulesExplorer.pool.startHelpers()")
    page.wait_for_function("() => (window.rulesExplorer.pool.helpers ?? []).every((h) => h.state !== 'loading')")
    return page


def browser_run(ctx: Any, origin: str, link: str, s: Scenario, control: str | None, values: list[str],
                trials: int, warmup: int) -> dict[str, Any]:
    sim = f"#{s.instance} .widget-sim"
    args = {"sim": sim, "calc": s.calculator, "controlSelector": control, "values": values,
            "timeoutMs": benchmark.TIMEOUT_MS, "pauseMs": 30}
    page = warm_page(ctx, origin, link, s, warmup, args)
    try:
        alone = page.evaluate(RUN_JS, {**args, "trials": trials, "calc": None})
        busy = page.evaluate(RUN_JS, {**args, "trials": trials})
        return {**alone, "busy_ms": busy["ms"], "busy_state": busy["state"], "busy_digest": busy["digest"],
                "recompute_ms": busy["recompute_ms"]}
    finally:
        page.close()


def precision_run(ctx: Any, origin: str, link: str, s: Scenario, target: str, warmup: int) -> dict[str, Any]:
    """A run until the headline is within ±target %, started by setting the precision box as a reader does."""
    args = {"sim": f"#{s.instance} .widget-sim", "calc": None, "controlSelector": None, "values": [],
            "timeoutMs": PRECISION_TIMEOUT_MS, "pauseMs": 30}
    page = warm_page(ctx, origin, link, s, warmup, args)
    try:
        got = page.evaluate(RUN_JS, {**args, "trials": None, "box": "input.sim-precision", "value": target})
        got["progress"] = page.evaluate("(s) => document.querySelector(s + ' .sim-progress-text').textContent",
                                        args["sim"])
        return got
    finally:
        page.close()


def measure_precision(browser: Any, out: Path, origin: str, runs: int, target: str, warmup: int,
                      started: float) -> dict[str, Any]:
    """SCENARIOS[0] run to ±target % on PRECISION_WORKERS workers, against CPython's precision.run."""
    s = SCENARIOS[0]
    w = widgets.get(f"{s.system}.battle")
    values = w.validate(s.inputs)
    link = link_for(out, s, w, values)
    entry: dict[str, Any] = {"label": s.label, "link": link, "target": target, "workers": PRECISION_WORKERS,
                             "cpython": [], "browser": []}
    for run in range(runs):
        t0 = time.perf_counter()
        tally, state = precision.run(w.id, values, 1, target)
        cp = {"seconds": time.perf_counter() - t0, "trials": state["trials"], "met": state["met"],
              "sentence": state["sentence"], "digest": api.html_digest(w.render_tally(tally, values))}
        entry["cpython"].append(cp)
        ctx = browser.new_context()
        ctx.add_init_script(f"globalThis.rulesExplorerWorkers = {PRECISION_WORKERS};")
        ctx.set_default_timeout(benchmark.TIMEOUT_MS)
        try:
            b = precision_run(ctx, origin, link, s, target, warmup)
        finally:
            ctx.close()
        b.pop("html")
        trials = int(b["trials_done"]) if (b["trials_done"] or "").isdigit() else None
        if b["state"] != "done" or trials != cp["trials"] or b["digest"] != cp["digest"]:
            raise SystemExit(f"{s.system}, run to ±{target} %: ended {b['state']} at {b['trials_done']} trials with "
                             f"digest {b['digest']}; CPython stops at {cp['trials']} with {cp['digest']}")
        entry["browser"].append(b)
        print(f"[{time.monotonic() - started:4.0f} s] {s.system} run to ±{target} %, run {run + 1}: browser x"
              f"{PRECISION_WORKERS} {b['ms'] / 1000:.2f} s, CPython {cp['seconds']:.2f} s, stopped at {trials} "
              f"trials ({b['run_workers']} worker(s) in the last stage): {cp['sentence']}", flush=True)
    return entry


def big_battle(driver: Any, origin: str, link: str, control: str, values: list[str], samples: int) -> dict[str, Any]:
    """One reader's visit to the largest battle: the calculator's recompute latencies during its run."""
    sim = f"#{BIG.instance} .widget-sim"
    driver.open(f"{origin}{link}&{BIG.instance}.trials={BIG_TRIALS}#{BIG.instance}")
    driver.wait("() => document.documentElement.dataset.widgetsLive", timeout=benchmark.TIMEOUT_MS / 1000)
    driver.wait("(s) => document.querySelector(s).dataset.state === 'running'", sim, timeout=60)
    driver.call(BIG_JS, {"sim": sim, "calc": BIG.calculator, "controlSelector": control, "values": values,
                         "samples": samples, "pauseMs": 30})
    big = driver.wait("() => window.benchBig.done && window.benchBig", timeout=600)
    state = driver.call("(s) => document.querySelector(s).dataset.state", sim)
    workers = driver.call("() => (window.rulesExplorer.pool.helpers ?? []).length")
    driver.call("(s) => document.querySelector(s + ' [data-action=sim-stop]').click()", sim)
    return {"first_ms": [x["ms"] for x in big["samples"] if not x["past"]],
            "run_ms": [x["ms"] for x in big["samples"] if x["past"]], "state_at_end": state, "extra_workers": workers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (default 3)")
    parser.add_argument("--trials", type=int, default=1000, help="battles in a measured run (default 1000)")
    parser.add_argument("--warmup", type=int, default=300, help="battles in the warm-up run before it (default 300)")
    parser.add_argument("--workers", default="1,2", help="pool sizes to measure, comma-separated (default 1,2)")
    parser.add_argument("--site", type=Path, help="an already built site to serve instead of building one")
    parser.add_argument("--big", default="chromium,firefox",
                        help="browsers for the largest battle, comma-separated, or 'none' (default chromium,firefox)")
    parser.add_argument("--big-samples", type=int, default=60, help="calculator changes during the big run (default 60)")
    parser.add_argument("--only-big", action="store_true", help="measure only the largest battle")
    parser.add_argument("--precision", default=PRECISION,
                        help="target in %% of the run of AT Gold 40 v 40 to a precision, or 'none' (default 1)")
    parser.add_argument("--only-precision", action="store_true", help="measure only the run to a precision")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "simulation.json", help="JSON results file")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.workers.split(",")]
    if args.only_big and args.only_precision:
        parser.error("--only-big and --only-precision exclude each other")
    if args.only_precision and args.precision == "none":
        parser.error("--only-precision needs a --precision")
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    raw: dict[str, Any] = {}
    with benchmark.served_site(args.site, "bench-sim-") as (out, server, _):
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=benchmark.CHROMIUM, args=benchmark.CHROMIUM_ARGS,
                                         headless=True)
            try:
                for s in ([] if args.only_big or args.only_precision else SCENARIOS):
                    w = widgets.get(f"{s.system}.battle")
                    values = w.validate(s.inputs)
                    link = link_for(out, s, w, values)
                    control, alternate = calculator_change(out, s)
                    entry = raw[s.system] = {"label": s.label, "link": link, "cpython": [],
                                             "browser": {str(k): [] for k in sizes}}
                    for run in range(args.runs):
                        cp = cpython_rate(w, values, args.trials)
                        entry["cpython"].append(cp)
                        for k in sizes:
                            ctx = browser.new_context()
                            ctx.add_init_script(f"globalThis.rulesExplorerWorkers = {k};")
                            ctx.set_default_timeout(benchmark.TIMEOUT_MS)
                            try:
                                b = browser_run(ctx, server.origin, link, s, control, alternate, args.trials,
                                                args.warmup)
                            finally:
                                ctx.close()
                            for state, digest in ((b["state"], b["digest"]), (b["busy_state"], b["busy_digest"])):
                                if state != "done" or digest != cp["digest"]:
                                    raise SystemExit(f"{s.system}, {k} worker(s): a run ended {state} with "
                                                     f"digest {digest}, CPython's is {cp['digest']}")
                            b.pop("html")
                            b["rate"] = args.trials / (b["ms"] / 1000)
                            entry["browser"][str(k)].append(b)
                            # a run that ends before any estimate streams (the card game's, on a fast machine) has no first
                            first = "none before the end" if b["first_ms"] is None else f"{b['first_ms']:.0f} ms"
                            print(f"[{time.monotonic() - started:4.0f} s] {s.system} run {run + 1}: CPython "
                                  f"{cp['rate']:.0f}/s, browser x{k} {b['rate']:.0f}/s, first {first}, recompute p95 "
                                  f"{benchmark.percentile(b['recompute_ms'], 95) or 0:.1f} ms", flush=True)
                if args.precision != "none" and not args.only_big:
                    raw["precision"] = measure_precision(browser, out, server.origin, args.runs, args.precision,
                                                         args.warmup, started)
                big_browsers = [] if args.big == "none" or args.only_precision else args.big.split(",")
                if big_browsers:
                    raw["big"] = measure_big(browser, big_browsers, out, server.origin, args.runs, args.big_samples,
                                             started)
            finally:
                browser.close()
    rows = summarise(raw, sizes, args.trials)
    print()
    print(table(rows))
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": benchmark.machine(benchmark.chromium_version()), "git": benchmark.git_state(),
              "settings": {"runs": args.runs, "trials": args.trials, "warmup": args.warmup, "workers": sizes,
                           "precision": args.precision, "targets": TARGETS}, "figures": rows, "raw": raw, "wall_s": time.monotonic() - started}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out} ({result['wall_s']:.0f} s in all)")
    return 0


def measure_big(browser: Any, names: list[str], out: Path, origin: str, runs: int, samples: int,
                started: float) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    import browsers  # noqa: PLC0415 (the tests' driver layer)

    w = widgets.get("atg.battle")
    link = link_for(out, BIG, w, w.validate(BIG.inputs))
    control, values = calculator_change(out, BIG)
    if control is None:
        raise SystemExit(f"no number input in #{BIG.calculator}")
    entry: dict[str, Any] = {"label": BIG.label, "link": link, "trials": BIG_TRIALS, "browsers": {}}
    for name in names:
        driver = browsers.Chromium(browser) if name == "chromium" else browsers.Firefox()
        try:
            for run in range(runs):
                b = big_battle(driver, origin, link, control, values, samples)
                entry["browsers"].setdefault(name, []).append(b)
                print(f"[{time.monotonic() - started:4.0f} s] largest battle, {name}, run {run + 1}: recompute p95 "
                      f"{benchmark.percentile(b['run_ms'], 95) or 0:.1f} ms past the first trial "
                      f"({len(b['run_ms'])} changes), {len(b['first_ms'])} during it (max "
                      f"{max(b['first_ms'], default=0):.0f} ms), {b['extra_workers']} extra worker(s)", flush=True)
        finally:
            driver.quit()
    return entry


def summarise(raw: dict[str, Any], sizes: list[int], trials: int) -> list[dict[str, Any]]:
    rows = []
    for name, runs in raw.get("big", {}).get("browsers", {}).items():
        during = [x for r in runs for x in r["run_ms"]]
        first = [x for r in runs for x in r["first_ms"]]
        p95 = benchmark.percentile(during, 95)
        p50 = benchmark.percentile(during, 50)
        rows += [
            {"figure": f"largest ATG battle, {name}: calculator recompute during the run, p50 / p95",
             "value": f"{p50:.1f} / {p95:.1f} ms" if p95 is not None else "-",
             "target": f"p95 < {TARGETS['recompute_p95_ms']:.0f} ms: {'met' if p95 is not None and p95 < TARGETS['recompute_p95_ms'] else 'not met'}"},
            {"figure": f"largest ATG battle, {name}: changes during the first trial, longest wait",
             "value": f"{len(first)}, {max(first):.0f} ms" if first else "0", "target": ""},
        ]
    if "precision" in raw:
        p = raw["precision"]
        ms = benchmark.median([r["ms"] for r in p["browser"]])
        stopped_at = p["cpython"][0]["trials"]  # not `trials`: the rows below label the fixed runs with that
        met = "met" if p["cpython"][0]["met"] else "not met, the run's cap"
        rows += [
            {"figure": f"atg: run to ±{p['target']} % in the browser, {p['workers']} workers: complete",
             "value": f"{ms / 1000:.2f} s ({stopped_at:,} trials)",
             "target": f"< {TARGETS['precision_ms'] / 1000:.0f} s: {'met' if ms < TARGETS['precision_ms'] else 'not met'}"},
            {"figure": f"atg: run to ±{p['target']} % in CPython, one core (for reference)",
             "value": f"{benchmark.median([r['seconds'] for r in p['cpython']]):.2f} s",
             "target": f"±{p['target']} % {met} at {stopped_at:,} trials"},
        ]
    for system, entry in raw.items():
        s = next((x for x in SCENARIOS if x.system == system), None)
        if s is None:  # the largest battle, the run to a precision
            continue
        cp = benchmark.median([r["rate"] for r in entry["cpython"]])
        rows.append({"figure": f"{system}: CPython battles/s (one core)", "value": f"{cp:.0f}", "target": ""})
        for k in sizes:
            runs = entry["browser"][str(k)]
            rate = benchmark.median([r["rate"] for r in runs])
            ms = benchmark.median([r["busy_ms"] for r in runs])
            first = benchmark.median([r["first_ms"] for r in runs if r["first_ms"] is not None])
            p95 = benchmark.percentile([x for r in runs for x in r["recompute_ms"]], 95)
            p50 = benchmark.percentile([x for r in runs for x in r["recompute_ms"]], 50)
            ratio = rate / cp if cp else None
            rows += [
                {"figure": f"{system}: browser battles/s, {k} worker(s)", "value": f"{rate:.0f} ({ratio:.2f}x CPython)",
                 "target": f">= {TARGETS['browser_ratio']}x CPython: {'met' if ratio and ratio >= TARGETS['browser_ratio'] else 'not met'}"},
                {"figure": f"{system}: {trials} battles in the browser beside recomputes, {k} worker(s)",
                 "value": f"{ms / 1000:.2f} s",
                 "target": f"< {s.target_ms / 1000:.0f} s: {'met' if ms < s.target_ms else 'not met'}"},
                {"figure": f"{system}: first estimate on screen, {k} worker(s)",
                 "value": f"{first:.0f} ms" if first is not None else "-",
                 "target": f"< {TARGETS['first_ms']:.0f} ms: {'met' if first is not None and first < TARGETS['first_ms'] else 'not met'}"},
                {"figure": f"{system}: calculator recompute during the run, {k} worker(s), p50 / p95",
                 "value": f"{p50:.1f} / {p95:.1f} ms" if p95 is not None else "-",
                 "target": f"p95 < {TARGETS['recompute_p95_ms']:.0f} ms: {'met' if p95 is not None and p95 < TARGETS['recompute_p95_ms'] else 'not met'}"},
            ]
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    width = max(len(r["figure"]) for r in rows)
    vwidth = max(len(r["value"]) for r in rows)
    lines = [f"{'figure':<{width}}  {'value':>{vwidth}}  target", f"{'-' * width}  {'-' * vwidth}  {'-' * 30}"]
    lines += [f"{r['figure']:<{width}}  {r['value']:>{vwidth}}  {r['target']}" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
