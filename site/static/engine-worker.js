// One module worker per page: boots Pyodide once with the engine, and answers
// {id, op, widget, inputs, base?, seed?, params?} with {id, result} or
// {id, error: {type, message, field, allowed}}. Requests are passed to Python
// as JSON text (data), never as Python source.
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
// Pyodide's memory (snapshot.js).
//
// Everything the boot downloads is requested at once, when the worker starts
// (a worker has no <link rel=preload>): Pyodide asks for its runtime files only
// after its 1.3 MB loader has loaded and run, and gets the responses already
// on their way (see `prefetch`). The WebAssembly is compiled as it arrives,
// also while the loader loads and runs, and Pyodide only instantiates it
// (`compileEarly`).

const RUNTIME = new URL("../pyodide/", import.meta.url).href;
const SNAPSHOT_URL = RUNTIME + "snapshot.bin.gz";
const PARAMS = new URL(import.meta.url).searchParams;
const SNAPSHOT_BYTES = Number(PARAMS.get("snapshot-bytes")) || 0;
// ?boot=plain: the page restarted a boot that stalled, and asks for the plain one.
const PLAIN = PARAMS.get("boot") === "plain";
// ?test-stall=thread: tests make this boot's thread stick after its first
// status, as Firefox's did (NOTES.md).
const TEST_STALL = PARAMS.get("test-stall");
const OPTIONS = {
  indexURL: RUNTIME,
  lockFileURL: RUNTIME + "pyodide-lock.json",
  packages: [],
  stdout: () => {},
  stderr: () => {},
};

// Responses requested early, each handed out once to the first fetch of its
// URL: Pyodide's own fetches of these files get them instead of asking again.
// Any other fetch, or a second one of the same URL, goes to the network.
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
function status(stage, detail, plain = false) {
  self.postMessage({ type: "status", stage, detail, plain });
}

function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
}

// The snapshot (readSnapshot in snapshot.js), fetched (its request went out
// with the prefetches) and inflated on this worker's thread as it arrives.
// No helper worker: in Firefox, a worker started from this worker now and
// then left this one stuck for good (NOTES.md, issue 11); in Chromium on
// two cores the difference was within the noise.
async function loadSnapshot() {
  const { fetchSnapshot, readSnapshot } = await import("./snapshot.js");
  return readSnapshot(await fetchSnapshot(SNAPSHOT_URL, SNAPSHOT_BYTES, progress));
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

// WebAssembly runs in V8's baseline tier at first and is optimised once it has
// run a while: the first few dozen answers after a start take about twice as
// long as later ones. So while the page is quiet (no request for
// WARM_QUIET_MS) the worker answers requests of its own, every widget's
// (engine.api.warm_up_requests) WARM_ROUNDS times, one per task so that a
// page's request never waits behind more than one, then tells the page "warm".
// Measured on the Small General page: recompute p95 about 18 ms without, 11-12 ms with.
const WARM_QUIET_MS = 100;
const WARM_ROUNDS = 3;
const warmUp = { handle: null, queue: null, timer: 0, done: false };

function warmLater() {
  clearTimeout(warmUp.timer);
  if (!warmUp.done && warmUp.handle) warmUp.timer = setTimeout(warmStep, WARM_QUIET_MS);
}

function warmStep() {
  try {
    warmUp.queue ??= Array(WARM_ROUNDS).fill(warmUp.handle.warmUpRequests()).flat();
    const request = warmUp.queue.shift();
    if (request) {
      warmUp.handle(request);
      warmUp.timer = setTimeout(warmStep, 0);
      return;
    }
  } catch {
    // Only a head start: the page's own requests report their errors.
  }
  warmUp.done = true;
  stage("warm");
  self.postMessage({ type: "warm", stages });
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
  return loadPyodide({ ...OPTIONS, createPyodideModule, _loadSnapshot: handOver(new Uint8Array(size)) });
}

async function bootFromSnapshot(loadPyodide, createModule, snapshot) {
  let pyodide;
  try {
    if (SNAPSHOT_BYTES) pyodide = await bootOn(SNAPSHOT_BYTES, loadPyodide, createModule, snapshot);
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
  return engine(pyodide, { describe: false });
}

async function bootPlain(loadPyodide) {
  const pyodide = await loadPyodide(OPTIONS);
  status("engine", "Loading the rules engine");
  await pyodide.loadPackage("wargame-engine", { messageCallback: () => {}, errorCallback: (m) => status("engine", m) });
  return engine(pyodide, { describe: true });
}

const stages = {}; // ms since the worker's time origin (sent as timeOrigin), for the benchmark
const stage = (name) => { stages[name] = Math.round(performance.now()); };

// While it boots the worker tells the page every HEARTBEAT_MS that its thread
// runs and how far it has come (stages reached, snapshot bytes inflated): the
// page starts a fresh worker when these stop or stand still (widgets.js).
const HEARTBEAT_MS = 1000;
const moved = { bytes: 0 };
const progress = (bytes) => { moved.bytes = bytes; };
const heartbeat = setInterval(() => {
  self.postMessage({ type: "alive", stages: Object.keys(stages).length, bytes: moved.bytes });
}, HEARTBEAT_MS);

async function boot() {
  const started = performance.now();
  status("runtime", "Loading the Python runtime");
  if (TEST_STALL === "thread") for (;;);
  // The snapshot downloads while Pyodide's loader and runtime load and compile.
  const runtimeFiles = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"].map((name) => RUNTIME + name);
  prefetch(PLAIN ? runtimeFiles : [SNAPSHOT_URL, ...runtimeFiles]);
  const snapshot = PLAIN ? Promise.reject(new Error("after a stalled start")) : loadSnapshot();
  compileEarly(RUNTIME + "pyodide.asm.wasm");
  snapshot.then(() => stage("snapshot_bytes"), () => {});
  snapshot.catch(() => {}); // reported below, when the boot falls back
  const [{ loadPyodide }, { default: createModule }] = await Promise.all([
    import(RUNTIME + "pyodide.mjs"), import(RUNTIME + "pyodide.asm.mjs")]);
  stage("runtime_module");
  status("python", "Starting Python");
  let handle;
  let kind = "snapshot";
  let fallback;
  const undoSmallModules = compileSmallModulesOnce();
  let smallModules;
  try {
    if (PLAIN) await snapshot; // throws: straight to the plain boot
    handle = await bootFromSnapshot(loadPyodide, createModule, snapshot);
  } catch (err) {
    kind = "plain";
    fallback = reason(err);
    status("python", `Starting without the snapshot (${fallback})`, true);
    handle = await bootPlain(loadPyodide);
  } finally {
    smallModules = undoSmallModules();
  }
  stage("engine_ready");
  const ready = { type: "ready", ms: Math.round(performance.now() - started), boot: kind, stages, timeOrigin: performance.timeOrigin, smallModules };
  if (fallback) ready.fallback = fallback;
  self.postMessage(ready);
  return handle;
}

const ready = boot();
const stopHeartbeat = () => clearInterval(heartbeat);
ready.then(stopHeartbeat, stopHeartbeat);
ready.then((handle) => { warmUp.handle = handle; warmLater(); }, () => {});
ready.catch((err) => {
  self.postMessage({ type: "failed", message: String(err && err.message ? err.message : err) });
});

// Requests go through the scheduler (scheduler.js): a reader's requests go
// ahead of Monte Carlo chunks, which are cut to about 10 ms each so that a
// cancel or a change is heard between two. Imported once the boot has
// started, so its fetch does not hold the boot back.
const scheduling = import("./scheduler.js");
let scheduler = null;

async function getScheduler() {
  if (scheduler) return scheduler;
  const [{ Scheduler }, handle] = await Promise.all([scheduling, ready]);
  scheduler ??= new Scheduler((request) => {
    const answer = handle(request);
    if (answer.error?.detail) console.warn(`engine: ${answer.error.detail}`); // for developers, not readers
    return answer;
  }, (message) => self.postMessage(message), { onIdle: warmLater });
  return scheduler;
}

self.onmessage = async (event) => {
  clearTimeout(warmUp.timer); // the page's request goes first
  const message = event.data || {};
  let s;
  try {
    s = await getScheduler();
  } catch (err) {
    self.postMessage({ id: message.id, error: { type: "EngineUnavailable", message: "the engine could not start", field: "", allowed: "" } });
    return;
  }
  s.submit(message);
};
