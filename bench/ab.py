#!/usr/bin/env python3
"""Interleaved A/B of the time to widgets live, for judging one change.

    .venv/bin/python bench/ab.py SITE_A SITE_B [--page small-general/combat-table.html] [--runs 6]

SITE_A and SITE_B are built sites (``.venv/bin/python build.py --output DIR``,
one from each version). Each run loads, in a fresh browser profile each, the
control page (a plain Pyodide boot, served from SITE_A), then PAGE from A and
from B, cold and then warm, in an order that alternates from run to run.
It prints each sample and the medians, with ratios to the control's.

The VM's speed drifts by 10-20 % within minutes, so two benchmark runs made
minutes apart cannot tell a 5 % change from noise; loads interleaved like
this can, given enough runs. It writes the control page into SITE_A (three
``bench-control*`` files), as the benchmark does into its own build.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchmark as B  # noqa: E402

CONTROL = "control"
LIVE_MS = "() => performance.getEntriesByName('widgets-live')[0].startTime"


def load(page, server: B.Server, path: str) -> float:
    """One load of `path` (or of the control page): ms until live."""
    if path == CONTROL:
        return B.load_control(page, server)["boot_ms"]
    page.goto(server.origin + path, wait_until="commit")
    B.wait_widgets_live(page, path)
    return page.evaluate(LIVE_MS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site_a", type=Path)
    parser.add_argument("site_b", type=Path)
    parser.add_argument("--page", default="small-general/combat-table.html", help="page to load from each site")
    parser.add_argument("--runs", type=int, default=6, help="cold and warm loads per variant (default 6)")
    args = parser.parse_args(argv)
    for site in (args.site_a, args.site_b):
        if not (site / args.page).is_file():
            parser.error(f"{site / args.page} is missing: build the site there first")
    if not Path(B.CHROMIUM).exists():
        print(f"Chromium is missing at {B.CHROMIUM} (./dev test installs it; or set CHROMIUM_PATH)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    B.add_control(args.site_a)
    servers = {"A": B.Server(args.site_a), "B": B.Server(args.site_b)}
    variants = [(CONTROL, servers["A"], CONTROL), ("A", servers["A"], "/" + args.page), ("B", servers["B"], "/" + args.page)]
    samples: dict[tuple[str, str], list[float]] = {}
    try:
        with sync_playwright() as pw:
            browsers = B.Browsers(pw, incognito=False)
            for run in range(args.runs):
                for name, server, path in (variants if run % 2 == 0 else variants[::-1]):
                    ctx, close = browsers.context()
                    try:
                        page = None
                        times = []
                        for condition in ("cold", "warm"):
                            page = B.fresh_page(ctx, page)
                            times.append(load(page, server, path))
                            samples.setdefault((name, condition), []).append(times[-1])
                    finally:
                        close()
                    print(f"run {run + 1}/{args.runs} {name:8s} cold {times[0]:6.0f} ms  warm {times[1]:6.0f} ms", flush=True)
            browsers.close()
    finally:
        for server in servers.values():
            server.close()
    print()
    for condition in ("cold", "warm"):
        control = statistics.median(samples[(CONTROL, condition)])
        for name, _, _ in variants:
            median = statistics.median(samples[(name, condition)])
            print(f"{condition} {name:8s} median {median:6.0f} ms  {median / control:5.3f}x control")
    return 0


if __name__ == "__main__":
    sys.exit(main())
