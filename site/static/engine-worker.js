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

const RUNTIME = new URL("../pyodide/", import.meta.url).href;
const SNAPSHOT_URL = RUNTIME + "snapshot.bin.gz";
const SNAPSHOT_MAGIC = [0x00, 0x73, 0x6e, 0x70]; // "\0snp", as Pyodide writes it
const OPTIONS = {
  indexURL: RUNTIME,
  lockFileURL: RUNTIME + "pyodide-lock.json",
  packages: [],
  stdout: () => {},
  stderr: () => {},
};

function status(stage, detail) {
  self.postMessage({ type: "status", stage, detail });
}

function reason(err) {
  return String(err && err.message ? err.message : err).split("\n")[0];
}

// The snapshot's bytes, gunzipped here: static servers send the .gz file as it
// is. A server that decoded it on the way (Content-Encoding) is fine too.
async function fetchSnapshot() {
  let response;
  try {
    response = await fetch(SNAPSHOT_URL);
  } catch (err) {
    throw new Error(`the snapshot did not download: ${reason(err)}`);
  }
  if (!response.ok) throw new Error(`the snapshot did not download: HTTP ${response.status}`);
  let bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (err) {
      throw new Error(`the snapshot is corrupt: ${reason(err)}`);
    }
  }
  if (bytes.length < 64 || SNAPSHOT_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new Error("the snapshot is not a Pyodide memory snapshot");
  }
  return bytes;
}

function engine(pyodide) {
  const api = pyodide.pyimport("engine.api");
  // Imports every game system (after a snapshot boot they already are) and
  // proves the engine answers before the page is told it is live.
  api.handle(JSON.stringify({ op: "describe" }));
  return (message) => JSON.parse(api.handle(JSON.stringify(message)));
}

// Pyodide keeps its options for the life of the worker; handing the snapshot
// over through a thenable that lets go of it keeps its 30 MB from staying too.
function handOver(promise) {
  return {
    then(resolve, reject) {
      const once = promise;
      promise = null;
      return once.then(resolve, reject);
    },
  };
}

async function bootFromSnapshot(loadPyodide, snapshot) {
  const pyodide = await loadPyodide({ ...OPTIONS, _loadSnapshot: handOver(snapshot) });
  stage("python_restored");
  // A snapshot freezes Python's random state: without this every page would
  // start from the same one. (Rolls with a seed use their own Random.)
  pyodide.runPython("import random; random.seed()");
  return engine(pyodide);
}

async function bootPlain(loadPyodide) {
  const pyodide = await loadPyodide(OPTIONS);
  status("engine", "Loading the rules engine");
  await pyodide.loadPackage("wargame-engine", { messageCallback: () => {}, errorCallback: (m) => status("engine", m) });
  return engine(pyodide);
}

const stages = {}; // ms since the worker started, for the benchmark
const stage = (name) => { stages[name] = Math.round(performance.now()); };

async function boot() {
  const started = performance.now();
  status("runtime", "Loading the Python runtime");
  const snapshot = fetchSnapshot(); // downloads while Pyodide loads and compiles
  snapshot.then(() => stage("snapshot_bytes"), () => {});
  snapshot.catch(() => {}); // reported below, when the boot falls back
  const { loadPyodide } = await import(RUNTIME + "pyodide.mjs");
  stage("runtime_module");
  status("python", "Starting Python");
  let handle;
  let kind = "snapshot";
  let fallback;
  try {
    handle = await bootFromSnapshot(loadPyodide, snapshot);
  } catch (err) {
    kind = "plain";
    fallback = reason(err);
    status("python", `Starting without the snapshot (${fallback})`);
    handle = await bootPlain(loadPyodide);
  }
  stage("engine_ready");
  const ready = { type: "ready", ms: Math.round(performance.now() - started), boot: kind, stages };
  if (fallback) ready.fallback = fallback;
  self.postMessage(ready);
  return handle;
}

const ready = boot();
ready.catch((err) => {
  self.postMessage({ type: "failed", message: String(err && err.message ? err.message : err) });
});

self.onmessage = async (event) => {
  const { id, ...request } = event.data || {};
  let handle;
  try {
    handle = await ready;
  } catch (err) {
    self.postMessage({ id, error: { type: "EngineUnavailable", message: "the engine could not start", field: "", allowed: "" } });
    return;
  }
  try {
    const answer = handle(request);
    if (answer.error) self.postMessage({ id, error: answer.error });
    else self.postMessage({ id, result: answer });
  } catch (err) {
    self.postMessage({ id, error: { type: "BridgeError", message: String(err), field: "", allowed: "" } });
  }
};
