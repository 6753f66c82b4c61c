"""The site offline (site/service-worker.js, site/static/offline.js), in a subpath.

One visit online; then, with the network off, one page per system goes live
from the cache, agrees with CPython before and after an input change, a
Monte Carlo run shares two workers (the extra one started offline), and an
in-site link works. A new build is noticed, offered, and replaces the old
cache whole. The build's side is tests/test_offline_build.py.

Other Playwright tests block the service worker (conftest.py
``browser_context_args``): they route or spoil files on purpose, and a cache
would answer in their place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from browsers import Chromium
from conftest import PageGuard, serving
from test_browser import PAGES, SG_PAGE, WIDGETS
from test_browsers import (BOOT_S, _replace, _symlinked_copy, browsers, change_one_input, driver, drivers,  # noqa: F401
                           open_live, shows, widgets_match_cpython)
from test_simulation import INSTANCE, PAGE as SIM_PAGE, SET_TRIALS, SIM, expected

import build

pytestmark = pytest.mark.browser

SUBPATH = "games/rules/"
LIVE = "() => document.documentElement.dataset.widgetsLive === location.pathname"
OFFLINE = "() => document.documentElement.dataset.offline"
SETTLED = """() => !document.querySelector('[data-state=running]')
    && (window.rulesExplorer.pool?.helpers ?? []).every((h) => h.state !== 'loading')"""


def one_page_per_system() -> list[str]:
    pages: dict[str, str] = {}
    for url in PAGES:
        if any(w[0] == url for w in WIDGETS):
            pages.setdefault(url.split("/")[0], url)
    return list(pages.values())


@pytest.fixture(scope="module")
def offline_site(built_site, tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """The built site in a subpath of its server (links, scope and the manifest must all be relative)."""
    top = tmp_path_factory.mktemp("offline")
    copy = _symlinked_copy(built_site, top / SUBPATH)
    with serving(top) as url:
        yield copy, url + SUBPATH


class Tab(Chromium):
    """The test_browsers driver over one page of a context that keeps its service worker."""

    def __init__(self, browser, origin: str) -> None:
        super().__init__(browser)
        self.context = browser.new_context(service_workers="allow")
        self.page = self.context.new_page()
        self.guard = PageGuard(self.page, origin)
        self.page.set_default_timeout(BOOT_S * 1000)
        self.failed: list[str] = []

    def go(self, url: str) -> None:
        self.page.goto(url)
        self.wait(LIVE, timeout=BOOT_S)

    def errors(self) -> list[str]:
        return (self.guard.errors + [f"left the site: {u}" for u in self.guard.foreign]
                + [f"failed: {u}" for u in self.failed])


@pytest.fixture
def tab(browser, offline_site) -> Iterator[Tab]:
    _, url = offline_site
    tab = Tab(browser, url.split("/" + SUBPATH)[0])
    try:
        yield tab
    finally:
        tab.quit()


def test_after_one_visit_every_system_works_offline(tab, offline_site):
    _, site = offline_site
    first = one_page_per_system()
    tab.go(site + first[0])
    tab.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    assert tab.call("() => document.querySelector('.offline-status').textContent").startswith("Available offline")
    assert tab.call("() => Boolean(navigator.serviceWorker.controller)")  # claimed at once: no reload needed

    tab.context.set_offline(True)
    assert tab.call("() => fetch('../build.json').then((r) => r.json()).then((b) => b.engine)")  # from the cache
    tab.page.on("requestfailed", lambda r: tab.failed.append(r.url))
    for url in first:
        tab.go(site + url)
        booted = tab.call("() => document.documentElement.dataset.boot")
        assert booted == "snapshot", (url, booted)  # the runtime and snapshot came from the cache, whole
        widgets_match_cpython(tab, url)
        change_one_input(tab, url)
        assert tab.call(OFFLINE) == "ready"

    # An in-site link (the pager's next page), offline.
    tab.call("() => document.querySelector('a[rel=next]').click()")
    tab.wait("(p) => document.documentElement.dataset.widgetsLive && location.pathname !== p", "/" + first[-1],
             timeout=BOOT_S)
    assert tab.call("() => window.rulesExplorer.engine.state") == "live"

    # Monte Carlo on two extra workers (the page's own only merges once they are live): both boot offline
    # from the same cache.
    tab.go(site + SIM_PAGE)
    tab.call("() => { const p = window.rulesExplorer.pool; p.size = 3; p.fixed = true; p.spawnAfterMs = 0; }")
    tab.call(SET_TRIALS, SIM, "100")
    tab.wait("() => window.rulesExplorer.pool.helpers?.every((h) => h.state === 'live')", timeout=BOOT_S)
    tab.call(SET_TRIALS, SIM, "1200")
    tab.wait("(s) => document.querySelector(s).dataset.state === 'done'", SIM, timeout=120)
    shows(tab, f"{SIM} .sim-result", expected(tab, 1, 1200), "the estimate merged from two workers, offline")
    assert tab.call("(s) => document.querySelector(s).dataset.workers", SIM) == "2"
    assert tab.errors() == []


def rebuild(copy: Path, page: str, marker: str) -> str:
    """A new build in place: one page changed and the service worker the build makes for it."""
    _replace(copy / page, (copy / page).read_text(encoding="utf-8").replace("</main>", f"<p>{marker}</p></main>"))
    files = {p.relative_to(copy).as_posix(): p.read_bytes() for p in sorted(copy.rglob("*"))
             if p.is_file() and not p.name.endswith((".gz", ".br")) or p.name == build.SNAPSHOT_NAME}
    files.pop(build.SERVICE_WORKER)
    _replace(copy / build.SERVICE_WORKER, build.service_worker(build.Config(), files))
    return build.build_id(files)


def test_a_new_build_is_offered_and_replaces_the_old_cache_whole(tab, offline_site):
    copy, site = offline_site
    tab.go(site + SG_PAGE)
    tab.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    old = tab.call("() => caches.keys()")
    assert len(old) == 1 and old[0].startswith("rules-explorer-")

    new_id = rebuild(copy, SG_PAGE, "A sentence of the new build.")
    tab.go(site + SG_PAGE)
    tab.wait("() => document.documentElement.dataset.offline === 'update'", timeout=120)
    # Until the reader takes it, the page and its engine are the old build's, whole.
    assert "A sentence of the new build." not in tab.page.content()
    assert tab.call("() => document.querySelector('.offline-status').textContent").startswith(
        "A new version of the site is available.")
    with tab.page.expect_navigation():
        tab.call("() => document.querySelector('.offline-status button').click()")
    tab.wait(LIVE, timeout=BOOT_S)
    assert "A sentence of the new build." in tab.page.content()
    assert tab.call("() => caches.keys()") == [f"rules-explorer-{new_id}"]  # the old cache is gone

    tab.context.set_offline(True)
    tab.go(site + SG_PAGE)
    assert "A sentence of the new build." in tab.page.content()
    widgets_match_cpython(tab, SG_PAGE)
    assert tab.errors() == []


def test_chromium_can_install_the_site(browser_type, browser_type_launch_args, offline_site, tmp_path):
    """In a profile of its own (a test context is incognito, where Chromium installs nothing)."""
    _, site = offline_site
    context = browser_type.launch_persistent_context(tmp_path / "profile", **browser_type_launch_args)
    try:
        page = context.new_page()
        page.goto(site + SG_PAGE)
        page.wait_for_selector("html[data-offline=ready]", state="attached", timeout=120_000)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == site + build.MANIFEST and manifest["errors"] == [], manifest["errors"]
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    finally:
        context.close()


@browsers("firefox", "webkit")
def test_with_the_server_gone_a_visited_site_still_works(driver, built_site, tmp_path):
    """Firefox's and WebKit's drivers have no offline switch: the server stops instead."""
    copy = _symlinked_copy(built_site, tmp_path / SUBPATH)
    server = serving(tmp_path)
    site = server.__enter__() + SUBPATH
    try:
        open_live(driver, site + SG_PAGE)
        driver.wait("() => document.documentElement.dataset.offline === 'ready'", timeout=120)
    finally:
        server.__exit__(None, None, None)
    assert copy.exists()
    for url in one_page_per_system()[:2]:
        driver.call("(u) => { location.href = u; }", site + url)
        path = "/" + SUBPATH + url
        driver.wait("(p) => location.pathname === p && document.documentElement?.dataset.widgetsLive === p", path,
                    timeout=BOOT_S)
        widgets_match_cpython(driver, url)
        change_one_input(driver, url)
        # Leaving a page while one of its workers is still starting makes Firefox log the cancelled loads
        # of the page being left (its service worker's answers included); a reader sees none of it, and
        # this test is about the next page working offline: it leaves once the page's runs have ended.
        driver.wait(SETTLED, timeout=BOOT_S)
    assert driver.errors() == []


def test_chromium_gets_the_precompressed_files_and_the_snapshot_as_it_is(guarded_page, site_url, built_site):
    """build.py serve as a compressing static host: brotli where accepted; the snapshot never re-encoded."""
    response = guarded_page.goto(site_url + SG_PAGE)
    assert response.header_value("content-encoding") == "br" and response.header_value("vary") == "Accept-Encoding"
    got = guarded_page.evaluate("""async () => {
        const wasm = await fetch('../pyodide/pyodide.asm.wasm');
        const head = [wasm.headers.get('content-encoding'), wasm.headers.get('content-type')];
        const compiled = await WebAssembly.compileStreaming(wasm).then(() => true);
        const snap = await fetch('../pyodide/snapshot.bin.br');
        const bytes = new Uint8Array(await snap.arrayBuffer());
        return {head, compiled, snapshot: [snap.headers.get('content-encoding'), bytes[0], bytes[1], bytes.length]};
    }""")
    assert got["head"] == ["br", "application/wasm"] and got["compiled"]
    shipped = (built_site / "pyodide" / "snapshot.bin.br").read_bytes()  # brotli, inflated by the worker itself
    assert got["snapshot"] == [None, shipped[0], shipped[1], len(shipped)]
    guarded_page.wait_for_selector(f"html[data-widgets-live='/{SG_PAGE}']", state="attached")
