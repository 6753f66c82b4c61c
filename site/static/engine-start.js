// Starts the engine worker. On a page with widgets it does so at once, while
// the page is still being parsed and before its first layout, so Python boots
// alongside the rendering instead of after it. Other pages only define
// rulesExplorerStartEngine, which the page's engine client (engine-client.js)
// calls when an in-site link leads to widgets; it takes the worker over and
// replays what it said.
//
// The build writes the memory snapshot's size on this script's tag (what
// Pyodide sizes its memory by): the worker needs it to start Pyodide while
// the snapshot still downloads.
//
// rulesExplorerSpawnEngine() starts an extra worker (pool.js).
//
// engine-client.js calls rulesExplorerStartEngine({plain: true}) or () again to
// replace a worker whose boot stalled; with `plain` the fresh one boots
// without the snapshot. Tests set globalThis.rulesExplorerTestStall
// ("thread") to make the boot of the first rulesExplorerTestStalls workers
// (default 1) stall, globalThis.rulesExplorerTestHelperStall and
// rulesExplorerTestHelperStalls the same for extra workers (pool.js gives
// them up), and globalThis.rulesExplorerTestImport to a module's name
// for the worker's ?test-import (engine-boot.js), and globalThis.rulesExplorerWarmUp
// to false for a worker that skips its warm-up (engine-worker.js). Tests whose
// browser cannot run a script before the page's own (WebKit's WebDriver) keep
// the last, globalThis.rulesExplorerOffline (offline.js) and globalThis.rulesExplorerWorkers
// (pool.js), for the tab in sessionStorage instead (tests/browsers.py); only a false there
// counts, and a pool of 1.
(function () {
  try {
    var kept = JSON.parse(sessionStorage.getItem("rulesExplorerTestSettings") || "{}");
    if (kept.rulesExplorerWarmUp === false) globalThis.rulesExplorerWarmUp = false;
    if (kept.rulesExplorerOffline === false) globalThis.rulesExplorerOffline = false;
    if (kept.rulesExplorerWorkers === 1) globalThis.rulesExplorerWorkers = 1;
  } catch (e) {
    // no storage (a sandboxed frame): nothing kept
  }
  var script = document.currentScript;
  // Resolved now: in-site links change the page's URL, and a relative src with it.
  var url = new URL("engine-worker.js", script.src);
  if (script.dataset.snapshotBytes) url.searchParams.set("snapshot-bytes", script.dataset.snapshotBytes);
  // The service worker (offline.js) serves the snapshot inflated once a boot
  // has kept it so (engine-boot.js): the page's own worker keeps it where a
  // service worker can be, and any worker of a page it serves expects it.
  var serviceWorker = "serviceWorker" in navigator && globalThis.rulesExplorerOffline !== false;
  function base() {
    var workerUrl = new URL(url);
    if (serviceWorker && navigator.serviceWorker.controller) workerUrl.searchParams.set("controlled", "");
    return workerUrl;
  }

  var started = 0;
  var spawned = 0;

  function testStall(workerUrl, hook, count, n) {
    if (hook && n < (count || 1)) workerUrl.searchParams.set("test-stall", hook);
  }

  function start(options) {
    if (window.rulesExplorerWorker) return window.rulesExplorerWorker;
    performance.mark("engine-start");
    var workerUrl = base();
    if (options && options.plain) workerUrl.searchParams.set("boot", "plain");
    if (serviceWorker) workerUrl.searchParams.set("keep-snapshot", "");
    testStall(workerUrl, globalThis.rulesExplorerTestStall, globalThis.rulesExplorerTestStalls, started++);
    if (globalThis.rulesExplorerTestImport) workerUrl.searchParams.set("test-import", globalThis.rulesExplorerTestImport);
    if (globalThis.rulesExplorerWarmUp === false) workerUrl.searchParams.set("warm", "0");
    var worker = new Worker(workerUrl, { type: "module" });
    worker.early = [];
    worker.onmessage = function (event) { worker.early.push({ type: "message", data: event.data }); };
    worker.onerror = function (event) { event.preventDefault(); worker.early.push({ type: "error", message: event.message }); };
    window.rulesExplorerWorker = worker;
    return worker;
  }

  // An extra worker for runs shared by several (pool.js): booted the same way,
  // from the same snapshot; it skips the warm-up a page's own worker does.
  function spawn() {
    var workerUrl = base();
    workerUrl.searchParams.set("role", "helper");
    testStall(workerUrl, globalThis.rulesExplorerTestHelperStall, globalThis.rulesExplorerTestHelperStalls, spawned++);
    return new Worker(workerUrl, { type: "module" });
  }

  if (typeof Worker === "undefined") return;
  window.rulesExplorerStartEngine = start;
  window.rulesExplorerSpawnEngine = spawn;
  if (document.documentElement.dataset.hasWidgets === "1") start();
})();
