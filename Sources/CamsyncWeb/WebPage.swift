/// The live web view: plain HTML, CSS and JavaScript shipped inside the binary (no build step,
/// nothing fetched from elsewhere). It opens `/events` (server-sent events): the totals and the
/// device index once, then each change's totals, changed index rows and touched devices; on a gap in
/// `version` it reconnects and starts from a whole view again. It shows one device at a time (the
/// first listed, or `#device=ID`, or a click in the list), fetched from `/device.json` and again
/// whenever a change touches it; the list is filtered in the page and draws at most `rowLimit` rows
/// (`#search=WORDS` fills the search box at load). Stable hooks for tests: `body[data-sequence]`,
/// `body[data-device]` (the device shown), `#totals .total[data-total][data-value]`,
/// `#devices[data-matches][data-shown]`, `.device-row[data-id][data-alive][data-status]`,
/// `#detail[data-id][data-sequence]`, `body[data-drawn-ms]` (when the first device was drawn), `.screen[data-id]`,
/// `.window[data-app][data-frame]`, `.pip[data-app][data-frame][data-state]`, `.camera[data-id] .holder`,
/// `.window .graph[data-cameras][data-outputs][data-arkit]` (C11–C14), `.waiting[data-reason]`,
/// `.audio-session[data-app][data-state]`, `.microphone[data-device][data-holder]`, `#timeline li[data-sequence]`,
/// the history slider `#history` (`body[data-history]` while showing a past sequence; `/?history=N` opens there), the why panel `#why[data-app][data-sequence]`
/// (`.why-session[data-state] .rule[data-rule]`, `.why-camera[data-holder] .waiters li`), the HA panel `#ha[data-leader]`
/// (`.coordinator[data-name][data-role]`, `.etcd-member[data-endpoint][data-leader][data-reachable]`). `/?until=N` stops
/// following at sequence N; `/?why=NODE/APP` opens the why panel (clicking an app's window, PiP or audio session does).
enum WebPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>camsync — live</title>
<style>
  :root { --scale: 0.21; font-family: "DejaVu Sans", system-ui, sans-serif; font-size: 13px; color: #1d1d1f; }
  body { margin: 0; background: #f2f2f7; }
  header { padding: 8px 16px; background: #1d1d1f; color: #fff; display: flex; gap: 16px; align-items: baseline; }
  header h1 { font-size: 16px; margin: 0; }
  header .status.lost { color: #ff453a; }
  main { display: grid; grid-template-columns: 200px minmax(0, 1fr) 300px; gap: 12px; padding: 0 12px 12px; }
  main > section, main > nav, aside { min-width: 0; }
  #totals { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 8px 12px; font-size: 12px; color: #333; }
  #totals .total b { font-size: 14px; color: #1d1d1f; }
  #totals .total[data-total="dead"][data-value]:not([data-value="0"]) b { color: #ff453a; }
  nav { background: #fff; border-radius: 10px; padding: 8px; display: flex; flex-direction: column; gap: 6px; align-self: start; }
  nav input { box-sizing: border-box; width: 100%; font: inherit; padding: 4px 6px; }
  #matches { font-size: 11px; color: #666; }
  #devices { list-style: none; margin: 0; padding: 0; max-height: 600px; overflow-y: auto; overflow-x: hidden; }
  .device-row { padding: 3px 4px; border-bottom: 1px solid #eee; cursor: pointer; font-size: 12px; overflow-wrap: anywhere; }
  .device-row:hover { background: #f2f2f7; }
  .device-row[aria-selected="true"] { background: #dbe9ff; }
  .device-row .word { float: right; font-size: 10px; color: #555; }
  .device-row[data-alive="false"] { color: #8e8e93; }
  .device-row[data-alive="false"] .word { color: #ff453a; }
  .device-row .displays { display: block; font-size: 10px; color: #666; }
  #detail > .caption { font-size: 13px; font-weight: bold; margin: 0 0 6px; }
  #screens { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
  .group { display: flex; flex-wrap: wrap; max-width: 100%; box-sizing: border-box; gap: 10px; align-items: flex-start; padding: 8px; background: #fff; border-radius: 10px; }
  .screen-box { display: flex; flex-direction: column; gap: 4px; }
  .screen-box .caption { font-size: 12px; color: #555; }
  .screen { position: relative; background: #30343b; border: 3px solid #111; border-radius: 10px; overflow: hidden; }
  .screen.display { border-radius: 3px; background: #262a30; }
  .screen.dead { opacity: .35; filter: grayscale(1); }
  .screen.dead::after { content: "dead"; position: absolute; inset: 0; display: grid; place-items: center;
    color: #ff453a; font-weight: bold; font-size: 20px; }
  .window { position: absolute; box-sizing: border-box; border: 1px solid #0a84ff; background: #dbe9ff;
    border-radius: 4px; overflow: hidden; font-size: 10px; padding: 2px 4px; }
  .window.slideOver { background: #e8f5e9; border-color: #34c759; box-shadow: 0 2px 6px rgba(0,0,0,.4); }
  .window.stage { background: #fff4e0; border-color: #ff9f0a; }
  .window .session { display: block; color: #555; overflow-wrap: anywhere; }
  .window .pip-clearance { display: block; }
  .window .graph { display: block; color: #555; font-size: 11px; }
  .pip { position: absolute; box-sizing: border-box; background: #000; color: #fff; border: 2px solid #bf5af2;
    border-radius: 6px; font-size: 9px; line-height: 1.15; padding: 1px 3px; z-index: 5; overflow: hidden; overflow-wrap: anywhere; }
  .pip.stashed { opacity: .6; border-style: dashed; }
  .suspended { font-size: 11px; color: #bf5af2; }
  aside { display: flex; flex-direction: column; gap: 12px; }
  .audio-session { font-size: 12px; margin-top: 3px; color: #1c1c1e; overflow-wrap: anywhere; max-width: 100%; }
  .microphone { font-size: 12px; margin-top: 3px; color: #555; }
  .microphone.held { color: #b25000; }
  .screen-box { max-width: 100%; }
  header .history { display: flex; gap: 6px; align-items: center; margin-left: auto; }
  header .history input { width: 260px; }
  body[data-history] .screen, body[data-history] .camera { outline: 2px dashed #ff9f0a; }
  .audio-session.interrupted { color: #b25000; }
  .camera { background: #fff; border-radius: 10px; padding: 8px 10px; border-left: 5px solid #8e8e93; overflow-wrap: anywhere; }
  .camera.held { border-left-color: #34c759; }
  .camera.unavailable { opacity: .5; }
  .camera h3 { margin: 0 0 4px; font-size: 13px; }
  .camera .holder { font-weight: bold; }
  .camera ul { margin: 4px 0 0; padding-left: 18px; }
  .waiting { color: #b25000; }
  #timeline { background: #fff; border-radius: 10px; padding: 8px 10px; max-height: 340px; overflow-y: auto; overflow-x: hidden; }
  #timeline li { overflow-wrap: anywhere; }
  #timeline ol { margin: 0; padding-left: 0; list-style: none; }
  #timeline li { border-bottom: 1px solid #eee; padding: 3px 0; font-size: 11px; }
  #timeline li .events { color: #666; display: block; }
  h2 { font-size: 14px; margin: 0 0 6px; }
  [data-why] { cursor: pointer; }
  #ha { background: #fff; border-radius: 10px; padding: 8px 10px; font-size: 12px; }
  #ha[hidden] { display: none; }
  #ha .coordinator, #ha .etcd-member { overflow-wrap: anywhere; padding: 1px 0; }
  #ha .coordinator[data-role="leading"], #ha .etcd-member[data-leader="true"] { font-weight: bold; color: #248a3d; }
  #ha .coordinator[data-role="unreachable"], #ha .etcd-member[data-reachable="false"] { color: #ff453a; }
  #why { background: #fff; border-radius: 10px; padding: 8px 10px; font-size: 12px; overflow-wrap: anywhere; }
  #why[hidden] { display: none; }
  #why .rule { font-weight: bold; color: #0a84ff; }
  #why .cause { color: #555; display: block; margin-left: 10px; }
  #why ol { margin: 2px 0 0; padding-left: 22px; }
</style>
</head>
<body data-sequence="0">
<header><h1>camsync</h1><span id="sequence">sequence 0</span><span class="status" id="status">connecting…</span>
  <span class="history"><label for="history">history</label><input type="range" id="history" min="0" max="0" value="0">
  <span id="history-label">live</span><button id="live" hidden>back to live</button></span></header>
<div id="totals"></div>
<main>
  <nav><input type="search" id="search" placeholder="search: id, display, status" aria-label="search devices">
    <div id="matches"></div><ol id="devices"></ol></nav>
  <section id="detail"><div class="caption"></div><div id="screens"></div></section>
  <aside>
    <div id="ha" hidden><h2>High availability</h2><div class="headline"></div><div class="coordinators"></div><div class="etcd"></div></div>
    <div id="why" hidden><h2>Why <button id="why-close" title="close">×</button></h2><div class="body"></div></div>
    <div><h2>Camera systems of this device</h2><div id="cameras"></div></div>
    <div id="timeline"><h2>Timeline</h2><ol></ol></div>
  </aside>
</main>
<script>
"use strict";
const devices = new Map();   // id → DeviceEntry (the whole index)
let totals = null;
let detail = null;           // the shown device's screens and cameras (/device.json)
let selected = null;         // the index id shown
let version = null, source = null;
const scale = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--scale"));

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v; else if (k === "style") Object.assign(node.style, v); else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}
const place = (f, s) => ({ left: f.x * s + "px", top: f.y * s + "px", width: f.width * s + "px", height: f.height * s + "px" });
const frameText = f => `${f.x},${f.y},${f.width},${f.height}`;
// `interrupted(videoDeviceInUseByAnotherClient 3)` → `interrupted, reason 3` (the title keeps the words).
const shortSession = s => { const m = /^interrupted\(\S+ (\d)\)$/.exec(s); return m ? `interrupted, reason ${m[1]}` : s; };

// A window's text keeps clear of the PiP windows over it: a float the size of the part of the window
// from its top to the PiP's bottom edge, on the PiP's side, makes the text flow beside and below it
// (on an iPad the PiP floats over the app; here the app's text must stay readable).
const windowInset = { top: 3, right: 5, left: 5 };   // the window's border + padding (CSS below), in px
function pipClearance(w, pips, s) {
  const wx = w.frame.x * s, wy = w.frame.y * s, ww = w.frame.width * s, wh = w.frame.height * s;
  return pips.filter(p => p.frame).flatMap(p => {
    const px = p.frame.x * s, py = p.frame.y * s, pw = p.frame.width * s, ph = p.frame.height * s;
    if (px >= wx + ww || px + pw <= wx || py >= wy + wh || py + ph <= wy) return [];
    const left = px + pw / 2 < wx + ww / 2, gap = 3;
    const width = left ? px + pw - wx - windowInset.left + gap : wx + ww - windowInset.right - px + gap;
    const height = py + ph - wy - windowInset.top + gap;
    if (width <= 0 || height <= 0) return [];
    return [el("span", { class: "pip-clearance", "aria-hidden": "true",
      style: { float: left ? "left" : "right", width: width + "px", height: height + "px" } })];
  });
}

function drawScreen(v) {
  const s = scale();
  const screen = el("div", { class: `screen ${v.kind}` + (v.alive ? "" : " dead"), "data-id": v.id, "data-kind": v.kind,
    "data-alive": String(v.alive), style: { width: v.width * s + "px", height: v.height * s + "px" } });
  for (const w of v.windows) {
    const kind = w.scene.startsWith("stageWindow") ? "stage" : w.scene;
    screen.append(el("div", { class: `window ${kind}`, "data-app": w.app, "data-device": w.device, "data-scene": w.scene,
      "data-why": `${w.device}/${w.app}`,
      "data-frame": frameText(w.frame), style: place(w.frame, s), title: `${w.device}/${w.app} ${w.scene}` },
      ...pipClearance(w, v.pip, s),
      `${w.app}`, el("span", { class: "session", title: w.session || "" }, w.session ? `session: ${shortSession(w.session)}` : (w.role || "")),
      ...(w.graph ? [el("span", { class: "graph", "data-cameras": w.graph.cameras.join(","), "data-outputs": w.graph.outputs.join(","),
        "data-arkit": String(w.graph.arKit) },
        `${w.graph.cameras.join("+")} → ${w.graph.outputs.join(", ")}` + (w.graph.arKit ? " (ARKit)" : ""))] : [])));
  }
  const suspended = [];
  const device = v.kind === "device" ? v.id : v.attachedTo;
  for (const p of v.pip) {
    if (p.frame) screen.append(el("div", { class: `pip ${p.state}`, "data-app": p.app, "data-state": p.state, "data-why": `${device}/${p.app}`,
      "data-frame": frameText(p.frame), style: place(p.frame, s) }, `PiP ${p.app}` + (p.state === "stashed" ? " (stashed)" : "")));
    else suspended.push(el("div", { class: "pip-suspended suspended", "data-app": p.app, "data-state": p.state, "data-why": `${device}/${p.app}` },
      `PiP ${p.app}: suspended`));
  }
  const attached = v.attachedTo ? ` · attached to ${v.attachedTo}` : "";
  const audio = (v.audio || []).map(a => el("div", { class: `audio-session ${a.state}`, "data-app": a.app, "data-state": a.state,
      "data-why": `${v.id}/${a.app}`,
      "data-category": a.category, "data-ducked": String(a.ducked), "data-hint": String(a.silenceHint) },
    `♪ ${a.app}: ${a.category}${a.options.length ? " (" + a.options.join(", ") + ")" : ""} ${a.state}`
      + (a.interruptedBy ? ` by ${a.interruptedBy}` : "") + (a.ducked ? " · ducked" : "")
      + (a.silenceHint ? " · silence secondary audio" : "")));
  const microphone = v.kind === "device" ? [el("div", { class: "microphone" + (v.microphone ? " held" : ""), "data-device": v.id,
      "data-holder": v.microphone || "" }, `microphone: ${v.microphone ? "held by " + v.microphone : "free"}`)] : [];
  return el("div", { class: "screen-box", id: `screen-${v.id}` },
    el("div", { class: "caption" }, `${v.id} — ${v.title}${v.stageManager ? " · Stage Manager" : ""}${attached}${v.alive ? "" : " · dead"}`),
    screen, ...suspended, ...audio, ...microphone);
}

function drawScreens() {
  const root = document.getElementById("screens");
  root.replaceChildren();
  const all = (past ? past.screens : detail ? detail.screens : []).slice().sort((a, b) => a.id.localeCompare(b.id));
  const placed = new Set();
  for (const device of all.filter(v => v.kind === "device")) {
    const group = el("div", { class: "group", "data-device": device.id }, drawScreen(device));
    placed.add(device.id);
    for (const display of all.filter(v => v.kind === "display" && v.attachedTo === device.id)) {
      group.append(drawScreen(display)); placed.add(display.id);
    }
    root.append(group);
  }
  for (const other of all.filter(v => !placed.has(v.id))) root.append(el("div", { class: "group" }, drawScreen(other)));
}

function drawCameras() {
  const root = document.getElementById("cameras");
  root.replaceChildren(...(past ? past.cameras : detail ? detail.cameras : []).slice().sort((a, b) => a.id.localeCompare(b.id)).map(c =>
    el("div", { class: "camera" + (c.holder ? " held" : "") + (c.available ? "" : " unavailable"), "data-id": c.id, "data-host": c.host },
      el("h3", {}, `${c.id} (${c.cameras.join(", ")})`),
      el("div", {}, "holder: ", el("span", { class: "holder" }, c.holder || "—"), `  · token #${c.token}`),
      el("div", { class: "pressure", "data-pressure": c.pressure }, `pressure: ${c.pressure}` + (c.available ? "" : " · unavailable")),
      c.waiting.length ? el("ul", {}, ...c.waiting.map(w => el("li", { class: "waiting", "data-app": w.app, "data-reason": String(w.reason) },
        `${w.app} waiting — reason ${w.reason} (${w.reasonName})`))) : "")));
}

function addTimeline(entries) {
  const list = document.querySelector("#timeline ol");
  for (const t of entries) {
    const time = new Date(t.timeMs).toISOString().slice(11, 23);
    // The command's words start with the node it acted through; say the origin only when it differs.
    const said = t.command.startsWith(t.node + " ") ? t.command : `${t.node}: ${t.command}`;
    list.prepend(el("li", { "data-sequence": String(t.sequence) }, `#${t.sequence} ${time} ${said}`,
      el("span", { class: "events" }, t.events.join(" · "))));
  }
  while (list.children.length > 200) list.lastChild.remove();
}

// `?until=N`: stop following once sequence N is applied (headless browsers dump the DOM when idle).
const until = new URLSearchParams(location.search).has("until") ? Number(new URLSearchParams(location.search).get("until")) : null;

// `?check-layout`: after every drawing, say whether everything fits the window's width
// (`body[data-layout="fits"]`, or `"overflow"` with the first offenders in `data-overflowing`), and
// whether any app's text lies under a PiP window (`body[data-pip-covers=""]`, or the apps whose text it covers).
const checksLayout = new URLSearchParams(location.search).has("check-layout");
function textUnderPiP() {
  const covered = [];
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  for (const screen of document.querySelectorAll(".screen")) {
    const pips = [...screen.querySelectorAll(".pip")].map(p => p.getBoundingClientRect());
    for (const w of screen.querySelectorAll(".window")) {
      const walker = document.createTreeWalker(w, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(text);
        const hidden = [...range.getClientRects()].some(r => r.width > 0 && pips.some(p => overlaps(r, p)));
        if (hidden) { covered.push(w.dataset.app); break; }
      }
    }
  }
  return covered;
}
function checkLayout() {
  if (!checksLayout) return;
  document.body.dataset.pipCovers = textUnderPiP().join(" ");
  const width = document.documentElement.clientWidth;
  const offenders = [...document.querySelectorAll("body *")].filter(e => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 0.5 || r.width > width + 0.5);
  }).map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + String(e.className).split(" ").join(".") : ""));
  const scrolls = document.documentElement.scrollWidth > width;
  document.body.dataset.layout = offenders.length || scrolls ? "overflow" : "fits";
  document.body.dataset.viewport = String(width);
  document.body.dataset.overflowing = offenders.slice(0, 5).join(" ");
}

function setSequence(sequence, following) {
  setTimeout(checkLayout, 0);
  document.body.dataset.sequence = String(sequence);
  liveSequence = sequence;
  slider.max = String(sequence);
  if (past === null) slider.value = String(sequence);
  if (until !== null && sequence >= until && source) { source.close(); document.body.dataset.stopped = "true"; }
  document.getElementById("sequence").textContent = `sequence ${sequence}`;
  const status = document.getElementById("status");
  status.textContent = following ? "live" : "coordinator unreachable";
  status.className = "status" + (following ? "" : " lost");
}

// The history slider: any past sequence the server's history holds, replayed from the log; the live
// view keeps following underneath and comes back with "back to live" (or the slider at its end).
let past = null, liveSequence = 0;
const slider = document.getElementById("history");
function showLive() {
  past = null;
  delete document.body.dataset.history;
  document.getElementById("live").hidden = true;
  document.getElementById("history-label").textContent = "live";
  slider.value = String(liveSequence);
  drawScreens(); drawCameras();
}
async function showPast(sequence) {
  if (sequence >= liveSequence) { showLive(); return; }
  const response = await fetch("history.json?sequence=" + sequence + (selected ? "&device=" + encodeURIComponent(selected) : ""));
  const r = await response.json();
  if (!response.ok) { document.getElementById("history-label").textContent = r.error; return; }
  past = r.view;
  document.body.dataset.history = String(sequence);
  setTimeout(checkLayout, 0);
  document.getElementById("history-label").textContent = `#${sequence} (history)`;
  document.getElementById("live").hidden = false;
  slider.min = String(r.first);
  drawScreens(); drawCameras();
}
slider.addEventListener("input", () => showPast(Number(slider.value)));
document.getElementById("live").addEventListener("click", showLive);
const askedHistory = new URLSearchParams(location.search).has("history") ? Number(new URLSearchParams(location.search).get("history")) : null;

// The device index: rows are devices and displays attached to none (an attached display is listed
// on its device's row). The search keeps the rows whose id, displays or status word contain every
// word typed; at most `rowLimit` rows are drawn (the count says how many match), so 10,000 devices
// never make 10,000 rows.
const rowLimit = 100;
const byName = new Intl.Collator("en", { numeric: true });
let sortedRows = null;       // index rows in id order, recomputed when rows come or go
let listQueued = false;
const hashParams = () => new URLSearchParams(location.hash.slice(1));
const search = document.getElementById("search");
search.value = hashParams().get("search") || "";
const ownerOf = id => { const e = devices.get(id); return e && e.attachedTo ? e.attachedTo : id; };
function rows() {
  if (!sortedRows) sortedRows = [...devices.values()].filter(e => e.kind === "device" || !e.attachedTo)
    .sort((a, b) => byName.compare(a.id, b.id));
  return sortedRows;
}
const rowText = e => [e.id, ...(e.displays || []), e.status, e.alive ? "alive" : ""].join(" ").toLowerCase();
function drawList() {
  listQueued = false;
  const words = search.value.toLowerCase().split(/\s+/).filter(w => w);
  const all = rows(), shown = [];
  let matches = 0;
  for (const e of all) {
    if (words.length) { const text = rowText(e); if (!words.every(w => text.includes(w))) continue; }
    matches += 1;
    if (shown.length < rowLimit) shown.push(e);
  }
  const list = document.getElementById("devices");
  list.dataset.matches = String(matches);
  list.dataset.shown = String(shown.length);
  document.getElementById("matches").textContent = (words.length ? `${matches} of ${all.length} match` : `${all.length} devices`)
    + (matches > shown.length ? ` · first ${shown.length} shown` : "");
  list.replaceChildren(...shown.map(e => el("li", { class: "device-row", "data-id": e.id, "data-kind": e.kind, "data-alive": String(e.alive),
      "data-status": e.status, "aria-selected": String(e.id === ownerOf(selected || "")) },
    el("span", { class: "word" }, e.status), e.id,
    e.displays ? el("span", { class: "displays" }, "+ " + e.displays.join(", ")) : "")));
}
// Changes come as fast as batches: the list is drawn again at most every 200 ms.
function queueList() { if (!listQueued) { listQueued = true; setTimeout(drawList, 200); } }
search.addEventListener("input", drawList);
document.getElementById("devices").addEventListener("click", e => {
  const row = e.target.closest(".device-row");
  if (row) location.hash = "device=" + encodeURIComponent(row.dataset.id);
});

const totalNames = [["devices", "devices"], ["displays", "displays"], ["attachedDisplays", "attached"], ["alive", "alive"],
  ["dead", "dead"], ["appsRunning", "apps running"], ["sessionsRunning", "cameras in use"], ["sessionsWaiting", "sessions waiting"],
  ["camerasHeld", "camera systems held"], ["cameraSystems", "camera systems"], ["pipWindows", "PiP windows"],
  ["audioActive", "audio sessions"], ["microphonesHeld", "microphones held"]];
let drawnTotals = "";
function drawTotals() {
  if (!totals) return;
  const text = JSON.stringify(totals);
  if (text === drawnTotals) return;   // most batches change no total
  drawnTotals = text;
  document.getElementById("totals").replaceChildren(...totalNames.map(([key, words]) =>
    el("span", { class: "total", "data-total": key, "data-value": String(totals[key]) }, el("b", {}, totals[key].toLocaleString("en")), ` ${words}`)));
}

// The device shown: `#device=ID`, else the first row. Fetched whole, and again when a change touches it.
let detailBusy = false, detailAgain = false;
function select() {
  const asked = hashParams().get("device");
  const id = asked || selected || (rows()[0] || {}).id || null;
  if (id === selected && detail) return;
  selected = id;
  if (selected) document.body.dataset.device = selected; else delete document.body.dataset.device;
  detail = null;
  queueList();
  if (past !== null) showPast(Number(slider.value)); else loadDetail();
}
async function loadDetail() {
  if (!selected) return;
  if (detailBusy) { detailAgain = true; return; }
  detailBusy = true;
  const id = selected, box = document.getElementById("detail");
  try {
    const response = await fetch("device.json?id=" + encodeURIComponent(id));
    const r = await response.json();
    if (id === selected) {
      detail = response.ok ? r : { screens: [], cameras: [] };
      box.dataset.id = id;
      box.dataset.sequence = String(r.sequence || 0);
      box.querySelector(".caption").textContent = response.ok ? `${id}` : r.error;
      if (past === null) { drawScreens(); drawCameras(); setTimeout(checkLayout, 0); }
      // The load's figure (docs/PERFORMANCE.md): ms from navigation to totals, list and device drawn.
      if (!document.body.dataset.drawnMs) document.body.dataset.drawnMs = String(Math.round(performance.now()));
    }
  } catch (e) {
    box.querySelector(".caption").textContent = String(e);
  } finally {
    detailBusy = false;
    if (detailAgain) { detailAgain = false; loadDetail(); }
  }
}
window.addEventListener("hashchange", () => { search.value = hashParams().get("search") || search.value; select(); });

function whole(message) {
  version = message.version;
  devices.clear();
  for (const e of message.devices) devices.set(e.id, e);
  sortedRows = null;
  totals = message.totals;
  document.querySelector("#timeline ol").replaceChildren();
  addTimeline(message.timeline);
  drawTotals(); drawList(); drawHA(message.highAvailability);
  setSequence(message.sequence, message.following);
  if (selected && detail) loadDetail(); else select();
  if (askedHistory !== null && past === null) showPast(askedHistory);
  if (whyApp) showWhy(whyApp);
}

function change(message) {
  if (version === null || message.version !== version + 1) { reconnect(); return; }
  version = message.version;
  for (const id of message.removedDevices) devices.delete(id);
  // The sorted rows are kept when only rows' contents changed (a few per batch); rows that come,
  // go or change attachment sort them again.
  for (const e of message.devices) {
    const old = devices.get(e.id);
    if (!old || old.attachedTo !== e.attachedTo || message.devices.length > 50) sortedRows = null;
    else if (sortedRows) { const i = sortedRows.indexOf(old); if (i >= 0) sortedRows[i] = e; }
    devices.set(e.id, e);
  }
  if (message.removedDevices.length) sortedRows = null;
  if (message.devices.length || message.removedDevices.length) queueList();
  totals = message.totals;
  drawTotals();
  addTimeline(message.timeline);
  setSequence(message.sequence, message.following);
  const touched = new Set(message.touched);
  if (!selected) select();
  else if (touched.has(ownerOf(selected))) loadDetail();
  if (whyApp && touched.has(ownerOf(whyApp.split("/")[0]))) showWhy(whyApp);
}

// The why panel (`ctl why`): click an app's window, PiP or audio session; it follows live while open.
let whyApp = null;
function decidedText(d) {
  if (!d) return [];
  return [el("span", { class: "rule", "data-rule": d.rule }, d.rule),
    el("span", { class: "cause" }, d.sequence !== undefined && d.sequence !== null
      ? `#${d.sequence} ${d.command}` + (d.event ? ` → ${d.event}` : "") : "read from the state")];
}
function drawWhy(r) {
  const body = document.querySelector("#why .body");
  const parts = [el("div", { class: "app", "data-app": r.app }, `${r.app} at #${r.sequence}: ${r.scene}, role ${r.role}`)];
  if (r.session) {
    parts.push(el("div", { class: "why-session", "data-state": r.session.state }, `camera session: ${r.session.state} `, ...decidedText(r.session.decided)));
    const c = r.session.camera;
    if (c) parts.push(el("div", { class: "why-camera", "data-holder": c.holder || "" },
      `${c.system}: held by ${c.holder || "nobody"}` + (c.token ? `, token ${c.token}` : ""),
      c.waiters.length ? el("ol", { class: "waiters" }, ...c.waiters.map(w => el("li", { "data-app": w }, w))) : " · nobody waiting"));
  } else parts.push(el("div", { class: "why-session" }, "camera session: none"));
  if (r.pip) parts.push(el("div", { class: "why-pip" }, `PiP: ${r.pip.window} `, ...decidedText(r.pip.decided)));
  const a = r.audio;
  parts.push(el("div", { class: "why-audio", "data-active": String(a.active) },
    `audio: ${a.category}, ${a.active ? "active" : "inactive"}` + (a.interruptedBy ? `, interrupted by ${a.interruptedBy}` : "")
      + ` · microphone: ${a.microphoneHolder || "free"} `, ...decidedText(a.decided)));
  body.replaceChildren(...parts);
}
async function showWhy(app) {
  whyApp = app;
  const panel = document.getElementById("why");
  panel.hidden = false;
  panel.dataset.app = app;
  try {
    const response = await fetch("why.json?app=" + encodeURIComponent(app));
    const r = await response.json();
    if (whyApp !== app) return;
    if (!response.ok) { document.querySelector("#why .body").replaceChildren(el("div", { class: "error" }, r.error)); return; }
    drawWhy(r);
    panel.dataset.sequence = String(r.sequence);
  } catch (e) { document.querySelector("#why .body").replaceChildren(el("div", { class: "error" }, String(e))); }
}
document.addEventListener("click", e => {
  const target = e.target.closest("[data-why]");
  if (target) showWhy(target.dataset.why);
});
document.getElementById("why-close").addEventListener("click", e => {
  e.stopPropagation(); whyApp = null; document.getElementById("why").hidden = true;
});
// `?why=NODE/APP` opens the panel at load (tests, links).
if (new URLSearchParams(location.search).has("why")) whyApp = new URLSearchParams(location.search).get("why");

// The HA panel: every coordinator and etcd member, refreshed about once a second by the server.
function drawHA(h) {
  if (!h) return;
  const r = h.report, panel = document.getElementById("ha");
  panel.hidden = false;
  panel.dataset.leader = r.leader || "";
  panel.querySelector(".headline").textContent = r.leader ? `leader ${r.leader}` : "no coordinator leads";
  panel.querySelector(".coordinators").replaceChildren(...r.coordinators.map(c =>
    el("div", { class: "coordinator", "data-name": c.name, "data-role": c.role, "data-term": String(c.term) },
      c.answeredInMilliseconds === undefined || c.answeredInMilliseconds === null
        ? `${c.name}: unreachable` + (c.error ? ` (${c.error})` : "")
        : `${c.name}: ${c.role} · term ${c.term} · #${c.appliedSequence}` + (c.lag !== undefined && c.lag !== null ? ` · lag ${c.lag}` : "")
          + ` · ${c.answeredInMilliseconds} ms` + (c.error ? ` · ${c.error}` : ""))));
  panel.querySelector(".etcd").replaceChildren(...r.etcd.map(m =>
    el("div", { class: "etcd-member", "data-endpoint": m.endpoint, "data-leader": String(m.isLeader), "data-reachable": String(m.reachable) },
      m.reachable ? `etcd ${m.endpoint}${m.isLeader ? " (raft leader)" : ""} · index ${m.raftIndex} · ${Math.round(m.databaseSizeBytes / 1024)} kB`
        + (m.errors.length ? ` · ${m.errors.join("; ")}` : "")
        : `etcd ${m.endpoint}: ${m.errors.join("; ")}`)));
}

function reconnect() {
  if (source) source.close();
  version = null;
  source = new EventSource("events");
  source.addEventListener("whole", e => whole(JSON.parse(e.data)));
  source.addEventListener("change", e => change(JSON.parse(e.data)));
  source.addEventListener("ha", e => drawHA(JSON.parse(e.data)));
  source.onerror = () => { document.getElementById("status").textContent = "reconnecting…"; };
}
reconnect();
</script>
</body>
</html>
"""#
}
