// Starts the engine worker while the page is still being parsed, before its
// first layout, so Python boots alongside the rendering instead of after it.
// widgets.js takes the worker over and replays what it said in the meantime.
(function () {
  if (document.documentElement.dataset.hasWidgets !== "1" || typeof Worker === "undefined") return;
  performance.mark("engine-start");
  var worker = new Worker(new URL("engine-worker.js", document.currentScript.src), { type: "module" });
  worker.early = [];
  worker.onmessage = function (event) { worker.early.push({ type: "message", data: event.data }); };
  worker.onerror = function (event) { event.preventDefault(); worker.early.push({ type: "error", message: event.message }); };
  window.rulesExplorerWorker = worker;
})();
