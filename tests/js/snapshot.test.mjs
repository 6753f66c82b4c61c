// site/static/snapshot.js: the inflated snapshot kept for later boots (fetchSnapshot, keepInflated,
// dropInflated) and the service worker's side of it (site/service-worker.js), with the shipped
// decoder on a small sparse snapshot of our own. Run by tests/test_js.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { brotliCompressSync, constants } from "node:zlib";
import { createHash } from "node:crypto";

const ROOT = new URL("../../", import.meta.url);
const snapshot = await import(new URL("site/static/snapshot.js", ROOT).href);
const decoder = await import(new URL("node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm.js", ROOT).href);
await decoder.default({ module_or_path: readFileSync(new URL("node_modules/brotli-dec-wasm/pkg/brotli_dec_wasm_bg.wasm", ROOT)) });

const PAGE = 64;
// A sparse snapshot (snapshot.js's layout): one kept page of 0x5a, no held pages, an 8-byte header.
function sparse() {
  const header = 8;
  const bytes = new Uint8Array(snapshot.SPARSE_FIXED + 4 + header + PAGE);
  const view = new DataView(bytes.buffer);
  [snapshot.SPARSE_MAGIC, snapshot.SPARSE_VERSION, header + 2 * PAGE, header, PAGE, 1, 0, 1]
    .forEach((v, i) => view.setUint32(4 * i, v, true));
  bytes.fill(0x5a, bytes.length - PAGE);
  return bytes;
}
const SPARSE = sparse();
const BROTLI = new Uint8Array(brotliCompressSync(SPARSE, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
const URL_ = "https://example.test/pyodide/snapshot.bin.br";

// Cache Storage as far as the snapshot's helpers and the service worker use it.
class Caches {
  constructor() { this.stores = new Map(); this.puts = 0; }
  async open(name) {
    if (!this.stores.has(name)) this.stores.set(name, new Map());
    const store = this.stores.get(name);
    const self = this;
    return {
      async match(url) { const r = store.get(String(url)); return r && r.clone(); },
      async put(url, response) { self.puts++; store.set(String(url), new Response(await response.arrayBuffer(), response)); },
      async delete(url) { return store.delete(String(url)); },
    };
  }
  async has(name) { return this.stores.has(name); }
  async keys() { return [...this.stores.keys()]; }
  async delete(name) { return this.stores.delete(name); }
  async match(url, { cacheName }) { return this.stores.has(cacheName) ? (await this.open(cacheName)).match(url) : undefined; }
}

const served = (bytes, headers = {}) => async () => new Response(bytes, { headers });
const brotli = async () => decoder;
const hex = (bytes) => createHash("sha256").update(bytes).digest("hex");

test("a brotli file is inflated, and handed back for its digest when it is to be kept", async () => {
  let got = await snapshot.fetchSnapshot(URL_, { brotli, keep: true, request: served(BROTLI) });
  assert.deepEqual(got.bytes, SPARSE);
  assert.equal(got.kept, null);
  assert.deepEqual(got.brotli, BROTLI);
  got = await snapshot.fetchSnapshot(URL_, { brotli, request: served(BROTLI) });
  assert.equal(got.brotli, null); // not to be kept: not held
});

test("a kept copy is read without the decoder, and says so", async () => {
  const got = await snapshot.fetchSnapshot(URL_, {
    keep: true, brotli: async () => assert.fail("the decoder was asked for"),
    request: served(SPARSE, { [snapshot.KEPT_FROM]: "abc" }),
  });
  assert.deepEqual(got.bytes, SPARSE);
  assert.equal(got.kept, "abc");
  assert.equal(got.brotli, null);
});

test("a kept copy that cannot be read fails with the copy's mark, for the caller to drop it", async () => {
  for (const spoilt of [SPARSE.slice(0, SPARSE.length - 1), new TextEncoder().encode("garbage")]) {
    await assert.rejects(
      snapshot.fetchSnapshot(URL_, { brotli, request: served(spoilt, { [snapshot.KEPT_FROM]: "abc" }) }),
      (err) => err.kept === "abc" && err.message.startsWith("the snapshot"));
  }
  await assert.rejects(snapshot.fetchSnapshot(URL_, { brotli, request: served(BROTLI.slice(0, 10)) }),
    (err) => err.kept === null);
});

test("keepInflated marks the copy with the brotli file's SHA-256, once; dropInflated removes it", async () => {
  const caches = new Caches();
  assert.equal(await snapshot.keepInflated(URL_, SPARSE, BROTLI, caches), true);
  assert.equal(await snapshot.keepInflated(URL_, SPARSE, BROTLI, caches), false); // already there
  assert.equal(caches.puts, 1);
  const copy = await caches.match(URL_, { cacheName: snapshot.KEPT_CACHE });
  assert.equal(copy.headers.get(snapshot.KEPT_FROM), hex(BROTLI));
  assert.deepEqual(new Uint8Array(await copy.arrayBuffer()), SPARSE);
  const other = BROTLI.slice();
  other[other.length - 1] ^= 1;
  assert.equal(await snapshot.keepInflated(URL_, SPARSE, other, caches), true); // another file's: replaced
  await snapshot.dropInflated(URL_, caches);
  assert.equal(await caches.match(URL_, { cacheName: snapshot.KEPT_CACHE }), undefined);
});

// site/service-worker.js as the build writes it (sw.js), its listeners caught.
function serviceWorker(caches, files) {
  const listeners = {};
  const self = {
    location: { href: "https://example.test/sw.js" }, clients: { claim: async () => {} },
    addEventListener: (type, fn) => { listeners[type] = fn; },
  };
  const source = `const BUILD = "b1"; const FILES = ${JSON.stringify(files)};\n`
    + readFileSync(new URL("site/service-worker.js", ROOT), "utf-8");
  new Function("self", "caches", "fetch", source)(self, caches, async () => new Response("network"));
  const run = (type, event) => new Promise((resolve, reject) => {
    listeners[type]({ ...event, waitUntil: (p) => p.then(resolve, reject), respondWith: (p) => p.then(resolve, reject) });
  });
  return {
    answer: (url) => run("fetch", { request: { method: "GET", url } }),
    activate: () => run("activate", {}),
  };
}

test("the service worker answers with the kept copy only when it is its own brotli file's", async () => {
  const caches = new Caches();
  const build = await caches.open("rules-explorer-b1");
  await build.put(URL_, new Response(BROTLI));
  const ours = serviceWorker(caches, { "pyodide/snapshot.bin.br": hex(BROTLI).slice(0, 16) });
  const body = async (response) => new Uint8Array(await response.arrayBuffer());
  assert.deepEqual(await body(await ours.answer(URL_)), BROTLI); // nothing kept yet
  await snapshot.keepInflated(URL_, SPARSE, BROTLI, caches);
  const answered = await ours.answer(URL_);
  assert.equal(answered.headers.get(snapshot.KEPT_FROM), hex(BROTLI));
  assert.deepEqual(await body(answered), SPARSE);

  // Another build's service worker (another brotli file): never the copy, which goes when it takes over.
  const theirs = serviceWorker(caches, { "pyodide/snapshot.bin.br": "0123456789abcdef" });
  assert.deepEqual(await body(await theirs.answer(URL_)), BROTLI);
  await ours.activate();
  assert.ok(await caches.match(URL_, { cacheName: snapshot.KEPT_CACHE }), "its own build's copy stays");
  await theirs.activate();
  assert.equal(await caches.match(URL_, { cacheName: snapshot.KEPT_CACHE }), undefined);
});
