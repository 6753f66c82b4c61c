#!/usr/bin/env python3
"""Measure a tab's memory with the engine live, and during a Monte Carlo run (issue 23).

    .venv/bin/python bench/memory.py [--site DIR] [--workers 1,2,3] [--out bench/memory.json]

iOS Safari kills a tab near 384 MB; the goal is under 300 MB. What the
operating system charges a tab is its content process: in Chromium the page's
renderer, which also runs the page's dedicated workers (each engine worker has
its own Python and WebAssembly memory). This script reads that process's
proportional set size (PSS: its own pages plus its share of pages it shares
with other processes, from ``/proc/PID/smaps_rollup``), which is what the page
adds to the machine, in Debian's Chromium (Playwright, headless):

1. for one page of each system, in a fresh context: once every widget is live
   (the page's one engine worker, no run going on);
2. for each battle page, a run of a large battle with the pool fixed at
   1, 2, ... workers (``globalThis.rulesExplorerWorkers``: the page's own
   worker plus extra ones), sampled every 100 ms for the run's first
   seconds: the peak is the figure;

and prints a table beside the goal. It is a measurement, not a test: it fails
only when a page does not go live.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import benchmark  # noqa: E402

GOAL_MB = 300
PAGES = ("ocs/combat-table-and-odds.html", "small-general/combat-table.html", "europa/heavy-armour.html",
         "atg/interception.html", "sgs/panic-rout-and-pursuit.html")
"""One page of each system (the battle pages hold a calculator beside the battle)."""
RUNS = {"atg/interception.html": ("atg-intercept-battle", 2000), "sgs/panic-rout-and-pursuit.html": ("sgs-battle", 20000)}
"""Battle pages: the battle widget's instance and a number of battles long enough to outlast the sampling."""
RUN_SAMPLE_S = 12.0
LIVE = "() => document.documentElement.dataset.widgetsLive === location.pathname"


def renderers() -> list[psutil.Process]:
    """This script's Chromium renderer processes (Playwright's driver runs Chromium under this process)."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "--type=renderer" in " ".join(p.cmdline()):
                out.append(p)
        except psutil.Error:
            pass
    return out


def tab_mb() -> float:
    """The largest renderer's PSS in MB: the tab's (a spare renderer holds a few MB)."""
    sizes = []
    for p in renderers():
        try:
            sizes.append(p.memory_full_info().pss / 2**20)
        except psutil.Error:
            pass
    return max(sizes, default=0.0)


def measure(browser: Any, origin: str, page_path: str, workers: int, run: tuple[str, int] | None) -> dict[str, Any]:
    ctx = browser.new_context()
    ctx.add_init_script(f"globalThis.rulesExplorerWorkers = {workers};")
    ctx.set_default_timeout(benchmark.TIMEOUT_MS)
    try:
        page = ctx.new_page()
        url = f"{origin}/{page_path}"
        if run is not None:
            instance, trials = run
            url += f"?{instance}.trials={trials}#{instance}"
        page.goto(url)
        deadline = time.monotonic() + 90
        while not page.evaluate(LIVE):
            if time.monotonic() > deadline:
                raise SystemExit(f"{page_path} never went live")
            time.sleep(0.1)
        time.sleep(1.0)  # what a boot leaves to collect
        live = tab_mb()
        samples = []
        if run is not None:
            end = time.monotonic() + RUN_SAMPLE_S
            while time.monotonic() < end:
                samples.append(tab_mb())
                time.sleep(0.1)
        state = page.evaluate(f"() => document.querySelector('#{run[0]} .widget-sim')?.dataset.state") if run else None
        return {"page": page_path, "workers": workers, "live_mb": round(live, 1),
                "run_peak_mb": round(max(samples), 1) if samples else None, "run_state": state}
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="an already built site to serve instead of building one")
    parser.add_argument("--workers", default="1,2,3", help="pool sizes for the runs, comma-separated (default 1,2,3)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "memory.json", help="JSON results file")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, Any]] = []
    with benchmark.served_site(args.site, "bench-mem-") as (out, server, _):
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=benchmark.CHROMIUM, args=benchmark.CHROMIUM_ARGS,
                                         headless=True)
            try:
                for page_path in PAGES:
                    rows.append(measure(browser, server.origin, page_path, 1, None))
                    print(rows[-1], flush=True)
                for page_path, run in RUNS.items():
                    for k in (int(x) for x in args.workers.split(",")):
                        rows.append(measure(browser, server.origin, page_path, k, run))
                        print(rows[-1], flush=True)
            finally:
                browser.close()
    print()
    print(f"| page | workers | live (MB) | peak in a run (MB) | goal |")
    print("|---|---|---|---|---|")
    for r in rows:
        peak = "" if r["run_peak_mb"] is None else f"{r['run_peak_mb']:.0f}"
        worst = max(r["live_mb"], r["run_peak_mb"] or 0)
        print(f"| {r['page']} | {r['workers']} | {r['live_mb']:.0f} | {peak} | "
              f"{'under' if worst < GOAL_MB else 'OVER'} {GOAL_MB} |")
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": benchmark.machine(benchmark.chromium_version()), "git": benchmark.git_state(),
              "goal_mb": GOAL_MB, "rows": rows}
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
