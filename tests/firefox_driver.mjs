// Drives Debian's Firefox ESR for the Python tests (tests/browsers.py), over
// WebDriver BiDi with puppeteer-core: no geckodriver. One JSON object a line
// on stdin, one answer a line on stdout:
//
//   {"op": "open", "url": U}          a fresh browser context (a first visit: its
//                                     own cache and storage) with one page at U
//   {"op": "call", "fn": F, "args": A[, "timeoutMs": T]}
//                                     the page's value of (F)(...A), F a function's text;
//                                     an error if it has not come within T ms (default 60 s)
//   {"op": "errors"}                  console errors and uncaught exceptions since open
//   {"op": "close"}                   closes the context
//
// Each answer is {"ok": value} or {"error": message}. Usage:
//   node tests/firefox_driver.mjs [/usr/bin/firefox-esr]
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.argv[2] || "/usr/bin/firefox-esr",
  headless: true,
  // No updates, studies or telemetry: the tests' server is the only host.
  extraPrefsFirefox: { "app.update.enabled": false, "datareporting.policy.dataSubmissionEnabled": false },
});
const CALL_TIMEOUT_MS = 60_000;
let context = null;
let page = null;
let errors = [];

async function close() {
  if (context) await context.close();
  context = page = null;
}

const ops = {
  async open({ url, settings = "" }) {
    await close();
    errors = [];
    context = await browser.createBrowserContext();
    page = await context.newPage();
    if (settings) await page.evaluateOnNewDocument(settings); // before the page's own scripts (browsers.py)
    page.on("console", (message) => { if (message.type() === "error") errors.push(`console error: ${message.text()}`); });
    page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
    await page.goto(url);
    return null;
  },
  async call({ fn, args = [], timeoutMs = CALL_TIMEOUT_MS }) {
    // A call whose page goes away (a navigation, a service worker's page) may never be answered over
    // BiDi, and puppeteer would wait its protocol timeout (180 s): bound it, as WebKit's script timeout does.
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the page did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([page.evaluate(`(${fn})(...${JSON.stringify(args)})`), late]);
    } finally {
      clearTimeout(timer);
    }
  },
  async errors() {
    return errors;
  },
  close,
};

const answer = (data) => process.stdout.write(JSON.stringify(data) + "\n");
answer({ ok: (await browser.version()) });
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  try {
    const value = await ops[request.op](request);
    answer({ ok: value === undefined ? null : value });
  } catch (err) {
    answer({ error: String(err && err.message ? err.message : err) });
  }
}
await browser.close();
