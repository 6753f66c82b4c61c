// The site offline: a service worker that keeps one whole build in one cache.
//
// The build writes this file to the site's root as sw.js, with two constants
// in front of it: BUILD (a digest of every file of the build) and FILES (each
// file's path from the root and the start of its SHA-256). A new build is a
// new sw.js, which the browser notices on a visit and installs beside the old
// one: it fills a cache of its own (reusing files whose digest did not change)
// and checks every file against its digest, so a build that changed on the
// host half way through is not installed (the next visit tries again). The
// new cache takes over only when the reader accepts the update (offline.js),
// or when no tab of the site is open; the old caches are then deleted. So a
// page of one build never runs with the engine of another.
//
// Requests for the build's files (pages, CSS, JavaScript, the Pyodide
// runtime, the snapshot, the wheel) are answered from the cache, whatever
// their query string; any other request goes to the network as usual. Scope:
// the folder of sw.js, so the site works in a subpath; no special headers.
//
// The snapshot ships brotli-compressed, and the engine worker inflates it on
// every boot (0.5-2.5 s). Once booted from it, the page's worker keeps the
// inflated bytes in a cache of their own (KEPT_CACHE, the same names as
// site/static/snapshot.js), marked with the SHA-256 of the brotli file they
// came from. The snapshot's URL is answered with that copy when the mark is
// this build's brotli file's digest, and only then: the copy is this build's
// file, inflated (whenever and by whichever page it was kept), so a runtime
// never meets another build's snapshot. A copy of another build is deleted
// when this build takes over.

const PREFIX = "rules-explorer-";
const SNAPSHOT = "pyodide/snapshot.bin.br";
const KEPT_CACHE = "rules-explorer:inflated";
const KEPT_FROM = "X-Inflated-From";
const CACHE = PREFIX + BUILD;
const BASE = new URL("./", self.location.href).href;
const TYPES = {
  html: "text/html; charset=utf-8", css: "text/css; charset=utf-8", js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8", json: "application/json", webmanifest: "application/manifest+json",
  wasm: "application/wasm", svg: "image/svg+xml", png: "image/png", txt: "text/plain; charset=utf-8",
};

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// A stored response: the bytes with the type they need (compileStreaming wants
// application/wasm) and none of the transport's headers (Content-Encoding: the
// body is stored decoded), marked with the file's digest for the next build.
function stored(path, body) {
  const ext = path.slice(path.lastIndexOf(".") + 1);
  return new Response(body, { headers: {
    "Content-Type": TYPES[ext] || "application/octet-stream", "X-Digest": FILES[path] } });
}

async function reused(path) {
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX) || name === CACHE) continue;
    const old = await (await caches.open(name)).match(BASE + path);
    if (old && old.headers.get("X-Digest") === FILES[path]) return old.arrayBuffer();
  }
  return null;
}

async function download(path) {
  const response = await fetch(BASE + path, { cache: "no-cache" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

async function keep(cache, path) {
  const body = (await reused(path)) || (await download(path));
  const digest = hex(await crypto.subtle.digest("SHA-256", body)).slice(0, FILES[path].length);
  if (digest !== FILES[path]) throw new Error(`${path} is not the file of build ${BUILD}`);
  await cache.put(BASE + path, stored(path, body));
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    try {
      await Promise.all(Object.keys(FILES).map((path) => keep(cache, path)));
    } catch (error) {
      await caches.delete(CACHE); // never half a build
      throw error;
    }
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    if ((await caches.has(KEPT_CACHE)) && !(await kept())) await (await caches.open(KEPT_CACHE)).delete(BASE + SNAPSHOT);
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.op === "skip-waiting") self.skipWaiting();
  if (event.data && event.data.op === "build") event.source.postMessage({ op: "build", build: BUILD });
});

// The snapshot inflated, if kept from this build's file (see the top).
async function kept() {
  const copy = await caches.match(BASE + SNAPSHOT, { cacheName: KEPT_CACHE });
  const from = copy && copy.headers.get(KEPT_FROM);
  return from && Object.hasOwn(FILES, SNAPSHOT) && from.startsWith(FILES[SNAPSHOT]) ? copy : null;
}

async function answer(path, request) {
  const hit = (path === SNAPSHOT && (await kept())) || (await (await caches.open(CACHE)).match(BASE + path));
  return hit || fetch(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(BASE)) return;
  let path = new URL(request.url).pathname.slice(new URL(BASE).pathname.length);
  try {
    path = decodeURIComponent(path);
  } catch {
    return;
  }
  if (path === "" || path.endsWith("/")) path += "index.html";
  if (Object.hasOwn(FILES, path)) event.respondWith(answer(path, request));
});
