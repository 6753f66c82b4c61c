// The site offline (the service worker is sw.js at the site's root, written by
// the build from site/service-worker.js). Registers it once the page has
// loaded and its engine is live (so that its downloads do not compete with the
// first boot's), and says where the reader stands, in one line after the
// footer (which in-site navigation leaves in place):
//
//   <html data-offline="saving">  "Saving the site for offline use…"
//   <html data-offline="ready">   "Available offline: …"
//   <html data-offline="update">  a new build is live: "Reload" takes it
//   <html data-offline="failed">  the site could not be saved (the pages still work online)
//   <html data-offline="unavailable">  no service worker here (none shown)
//
// A new build is installed beside the old one and waits: this page and its
// engine stay on the build they came from until the reader reloads. When
// another tab takes the update, this one reloads too (its page and its engine
// would otherwise be of different builds); the address bar holds its state.
// Tests opt out with globalThis.rulesExplorerOffline = false.

const MESSAGES = {
  saving: "Saving the site for offline use…",
  ready: "Available offline: every page and calculator works without a connection.",
  update: "A new version of the site is available.",
  failed: "This site could not be saved for offline use; it works while you are online.",
};

let note = null;
let updating = false;

function show(state, registration) {
  document.documentElement.dataset.offline = state;
  if (!note) {
    // A landmark of its own after the footer (in-site navigation swaps the footer).
    const aside = document.createElement("aside");
    aside.className = "offline-status";
    aside.setAttribute("aria-label", "Offline use");
    note = document.createElement("p");
    note.setAttribute("role", "status");
    aside.append(note);
    document.body.append(aside);
  }
  note.textContent = MESSAGES[state] + (state === "update" ? " " : "");
  if (state === "update") {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Reload to update";
    button.addEventListener("click", () => {
      updating = true;
      button.disabled = true;
      if (registration.waiting) registration.waiting.postMessage({ op: "skip-waiting" });
    });
    note.append(button);
  }
}

// A newly installed worker: the first one makes the site available offline;
// a later one is an update that waits for the reader.
function follow(registration, worker) {
  const first = !registration.active || registration.active === worker;
  if (first) show("saving");
  worker.addEventListener("statechange", () => {
    if (worker.state === "redundant" && first) show("failed");
    else if (worker.state === "installed" && !first) show("update", registration);
    else if (worker.state === "activated" && first) show("ready");
  });
}

async function register() {
  const registration = await navigator.serviceWorker.register(new URL("../sw.js", import.meta.url),
    { updateViaCache: "none" });
  if (!registration) return; // registration blocked (a test harness)
  if (registration.waiting && registration.active) show("update", registration);
  else if (registration.installing) follow(registration, registration.installing);
  else if (registration.active) show("ready");
  registration.addEventListener("updatefound", () => follow(registration, registration.installing));
}

export function startOffline(engine) {
  if (!("serviceWorker" in navigator) || globalThis.rulesExplorerOffline === false) return;
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    // The first worker claiming this page changes nothing; an update does.
    if (updating || hadController) location.reload();
  });
  const go = () => register().catch(() => { document.documentElement.dataset.offline = "unavailable"; });
  const afterLoad = () => {
    if (!engine || engine.state !== "loading") go();
    else {
      let done = false;
      engine.onState((state) => {
        if (state !== "loading" && !done) { done = true; go(); }
      });
    }
  };
  if (document.readyState === "complete") afterLoad();
  else window.addEventListener("load", afterLoad, { once: true });
}
