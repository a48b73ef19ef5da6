// Measures how long the live web view takes to load: headless Chromium over the DevTools protocol
// opens the page RUNS times (a fresh tab, HTTP cache off) and reads, through the Performance API,
// the page's own `body[data-drawn-ms]`: ms from navigation to the totals, the device list and the
// first device drawn. Real time (no virtual time budget), so it includes the server's answers.
//
//   node --experimental-websocket tools/web-load.mjs http://127.0.0.1:9090/ [RUNS]
//
// Node 20 or later (`--experimental-websocket`; 22 has WebSocket built in); not part of `make deps`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const url = process.argv[2];
const runs = Number(process.argv[3] || 5);
if (!url) { console.error("usage: web-load.mjs URL [RUNS]"); process.exit(2); }
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync) || "/usr/bin/chromium";
const profile = mkdtempSync(join(tmpdir(), "web-load-"));
const browser = spawn(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
  "--window-size=1280,1000", "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"], { stdio: ["ignore", "ignore", "pipe"] });
const done = code => { browser.kill("SIGKILL"); rmSync(profile, { recursive: true, force: true }); process.exit(code); };
setTimeout(() => { console.error("timed out"); done(1); }, 30_000 + runs * 30_000).unref();

const endpoint = await new Promise((resolve, reject) => {
  let text = "";
  browser.stderr.on("data", chunk => {
    text += chunk;
    const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
    if (found) resolve(found[1]);
  });
  browser.on("exit", () => reject(new Error("chromium exited: " + text.slice(-400))));
});
const socket = new WebSocket(endpoint);
await new Promise(resolve => socket.addEventListener("open", resolve));
let nextId = 0;
const pending = new Map();
socket.addEventListener("message", event => {
  const message = JSON.parse(event.data);
  if (message.id !== undefined && pending.has(message.id)) { pending.get(message.id)(message); pending.delete(message.id); }
});
const send = (method, params = {}, sessionId) => new Promise(resolve => {
  const id = ++nextId;
  pending.set(id, resolve);
  socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
});

const figures = [];
for (let run = 0; run < runs; run++) {
  const { result: { targetId } } = await send("Target.createTarget", { url: "about:blank" });
  const { result: { sessionId } } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Network.enable", {}, sessionId);
  await send("Network.setCacheDisabled", { cacheDisabled: true }, sessionId);
  await send("Page.navigate", { url }, sessionId);
  const deadline = Date.now() + 30_000;
  let drawn = null;
  while (drawn === null && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 50));
    const answer = await send("Runtime.evaluate", { expression: "document.body && document.body.dataset.drawnMs || null", returnByValue: true }, sessionId);
    drawn = answer.result && answer.result.result ? answer.result.result.value : null;
  }
  const nav = await send("Runtime.evaluate", { returnByValue: true, expression:
    "JSON.stringify({ rows: document.querySelectorAll('.device-row').length, nodes: document.getElementsByTagName('*').length, " +
    "html: Math.round(performance.getEntriesByType('navigation')[0].responseEnd) })" }, sessionId);
  await send("Target.closeTarget", { targetId });
  if (drawn === null) { console.error(`run ${run + 1}: the page drew no device within 30 s`); done(1); }
  figures.push(Number(drawn));
  console.log(`run ${run + 1}: drawn at ${drawn} ms ${nav.result.result.value}`);
}
const sorted = figures.slice().sort((a, b) => a - b);
console.log(`median ${sorted[Math.floor(sorted.length / 2)]} ms, min ${sorted[0]} ms, max ${sorted[sorted.length - 1]} ms over ${runs} runs`);
done(0);
