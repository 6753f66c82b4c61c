// Embedding a widget in another site: every widget's embed page (build.py
// embed_path: embed/<page>/<instance>.html, just the widget, its result and a
// link back to its section) and the code to frame it ("Copy embed code").
//
// An embed page tells the page that frames it its size and state, in a
// message {type: "rules-explorer:embed", instance, height, live, digest}
// (digest: the shown result's, engine.api.html_digest) each time they
// change; static/embed-host.js, on the host's page, sizes the frames by it.

const ROOT = new URL("../", import.meta.url); // the site's root: this file is in static/
export const EMBED_MESSAGE = "rules-explorer:embed";

export function isEmbed() {
  return document.documentElement.dataset.embed === "1";
}

// The embed page of a widget of this page, with the widget's link state.
export function embedUrl(instance, query) {
  let url;
  if (isEmbed()) url = new URL(location.pathname, location.href);
  else {
    const page = location.pathname.slice(ROOT.pathname.length).replace(/\.html$/, "");
    url = new URL(`embed/${page || "index"}/${encodeURIComponent(instance)}.html`, ROOT);
  }
  url.search = query;
  return url.href;
}

function attr(text) {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

// The frame, as tall as the widget is now, and the host script that keeps it
// so as the widget grows and shrinks.
export function embedCode(section, query) {
  const title = section.querySelector(".widget-header h3")?.textContent ?? "Rules explorer widget";
  const height = Math.ceil(section.getBoundingClientRect().height) + 48; // and the line that links back
  return `<iframe src="${attr(embedUrl(section.dataset.instance, query))}" title="${attr(title)}" `
    + `width="100%" height="${height}" loading="lazy" data-rules-explorer-embed></iframe>\n`
    + `<script src="${attr(new URL("static/embed-host.js", ROOT).href)}" async></script>`;
}

// On an embed page: report size and state to the framing page, and link back
// to the section with the state the reader has reached.
export function startEmbed() {
  if (!isEmbed()) return;
  const section = document.querySelector("section.widget[data-instance]");
  const back = document.querySelector("a[data-embed-source]");
  back?.addEventListener("click", () => {
    const url = new URL(back.href);
    url.search = location.search;
    back.href = url.href;
  });
  if (window.parent === window || !section) return;
  let last = "";
  const report = () => {
    const result = section.querySelector(".widget-result");
    const message = {
      type: EMBED_MESSAGE, instance: section.dataset.instance,
      height: Math.ceil(document.documentElement.getBoundingClientRect().height),
      live: Boolean(document.documentElement.dataset.widgetsLive), digest: result?.dataset.digest ?? "",
    };
    const text = JSON.stringify(message);
    if (text === last) return;
    last = text;
    window.parent.postMessage(message, "*"); // any host may frame an embed; nothing private is in it
  };
  new ResizeObserver(report).observe(document.body);
  new MutationObserver(report).observe(document.documentElement, {
    attributes: true, subtree: true, attributeFilter: ["data-widgets-live", "data-digest"] });
  report();
}
