// Page side of the live widgets: one engine worker per page, forms read as
// data, results swapped in from the engine's own HTML, state kept in the URL.
//
// The page is complete without this script: every widget carries its result
// pre-rendered at build time by the same engine.
//
// The modules: engine-client.js (the engine worker's client), forms.js,
// links.js, calculator.js (one widget), navigation.js (the site), pool.js
// (Monte Carlo runs over several workers), with
// simulation.js, scenario.js and table-editor.js. All are imported here, though this file
// uses only the Site: the browser then fetches them all as soon as it has read
// this one, not one level of imports after another.

import "./engine-client.js";
import "./pool.js";
import "./forms.js";
import "./links.js";
import "./simulation.js";
import "./scenario.js";
import "./table-editor.js";
import "./calculator.js";
import { Site } from "./navigation.js";
import { startOffline } from "./offline.js";
import { isEmbed, startEmbed } from "./embed.js";

const site = new Site();
window.rulesExplorer = site;
if (document.documentElement.dataset.hasWidgets === "1") site.ensureEngine(); // start Python while the page still loads
if (isEmbed()) startEmbed(); // a widget framed by another site: no offline cache there
else startOffline(site.engine); // the service worker, once the page and its engine are up
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => { site.mount(); site.listen(); });
} else {
  site.mount();
  site.listen();
}
