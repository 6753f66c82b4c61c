// The engine worker's boot (engine-worker.js imports it): Pyodide started
// with the engine, and the engine's request handler made.
//
// `boot(post, params)` starts it at once and resolves with the handler,
// `handle(request) -> answer` (JSON data in and out; `handle.warmUpRequests()`
// lists the requests that warm the engine up). `post` sends the page the
// boot's messages: `status`, the heartbeat `alive`, and `ready`; `params` are
// the worker URL's search parameters:
// - ?snapshot-bytes=N: the memory snapshot's size, from the build;
// - ?boot=plain: the page restarted a boot that stalled, and asks for the
//   plain one;
// - ?controlled: the page is served by the site's service worker, which
//   answers with the inflated snapshot kept by an earlier boot, if any;
// - ?keep-snapshot: once live, keep the snapshot inflated for that (the
//   page's own worker, where a service worker may be: loadSnapshot);
// - ?test-stall=thread: tests make this boot's thread stick after its first
//   status, as Firefox's did (NOTES.md);
// - ?test-import=NAME: tests have a snapshot boot import the module NAME (one
//   of the standard library's not in the snapshot) before its standard library
//   has come, and the ready message tell how it went (`stdlibImport`).
// A failed boot rejects; the worker tells the page.
//
// Boot: from the memory snapshot made at build time (tools/make_snapshot.mjs:
// Python started, engine imported), about four times faster than a plain
// boot. If the snapshot is missing, corrupt or made by another Pyodide build,
// the worker says so in a status message and boots plainly (loadPyodide, then
// the engine wheel from the lock file). "ready" tells which: boot: "snapshot"
// or "plain" (with the reason as fallback).
//
// When the page passes the snapshot's size (?snapshot-bytes=N, from the
// build), Pyodide starts before the snapshot has arrived, on a stand-in of
// that size: it compiles the WebAssembly and sets up its runtime while the
// snapshot downloads and is inflated (loadSnapshot), and only the restore
// waits for it (bootOn). The snapshot is sparse (without its all-zero pages
// and those the fresh runtime holds already) and goes straight into
// Pyodide's memory (snapshot.js). It comes brotli-compressed and is inflated
// here as it arrives, by a WebAssembly decoder the site ships (loadSnapshot).
//
// Everything the boot downloads is requested at once, when the worker starts
// (a worker has no <link rel=preload>): Pyodide asks for its runtime files only
// after its 1.3 MB loader has loaded and run, and gets the responses already
// on their way (see `prefetch`). The WebAssembly is compiled as it arrives,
// also while the loader loads and runs, and Pyodide only instantiates it
// (`compileEarly`).
//
// The snapshot boot does not wait for Python's standard library
// (python_stdlib.zip, 2.5 MB): every module the engine imports is in the
// snapshot's memory already, so the zip is fetched after the engine is live
// (`stdlibLater`, handle.stdlib), and an import that needs it before it has
// arrived fetches it there and then (tools/make_snapshot.mjs checks that the
// snapshot answers with no zip at all). The plain boot downloads it first, as
// Pyodide does.
//
// No worker is started from here (see loadSnapshot).

const RUNTIME = new URL("../pyodide/", import.meta.url).href;
const SNAPSHOT_URL = RUNTIME + "snapshot.bin.br";
const BROTLI_DECODER = RUNTIME + "brotli_dec_wasm.js";
const STDLIB_URL = RUNTIME + "python_stdlib.zip";
// What the snapshot boot gives Pyodide for its standard library: an empty zip
// (its end record alone), answered here, never asked of the network.
const STDLIB_LATER_URL = STDLIB_URL + "#later";
const EMPTY_ZIP = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
const OPTIONS = {
  indexURL: RUNTIME,
  lockFileURL: RUNTIME + "pyodide-lock.json",
  packages: [],
  stdout: () => {},
  stderr: () => {},
};

// Responses requested early, each handed out once to the first fetch of its
// URL: Pyodide's own fetches of these files get them instead of asking again.
// Any other fetch, or a second one of the same URL, goes to the network. The
// stand-in standard library (STDLIB_LATER_URL) is answered here, every time.
const prefetched = new Map();
const networkFetch = self.fetch.bind(self);
function prefetch(urls) {
  for (const url of urls) {
    const response = networkFetch(url);
    response.catch(() => {}); // a failure is the real fetch's to report
    prefetched.set(url, response);
  }
  self.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : null;
    if (url === STDLIB_LATER_URL) return Promise.resolve(new Response(EMPTY_ZIP));
    const plain = !init || Object.keys(init).length === 0; // Pyodide passes {} without an integrity hash
    const early = url !== null && plain ? prefetched.get(url) : undefined;
    if (!early) return networkFetch(input, init);
    prefetched.delete(url);
    return early;
  };
}

// Compiles Pyodide's WebAssembly from its prefetched response at once, where
// Pyodide would compile it only once its loader has run. Pyodide instantiates
// it with WebAssembly.instantiateStreaming(that response, imports); that one
// call is answered from the compiled module. Should the early compile fail,
// the call goes to the network as Pyodide made it, and any error is Pyodide's
// to report.
function compileEarly(url) {
  const response = prefetched.get(url);
  const compiled = WebAssembly.compileStreaming(response);
  compiled.then(() => stage("wasm_compiled"), () => {});
  const instantiateStreaming = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    if (source === response) {
      const module = await compiled.catch(() => null);
      if (module) return { module, instance: await WebAssembly.instantiate(module, imports) };
      source = networkFetch(url);
    }
    return instantiateStreaming(source, imports);
  };
}

// Emscripten puts each JavaScript function that C code takes the address of
// into the WebAssembly table by compiling a tiny module around it
// (convertJsFunctionToWasm): Pyodide's start does so about 260 times, with
// about 30 distinct modules (one per signature). While Python starts,
// `new WebAssembly.Module` of such a small byte string compiles each distinct
// one once; anything else goes to WebAssembly as it is. Returns the undo,
// which tells how many were asked for and how many compiled.
const SMALL_MODULE_BYTES = 128;
function compileSmallModulesOnce() {
  const Module = WebAssembly.Module;
  const compiled = new Map();
  let asked = 0;
  function OnceModule(bytes) {
    if (!new.target) return Module(...arguments); // throws, as WebAssembly.Module does without new
    if (arguments.length !== 1 || !(bytes instanceof Uint8Array) || bytes.length > SMALL_MODULE_BYTES) {
      return Reflect.construct(Module, arguments, new.target);
    }
    asked++;
    const key = String(bytes);
    let module = compiled.get(key);
    if (!module) compiled.set(key, (module = new Module(bytes)));
    return module;
  }
  Object.setPrototypeOf(OnceModule, Module); // WebAssembly.Module.imports() and the like
  OnceModule.prototype = Module.prototype; // instanceof WebAssembly.Module holds
  WebAssembly.Module = OnceModule;
  return () => {
    WebAssembly.Module = Module;
    return { asked, compiled: compiled.size };
  };
}

// `plain`: the worker now boots without the snapshot, a long stretch of
// Python's own start without a heartbeat, which the page does not restart.
function status(post, stage, detail, plain = false) {
  post({ type: "status", stage, detail, plain });
}

function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
}

// The snapshot (readSnapshot in snapshot.js), fetched (its request went out
// with the prefetches) and inflated on this worker's thread as it arrives.
// No helper worker: in Firefox, a worker started from this worker now and
// then left this one stuck for good (NOTES.md, issue 11); in Chromium on
// two cores the difference was within the noise.
// The snapshot is brotli-compressed; its decoder (brotli-dec-wasm, 208 KB of
// WebAssembly, shipped beside Pyodide's files) loads and compiles while the
// snapshot's first bytes are on their way, unless the page is served by the
// site's service worker (`controlled`): that one most likely answers with the
// inflated copy kept on an earlier visit (snapshot.js, KEPT_CACHE), and the
// decoder is loaded only if the file's first bytes say brotli after all.
// `file` is told how it went: `kept` when the copy was used (stage
// "snapshot_kept"), and, when `keep` is asked for and the brotli file was
// inflated, `keep()`, which puts the inflated bytes in the cache for next time
// (the page's own worker calls it once it is live).
async function loadSnapshot(snapshotBytes, { controlled, keep }, file) {
  let decoder = null;
  const brotli = () => (decoder ??= brotliDecoder());
  if (!controlled) brotli().catch(() => {}); // reported by fetchSnapshot, should the snapshot need it
  const { fetchSnapshot, readSnapshot, keepInflated, dropInflated } = await import("./snapshot.js");
  const options = { size: snapshotBytes, progress, brotli, keep };
  let got;
  try {
    got = await fetchSnapshot(SNAPSHOT_URL, options);
  } catch (err) {
    if (!err.kept) throw err;
    // A kept copy that cannot be read (cut or spoilt in the cache): dropped,
    // and the service worker asked again, which now answers with the brotli file.
    stage("snapshot_kept_refused");
    await dropInflated(SNAPSHOT_URL).catch(() => {});
    got = await fetchSnapshot(SNAPSHOT_URL, options);
  }
  if (got.kept) {
    stage("snapshot_kept");
    file.drop = () => dropInflated(SNAPSHOT_URL);
  } else if (got.brotli) {
    let { bytes, brotli: packed } = got;
    file.keep = async () => {
      try {
        if (await keepInflated(SNAPSHOT_URL, bytes, packed)) stage("snapshot_stored");
      } finally {
        bytes = packed = null;
      }
    };
  }
  return readSnapshot(got.bytes);
}

async function brotliDecoder() {
  const decoder = await import(BROTLI_DECODER);
  await decoder.default({ module_or_path: RUNTIME + "brotli_dec_wasm_bg.wasm" });
  stage("brotli_decoder");
  return decoder;
}

// The engine's request handler. After a plain boot, a first request imports
// every game system and proves the engine answers before the page is told it
// is live; a snapshot has them imported already, and the build checked that
// it answers (tools/make_snapshot.mjs).
function engine(pyodide, { describe }) {
  const api = pyodide.pyimport("engine.api");
  if (describe) api.handle(JSON.stringify({ op: "describe" }));
  const handle = (message) => JSON.parse(api.handle(JSON.stringify(message)));
  handle.warmUpRequests = () => JSON.parse(pyodide.runPython("import json, engine.api; json.dumps(engine.api.warm_up_requests())"));
  return handle;
}

// Pyodide keeps its options for the life of the worker; handing the snapshot
// (or its stand-in) over through a thenable that lets go of it keeps its 30 MB
// from staying too.
function handOver(value) {
  return {
    then(resolve, reject) {
      const once = value;
      value = null;
      return Promise.resolve(once).then(resolve, reject);
    },
  };
}

class SizeMismatch extends Error {}

// Starts Pyodide on a stand-in of the snapshot's size: Pyodide reads only its
// size (to size its memory) until the restore. The module factory below holds
// the restore back until the snapshot has arrived and points Pyodide's restore
// at it, so the bytes go straight from the inflated file into Pyodide's
// memory. The stand-in is never written, so its pages are never touched.
async function bootOn(size, loadPyodide, createModule, snapshot) {
  let pending = snapshot; // Pyodide keeps this factory for good: it lets go of the 14 MB once used
  const createPyodideModule = async (settings) => {
    const module = await createModule(settings);
    stage("runtime_ready");
    const image = await pending;
    pending = null;
    if (image.length !== size) throw new SizeMismatch();
    image.restoreInto(module);
    return module;
  };
  return loadPyodide({ ...OPTIONS, stdLibURL: STDLIB_LATER_URL, createPyodideModule, _loadSnapshot: handOver(new Uint8Array(size)) });
}

// Python's standard library after a snapshot boot. Pyodide wrote the stand-in
// (an empty zip) where the zip goes; it is removed, so that until the real one
// is there Python finds no file (a traceback's source lines are then left out,
// as for the engine's own files). The first import of a module that is not in
// memory yet fetches the zip at once (a synchronous request: an import cannot
// wait; a worker may make one), through a finder first in sys.meta_path that
// steps aside once the zip is in place. `fetchLater()` fetches it in the
// background; `state()` says "missing", "fetching" or "ready", and how the zip
// came ("background" or "import"). engine-worker.js calls fetchLater once the
// page's first answers and the warm-up are done (the file is for imports the
// engine may never make: it need not share the network with anything).
function stdlibLater(pyodide) {
  const path = pyodide.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
  pyodide.FS.unlink(path);
  const state = { zip: "missing", by: "" };
  const put = (bytes, by) => {
    if (state.zip === "ready") return;
    pyodide.FS.writeFile(path, bytes);
    Object.assign(state, { zip: "ready", by });
    stage("stdlib");
  };
  const now = () => {
    if (state.zip === "ready") return true;
    try {
      const request = new XMLHttpRequest();
      request.open("GET", STDLIB_URL, false);
      request.responseType = "arraybuffer";
      request.send();
      if (request.status === 200) put(new Uint8Array(request.response), "import");
    } catch {
      // offline before the site was saved: the import fails as it would without the file
    }
    return state.zip === "ready";
  };
  const install = pyodide.runPython(`
import sys
class StdlibLater:
    """Fetches the standard library's zip before the first import of a module not in memory."""
    def __init__(self, ready):
        self.ready = ready
    def find_spec(self, name, path=None, target=None):
        if self.ready() and self in sys.meta_path:
            sys.meta_path.remove(self)
        return None
def install(ready):
    sys.meta_path.insert(0, StdlibLater(ready))
install`);
  install(now);
  install.destroy();
  return {
    state: () => ({ ...state }),
    fetchLater() {
      if (state.zip !== "missing") return;
      state.zip = "fetching";
      fetch(STDLIB_URL)
        .then((response) => (response.ok ? response.arrayBuffer() : Promise.reject(new Error(`HTTP ${response.status}`))))
        .then((bytes) => put(new Uint8Array(bytes), "background"))
        .catch(() => { if (state.zip === "fetching") state.zip = "missing"; }); // the first import that needs it fetches it
    },
  };
}

async function bootFromSnapshot(loadPyodide, createModule, snapshot, snapshotBytes) {
  let pyodide;
  try {
    if (snapshotBytes) pyodide = await bootOn(snapshotBytes, loadPyodide, createModule, snapshot);
  } catch (err) {
    if (!(err instanceof SizeMismatch)) throw err;
    stage("size_mismatch");
  }
  // No size given, or another one (a page cached from an earlier build):
  // start once the snapshot has arrived and told its size.
  pyodide ??= await bootOn((await snapshot).length, loadPyodide, createModule, snapshot);
  stage("python_restored");
  // A snapshot freezes Python's random state: without this every page would
  // start from the same one. (Rolls with a seed use their own Random.)
  const random = pyodide.pyimport("random");
  random.seed();
  random.destroy();
  const handle = engine(pyodide, { describe: false });
  handle.stdlib = stdlibLater(pyodide);
  handle.pyodide = pyodide;
  return handle;
}

async function bootPlain(loadPyodide, post) {
  const pyodide = await loadPyodide(OPTIONS);
  status(post, "engine", "Loading the rules engine");
  await pyodide.loadPackage("wargame-engine", { messageCallback: () => {}, errorCallback: (m) => status(post, "engine", m) });
  return engine(pyodide, { describe: true });
}

// For ?test-import: imports `name` and tells how it went, and how the standard
// library came.
function importNow(handle, name) {
  const before = handle.stdlib.state();
  try {
    handle.pyodide.pyimport(name).destroy();
    return { module: name, imported: true, before, after: handle.stdlib.state() };
  } catch (err) {
    return { module: name, imported: false, error: reason(err), before, after: handle.stdlib.state() };
  }
}

export const stages = {}; // ms since the worker's time origin (sent as timeOrigin), for the benchmark
export const stage = (name) => { stages[name] = Math.round(performance.now()); };

// While it boots the worker tells the page every HEARTBEAT_MS that its thread
// runs and how far it has come (stages reached, snapshot bytes inflated): the
// page starts a fresh worker when these stop or stand still (engine-client.js).
const HEARTBEAT_MS = 1000;
const moved = { bytes: 0 };
const progress = (bytes) => { moved.bytes = bytes; };

export function boot(post, params) {
  const heartbeat = setInterval(() => {
    post({ type: "alive", stages: Object.keys(stages).length, bytes: moved.bytes });
  }, HEARTBEAT_MS);
  const ready = start(post, {
    snapshotBytes: Number(params.get("snapshot-bytes")) || 0,
    plain: params.get("boot") === "plain",
    controlled: params.has("controlled"),
    keep: params.has("keep-snapshot"),
    testStall: params.get("test-stall"),
    testImport: params.get("test-import"),
  });
  const stopHeartbeat = () => clearInterval(heartbeat);
  ready.then(stopHeartbeat, stopHeartbeat);
  return ready;
}

async function start(post, { snapshotBytes, plain, controlled, keep, testStall, testImport }) {
  const started = performance.now();
  status(post, "runtime", "Loading the Python runtime");
  if (testStall === "thread") for (;;);
  // The snapshot downloads while Pyodide's loader and runtime load and compile.
  // The standard library is the plain boot's alone (the snapshot boot's comes
  // after it is live): a plain boot after a failed snapshot asks for it then.
  const runtimeFiles = ["pyodide.asm.wasm", "pyodide-lock.json"].map((name) => RUNTIME + name);
  prefetch(plain ? [STDLIB_URL, ...runtimeFiles] : [SNAPSHOT_URL, ...runtimeFiles]);
  const file = { keep: null, drop: null }; // see loadSnapshot
  const snapshot = plain ? Promise.reject(new Error("after a stalled start"))
    : loadSnapshot(snapshotBytes, { controlled, keep }, file);
  compileEarly(RUNTIME + "pyodide.asm.wasm");
  snapshot.then(() => stage("snapshot_bytes"), () => {});
  snapshot.catch(() => {}); // reported below, when the boot falls back
  const [{ loadPyodide }, { default: createModule }] = await Promise.all([
    import(RUNTIME + "pyodide.mjs"), import(RUNTIME + "pyodide.asm.mjs")]);
  stage("runtime_module");
  status(post, "python", "Starting Python");
  let handle;
  let kind = "snapshot";
  let fallback;
  const undoSmallModules = compileSmallModulesOnce();
  let smallModules;
  try {
    if (plain) await snapshot; // throws: straight to the plain boot
    handle = await bootFromSnapshot(loadPyodide, createModule, snapshot, snapshotBytes);
  } catch (err) {
    kind = "plain";
    fallback = reason(err);
    file.keep = null;
    file.drop?.().catch(() => {}); // a kept copy this runtime did not take: the next boot inflates the file again
    status(post, "python", `Starting without the snapshot (${fallback})`, true);
    handle = await bootPlain(loadPyodide, post);
  } finally {
    smallModules = undoSmallModules();
  }
  stage("engine_ready");
  const ready = { type: "ready", ms: Math.round(performance.now() - started), boot: kind, stages, timeOrigin: performance.timeOrigin, smallModules };
  if (fallback) ready.fallback = fallback;
  if (testImport && handle.stdlib) ready.stdlibImport = importNow(handle, testImport);
  post(ready);
  // Once live, the inflated snapshot is kept for the next boot (loadSnapshot).
  file.keep?.().catch(() => {}); // no Cache Storage (a private window, an insecure origin): every boot inflates
  file.keep = null;
  return handle;
}
