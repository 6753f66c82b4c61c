"""Shared fixtures: the fully built site, served on 127.0.0.1, and Chromium.

Browser tests use pytest-playwright with Debian's chromium (``CHROMIUM_PATH``,
default /usr/bin/chromium); ``./dev test`` installs it when it is missing,
and Firefox ESR, WebKitGTK's driver and Xvfb for tests/test_browsers.py
(drivers in tests/browsers.py).
Every page a test opens is watched: a console error, an uncaught exception
or a request to any host but the test server fails the test.
"""

from __future__ import annotations

import os
import pickle
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import build  # noqa: E402
from browsers import WARM_UP_OFF, settings_script  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
BOOT_TIMEOUT_MS = 60_000
"""A cold Pyodide boot takes about 5 s here; leave room for a loaded CI machine."""


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site with the Pyodide runtime and the engine wheel, built once.

    Under pytest-xdist (``./dev test`` runs two workers) the first worker that
    needs it builds it into the run's shared temporary directory, holding a
    file lock; the others wait on the lock and use that build.

    For the inner loop on one test, ``RULES_EXPLORER_BUILT_SITE=DIR`` (a ``build.py --output DIR`` of this very
    tree, without xdist) is copied instead of building: a stale DIR tests stale pages, so CI never sets it.
    """
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        out = tmp_path_factory.mktemp("site")
        if os.environ.get("RULES_EXPLORER_BUILT_SITE"):
            shutil.copytree(os.environ["RULES_EXPLORER_BUILT_SITE"], out, dirs_exist_ok=True)
            return out
        build.build(build.Config(output=out, runtime=True))
        return out
    import fcntl
    shared = tmp_path_factory.getbasetemp().parent  # this run's directory, above every worker's own
    out, done = shared / "built-site", shared / "built-site.done"
    with open(shared / "built-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)  # a worker's build that failed part way
            out.mkdir()
            build.build(build.Config(output=out, runtime=True))
            done.touch()
    return out


# -- parallel runs (pytest-xdist, ``./dev test``: -n 2 --dist loadgroup) ----------
# Each test module is one xdist group, so a module's fixtures (a browser, a live
# page, a served copy of the site) are made once, on one worker; the tests named
# in OWN_GROUP are a group of their own, so they can run beside the rest of their
# module. Groups go out in this order, so the two workers end together: the
# longest browser group (its worker builds the site), then the tests without a
# browser (the other worker runs them during the build; those that read the built
# site last, so that worker does not wait on the build's lock with work left), then
# the other browser groups, longest first by measured wall time, then any browser
# group not listed.
# Without xdist nothing here applies.
GROUP = pytest.StashKey[str]()
OWN_GROUP = {"test_firefox_goes_live_on_every_fresh_load"}
LONGEST_FIRST = ["test_simulation.py", "test_browser.py", "test_scenarios_browser.py", "test_browsers.py",
                 "test_offline.py", "test_snapshot.py", "test_atg_browser.py", "test_sgs_browser.py",
                 "test_hostile_links.py", "test_browsers.py::test_firefox_goes_live_on_every_fresh_load",
                 "test_precision_browser.py", "test_settings_panel.py", "test_embed.py", "test_bridge_properties.py"]
"""By the groups' summed test times in a whole run (session 15: 410 s down to 13 s)."""


def _xdist_group(item: pytest.Item) -> str:
    own = item.get_closest_marker("xdist_group")
    if own is not None:
        return own.args[0] if own.args else own.kwargs.get("name", "default")
    module = item.nodeid.split("::")[0]
    name = getattr(item, "originalname", item.name)
    return f"{module}::{name}" if name in OWN_GROUP else module


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in items:
        item.stash[GROUP] = _xdist_group(item)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.stash[GROUP]))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids: list[str]) -> None:
    """pytest-xdist names each test's group in its node id. pytest 9.2 keeps node ids where xdist 3.8 does not
    write, and every group was silently split over both workers (each built or waited for the site, launched each
    module's browsers, and mixed fixtures across a module): stop rather than run so."""
    if node.config.getvalue("dist") == "loadgroup" and ids and not any("@" in i for i in ids):
        pytest.exit(f"pytest-xdist did not group the tests (pytest {pytest.__version__}; requirements-dev.txt pins "
                    f"the one that works): {ids[0]}", returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(tryfirst=True)  # after every reordering of the items (pytest groups them by fixture), before xdist sends them
def pytest_collection_finish(session: pytest.Session) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    items = session.items
    browser_groups = {item.stash[GROUP] for item in items if item.get_closest_marker("browser")}
    reading_the_site = {item.stash[GROUP] for item in items if "built_site" in item.fixturenames}

    def rank(item: pytest.Item) -> tuple[int, int]:
        group = item.stash[GROUP]
        if group not in browser_groups:
            return 1, int(group in reading_the_site)
        name = group.split("/")[-1]
        if name not in LONGEST_FIRST:
            return 3, 0
        at = LONGEST_FIRST.index(name)
        return (0 if at == 0 else 2), at

    items.sort(key=rank)  # stable: each group keeps its tests' order


_ONCE: dict[bytes, object] = {}


def once(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, computed once per test process: the CPython answers a browser test compares a page
    with are the same for each of the three browsers (the engine is deterministic given its inputs and seed), and
    some cost seconds (a thousand battles). Keyed by the call's pickle, so equal inputs share it; the answer is
    shared too, so callers must not change it."""
    key = pickle.dumps((fn.__module__, fn.__qualname__, args, sorted(kwargs.items())))
    if key not in _ONCE:
        _ONCE[key] = fn(*args, **kwargs)
    return _ONCE[key]


def estimate_html(widget: str, values, seed: int, trials: int) -> str:
    """CPython's rendered Monte Carlo estimate of ``trials`` trials from ``seed`` (once: see ``once``)."""
    return once(_estimate_html, widget, values, seed, trials)


def _estimate_html(widget: str, values, seed: int, trials: int) -> str:
    from engine import widgets
    w = widgets.get(widget)
    return w.render_tally(w.estimate(values, seed, 0, trials), values)


class QuietHandler(build.SiteHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(directory: Path, port: int = 0) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port, or ``port``: the same origin again) as ``build.py serve`` does;
    yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", port), partial(QuietHandler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    with serving(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    if not Path(path).exists():
        pytest.fail(f"Chromium is missing at {path}: run the tests with ./dev test, which installs it")
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Playwright contexts without the site's offline service worker (offline.js).

    Tests route, withhold or spoil files on purpose (test_snapshot.py), and a
    service worker's cache would answer in their place; tests/test_offline.py
    opens its own contexts with it."""
    return {**browser_context_args, "service_workers": "block"}


class PageGuard:
    """Records console errors, page errors and requests that leave the test server."""

    def __init__(self, page, origin: str) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.origin = origin
        self.page = page
        # No warm-up (browsers.WARM_UP_OFF; the context says whether the offline service worker runs), and
        # one engine worker a page: the pages' Monte Carlo runs would otherwise start a second Python on the
        # second core (pool.js), which the other xdist worker's browser needs; test_simulation.py tests two
        # workers on purpose.
        page.add_init_script(settings_script(WARM_UP_OFF) + """
            globalThis.rulesExplorerWorkers = 1;
            window.cspViolations = [];
            document.addEventListener('securitypolicyviolation',
                e => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
        """)
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("worker", lambda worker: worker.on("console", self._console))
        page.context.route("**/*", self._route)

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console error: {message.text}")

    def _route(self, route) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or f"{parts.scheme}://{parts.netloc}" == self.origin:
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()


@pytest.fixture
def guarded_page(page, site_url: str):
    """A page that fails the test on console errors or off-site requests."""
    origin = site_url.rstrip("/")
    guard = PageGuard(page, origin)
    page.set_default_timeout(BOOT_TIMEOUT_MS)
    yield page
    if not page.is_closed():
        violations = page.evaluate("window.cspViolations || []")
        assert violations == [], f"Content-Security-Policy violations: {violations}"
    assert guard.foreign == [], f"requests left {origin}: {guard.foreign}"
    assert guard.errors == [], "\n".join(guard.errors)


@contextmanager
def kept_page(browser, browser_context_args: dict, site_url: str) -> Iterator[tuple[object, PageGuard]]:
    """A guarded page in a context of its own, for a module whose tests share one live page."""
    context = browser.new_context(**browser_context_args)
    try:
        page = context.new_page()
        guard = PageGuard(page, site_url.rstrip("/"))
        page.set_default_timeout(BOOT_TIMEOUT_MS)
        yield page, guard
    finally:
        context.close()


def check_guard(page, guard: PageGuard) -> None:
    """What ``guarded_page`` asserts after each test, for a page kept across tests."""
    try:
        if not page.is_closed():
            violations = page.evaluate("window.cspViolations || []")
            assert violations == [], f"Content-Security-Policy violations: {violations}"
        assert guard.foreign == [], f"requests left {guard.origin}: {guard.foreign}"
        assert guard.errors == [], "\n".join(guard.errors)
    finally:  # reported once, by the test in which they came
        guard.foreign.clear()
        guard.errors.clear()
        if not page.is_closed():
            page.evaluate("() => { window.cspViolations = []; }")


def wait_until(page, script: str, arg=None, timeout: float = 15_000, interval: float = 50) -> None:
    """Poll ``script`` (a JS function text) until it returns a truthy value.

    Playwright's ``wait_for_function`` builds its predicate with ``eval``, which
    the site's Content-Security-Policy forbids; ``page.evaluate`` calls through
    the DevTools protocol and is not subject to the page's policy.
    """
    import time
    deadline = time.monotonic() + timeout / 1000
    while True:
        if page.evaluate(script, arg):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} ms waiting for {script}")
        page.wait_for_timeout(interval)


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page, context: str = "document") -> list[str]:
    """Run axe-core (WCAG 2.x A and AA rules) in the page; one line per violation.

    axe is evaluated through the DevTools protocol, so the page's
    Content-Security-Policy (which forbids inline scripts) stays as it is.
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    result = page.evaluate("""async (context) => {
        const r = await axe.run(context === 'document' ? document : document.querySelector(context),
                                {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
        return r.violations.map(v => `${v.id} (${v.impact}): ${v.help} — ` +
                                     v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
    }""", context)
    return result


def page_meta(path: Path) -> dict[str, str]:
    """A content page's meta lines, as the build reads them."""
    return build.read_page(path, path.parent.parent).meta


def page_widget_blocks(path: Path) -> list[tuple[str, str, str, dict[str, str], list[tuple[str, dict[str, str]]]]]:
    """Every widget and exhibit block on a page as ``(kind, id, instance, base pairs, examples)``, by the build's
    own parser. (The teaching blocks, ``::: sweep`` and ``::: sensitivity``, are test_build.py's.)"""
    return [(kind, ident, instance, pairs, examples)
            for kind, ident, instance, _title, pairs, examples in build.page_blocks(path.read_text(encoding="utf-8"), path.name)
            if kind in ("widget", "exhibit")]
