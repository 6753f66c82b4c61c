// For a page that frames rules explorer widgets (the code "Copy embed code"
// gives): sizes each frame to its widget as it grows and shrinks. The embed
// page sends its height in a message (static/embed.js); only a frame's own
// window is listened to.
(function () {
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "rules-explorer:embed" || typeof data.height !== "number") return;
    var frames = document.querySelectorAll("iframe[data-rules-explorer-embed]");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        frames[i].setAttribute("height", String(Math.max(100, Math.min(20000, Math.round(data.height)))));
      }
    }
  });
})();
