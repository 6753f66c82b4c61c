#!/usr/bin/env python3
"""Benchmark the Scenarios panel (issue 21): sweeps, "what it takes" and compare, in Chromium.

    .venv/bin/python bench/scenarios.py [--runs N] [--only calc-sweep,...] [--site DIR] [--out bench/scenarios.json]

Builds the site (or takes ``--site``), serves it on 127.0.0.1 and drives the
Scenarios panel in Debian's Chromium (Playwright, headless; the launch flags
and helpers of ``bench/benchmark.py`` and ``bench/simulation.py``) exactly as
``tests/test_scenarios_browser.py`` does (its OPEN, CLICK, SET and ``vary``),
with the page's pool fixed at two workers (``globalThis.rulesExplorerWorkers``:
the page's own engine and one extra). Every time is taken in the page with
``performance.now()``, from the reader's click (or input change) to the
answer on screen: the frame after the panel's DOM has the answer (a
``requestAnimationFrame`` then a task, so the chart has been laid out and
painted). Measurements (``--only`` picks some, comma-separated):

``calc-sweep``  Small General's combat table (``#sg-combat``): the attack value
                swept 1..30 (30 points, the widest numeric range of its
                inputs; OCS's inputs range 0..5, 0..9 or 1..6, or are decimals),
                an exact sweep. Target 300 ms. Under the page's default rules
                Small General's result does not read the units' values, so
                the 30 points are one combat, computed once (``result_key``).
``calc-sweep-distinct``  the same sweep with the strength rule "difference"
                (set through the page's link), under which each attack value
                is its own combat: 30 results computed. Target 300 ms.
``target``      the same calculator, "what it takes" as the test asks it (attack
                value 1..8, the defender retreats at least 20 %). Target 500 ms.
``atg-sweep``   AT Gold, 40 against 40 on land (``bench/simulation.py``
                SCENARIOS[0], set through the page's link), the tank row's count
                swept 1..10 at 1,000 battles a point: the first chart on
                screen (target 1 s) and the whole run (target 10 s).
``sgs-sweep``   the card game's default 12 against 12 (``#sgs-battle``), the
                first unit row's count swept 1..10 at 1,000 battles a point: the
                whole run (target 3 s).
``compare``     the card game's battle: Pin as A, then the attacker's leader
                combat changed (2 -> 3): the compare of 2 x 2,000 battles
                (paired), from the change to its end (target 5 s). The change also starts the
                battle's own estimate (2,000 battles), as it does for a reader.
``atg-assumptions``  AT Gold 40 against 40 (as ``atg-sweep``): "Which assumptions
                matter" (engine.sensitivity: every other reading of every setting
                marked assumed, all on the same battles; a reading that changes
                almost no battle stops at 200 or 500 of them), with the panel's
                trials (the widget's trials box as the page has it, 1,000):
                the first ranked chart on screen (target 5 s) and the whole run
                (target 60 s; issue 22). The panel shares it between the extra
                worker and the page's own engine stage by stage (between the
                checkpoints; ``--one-engine``: the extra worker alone).
                Not in the default set: it takes some 4 minutes a run here (14 before
                readings stopped early).
``sgs-assumptions``  the same for the card game's default battle: the whole run
                (target 15 s).
``recompute``   the sweeps of ``atg-sweep`` and ``sgs-sweep`` again, while the
                other calculator on the same page is changed all along (one
                change at a time, 30 ms apart, as simulation.py does): its
                recompute latency, input change to its ``widget-result`` event,
                p95 over the runs. Target 20 ms.

Before each measured battle run the page's own estimate has ended and a
warm-up sweep of a few battles has run (it starts the extra worker, so the
worker's boot is not in the figures). Each calculator figure is measured
on a page whose engine has said it is warm (engine-worker.js: once live it
answers every widget's requests a few times while the page is quiet, about
1-2 s here, so that its WebAssembly is optimised), after one click before
that: the first click right after the page went live, timed and reported on a
row of its own without a target (it meets the worker's warm-up rounds and
WebAssembly in its baseline tier: 0.2-0.6 s on this machine in session 14). Each answer shown must equal
CPython's ``engine.scenarios`` (or ``engine.sensitivity``) answer for the same (inputs, seed 1, trials),
compared after the browser's own serialisation, or the script fails. This
is a benchmark, not a test: it fails only when something cannot be measured
or disagrees with CPython; a missed target is reported as such.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import benchmark  # noqa: E402
import browsers  # noqa: E402  (the tests' driver layer)
import build  # noqa: E402
import simulation  # noqa: E402
from test_scenarios_browser import CLICK, OPEN, SET, panel, vary  # noqa: E402  (drive the panel as the test does)

from engine import scenarios, sensitivity, widgets  # noqa: E402

WORKERS = 2
SEED = 1
SG_PAGE, SG = "small-general/combat-table.html", "sg-combat"
CALC_SWEEP = {"input": "attacker.attack_value", "from": "1", "to": "30", "step": "1"}
TARGET_SPEC = {"input": "attacker.attack_value", "from": "1", "to": "8", "step": "1"}
TARGET_GOAL = ("defender_retreats", "20%")
ATG, SGS = simulation.SCENARIOS
ATG_SWEEP = {"input": "attackers.1.count", "from": "1", "to": "10", "step": "1"}  # the tank row
SGS_SWEEP = {"input": "attacker.units.0.count", "from": "1", "to": "10", "step": "1"}
SWEEP_TRIALS = 1000
COMPARE_TRIALS = 2000
COMPARE_PATH = "attacker.leader_combat"
WARMUP_TRIALS = 8
DISTINCT = {"settings": {"strength_rule": "difference"}}
"""The Small General rule under which the attack value changes the combat (``calc-sweep-distinct``)."""
MEASURES = ("calc-sweep", "calc-sweep-distinct", "target", "atg-sweep", "sgs-sweep", "compare", "atg-assumptions", "sgs-assumptions",
            "recompute")
TARGETS_MS = {"calc-sweep": 300.0, "calc-sweep-distinct": 300.0, "target": 500.0, "atg-first": 1000.0, "atg-done": 10_000.0,
              "sgs-done": 3000.0, "compare": 5000.0, "recompute-p95": 20.0,
              "atg-ranked": 5000.0, "atg-assumptions": 60_000.0, "sgs-assumptions": 15_000.0}
DEFAULT = tuple(m for m in MEASURES if m != "atg-assumptions")
"""What runs without --only: AT Gold's sensitivity takes some 4 minutes a run here, so it is asked for by name."""
ASSUMPTIONS_TIMEOUT_MS = 1_800_000
"""AT Gold's sensitivity plays some 43,000 battles on one worker (134,000 with every reading to the end): minutes."""

# One measured answer: the trigger (a click, or an input set as SET does), then the panel's output `out` until
# it has ended (done, failed or stopped) after running; optionally the calculator `calc` changed all along.
# Times: DOM (the observer saw the change) and screen (the frame after it: rAF, then a task).
MEASURE_JS = """
async ({ out, trigger, value, timeoutMs, calc, control, values, pauseMs }) => {
  const el = document.querySelector(out);
  const status = el.closest(".widget-scenario").querySelector(".scenario-status");
  const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(() => r(performance.now()), 0)));
  let t0 = 0;
  let seen = false;
  let first = null;
  let ended = null;
  const finished = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    new MutationObserver((records, observer) => {
      const state = el.dataset.state;
      if (state === "running") seen = true;
      // A point is shown once its cell in a chart's data table holds a figure ("…": not yet run).
      const cells = [...el.querySelectorAll("td.num")];
      const shown = cells.filter((c) => c.textContent !== "…").length;
      if (seen && first === null && records.some((r) => r.type === "childList") && (shown || !cells.length)
          && el.childNodes.length) {
        const dom = performance.now() - t0;
        first = { dom_ms: dom, status: status.textContent, running: state === "running", cells: cells.length, shown,
                  chart: Boolean(el.querySelector("svg.chart")) };
        painted().then((at) => { first.ms = at - t0; });
      }
      if (seen && ["done", "failed", "stopped"].includes(state)) {
        clearTimeout(timer); observer.disconnect();
        const dom = performance.now() - t0;
        painted().then((at) => resolve({ dom_ms: dom, ms: at - t0 }));
      }
    }).observe(el, { attributes: true, attributeFilter: ["data-state"], childList: true, subtree: true,
                     characterData: true });
  });
  const section = calc ? document.getElementById(calc) : null;
  const box = control ? document.querySelector(control) : null;
  t0 = performance.now();
  const target = document.querySelector(trigger);
  if (value === null) target.click();
  else { target.value = value; target.dispatchEvent(new Event("change", { bubbles: true })); }
  if (el.dataset.state === "running") seen = true;
  const endAt = finished.then((x) => { ended = x; return x; });
  const samples = [];
  if (section && box) {
    for (let i = 0; ended === null; i++) {
      const shown = new Promise((r) => section.addEventListener("widget-result", () => r(performance.now()),
                                                                { once: true }));
      const start = performance.now();
      box.value = values[(i + 1) % 2];
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.dispatchEvent(new Event("change", { bubbles: true }));
      const at = await Promise.race([shown, endAt.then(() => null)]);
      if (at !== null) samples.push(at - start);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
  const end = await endAt;
  if (first !== null && first.ms === undefined) await painted();
  return { ...end, first, state: el.dataset.state, status: status.textContent, html: el.innerHTML,
           recompute_ms: samples, pool: window.rulesExplorer?.pool?.size ?? null,
           helpers: (window.rulesExplorer?.pool?.helpers ?? []).map((h) => h.state) };
}
"""

SERIALISED = "(h) => { const t = document.createElement('template'); t.innerHTML = h; return t.innerHTML; }"
SIM_ENDED = ("(s) => ['prerendered', 'done', 'failed', 'stopped']"
             ".includes(document.querySelector(s + ' .widget-sim')?.dataset.state)")
DONE = "(s) => document.querySelector(s).dataset.state === 'done'"


class PooledChromium(browsers.Chromium):
    """The tests' Chromium driver, each page in a fresh context with the pool fixed at WORKERS; with
    ``share`` false a battle's scenario runs on the extra worker alone (as before session 10)."""

    share = True

    def open(self, url: str) -> None:
        self.quit()
        self.context = self.browser.new_context()
        self.context.add_init_script(f"globalThis.rulesExplorerWorkers = {WORKERS};"
                                     + ("" if self.share else "globalThis.rulesExplorerScenarioShare = false;"))
        self.context.set_default_timeout(benchmark.TIMEOUT_MS)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self._errors.append(f"page error: {exc}"))
        self.page.goto(url, wait_until="commit")
        benchmark.wait_widgets_live(self.page, urlsplit(url).path)


def measure(driver: PooledChromium, instance: str, part: str, trigger: str, value: str | None = None,
            calc: str | None = None, control: str | None = None, values: list[str] | None = None,
            timeout_ms: int = 300_000) -> dict[str, Any]:
    return driver.page.evaluate(MEASURE_JS, {"out": panel(instance, part), "trigger": trigger, "value": value,
                                             "timeoutMs": timeout_ms, "calc": calc, "control": control,
                                             "values": values or [], "pauseMs": 30})


def check(driver: PooledChromium, got: dict[str, Any], expected_html: str, what: str) -> None:
    """The answer shown must be CPython's, as this browser serialises it."""
    expected = driver.page.evaluate(SERIALISED, expected_html)
    if got["state"] != "done" or got["html"] != expected:
        actual = got["html"]
        at = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
        raise SystemExit(f"{what}: ended {got['state']} ({got['status']!r}), not CPython's answer; first difference "
                         f"at {at}:\nexpected: …{expected[max(0, at - 200):at + 200]}\n"
                         f"actual:   …{actual[max(0, at - 200):at + 200]}")


def base(driver: PooledChromium, instance: str) -> dict[str, Any]:
    return json.loads(driver.call("s => document.querySelector(s).textContent", f"#{instance} script.widget-base"))


def set_range(driver: PooledChromium, instance: str, spec: dict[str, str]) -> None:
    driver.call(OPEN, f"#{instance}")
    vary(driver, instance, spec["input"], spec["from"], spec["to"])
    driver.call(SET, panel(instance, "input.vary-step"), spec["step"])


def set_trials(driver: PooledChromium, instance: str, trials: int) -> None:
    """The battles a point, set without starting the battle's own run (as the test does)."""
    driver.call("(s, v) => { document.querySelector(s).value = v; }", f"#{instance} input.sim-trials", str(trials))


def calculator_runs(driver: PooledChromium, origin: str, runs: int, which: set[str], raw: dict[str, Any],
                    log: Any) -> None:
    w = widgets.get("small_general.combat")
    for run in range(runs):
        driver.open(f"{origin}/{SG_PAGE}")
        inputs = w.validate(base(driver, SG))
        if "calc-sweep" in which:
            set_range(driver, SG, CALC_SWEEP)
            button = panel(SG, "[data-action=sweep]")
            cold = first_click(driver, button)
            got = measure(driver, SG, ".scenario-result", button)
            check(driver, got, scenarios.sweep(w.id, inputs, CALC_SWEEP, render=True)["html"], "calculator sweep")
            raw.setdefault("calc-sweep", []).append(strip(got))
            raw.setdefault("calc-sweep-cold", []).append(strip(cold))
            log(f"calculator sweep of 30 points, run {run + 1}: {got['ms']:.0f} ms (the first click: {cold['ms']:.0f} ms)")
        if "calc-sweep-distinct" in which:
            base_inputs = w.validate(base(driver, SG))
            values = w.validate({**base_inputs, "settings": {**base_inputs["settings"], **DISTINCT["settings"]}})
            points = [{**values, "attacker": {**values["attacker"], "attack_value": v}} for v in range(1, 31)]
            if len({w.result_key(w.validate(p)) for p in points}) != 30:
                raise SystemExit("the distinct sweep's 30 points are not 30 combats")
            state = w.state_text(values, base_inputs)
            driver.open(f"{origin}/{SG_PAGE}?{SG}={quote(state, safe='~.')}")
            if w.validate(base(driver, SG)) != base_inputs:
                raise SystemExit("the page's example changed")  # the link's state is relative to it
            set_range(driver, SG, CALC_SWEEP)
            button = panel(SG, "[data-action=sweep]")
            cold = first_click(driver, button)
            got = measure(driver, SG, ".scenario-result", button)
            check(driver, got, scenarios.sweep(w.id, values, CALC_SWEEP, render=True)["html"],
                  "calculator sweep of distinct points")
            raw.setdefault("calc-sweep-distinct", []).append(strip(got))
            raw.setdefault("calc-sweep-distinct-cold", []).append(strip(cold))
            log(f"calculator sweep of 30 distinct points, run {run + 1}: {got['ms']:.0f} ms (the first click: {cold['ms']:.0f} ms)")
            driver.open(f"{origin}/{SG_PAGE}")
        if "target" in which:
            set_range(driver, SG, TARGET_SPEC)
            driver.call(SET, panel(SG, "select.target-figure"), TARGET_GOAL[0])
            driver.call(SET, panel(SG, "input.target-threshold"), TARGET_GOAL[1])
            button = panel(SG, "[data-action=target]")
            cold = first_click(driver, button)
            got = measure(driver, SG, ".scenario-result", button)
            answer = scenarios.target(w.id, inputs, TARGET_GOAL[0], TARGET_GOAL[1], TARGET_SPEC, render=True)
            check(driver, got, answer["html"], "what it takes")
            raw.setdefault("target", []).append(strip(got))
            raw.setdefault("target-cold", []).append(strip(cold))
            log(f"what it takes, run {run + 1}: {got['ms']:.0f} ms (the first click: {cold['ms']:.0f} ms)")
    driver.quit()


def first_click(driver: PooledChromium, button: str) -> dict[str, Any]:
    """The first click on a page (its own result: the row "right after the page went live"); then the wait for
    the engine to say it is warm (see the top), where the next click is measured."""
    cold = measure(driver, SG, ".scenario-result", button)
    driver.wait("() => document.documentElement.dataset.engineWarmMs", timeout=60)
    return cold


def strip(got: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in got.items() if k != "html"}


def battle_sweeps(driver: PooledChromium, origin: str, out: Path, s: simulation.Scenario, spec: dict[str, str],
                  runs: int, alone: bool, busy: bool, raw: dict[str, Any], log: Any) -> None:
    w = widgets.get(f"{s.system}.battle")
    link = simulation.link_for(out, s, w, w.validate(s.inputs))
    control, values = simulation.calculator_change(out, s)
    if busy and control is None:
        raise SystemExit(f"no number input in #{s.calculator}")
    entry = raw.setdefault(f"{s.system}-sweep", {"link": link, "spec": spec, "trials": SWEEP_TRIALS, "calculator":
                                                 f"{control} ({values[0]} <-> {values[1]})" if control else None,
                                                 "alone": [], "busy": []})
    expected: str | None = None
    for run in range(runs):
        driver.open(origin + link)
        inputs = w.validate(base(driver, s.instance)) if not s.inputs else w.validate(s.inputs)
        if expected is None:
            started = time.perf_counter()
            expected = scenarios.sweep(w.id, inputs, spec, seed=SEED, trials=SWEEP_TRIALS, render=True)["html"]
            entry["cpython_s"] = time.perf_counter() - started
        driver.wait(SIM_ENDED, f"#{s.instance}", timeout=300)  # the page's own estimate of the battle
        set_range(driver, s.instance, spec)
        button = panel(s.instance, "[data-action=sweep]")
        set_trials(driver, s.instance, WARMUP_TRIALS)
        driver.call(CLICK, button)  # warm-up: starts the extra worker
        driver.wait(DONE, panel(s.instance, ".scenario-result"), timeout=300)
        set_trials(driver, s.instance, SWEEP_TRIALS)
        for kind, on in (("alone", alone), ("busy", busy)):
            if not on:
                continue
            got = measure(driver, s.instance, ".scenario-result", button,
                          **({"calc": s.calculator, "control": control, "values": values} if kind == "busy" else {}))
            check(driver, got, expected, f"{s.system} sweep ({kind})")
            entry[kind].append(strip(got))
            p95 = benchmark.percentile(got["recompute_ms"], 95)
            log(f"{s.system} sweep of 10 x {SWEEP_TRIALS}, run {run + 1}, {kind}: first chart "
                f"{(got['first'] or {}).get('ms', float('nan')):.0f} ms, done {got['ms'] / 1000:.2f} s"
                + (f", recompute p95 {p95:.1f} ms ({len(got['recompute_ms'])} changes)" if kind == "busy" else "")
                + f"; pool {got['pool']}, helpers {got['helpers']}")
    driver.quit()


def compare_runs(driver: PooledChromium, origin: str, runs: int, raw: dict[str, Any], log: Any) -> None:
    s = SGS
    w = widgets.get("sgs.battle")
    entry = raw.setdefault("compare", {"trials": COMPARE_TRIALS, "input": COMPARE_PATH, "runs": []})
    expected: str | None = None
    for run in range(runs):
        driver.open(f"{origin}/{s.page}?{s.instance}.trials={COMPARE_TRIALS}#{s.instance}")
        a = w.validate(base(driver, s.instance))
        before = a["attacker"]["leader_combat"]
        changed = before + 1
        b = w.validate({**a, "attacker": {**a["attacker"], "leader_combat": changed}})
        if expected is None:
            expected = scenarios.compare(w.id, a, b, seed=SEED, trials=COMPARE_TRIALS, render=True)["html"]
            entry["value"] = f"{before} -> {changed}"
        driver.wait(SIM_ENDED, f"#{s.instance}", timeout=300)
        driver.call(OPEN, f"#{s.instance}")
        driver.call(CLICK, panel(s.instance, "[data-action=pin]"))  # A against A: a first run, warms up the worker
        driver.wait(DONE, panel(s.instance, ".scenario-compare"), timeout=300)
        control = f"#{s.instance}--{COMPARE_PATH.replace('.', '-')}"
        got = measure(driver, s.instance, ".scenario-compare", control, str(changed))
        check(driver, got, expected, "the card game's compare")
        entry["runs"].append(strip(got))
        log(f"compare of 2 x {COMPARE_TRIALS}, run {run + 1}: {got['ms'] / 1000:.2f} s")
    driver.quit()


def battle_assumptions(driver: PooledChromium, origin: str, out: Path, s: simulation.Scenario, runs: int,
                       raw: dict[str, Any], log: Any) -> None:
    """'Which assumptions matter' on a battle: the first ranked chart and the end, against CPython's answer."""
    w = widgets.get(f"{s.system}.battle")
    link = simulation.link_for(out, s, w, w.validate(s.inputs))
    entry = raw.setdefault(f"{s.system}-assumptions", {"link": link, "runs": []})
    button = panel(s.instance, "[data-action=assumptions]")
    expected: str | None = None
    for run in range(runs):
        driver.open(origin + link)
        inputs = w.validate(base(driver, s.instance)) if not s.inputs else w.validate(s.inputs)
        driver.wait(SIM_ENDED, f"#{s.instance}", timeout=300)  # the page's own estimate of the battle
        # The panel plays as many battles as the widget's trials box says: the page's, as a reader finds it.
        trials = int(driver.call("(s) => document.querySelector(s).value", f"#{s.instance} input.sim-trials"))
        if expected is None:
            started = time.perf_counter()
            answer = sensitivity.sensitivity(w.id, inputs, seed=SEED, trials=trials, render=True)
            entry.update(cpython_s=time.perf_counter() - started, trials=trials, variants=answer["variants"],
                         settings=len(answer["settings"]), sentence=answer["sentence"],
                         battles=answer["trials"] + sum(a["figure"]["trials"] for r in answer["settings"]
                                                        for a in r["alternatives"]))
            expected = answer["html"]
        elif trials != entry["trials"]:
            raise SystemExit(f"{s.system}: the trials box says {trials}, the first run's said {entry['trials']}")
        driver.call(OPEN, f"#{s.instance}")
        set_trials(driver, s.instance, WARMUP_TRIALS)
        driver.call(CLICK, button)  # warm-up: starts the extra worker
        driver.wait(DONE, panel(s.instance, ".scenario-result"), timeout=300)
        set_trials(driver, s.instance, trials)
        got = measure(driver, s.instance, ".scenario-result", button, timeout_ms=ASSUMPTIONS_TIMEOUT_MS)
        check(driver, got, expected, f"{s.system}: which assumptions matter")
        if not (got["first"] or {}).get("chart") or got["first"].get("ms") is None:
            raise SystemExit(f"{s.system}: which assumptions matter showed no ranked chart first: {got['first']}")
        entry["runs"].append(strip(got))
        log(f"{s.system} which assumptions matter ({entry['variants']} other readings of {entry['settings']} settings "
            f"x {trials:,} battles), run {run + 1}: first ranked chart {got['first']['ms'] / 1000:.2f} s "
            f"({got['first']['status']!r}), done {got['ms'] / 1000:.2f} s; CPython {entry['cpython_s']:.2f} s; "
            f"pool {got['pool']}, helpers {got['helpers']}")
    driver.quit()


def verdict(value: float | None, bound: float) -> str:
    return "met" if value is not None and value < bound else "NOT met"


def summarise(raw: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []

    def row(figure: str, samples: list[float], key: str, seconds: bool = False) -> None:
        med, top = benchmark.median(samples), (max(samples) if samples else None)
        unit = (lambda x: f"{x / 1000:.2f} s") if seconds else (lambda x: f"{x:.0f} ms")
        bound = TARGETS_MS[key]
        rows.append({"figure": figure, "value": f"{unit(med)} / {unit(top)}" if samples else "-",
                     "target": f"< {unit(bound)}: {verdict(top, bound)} (median {verdict(med, bound)})",
                     "median_ms": med, "max_ms": top})

    if "calc-sweep" in raw:
        row("Small General sweep, attack value 1..30 (30 points, exact): click to chart",
            [r["ms"] for r in raw["calc-sweep"]], "calc-sweep")
    if "calc-sweep-distinct" in raw:
        row("Small General sweep, attack value 1..30, strength rule 'difference' (30 distinct combats, exact)",
            [r["ms"] for r in raw["calc-sweep-distinct"]], "calc-sweep-distinct")
    if "target" in raw:
        row("Small General what it takes (attack value 1..8, retreats >= 20 %): click to answer",
            [r["ms"] for r in raw["target"]], "target")
    for key, name in (("calc-sweep", "sweep, 30 points"), ("calc-sweep-distinct", "sweep, 30 distinct combats"),
                      ("target", "what it takes")):
        cold = [r["ms"] for r in raw.get(f"{key}-cold", [])]
        if cold:
            rows.append({"figure": f"Small General {name}: the first click, right after the page went live",
                         "value": f"{benchmark.median(cold):.0f} ms / {max(cold):.0f} ms", "target": "(no target)"})
    if raw.get("atg-sweep", {}).get("alone"):
        runs = raw["atg-sweep"]["alone"]
        row("ATG 40 v 40 sweep, tank count 1..10 x 1,000: first chart", [r["first"]["ms"] for r in runs if r["first"]],
            "atg-first")
        row("ATG 40 v 40 sweep, tank count 1..10 x 1,000: complete", [r["ms"] for r in runs], "atg-done", True)
    if raw.get("sgs-sweep", {}).get("alone"):
        row("card game 12 v 12 sweep, row 1 count 1..10 x 1,000: complete",
            [r["ms"] for r in raw["sgs-sweep"]["alone"]], "sgs-done", True)
    for system, name in (("atg", "ATG 40 v 40"), ("sgs", "card game 12 v 12")):
        if "cpython_s" in raw.get(f"{system}-sweep", {}):
            rows.append({"figure": f"{name} sweep, 10 x 1,000, in CPython on one core (for reference)",
                         "value": f"{raw[f'{system}-sweep']['cpython_s']:.2f} s", "target": ""})
    for system, name in (("atg", "ATG 40 v 40"), ("sgs", "card game 12 v 12")):
        a = raw.get(f"{system}-assumptions")
        if not a or not a["runs"]:
            continue
        # battles tallied (a reading's copy of a battle that never read its setting counts: engine.scenarios.figure_chunk)
        played = f", {a['battles']:,} battle outcomes in all" if "battles" in a else ""  # none before readings stopped early
        what = f"{name} which assumptions matter ({a['variants']} readings x up to {a['trials']:,}{played})"
        first = [r["first"]["ms"] for r in a["runs"]]
        if system == "atg":
            row(f"{what}: first ranked chart", first, "atg-ranked", True)
        else:
            rows.append({"figure": f"{what}: first ranked chart", "value":
                         f"{benchmark.median(first) / 1000:.2f} s / {max(first) / 1000:.2f} s", "target": "",
                         "median_ms": benchmark.median(first), "max_ms": max(first)})
        row(f"{what}: complete", [r["ms"] for r in a["runs"]], f"{system}-assumptions", True)
        rows.append({"figure": f"{what}, in CPython on one core (for reference)", "value": f"{a['cpython_s']:.2f} s",
                     "target": ""})
    if "compare" in raw:
        row("card game compare, 2 x 2,000 (pinned A, leader combat 2 -> 3): complete",
            [r["ms"] for r in raw["compare"]["runs"]], "compare", True)
    for system, name in (("atg", "ATG sweep"), ("sgs", "card game sweep")):
        busy = raw.get(f"{system}-sweep", {}).get("busy")
        if busy:
            samples = [x for r in busy for x in r["recompute_ms"]]
            p95, p50 = benchmark.percentile(samples, 95), benchmark.percentile(samples, 50)
            bound = TARGETS_MS["recompute-p95"]
            rows.append({"figure": f"calculator recompute during the {name}, p50 / p95 ({len(samples)} changes)",
                         "value": f"{p50:.1f} / {p95:.1f} ms" if p95 is not None else "-",
                         "target": f"p95 < {bound:.0f} ms: {verdict(p95, bound)}", "p50_ms": p50, "p95_ms": p95})
            rows.append({"figure": f"{name} beside those recomputes: complete (median / max)",
                         "value": f"{benchmark.median([r['ms'] for r in busy]) / 1000:.2f} s / "
                                  f"{max(r['ms'] for r in busy) / 1000:.2f} s", "target": ""})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    width = max(len(r["figure"]) for r in rows)
    vwidth = max(len("median / max"), *(len(r["value"]) for r in rows))
    lines = [f"{'figure':<{width}}  {'median / max':>{vwidth}}  target",
             f"{'-' * width}  {'-' * vwidth}  {'-' * 30}"]
    lines += [f"{r['figure']:<{width}}  {r['value']:>{vwidth}}  {r['target']}" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (default 3)")
    parser.add_argument("--only", default=",".join(DEFAULT),
                        help=f"measurements, comma-separated, of {','.join(MEASURES)} (default all but "
                             "atg-assumptions, some 14 minutes a run)")
    parser.add_argument("--site", type=Path, help="an already built site to serve instead of building one")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "scenarios.json", help="JSON results file")
    parser.add_argument("--one-engine", action="store_true",
                        help="run a battle's scenario on the extra worker alone, not shared with the page's engine "
                             "(scenario.js; for comparison)")
    args = parser.parse_args(argv)
    PooledChromium.share = not args.one_engine
    which = {x.strip() for x in args.only.split(",") if x.strip()}
    if not which or which - set(MEASURES):
        parser.error(f"--only takes some of: {', '.join(MEASURES)}")
    from playwright.sync_api import sync_playwright

    started = time.monotonic()

    def log(text: str) -> None:
        print(f"[{time.monotonic() - started:4.0f} s] {text}", flush=True)

    load_before = os.getloadavg()
    raw: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scn-") as tmp:
        out = args.site
        if out is None:
            out = Path(tmp) / "site"
            print("building the site...", flush=True)
            benchmark.quietly(lambda: build.build(build.Config(output=out, runtime=True)))
        server = benchmark.Server(out)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=benchmark.CHROMIUM, args=benchmark.CHROMIUM_ARGS,
                                             headless=True)
                driver = PooledChromium(browser)  # its page errors gather over every page it opens
                try:
                    if which & {"calc-sweep", "calc-sweep-distinct", "target"}:
                        calculator_runs(driver, server.origin, args.runs, which, raw, log)
                    for s, spec in ((ATG, ATG_SWEEP), (SGS, SGS_SWEEP)):
                        alone, busy = f"{s.system}-sweep" in which, "recompute" in which
                        if alone or busy:
                            battle_sweeps(driver, server.origin, out, s, spec, args.runs, alone, busy, raw, log)
                    if "compare" in which:
                        compare_runs(driver, server.origin, args.runs, raw, log)
                    for s in (ATG, SGS):
                        if f"{s.system}-assumptions" in which:
                            battle_assumptions(driver, server.origin, out, s, args.runs, raw, log)
                    errors = driver.errors()
                    if errors:
                        raise SystemExit("the page reported errors: " + "; ".join(errors))
                finally:
                    driver.quit()
                    browser.close()
        finally:
            server.close()
    rows = summarise(raw)
    print()
    print(table(rows))
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": benchmark.machine(benchmark.chromium_version()), "git": benchmark.git_state(),
              "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "settings": {"runs": args.runs, "only": sorted(which), "workers": WORKERS, "seed": SEED,
                           "shared": not args.one_engine,
                           "targets_ms": TARGETS_MS},
              "figures": rows, "raw": raw, "wall_s": time.monotonic() - started}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"\nload average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print(f"wrote {args.out} ({result['wall_s']:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
