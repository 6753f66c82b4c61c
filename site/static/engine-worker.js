// One module worker per page: boots Pyodide once, loads the engine wheel, and
// answers {id, op, widget, inputs, base?, seed?, params?} with {id, result} or
// {id, error: {type, message, field, allowed}}. Requests are passed to Python
// as JSON text (data), never as Python source.

const RUNTIME = new URL("../pyodide/", import.meta.url).href;

function status(stage, detail) {
  self.postMessage({ type: "status", stage, detail });
}

async function boot() {
  const started = performance.now();
  status("runtime", "Loading the Python runtime");
  const { loadPyodide } = await import(RUNTIME + "pyodide.mjs");
  status("python", "Starting Python");
  const pyodide = await loadPyodide({
    indexURL: RUNTIME,
    lockFileURL: RUNTIME + "pyodide-lock.json",
    packages: [],
    stdout: () => {},
    stderr: () => {},
  });
  status("engine", "Loading the rules engine");
  await pyodide.loadPackage("wargame-engine", { messageCallback: () => {}, errorCallback: (m) => status("engine", m) });
  const api = pyodide.pyimport("engine.api");
  // Import every game system now, so the first request does not pay for it.
  api.handle(JSON.stringify({ op: "describe" }));
  const handle = (message) => JSON.parse(api.handle(JSON.stringify(message)));
  self.postMessage({ type: "ready", ms: Math.round(performance.now() - started) });
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
