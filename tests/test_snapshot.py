"""The engine worker boots from the Pyodide memory snapshot made at build time.

The build makes ``pyodide/snapshot.bin.gz`` in Node (tools/make_snapshot.mjs)
from the same Pyodide files the site ships, with the engine imported. A page
boots from it and answers exactly as CPython renders; when the snapshot is
missing, corrupt or from another Pyodide build, the worker says so and boots
plainly, and the page still goes live.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import struct
import subprocess
import sys

import brotli
import pytest
from conftest import PageGuard, serving
from test_browser import SG, SG_PAGE, WIDGETS, base_inputs, wait_html

import build
from engine import api, widgets

pytestmark = pytest.mark.browser

BOOT_MS = 60_000
SNAPSHOT_MAGIC = 0x706E7300  # "\0snp", little-endian, as Pyodide writes it
PAGE = 65536


def _leb128(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def wasm_data_image(wasm: bytes, size: int) -> bytearray:
    """Memory as instantiating the WebAssembly leaves it: zero, with the
    module's active data segments in place (read from its data section)."""
    memory = bytearray(size)
    at = 8
    while at < len(wasm):
        section, at = wasm[at], at + 1
        length, at = _leb128(wasm, at)
        if section == 11:  # data
            body, i = wasm[at:at + length], 0
            count, i = _leb128(body, i)
            for _ in range(count):
                flags, i = _leb128(body, i)
                assert flags == 0 and body[i] == 0x41, "a data segment not placed at a constant address"
                offset, i = _leb128(body, i + 1)  # i32.const (non-negative here), then end
                assert body[i] == 0x0B
                n, i = _leb128(body, i + 1)
                memory[offset:offset + n] = body[i:i + n]
                i += n
        at += length
    return memory


def page_sum(page: bytes) -> int:
    """FNV-1a over the page's little-endian 32-bit words (snapshot.js's pageSum)."""
    total = 0x811C9DC5
    for (word,) in struct.iter_unpack("<I", page):
        total = ((total ^ word) * 0x01000193) & 0xFFFFFFFF
    return total


def inflate(packed: bytes) -> bytes:
    """The shipped snapshot file (brotli), inflated here with the brotli package."""
    return brotli.decompress(packed)


def read_sparse(packed: bytes) -> dict:
    """The parts of a shipped (sparse, brotli-compressed) snapshot, read from the layout
    described in site/static/snapshot.js, independently of the JavaScript
    that reads it there."""
    sparse = inflate(packed)
    magic, version, length, header, page, count, held = struct.unpack_from("<7I", sparse)
    assert (magic, version, page) == (build.SPARSE_MAGIC, build.SPARSE_VERSION, PAGE)
    kept = struct.unpack_from(f"<{count}I", sparse, 28)
    held_pages = struct.unpack_from(f"<{held}I", sparse, 28 + 4 * count)
    held_sums = struct.unpack_from(f"<{held}I", sparse, 28 + 4 * (count + held))
    for pages in (kept, held_pages):
        assert list(pages) == sorted(set(pages)), "a page list is not in ascending order"
    assert not set(kept) & set(held_pages), "a page is both kept and held"
    pages_at = 28 + 4 * (count + 2 * held) + header
    assert len(sparse) == pages_at + count * page
    return {"sparse": sparse, "length": length, "header": sparse[pages_at - header:pages_at],
            "kept": {k: sparse[pages_at + i * page:pages_at + (i + 1) * page] for i, k in enumerate(kept)},
            "held": dict(zip(held_pages, held_sums))}


def plain_snapshot(packed: bytes, wasm: bytes) -> bytes:
    """The plain Pyodide snapshot a shipped one stands for. The pages it leaves
    to the runtime are the WebAssembly's own data: taken from `wasm` (the
    shipped pyodide.asm.wasm) and held against their checksums."""
    parts = read_sparse(packed)
    header = parts["header"]
    plain = bytearray(parts["length"])
    plain[:len(header)] = header
    for k, data in parts["kept"].items():
        assert any(data), f"page {k} is all zero: it should have been left out"
        plain[len(header) + k * PAGE:len(header) + (k + 1) * PAGE] = data
    data_image = wasm_data_image(wasm, parts["length"] - len(header))
    for k, checksum in parts["held"].items():
        data = data_image[k * PAGE:(k + 1) * PAGE]
        assert page_sum(data) == checksum, f"held page {k} is not the WebAssembly's own data"
        plain[len(header) + k * PAGE:len(header) + (k + 1) * PAGE] = data
    return bytes(plain)


LIVE = "() => document.documentElement.dataset.engine === 'live'"


def wait_live(page) -> None:
    page.wait_for_function(LIVE, timeout=BOOT_MS)


def one_page_per_system() -> list[str]:
    pages: dict[str, str] = {}
    for url, widget_id, _ in WIDGETS:
        pages.setdefault(widget_id.split(".")[0], url)
    return sorted(pages.values())


def assert_widgets_match_cpython(page, url: str) -> None:
    """Each widget of the page shows what CPython renders for its inputs."""
    for _, widget_id, instance in [w for w in WIDGETS if w[0] == url]:
        w = widgets.get(widget_id)
        values = w.validate(base_inputs(page, instance))
        wait_html(page, f"#{instance} .widget-result", w.render(w.run(values)), f"#{instance} ({widget_id})")


# The build --------------------------------------------------------------------

def test_snapshot_is_built_brotli_compressed_and_matches_the_shipped_runtime(built_site):
    packed = (built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes()
    assert build.SNAPSHOT_NAME == "snapshot.bin.br" and packed[:2] != b"\x1f\x8b", "the snapshot is gzip"
    sparse = inflate(packed)
    snapshot = plain_snapshot(packed, (built_site / "pyodide" / "pyodide.asm.wasm").read_bytes())
    parts = read_sparse(packed)
    held = parts["held"]
    memory = snapshot[len(parts["header"]):]
    zero = sum(1 for k in range(len(memory) // PAGE) if not any(memory[k * PAGE:(k + 1) * PAGE]))
    lists = 28 + 4 * (len(parts["kept"]) + 2 * len(held))
    # exactly the pages that are neither all zero nor held by the runtime are shipped (the engine's growth
    # made the shipped share 55 % of the memory in session 7; issue 23 asks for it smaller: see NOTES.md)
    assert len(sparse) == len(snapshot) - (zero + len(held)) * PAGE + lists, \
        "the all-zero pages and those the runtime holds were not left out"
    assert len(held) > 20, "the pages the fresh runtime already holds were shipped"
    magic, offset, json_length = struct.unpack_from("<3I", snapshot)
    assert magic == SNAPSHOT_MAGIC
    assert (len(snapshot) - offset) % PAGE == 0, "the heap is not whole WebAssembly pages"
    # the snapshot holds no JavaScript object that the browser could not find again
    assert snapshot[48:48 + json_length] == b'{"hiwireKeys":[null,null],"immortalKeys":[]}'
    # made by the very Pyodide build the site ships (restoring checks this id)
    build_id = "".join(f"{n:08x}" for n in struct.unpack_from("<8I", snapshot, 16))
    loader = (built_site / "pyodide" / "pyodide.mjs").read_text()
    assert re.search(r'BUILD_ID:"([0-9a-f]{64})"', loader).group(1) == build_id
    assert len(packed) < len(snapshot) / 3
    assert str(build.ROOT).encode() not in snapshot, "the snapshot holds a path of the build machine"


SNAPSHOT_BUDGET = 3_600_000
"""Bytes of the compressed snapshot a first visit downloads (issue 23: a first visit's bytes). It was
6.63 MB gzipped while the C heap's free memory went into it as Python had left it; zeroed, 5.80 MB;
brotli at quality 11 with a 16 MB window, 3.91 MB (NOTES.md, "The snapshot as brotli"); its code without
docstrings, asserts and column tables, 3.30 MB (NOTES.md, "Session 16"). The engine's growth moves it a
little: this budget leaves it 0.3 MB, less than the column tables alone would add back."""
DECODER_BUDGET = 120_000
"""Bytes of the brotli decoder a first visit downloads besides (its WebAssembly and glue, compressed
as a host that compresses sends them): 0.1 MB, against the 1.9 MB brotli saves."""


def test_the_snapshot_fits_its_byte_budget(built_site):
    packed = (built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes()
    assert len(packed) <= SNAPSHOT_BUDGET, f"the snapshot is {len(packed):,} bytes compressed (budget {SNAPSHOT_BUDGET:,})"
    decoder = sum(len((built_site / "pyodide" / (name + ".br")).read_bytes())
                  for name in ("brotli_dec_wasm.js", "brotli_dec_wasm_bg.wasm"))
    assert decoder <= DECODER_BUDGET, f"the brotli decoder is {decoder:,} bytes (budget {DECODER_BUDGET:,})"


DECODER_MEMORY_BUDGET = 10_000_000
"""Bytes of WebAssembly memory the brotli decoder keeps once it has inflated the snapshot. That memory
never shrinks, and every worker that inflates the snapshot (a first visit's, a pool's, any visit where no
service worker keeps the inflated copy) holds it for its life: about 8 MB with the build's 4 MB window,
22 MB with a 16 MB one (NOTES.md "Session 21")."""

INFLATE_IN_NODE = """
import fs from "node:fs";
const [site, packed] = process.argv.slice(1);
const decoder = await import(site + "/pyodide/brotli_dec_wasm.js");
const exports = decoder.initSync({ module: fs.readFileSync(site + "/pyodide/brotli_dec_wasm_bg.wasm") });
const { brotliStream } = await import(site + "/static/snapshot.js");
const data = fs.readFileSync(packed);
const chunks = new ReadableStream({ start(c) {
  for (let i = 0; i < data.length; i += 65536) c.enqueue(data.subarray(i, i + 65536));
  c.close();
} });
let length = 0;
for await (const piece of chunks.pipeThrough(brotliStream(decoder))) length += piece.length;
console.log(JSON.stringify({ length, memory: exports.memory.buffer.byteLength }));
"""


def test_inflating_the_snapshot_leaves_the_decoder_little_memory(built_site):
    """The site's own stream (snapshot.js) and decoder inflate the shipped snapshot, in Node, in pieces
    as a download brings them; what the decoder's memory has grown to is what each such worker keeps."""
    packed = built_site / "pyodide" / build.SNAPSHOT_NAME
    ran = subprocess.run(["node", "--input-type=module", "-e", INFLATE_IN_NODE, str(built_site), str(packed)],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    got = json.loads(ran.stdout)
    assert got["length"] == len(brotli.decompress(packed.read_bytes()))
    assert got["memory"] <= DECODER_MEMORY_BUDGET, (
        f"the decoder keeps {got['memory']:,} bytes after inflating the snapshot (budget {DECODER_MEMORY_BUDGET:,})")


def test_the_snapshots_code_carries_no_docstrings(built_site):
    """The worker's Python never reads a docstring: the snapshot's modules are compiled as ``python -OO``
    (tools/make_snapshot.mjs, SNAPSHOT_ENV), which leaves them out of its memory and of the download."""
    memory = inflate((built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes())
    assert b"handle_message" in memory, "the engine's code is not in the snapshot"
    doc = api.handle_message.__doc__
    assert doc and doc.split(":")[0].encode() not in memory, "the snapshot holds the engine's docstrings"


def test_the_lock_file_lists_only_what_the_site_ships(built_site):
    """Pyodide's lock names its whole distribution; the site's names the engine wheel alone."""
    lock = json.loads((built_site / "pyodide" / "pyodide-lock.json").read_bytes())
    assert set(lock["packages"]) == {"wargame-engine"}
    assert lock["info"]["python"].startswith("3.")
    for entry in lock["packages"].values():
        shipped = built_site / "pyodide" / entry["file_name"]
        assert shipped.is_file(), entry["file_name"]
        assert hashlib.sha256(shipped.read_bytes()).hexdigest() == entry["sha256"]


# Booting from it ----------------------------------------------------------------

@pytest.mark.parametrize("url", one_page_per_system())
def test_page_boots_from_the_snapshot_and_agrees_with_cpython(guarded_page, site_url, url):
    page = guarded_page
    page.goto(site_url + url)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    status = page.text_content(".engine-status")
    assert status.startswith("Live: the engine answered after") and "snapshot" not in status, status
    assert_widgets_match_cpython(page, url)


def test_snapshot_boot_changes_and_rolls_like_cpython(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    w = widgets.get("small_general.combat")
    base = base_inputs(page, SG)
    chosen = next(t for t in ("clear", "forest", "town") if t != base["terrain"])
    page.select_option(f"#{SG}--terrain", chosen)
    values, rejected = w.from_link({"terrain": chosen}, base)
    assert rejected == []
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "changed terrain")
    page.fill(f"#{SG}--seed", "31337")
    page.click(f"#{SG} [data-action=replay]")
    wait_html(page, f"#{SG} .roll-result", w.render_sample(w.roll(values, 31337)), "seeded roll")


# Falling back to the plain boot -------------------------------------------------

def _pyodide_header(build_id: bytes) -> bytes:
    """A well-formed 64-byte Pyodide snapshot header (empty settings) for `build_id`."""
    return (struct.pack("<4I", SNAPSHOT_MAGIC, 64, 2, 0) + build_id + b"{}").ljust(64, b"\0")


def _fake_snapshot(build_id: bytes) -> bytes:
    """A well-formed plain snapshot for another Pyodide build: restoring must refuse it."""
    return gzip.compress(_pyodide_header(build_id).ljust(PAGE + 64, b"\0"))


def _short_sparse_snapshot() -> bytes:
    """A sparse snapshot whose page list promises a page that is not there."""
    fixed = struct.pack("<8I", build.SPARSE_MAGIC, build.SPARSE_VERSION, 64 + 2 * PAGE, 64, PAGE, 1, 0, 1)
    return gzip.compress(fixed + _pyodide_header(b"\0" * 32))


FAILURES = {
    "aborted": (lambda route: route.abort(), "the snapshot did not download"),
    "missing": (lambda route: route.fulfill(status=404, body=b"not found"), "HTTP 404"),
    "garbage": (lambda route: route.fulfill(body=b"garbage"), "not a Pyodide memory snapshot"),
    "corrupt gzip": (lambda route: route.fulfill(body=b"\x1f\x8b\x08\x00" + b"\x00" * 200), "the snapshot is corrupt"),
    "cut brotli": (lambda route: route.fulfill(body=route.fetch().body()[:100_000]),
                   "the snapshot is corrupt: the brotli stream ends early"),
    "no decoder": (lambda route: route.continue_(), "the snapshot's brotli decoder did not load"),
    "other build": (lambda route: route.fulfill(body=_fake_snapshot(b"\x42" * 32)), "Snapshot build id mismatch"),
    "short sparse": (lambda route: route.fulfill(body=_short_sparse_snapshot()), "its sparse layout does not add up"),
}


TO_LIVE = {"missing", "cut brotli", "other build"}
"""The failures followed until the plain boot is live and answers as CPython: one found by the download, one by
the decoder, one by the restore. Every failure ends in the same ``catch`` of engine-boot.js, which names the
reason and starts the same plain boot; for the others the test stops at the reason (each plain boot to live
costs some 5 s of CPU, which the run's time budget needs)."""


@pytest.mark.parametrize("failure", list(FAILURES))
def test_failed_snapshot_falls_back_to_the_plain_boot_visibly(page, site_url, failure):
    spoil, reason = FAILURES[failure]
    guard = PageGuard(page, site_url.rstrip("/"))
    page.set_default_timeout(BOOT_MS)
    page.route("**/pyodide/" + build.SNAPSHOT_NAME, spoil)
    if failure == "no decoder":
        page.route("**/pyodide/brotli_dec_wasm_bg.wasm", lambda route: route.fulfill(status=404, body=b"not found"))
    page.goto(site_url + SG_PAGE)
    # while the plain boot runs, the status line says why
    page.wait_for_function(
        "r => { const t = document.querySelector('.engine-status')?.textContent || '';"
        "       return t.includes('Starting without the snapshot (') && t.includes(r); }",
        arg=reason, timeout=BOOT_MS)
    if failure in TO_LIVE:
        wait_live(page)
        assert page.evaluate("document.documentElement.dataset.boot") == "plain"
        status = page.text_content(f"#{SG} .engine-status")
        assert status.startswith("Live: the engine answered after") and "started without the snapshot (" in status and reason in status
        assert_widgets_match_cpython(page, SG_PAGE)
    # the only console errors are the ones this test causes: the spoilt request
    caused = [e for e in guard.errors if failure in ("aborted", "missing", "no decoder") and "Failed to load resource" in e]
    assert [e for e in guard.errors if e not in caused] == []
    assert page.evaluate("window.cspViolations || []") == []
    assert guard.foreign == []


def test_a_runtime_that_holds_other_pages_is_not_restored_into(page, site_url, built_site):
    """The pages a snapshot leaves to the fresh runtime are checked before the
    restore: where the runtime holds something else, the worker boots plainly
    and says why."""
    sparse = bytearray(inflate((built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes()))
    count, held = struct.unpack_from("<2I", sparse, 20)
    first_page, = struct.unpack_from("<I", sparse, 28 + 4 * count)
    first_sum = 28 + 4 * (count + held)
    struct.pack_into("<I", sparse, first_sum, struct.unpack_from("<I", sparse, first_sum)[0] ^ 1)
    spoilt = gzip.compress(bytes(sparse), 1)
    page.set_default_timeout(BOOT_MS)
    page.route("**/pyodide/" + build.SNAPSHOT_NAME, lambda route: route.fulfill(body=spoilt))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "plain"
    status = page.text_content(f"#{SG} .engine-status")
    assert f"the snapshot does not fit this runtime: its memory page {first_page} differs" in status, status
    assert_widgets_match_cpython(page, SG_PAGE)


def test_a_snapshot_larger_than_the_fresh_runtimes_memory_is_restored(guarded_page, site_url, built_site):
    """Pyodide's WebAssembly makes its own memory, so a restoring runtime has what
    its start grew to, whatever size Pyodide asks for. A snapshot taken after
    Python's heap grew further (a larger warm-up, another machine's build) is
    restored all the same: the memory grows to fit it first. Here the built
    snapshot's memory gains 64 MB of zero pages at its top."""
    page = guarded_page
    sparse = bytearray(inflate((built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes()))
    length, = struct.unpack_from("<I", sparse, 8)
    struct.pack_into("<I", sparse, 8, length + 1024 * PAGE)
    grown = gzip.compress(bytes(sparse), 1)
    page.route("**/pyodide/" + build.SNAPSHOT_NAME, lambda route: route.fulfill(body=grown))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot", page.text_content(f"#{SG} .engine-status")
    assert_widgets_match_cpython(page, SG_PAGE)


# Starting Pyodide while the snapshot downloads -------------------------------------

def test_pages_carry_the_snapshots_size(built_site):
    """The worker sizes Pyodide's memory from it before the snapshot has arrived."""
    size = read_sparse((built_site / "pyodide" / build.SNAPSHOT_NAME).read_bytes())["length"]
    for path in ("index.html", SG_PAGE, "glossary.html"):
        html = (built_site / path).read_text()
        tag = re.search(r'<script src="[^"]*static/engine-start\.js"([^>]*)>', html)
        assert tag, f"{path} does not load engine-start.js"
        assert f'data-snapshot-bytes="{size}"' in tag.group(1), path


def _page_with_size(route, size: str | None) -> None:
    """The page as built, but telling the worker another snapshot size (or none)."""
    html = route.fetch().text()
    html, count = re.subn(r' data-snapshot-bytes="\d+"', "" if size is None else f' data-snapshot-bytes="{size}"', html)
    assert count == 1
    route.fulfill(body=html, content_type="text/html")


@pytest.mark.parametrize("size", [None, "65536", "99999999"], ids=["no size", "too small", "too large"])
def test_a_page_with_another_snapshot_size_still_boots_from_the_snapshot(guarded_page, site_url, size):
    """A page cached from an earlier build restores the snapshot that arrives, the slower way."""
    page = guarded_page
    page.route(site_url + SG_PAGE, lambda route: _page_with_size(route, size))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    stages = page.evaluate("window.rulesExplorer.engine.bootStages")
    if size is None:  # nothing to start on: the worker waited for the snapshot
        assert "size_mismatch" not in stages and stages["runtime_ready"] >= stages["snapshot_bytes"], stages
    else:  # started on the page's size, then restored the snapshot as it came
        assert {"runtime_ready", "size_mismatch"} <= set(stages), stages
    assert_widgets_match_cpython(page, SG_PAGE)


def test_the_snapshot_is_inflated_beside_pyodides_start(guarded_page, site_url):
    """With the size known, Pyodide's runtime starts before the snapshot has arrived,
    the WebAssembly compiles before Pyodide asks for it, and every boot file is
    downloaded once: the worker's early requests are the ones Pyodide uses."""
    page = guarded_page
    requested: list[str] = []
    page.context.on("request", lambda r: requested.append(r.url.split("?")[0]))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    stages = page.evaluate("window.rulesExplorer.engine.bootStages")
    assert {"wasm_compiled", "runtime_ready", "snapshot_bytes", "python_restored", "engine_ready"} <= set(stages)
    assert "size_mismatch" not in stages
    assert stages["wasm_compiled"] <= stages["runtime_ready"] <= stages["python_restored"]
    for name in ("pyodide.asm.wasm", "pyodide-lock.json", build.SNAPSHOT_NAME, "pyodide.asm.mjs", "pyodide.mjs"):
        assert requested.count(site_url + "pyodide/" + name) == 1, (name, requested)
    assert requested.count(site_url + "pyodide/python_stdlib.zip") <= 1, requested  # after live (below)
    assert stages["snapshot_bytes"] <= stages["python_restored"]


def test_the_engine_goes_live_before_the_standard_library_has_come(guarded_page, site_url):
    """A snapshot boot has every module the engine imports in its memory: the
    2.5 MB standard library zip is not waited for (withheld here until the page
    is live and answers), and is fetched once, after the warm-up."""
    page = guarded_page
    held = []
    page.route("**/pyodide/python_stdlib.zip", lambda route: held.append(route))  # answered once the page is live
    finished: list[tuple[str, int]] = []
    page.context.on("requestfinished", lambda r: finished.append((r.url, r.response().status)))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    assert_widgets_match_cpython(page, SG_PAGE)
    assert [url for url, _ in finished if url.endswith("/python_stdlib.zip")] == []
    wait_until(page, lambda: held)
    assert len(held) == 1, held
    held[0].continue_()
    wait_until(page, lambda: any(url.endswith("/python_stdlib.zip") for url, _ in finished))
    assert [status for url, status in finished if url.endswith("/python_stdlib.zip")] == [200]


def test_an_extra_worker_leaves_the_standard_library_alone(guarded_page, site_url):
    """A pool's extra worker runs Monte Carlo blocks only, which import nothing the snapshot lacks: it does
    not fetch the 2.5 MB standard library zip (the page's own worker does, once, after its warm-up), so the
    zip is not held a second time in the extra worker's memory."""
    page = guarded_page
    stdlib = site_url + "pyodide/python_stdlib.zip"
    requested: list[str] = []
    page.context.on("request", lambda r: requested.append(r.url.split("?")[0]))
    page.goto(site_url + "atg/interception.html")
    wait_live(page)
    wait_until(page, lambda: stdlib in requested)  # the page's worker's
    page.evaluate("() => { const p = window.rulesExplorer.pool; p.size = 3; p.fixed = true; p.spawnAfterMs = 0; }")
    sim = "#atg-intercept-battle .widget-sim"
    run = """([s, n]) => { const i = document.querySelector(s + ' .sim-trials'); i.value = n;
        i.dispatchEvent(new Event('change', {bubbles: true})); }"""
    page.evaluate(run, [sim, "100"])  # starts the extra worker at once
    page.wait_for_function("() => window.rulesExplorer.pool.helpers?.every((h) => h.state === 'live')", timeout=60_000)
    page.evaluate(run, [sim, "600"])
    page.wait_for_function("(s) => document.querySelector(s).dataset.state === 'done'", arg=sim, timeout=120_000)
    # the extra workers ran blocks (and the page's own too, while the reader is quiet: pool.js)
    assert page.evaluate("(s) => document.querySelector(s).dataset.workers", sim) in ("2", "3")
    assert requested.count(stdlib) == 1, requested


def wait_until(page, condition, seconds: float = 60) -> None:
    """Until `condition()` holds, letting Playwright's events run meanwhile."""
    for _ in range(int(seconds * 10)):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("waited in vain")


@pytest.mark.parametrize("boot", ["snapshot", "plain"])
def test_the_start_compiles_each_small_wrapper_module_once(page, site_url, boot):
    """Pyodide wraps some 260 JavaScript functions in tiny WebAssembly modules as it
    starts; the worker compiles each distinct one once, on either boot."""
    page.set_default_timeout(BOOT_MS)
    if boot == "plain":
        page.route("**/pyodide/" + build.SNAPSHOT_NAME, lambda route: route.fulfill(status=404, body="gone"))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == boot
    counts = page.evaluate("window.rulesExplorer.engine.bootSmallModules")
    assert counts["asked"] > 100, counts
    assert 0 < counts["compiled"] < counts["asked"] / 4, counts
    assert_widgets_match_cpython(page, SG_PAGE)


def test_a_plain_pyodide_snapshot_still_boots(guarded_page, site_url, built_site):
    """The worker reads a snapshot as Pyodide writes it (all pages) as well as the sparse one."""
    page = guarded_page
    pyodide = built_site / "pyodide"
    plain = gzip.compress(plain_snapshot((pyodide / build.SNAPSHOT_NAME).read_bytes(), (pyodide / "pyodide.asm.wasm").read_bytes()), 1)
    page.route("**/pyodide/" + build.SNAPSHOT_NAME, lambda route: route.fulfill(body=plain))
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    assert "size_mismatch" not in page.evaluate("window.rulesExplorer.engine.bootStages")
    assert_widgets_match_cpython(page, SG_PAGE)


def test_if_the_early_compile_fails_pyodide_fetches_the_webassembly_again(guarded_page, site_url):
    """The worker's early compile of pyodide.asm.wasm is only a head start."""
    page = guarded_page
    served: list[str] = []

    def first_one_spoilt(route):
        served.append(route.request.url)
        if len(served) == 1:
            route.fulfill(body=b"\0asm not really", content_type="application/wasm")
        else:
            route.continue_()

    page.route("**/pyodide/pyodide.asm.wasm", first_one_spoilt)
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    assert len(served) == 2, served
    assert "wasm_compiled" not in page.evaluate("window.rulesExplorer.engine.bootStages")
    assert_widgets_match_cpython(page, SG_PAGE)


def test_the_worker_warms_up_in_the_pause_after_the_start(guarded_page, site_url):
    """Once the page has been quiet a moment the worker runs every widget a few times
    itself (its WebAssembly is then optimised), says so, and answers as before. The
    tests' pages skip the rounds (browsers.WARM_UP_OFF); this one loads as a reader's."""
    page = guarded_page
    page.goto(site_url + SG_PAGE)  # first as the tests load pages: no rounds, the rest as ever
    wait_live(page)
    page.wait_for_function("() => document.documentElement.dataset.engineWarmMs", timeout=BOOT_MS)
    assert page.evaluate("document.documentElement.dataset.engineWarmRequests") == "0"
    page.add_init_script("globalThis.rulesExplorerWarmUp = undefined;")  # after PageGuard's
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    page.wait_for_function("() => document.documentElement.dataset.engineWarmMs", timeout=BOOT_MS)
    # engine-worker.js's WARM_ROUNDS rounds of every request engine.api.warm_up_requests lists, counted in a
    # Python of its own (this one's widget registry may hold other tests' widgets)
    listed = subprocess.run([sys.executable, "-c", "from engine import api; print(len(api.warm_up_requests()))"],
                            cwd=build.ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert page.evaluate("document.documentElement.dataset.engineWarmRequests") == str(3 * int(listed))
    stages = page.evaluate("window.rulesExplorer.engine.bootStages")
    assert stages["warm"] > stages["engine_ready"]
    live_ms = float(page.evaluate("document.documentElement.dataset.widgetsLiveMs"))
    assert float(page.evaluate("document.documentElement.dataset.engineWarmMs")) > live_ms
    assert_widgets_match_cpython(page, SG_PAGE)
    w = widgets.get("small_general.combat")
    base = base_inputs(page, SG)
    chosen = next(t for t in ("clear", "forest", "town") if t != base["terrain"])
    page.select_option(f"#{SG}--terrain", chosen)
    values, _ = w.from_link({"terrain": chosen}, base)
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "a change after the warm-up")


def test_the_engine_worker_starts_no_worker_of_its_own():
    """Issue 11: in Firefox, a worker started from the engine worker now and then
    left the engine worker stuck for good. The snapshot is fetched and inflated
    in the engine worker itself. The worker is engine-worker.js and the modules
    it imports: its boot, the scheduler and the snapshot reader."""
    static = build.ROOT / "site" / "static"
    for name in ("engine-worker.js", "engine-boot.js", "scheduler.js", "snapshot.js"):
        assert "new Worker(" not in (static / name).read_text(encoding="utf-8"), name


def test_a_snapshot_download_that_stalls_is_started_again(guarded_page, site_url):
    """The first snapshot request never answers: the worker's heartbeats then show
    no progress, and the page starts a fresh worker, whose download goes through."""
    page = guarded_page
    page.add_init_script("globalThis.rulesExplorerStuckMs = 8000;")
    held: list[str] = []

    def first_one_held(route):
        if held:
            route.continue_()
        else:
            held.append(route.request.url)  # never answered

    page.route("**/pyodide/" + build.SNAPSHOT_NAME, first_one_held)
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert len(held) == 1
    assert page.evaluate("document.documentElement.dataset.boot") == "snapshot"
    assert page.evaluate("window.rulesExplorer.engine.bootRestarts") == 1
    status = page.text_content(f"#{SG} .engine-status")
    assert "on its second start (the first stopped making progress)" in status, status
    assert_widgets_match_cpython(page, SG_PAGE)
