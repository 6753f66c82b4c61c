// For a page that frames rules explorer widgets (the code "Copy embed code"
// gives): sizes each frame to its widget as it grows and shrinks. The embed
// page sends its height in a message (static/embed.js); only a frame's own
// window is listened to. The bound only keeps a height out of all reason out:
// a card game's embed at a phone's width is 14,000 px tall, and 20,000-60,000
// with its panels open (a frame held shorter scrolls inside the host's page).
(function () {
  var MIN_HEIGHT = 100, MAX_HEIGHT = 500000;
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "rules-explorer:embed" || typeof data.height !== "number" || data.height !== data.height) return;
    var frames = document.querySelectorAll("iframe[data-rules-explorer-embed]");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        frames[i].setAttribute("height", String(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.round(data.height)))));
      }
    }
  });
})();
